// `appell codegen`: the generated header compiles warning-free on its own and computes what the
// in-process tape computes, for every shipped example; forward and inverse dynamics undo each
// other; the command's options and errors.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "appell/codegen/cpp_generator.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/principles/derive.hpp"
#include "support/run_cli.hpp"

namespace {

using namespace appell;
namespace fs = std::filesystem;

std::vector<std::string> example_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(APPELL_EXAMPLES_DIR))
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A directory of this process's own, so that concurrent test runs do not share files; removed
// at exit unless APPELL_KEEP_TEST_FILES is set (to look at the generated code).
fs::path scratch_dir() {
  struct Scratch {
    fs::path path =
        fs::temp_directory_path() / ("appell_codegen_tests_" + std::to_string(getpid()));
    ~Scratch() {
      std::error_code ignored;
      if (!std::getenv("APPELL_KEEP_TEST_FILES")) fs::remove_all(path, ignored);
    }
  };
  static const Scratch scratch;
  fs::create_directories(scratch.path);
  return scratch.path;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int exit_code(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

using appell::test_support::CliRun;
using appell::test_support::run_cli;

// Fixed, unremarkable states: t, q, qd and a test acceleration, all away from the
// singularities of the examples (the heavy top's nutation angle is not 0).
struct State {
  double t;
  std::vector<double> q, qd, qdd;
};
std::vector<State> test_states(std::size_t n) {
  std::vector<State> states;
  for (int s = 0; s < 3; ++s) {
    State state{0.4 + 0.7 * s, {}, {}, {}};
    for (std::size_t j = 0; j < n; ++j) {
      const double k = static_cast<double>(j) + 1.0;
      state.q.push_back(0.35 + 0.45 * std::sin(1.3 * k + s));
      state.qd.push_back(0.8 * std::cos(0.9 * k + 2.0 * s));
      state.qdd.push_back(0.5 - 0.3 * k + 0.2 * s);
    }
    states.push_back(state);
  }
  return states;
}

std::string list(const std::vector<double>& values) {
  std::ostringstream s;
  s.precision(17);
  for (std::size_t i = 0; i < values.size(); ++i) s << (i ? ", " : "") << values[i];
  return s.str();
}

// A program that sets the inputs, evaluates every generated function at the states and prints
// the numbers one per line, per state: M (combined), M (alone), f (combined), f (alone),
// forward ok, qdd, Q = inverse(test qdd), inverse(qdd), forward-with-Q ok, forward(Q).
std::string driver_source(const fs::path& header, const std::string& ns,
                          const codegen::GeneratedLayout& layout,
                          const std::map<std::string, double>& input_values,
                          const std::vector<State>& states) {
  std::ostringstream d;
  d.precision(17);
  d << "#include <cstdio>\n#include \"" << header.string() << "\"\n\n"
    << "namespace {\n"
    << "void print(const double* v, int count) {\n"
    << "  for (int i = 0; i < count; ++i) std::printf(\"%.17g\\n\", v[i]);\n"
    << "}\n"
    << "}  // namespace\n\n"
    << "int main() {\n"
    << "  using namespace " << ns << ";\n"
    << "  const Parameters p;\n"
    << "  Inputs in;\n";
  for (const auto& field : layout.inputs)
    d << "  in." << field.cpp_name << " = " << input_values.at(field.name) << ";\n";
  d << "  constexpr int n = dof;\n";
  for (std::size_t s = 0; s < states.size(); ++s) {
    const State& st = states[s];
    d << "  {\n"
      << "    const double t = " << st.t << ";\n"
      << "    const double q[] = {" << list(st.q) << "};\n"
      << "    const double qd[] = {" << list(st.qd) << "};\n"
      << "    const double qdd_test[] = {" << list(st.qdd) << "};\n"
      << "    double M[n * n], M_alone[n * n], f[n], f_alone[n], qdd[n], Q[n], Q_of_qdd[n],\n"
      << "        back[n];\n"
      << "    mass_matrix_and_forcing(t, q, qd, p, in, M, f);\n"
      << "    mass_matrix(t, q, qd, p, in, M_alone);\n"
      << "    forcing(t, q, qd, p, in, f_alone);\n"
      << "    const double ok = forward_dynamics(t, q, qd, p, in, qdd) ? 1.0 : 0.0;\n"
      << "    inverse_dynamics(t, q, qd, qdd_test, p, in, Q);\n"
      << "    inverse_dynamics(t, q, qd, qdd, p, in, Q_of_qdd);\n"
      << "    const double ok_back = forward_dynamics(t, q, qd, p, in, back, Q) ? 1.0 : 0.0;\n"
      << "    print(M, n * n);\n    print(M_alone, n * n);\n    print(f, n);\n"
      << "    print(f_alone, n);\n    print(&ok, 1);\n    print(qdd, n);\n    print(Q, n);\n"
      << "    print(Q_of_qdd, n);\n    print(&ok_back, 1);\n    print(back, n);\n"
      << "  }\n";
  }
  d << "  return 0;\n}\n";
  return d.str();
}

double max_abs(const Eigen::VectorXd& v) { return v.size() ? v.cwiseAbs().maxCoeff() : 0.0; }

// |got - want| within `tolerance` of want's largest entry (and of 1e-12 when that is 0).
void expect_close(const Eigen::VectorXd& got, const Eigen::VectorXd& want, double tolerance,
                  const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  const double bound = tolerance * std::max(max_abs(want), 1e-12);
  for (Eigen::Index i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], bound) << what << "[" << i << "]";
}

class CodegenExample : public ::testing::TestWithParam<std::string> {};

TEST_P(CodegenExample, GeneratedHeaderCompilesAndAgreesWithTheTape) {
  const std::string name = GetParam();
  const auto model = io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/" + name + ".yaml");
  const auto eq = principles::derive(model, principles::Method::GibbsAppell);
  // With constraints M and f are the tree's (their rows are tests/test_jit_constraints.cpp's).
  const std::size_t n = eq.dof();

  // A changed parameter default (exercises --set) and non-zero inputs.
  std::map<std::string, double> values;
  if (!model->parameters.empty()) {
    const std::string& first = model->parameters.front().name;
    values[first] = 1.25 * model->parameter_values().at(first) + 0.1;
  }
  const auto layout = codegen::generated_layout(eq, values);
  std::map<std::string, double> input_values;
  for (std::size_t i = 0; i < layout.inputs.size(); ++i)
    input_values[layout.inputs[i].name] = 0.3 + 0.25 * static_cast<double>(i);
  std::map<std::string, double> all_values = values;
  all_values.insert(input_values.begin(), input_values.end());

  const std::string ns = "appell_test::" + codegen::default_namespace(model->name);
  const fs::path dir = scratch_dir();
  const fs::path header = dir / (name + ".hpp"), driver = dir / (name + "_driver.cpp"),
                 program = dir / (name + "_driver"), output = dir / (name + ".out"),
                 log = dir / (name + ".log");
  std::ofstream(header) << codegen::generate_cpp_header(eq, {ns, values});
  const auto states = test_states(n);
  std::ofstream(driver) << driver_source(header, ns, layout, input_values, states);

  const std::string compile = std::string(APPELL_CXX_COMPILER) +
                              " -std=c++17 -O1 -Wall -Wextra -Wpedantic -Wshadow -Werror -o " +
                              program.string() + " " + driver.string() + " > " + log.string() +
                              " 2>&1";
  ASSERT_EQ(exit_code(std::system(compile.c_str())), 0) << read_text(log);
  ASSERT_EQ(exit_code(std::system((program.string() + " > " + output.string()).c_str())), 0);

  std::ifstream numbers(output);
  auto next = [&](std::size_t count) {
    Eigen::VectorXd v(static_cast<Eigen::Index>(count));
    for (Eigen::Index i = 0; i < v.size(); ++i) numbers >> v[i];
    return v;
  };
  const num::CompiledEquations compiled(eq, all_values);
  for (std::size_t s = 0; s < states.size(); ++s) {
    SCOPED_TRACE(name + ", state " + std::to_string(s));
    const State& st = states[s];
    const auto nn = static_cast<Eigen::Index>(n);
    const Eigen::VectorXd q = Eigen::Map<const Eigen::VectorXd>(st.q.data(), nn);
    const Eigen::VectorXd qd = Eigen::Map<const Eigen::VectorXd>(st.qd.data(), nn);
    const Eigen::VectorXd qdd_test = Eigen::Map<const Eigen::VectorXd>(st.qdd.data(), nn);
    Eigen::MatrixXd M_tape;
    Eigen::VectorXd f_tape;
    compiled.evaluate(st.t, q, qd, M_tape, f_tape);
    const Eigen::VectorXd qdd_tape = compiled.accelerations(M_tape, f_tape);
    const Eigen::MatrixXd M_tape_t = M_tape.transpose();  // row-major order as a vector
    const Eigen::VectorXd M_rows = Eigen::Map<const Eigen::VectorXd>(M_tape_t.data(), nn * nn);

    const Eigen::VectorXd M = next(n * n), M_alone = next(n * n), f = next(n), f_alone = next(n),
                          ok = next(1), qdd = next(n), Q = next(n), Q_of_qdd = next(n),
                          ok_back = next(1), back = next(n);
    ASSERT_TRUE(numbers.good()) << "the driver printed too few numbers";

    expect_close(M, M_rows, 1e-12, "M");
    expect_close(f, f_tape, 1e-12, "f");
    // The functions alone do the same arithmetic as the combined one.
    expect_close(M_alone, M, 0.0, "mass_matrix alone");
    expect_close(f_alone, f, 0.0, "forcing alone");
    ASSERT_EQ(ok[0], 1.0) << "forward_dynamics reported a singular M";
    // Two different Cholesky implementations: rounding amplified by M's condition number.
    expect_close(qdd, qdd_tape, 1e-10, "qdd");
    // Q = M qdd - f (seed 000, eq. 122) ...
    const Eigen::VectorXd Q_tape = M_tape * qdd_test - f_tape;
    const double Q_scale = max_abs(M_tape * qdd_test) + max_abs(f_tape);
    for (Eigen::Index i = 0; i < nn; ++i) EXPECT_NEAR(Q[i], Q_tape[i], 1e-12 * Q_scale) << i;
    // ... which is 0 for the accelerations forward dynamics gives, ...
    for (Eigen::Index i = 0; i < nn; ++i) EXPECT_NEAR(Q_of_qdd[i], 0.0, 1e-10 * Q_scale) << i;
    // ... and forward dynamics under Q gives back the accelerations: forward(inverse(qdd)) = qdd.
    ASSERT_EQ(ok_back[0], 1.0);
    expect_close(back, qdd_test, 1e-10, "forward(inverse(qdd))");
  }
}

INSTANTIATE_TEST_SUITE_P(Codegen, CodegenExample, ::testing::ValuesIn(example_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

// Names the model allows but C++ does not: keywords, <cmath> macros, and a member the
// derivative of an input would collide with (u's dot_u against an input named dot_u).
TEST(Codegen, AwkwardNamesBecomeDistinctValidIdentifiers) {
  const auto model = io::parse_model(R"(name: 3-awkward names
parameters: {int: 2.0, M_PI: 0.5, Parameters: 1.5, k: int*M_PI}
coordinates: [x]
inputs: [u, dot_u]
frames:
  cart: {parent: world, translation: [x, 0, 0]}
bodies:
  block: {frame: cart, mass: int, inertia: {sphere: {radius: M_PI}}}
loads:
  - generalized: {coordinate: x, value: u + dot(u) + dot_u - Parameters*k*x}
)",
                                     "awkward.yaml");
  const auto eq = principles::derive(model, principles::Method::Lagrange);
  const auto layout = codegen::generated_layout(eq);
  std::set<std::string> names;
  for (const auto& f : layout.parameters) names.insert(f.cpp_name);
  for (const auto& f : layout.inputs) names.insert(f.cpp_name);
  EXPECT_EQ(names.size(), layout.parameters.size() + layout.inputs.size());
  EXPECT_EQ(names.count("int"), 0u);
  EXPECT_EQ(names.count("M_PI"), 0u);
  EXPECT_EQ(names.count("Parameters"), 0u);
  ASSERT_EQ(layout.inputs.size(), 3u);  // u, dot(u), dot_u: the model's own names are kept
  EXPECT_EQ(layout.inputs[0].cpp_name, "u");
  EXPECT_EQ(layout.inputs[2].name, "dot_u");
  EXPECT_EQ(layout.inputs[2].cpp_name, "dot_u");
  EXPECT_EQ(layout.inputs[1].name, "dot(u)");
  EXPECT_EQ(layout.inputs[1].cpp_name, "dot_u_");
  EXPECT_EQ(codegen::default_namespace(model->name), "x_3_awkward_names");

  const fs::path dir = scratch_dir();
  const fs::path header = dir / "awkward.hpp", source = dir / "awkward.cpp",
                 log = dir / "awkward.log";
  std::ofstream(header) << codegen::generate_cpp_header(eq);
  std::ofstream(source) << "#include \"" << header.string() << "\"\n"
                        << "int main() {\n"
                        << "  double qdd[1];\n"
                        << "  const double q[] = {0.1}, qd[] = {0.2};\n"
                        << "  return x_3_awkward_names::forward_dynamics(0.0, q, qd, {}, {}, qdd) "
                           "? 0 : 1;\n"
                        << "}\n";
  const std::string compile = std::string(APPELL_CXX_COMPILER) +
                              " -std=c++20 -fsyntax-only -Wall -Wextra -Wpedantic -Werror " +
                              source.string() + " > " + log.string() + " 2>&1";
  EXPECT_EQ(exit_code(std::system(compile.c_str())), 0) << read_text(log);
}

TEST(Codegen, NamespaceNames) {
  EXPECT_TRUE(codegen::is_valid_namespace("robot"));
  EXPECT_TRUE(codegen::is_valid_namespace("robots::arm_2"));
  for (const std::string bad : {"", "2r", "class", "std", "a::", "::a", "a:b", "a b", "a__b", "_A"})
    EXPECT_FALSE(codegen::is_valid_namespace(bad)) << bad;
  EXPECT_EQ(codegen::default_namespace("planar-2r"), "planar_2r");
}

const std::string robot = std::string(APPELL_EXAMPLES_DIR) + "/planar_2r.yaml";

TEST(Codegen, CliWritesTheSameHeaderEveryTime) {
  const fs::path dir = scratch_dir();
  const std::string a = (dir / "a.hpp").string(), b = (dir / "b.hpp").string();
  const CliRun first = run_cli("codegen " + robot + " --out " + a + " --namespace robots::planar");
  ASSERT_EQ(first.code, 0) << first.out;
  ASSERT_EQ(run_cli("codegen " + robot + " --out " + b + " --namespace robots::planar").code, 0);
  const std::string text = read_text(a);
  EXPECT_EQ(text, read_text(b));
  EXPECT_NE(text.find("Generated by appell, do not edit"), std::string::npos);
  EXPECT_NE(text.find("namespace robots::planar {"), std::string::npos);
  EXPECT_NE(text.find("Method: the recursions (no equations formed)"), std::string::npos);
  EXPECT_NE(text.find("double M = 1.0;"), std::string::npos);
}

TEST(Codegen, CliSetAndMethod) {
  const std::string out = (scratch_dir() / "set.hpp").string();
  const CliRun r = run_cli("codegen " + robot + " --out " + out +
                           " --set M=2 --set g=9.80665 --method lagrange");
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string text = read_text(out);
  EXPECT_NE(text.find("double M = 2.0;"), std::string::npos) << text.substr(0, 2000);
  EXPECT_NE(text.find("double g = 9.80665;"), std::string::npos);
  // The recursions cover the planar robot: they write the functions, the equations check them.
  EXPECT_NE(text.find("Method: the recursions below write every function; the lagrange equations,"),
            std::string::npos)
      << text.substr(0, 2000);
  EXPECT_NE(r.out.find("the recursions, checked against the lagrange equations)"),
            std::string::npos)
      << r.out;
}

TEST(Codegen, CliErrorsAreUsageErrors) {
  const std::string out = (scratch_dir() / "never.hpp").string();
  for (const std::string bad : {"2r", "class", "a::b::", "std"}) {
    const CliRun r = run_cli("codegen " + robot + " --out " + out + " --namespace '" + bad + "'");
    EXPECT_EQ(r.code, 2) << bad << ": " << r.out;
    EXPECT_NE(r.out.find("--namespace"), std::string::npos) << r.out;
  }
  const CliRun unwritable = run_cli("codegen " + robot + " --out /nonexistent-dir/x.hpp");
  EXPECT_EQ(unwritable.code, 2) << unwritable.out;
  EXPECT_NE(unwritable.out.find("/nonexistent-dir/x.hpp"), std::string::npos) << unwritable.out;
  const CliRun unknown = run_cli("codegen " + robot + " --out " + out + " --set nosuch=1");
  EXPECT_EQ(unknown.code, 2) << unknown.out;
  EXPECT_NE(unknown.out.find("nosuch"), std::string::npos) << unknown.out;
  EXPECT_EQ(run_cli("codegen " + robot).code, 2);  // --out is required
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
