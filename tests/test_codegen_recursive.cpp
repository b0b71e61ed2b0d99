// The recursions of the generated code (codegen::GeneratedDynamics): Newton–Euler inverse
// dynamics equals M q̈ − f of the derived equations (an independent route: Gibbs–Appell through
// GiNaC and the tape) at random states for every example, chains, a branching tree with every
// kind of load, and the URDF robots; composite-inertia M equals the equations' M; forward
// dynamics by M = Lᵀ D L undoes inverse dynamics; gravity equals ∂V/∂q of the gravitational
// potential; inverse dynamics grows linearly with the number of links. The C99 output compiles
// with gcc -std=c99 -Wall -Werror and computes the same numbers.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "appell/codegen/cpp_generator.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/io/urdf_reader.hpp"
#include "appell/kinematics/kinematics.hpp"
#include "appell/kinematics/vector_algebra.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/principles/derive.hpp"
#include "codegen/generated_dynamics.hpp"  // internal (src/)
#include "support/run_cli.hpp"
#include "support/test_models.hpp"

namespace {

using appell::test_support::spatial_chain_yaml;
using appell::test_support::tree_yaml;

using namespace appell;
namespace fs = std::filesystem;

std::vector<std::string> example_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(APPELL_EXAMPLES_DIR))
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

struct Checked {
  std::string name;
  std::shared_ptr<const model::Model> model;
};

std::mt19937& random_engine() {
  static std::mt19937 engine(20261124);
  return engine;
}

std::vector<double> random_vector(std::size_t n, double low, double high) {
  std::uniform_real_distribution<double> u(low, high);
  std::vector<double> v(n);
  for (auto& x : v) x = u(random_engine());
  return v;
}

double max_abs(const std::vector<double>& v) {
  double m = 0.0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

void expect_close(const std::vector<double>& got, const std::vector<double>& want, double scale,
                  double tolerance, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tolerance * std::max(scale, 1e-12)) << what << "[" << i << "]";
}

// Every function of GeneratedDynamics against the tape of the derived equations.
void check_against_equations(const std::shared_ptr<const model::Model>& model,
                             const std::map<std::string, double>& values = {}) {
  const auto eq = principles::derive(model, principles::Method::GibbsAppell);
  const codegen::GeneratedDynamics generated(eq, values);
  const num::CompiledEquations compiled(eq, values);
  const std::size_t n = eq.dof();
  const auto nn = static_cast<Eigen::Index>(n);
  for (int s = 0; s < 4; ++s) {
    SCOPED_TRACE("state " + std::to_string(s));
    const double t = 0.3 + 0.4 * s;
    const auto q = random_vector(n, -1.2, 1.2), qd = random_vector(n, -2.0, 2.0),
               qdd = random_vector(n, -3.0, 3.0);
    Eigen::MatrixXd M;
    Eigen::VectorXd f;
    compiled.evaluate(t, Eigen::Map<const Eigen::VectorXd>(q.data(), nn),
                      Eigen::Map<const Eigen::VectorXd>(qd.data(), nn), M, f);
    const Eigen::VectorXd a = Eigen::Map<const Eigen::VectorXd>(qdd.data(), nn);
    const Eigen::VectorXd Ma = M * a;
    const double scale = max_abs(std::vector<double>(Ma.data(), Ma.data() + n)) +
                         f.cwiseAbs().maxCoeff() + M.cwiseAbs().maxCoeff();

    // Newton–Euler against M q̈ − f.
    const Eigen::VectorXd tau_equations = Ma - f;
    expect_close(generated.inverse_dynamics(t, q, qd, qdd),
                 std::vector<double>(tau_equations.data(), tau_equations.data() + n), scale, 1e-11,
                 "inverse dynamics");
    // Composite rigid bodies against M.
    const Eigen::MatrixXd Mt = M.transpose();
    expect_close(generated.mass_matrix(t, q, qd), std::vector<double>(Mt.data(), Mt.data() + n * n),
                 scale, 1e-12, "M");
    expect_close(generated.forcing(t, q, qd), std::vector<double>(f.data(), f.data() + n), scale,
                 1e-11, "f");
    const auto h = generated.nonlinear_effects(t, q, qd);
    for (std::size_t i = 0; i < n; ++i)
      EXPECT_NEAR(h[i], -f[static_cast<Eigen::Index>(i)], 1e-11 * scale);

    // Forward dynamics by Lᵀ D L: the tape's accelerations, and forward(inverse(q̈)) = q̈.
    const Eigen::VectorXd qdd_tape = compiled.accelerations(M, f);
    const auto forward = generated.forward_dynamics(t, q, qd);
    ASSERT_TRUE(forward.has_value());
    const double cond = M.norm() * M.inverse().norm();
    expect_close(*forward, std::vector<double>(qdd_tape.data(), qdd_tape.data() + n),
                 qdd_tape.cwiseAbs().maxCoeff() + 1.0, 1e-12 * cond, "forward");
    const auto tau = generated.inverse_dynamics(t, q, qd, qdd);
    const auto back = generated.forward_dynamics(t, q, qd, tau);
    ASSERT_TRUE(back.has_value());
    expect_close(*back, qdd, max_abs(qdd), 1e-12 * cond, "forward(inverse(qdd))");
  }
}

class RecursiveExample : public ::testing::TestWithParam<std::string> {};

TEST_P(RecursiveExample, AgreesWithTheEquations) {
  const auto model =
      io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/" + GetParam() + ".yaml");
  if (!model->constraints.empty()) GTEST_SKIP() << "constrained: no generated code";
  const auto eq = principles::derive(model, principles::Method::GibbsAppell);
  const codegen::GeneratedDynamics generated(eq);
  // Only the carrier frames of relative motion are left to M and f.
  EXPECT_EQ(generated.recursive(), !model->relative_to) << generated.fallback_reason();
  std::map<std::string, double> values;
  for (const auto& input : model->inputs) values[input.name] = 0.7;
  check_against_equations(model, values);
}

INSTANTIATE_TEST_SUITE_P(Codegen, RecursiveExample, ::testing::ValuesIn(example_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(CodegenRecursive, SpatialChainsAgreeWithTheEquations) {
  for (int n : {1, 2, 7}) {
    SCOPED_TRACE(std::to_string(n) + " links");
    check_against_equations(io::parse_model(spatial_chain_yaml(n), "chain.yaml"));
  }
}

// A long planar chain takes the articulated-body recursion, a short spatial one M = Lᵀ D L:
// both forward dynamics are checked against the tape's.
TEST(CodegenRecursive, BothForwardDynamicsAreExercised) {
  const auto planar = io::parse_model(spatial_chain_yaml(12, true), "planar.yaml");
  EXPECT_EQ(codegen::GeneratedDynamics(principles::derive(planar, principles::Method::GibbsAppell))
                .forward_method(),
            "articulated bodies");
  check_against_equations(planar);
  const auto spatial = io::parse_model(spatial_chain_yaml(3), "spatial.yaml");
  EXPECT_EQ(codegen::GeneratedDynamics(principles::derive(spatial, principles::Method::GibbsAppell))
                .forward_method(),
            "M = L^T D L");
}

TEST(CodegenRecursive, BranchingTreeWithEveryLoadAgreesWithTheEquations) {
  const auto model = io::parse_model(tree_yaml, "tree.yaml");
  const auto eq = principles::derive(model, principles::Method::GibbsAppell);
  EXPECT_TRUE(codegen::GeneratedDynamics(eq).recursive());
  check_against_equations(model, {{"u", 0.4}, {"m", 1.1}});
}

TEST(CodegenRecursive, UrdfRobotsAgreeWithTheEquations) {
  for (const char* robot : {"ur5_robot.urdf", "panda.urdf"}) {
    SCOPED_TRACE(robot);
    check_against_equations(
        io::read_urdf_file(std::string(APPELL_EXAMPLES_DIR) + "/urdf/" + robot));
  }
}

// g(q) = ∂V/∂q_j with V = −Σ m g·r_C, differentiated by GiNaC from the kinematics' positions.
TEST(CodegenRecursive, GravityIsTheGradientOfThePotential) {
  const auto model = io::parse_model(tree_yaml, "tree.yaml");
  const auto eq = principles::derive(model, principles::Method::GibbsAppell);
  const codegen::GeneratedDynamics generated(eq);
  sym::Differentiator d(model->time_functions);
  kin::Kinematics kinematics(model, d);
  GiNaC::ex potential = 0;
  const GiNaC::matrix g = kin::column(*model->gravity);
  for (const auto& p : model->mass_points())
    potential -= p.mass * kin::dot(g, kinematics.position(p.point));
  const GiNaC::exmap parameters = model->parameter_substitution();
  const std::size_t n = model->dof();
  for (int s = 0; s < 3; ++s) {
    const auto q = random_vector(n, -1.5, 1.5);
    GiNaC::exmap at = parameters;
    for (std::size_t j = 0; j < n; ++j) at[model->coordinate_symbol(j)] = q[j];
    std::vector<double> want(n);
    for (std::size_t j = 0; j < n; ++j)
      want[j] = GiNaC::ex_to<GiNaC::numeric>(
                    GiNaC::evalf(potential.diff(model->coordinate_symbol(j)).subs(at)))
                    .to_double();
    expect_close(generated.gravity(0.0, q), want, max_abs(want), 1e-12, "gravity");
  }
}

// Newton–Euler is O(n): each added link adds the same number of operations, while the
// composite-inertia M grows with the number of its entries.
TEST(CodegenRecursive, InverseDynamicsGrowsLinearly) {
  std::map<int, codegen::OperationCounts> inverse, mass;
  for (int n : {6, 12, 24}) {
    const auto eq = principles::derive(io::parse_model(spatial_chain_yaml(n), "chain.yaml"),
                                       principles::Method::GibbsAppell);
    const codegen::GeneratedDynamics generated(eq);
    inverse[n] = generated.operation_counts(codegen::GeneratedFunction::InverseDynamics);
    mass[n] = generated.operation_counts(codegen::GeneratedFunction::MassMatrix);
  }
  const double first = static_cast<double>(inverse[12].total() - inverse[6].total()) / 6.0;
  const double second = static_cast<double>(inverse[24].total() - inverse[12].total()) / 12.0;
  EXPECT_NEAR(second, first, 0.02 * first);
  EXPECT_LT(static_cast<double>(inverse[24].total()), 24 * 1.1 * first);
  // Per link, fewer operations than the general algorithm's: 852 multiplications and 738
  // additions for the six links of the PUMA 560, about 265 a link (the figure issue 15 quotes).
  EXPECT_LT(first, 200.0);
  // M: quadratic, so four times the entries cost more than twice the operations.
  EXPECT_GT(mass[24].total(), 2 * mass[12].total());
}

// ---- the C output ---------------------------------------------------------------------------

int exit_code(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path scratch_dir() {
  struct Scratch {
    fs::path path =
        fs::temp_directory_path() / ("appell_codegen_c_tests_" + std::to_string(getpid()));
    ~Scratch() {
      std::error_code ignored;
      if (!std::getenv("APPELL_KEEP_TEST_FILES")) fs::remove_all(path, ignored);
    }
  };
  static const Scratch scratch;
  fs::create_directories(scratch.path);
  return scratch.path;
}

std::string list(const std::vector<double>& values) {
  std::ostringstream s;
  s.precision(17);
  for (std::size_t i = 0; i < values.size(); ++i) s << (i ? ", " : "") << values[i];
  return s.str();
}

// The C header of a model compiled as C99 with every warning an error; a C driver prints M,
// f, h, g, Q = inverse(qdd) and forward(Q), compared with GeneratedDynamics.
void check_c_output(const std::string& name, const std::shared_ptr<const model::Model>& model) {
  const auto eq = principles::derive(model, principles::Method::GibbsAppell);
  const codegen::GeneratedDynamics generated(eq);
  const std::size_t n = eq.dof();
  const fs::path dir = scratch_dir();
  const fs::path header = dir / (name + ".h"), driver = dir / (name + "_driver.c"),
                 program = dir / (name + "_driver"), output = dir / (name + ".out"),
                 log = dir / (name + ".log");
  codegen::CodegenOptions options;
  options.namespace_name = "robot::" + codegen::default_namespace(model->name);
  std::ofstream(header) << codegen::generate_c_header(eq, options);
  const std::string pre = "robot_" + codegen::default_namespace(model->name) + "_";
  const auto q = random_vector(n, -1.0, 1.0), qd = random_vector(n, -1.0, 1.0),
             qdd = random_vector(n, -1.0, 1.0);
  std::ofstream(driver) << "#include <stdio.h>\n#include \"" << header.string() << "\"\n"
                        << "static void print(const double* v, int count) {\n"
                        << "  int i;\n  for (i = 0; i < count; ++i) printf(\"%.17g\\n\", v[i]);\n"
                        << "}\n"
                        << "int main(void) {\n"
                        << "  const " << pre << "parameters p = " << pre
                        << "default_parameters();\n"
                        << "  const " << pre << "inputs in = " << pre << "default_inputs();\n"
                        << "  const double q[] = {" << list(q) << "};\n"
                        << "  const double qd[] = {" << list(qd) << "};\n"
                        << "  const double qdd[] = {" << list(qdd) << "};\n"
                        << "  double M[" << n * n << "], f[" << n << "], h[" << n << "], g[" << n
                        << "], Q[" << n << "], back[" << n << "];\n"
                        << "  int ok;\n"
                        << "  " << pre << "mass_matrix_and_forcing(0.5, q, qd, &p, &in, M, f);\n"
                        << "  " << pre << "nonlinear_effects(0.5, q, qd, &p, &in, h);\n"
                        << "  " << pre << "gravity(0.5, q, &p, &in, g);\n"
                        << "  " << pre << "inverse_dynamics(0.5, q, qd, qdd, &p, &in, Q);\n"
                        << "  ok = " << pre << "forward_dynamics(0.5, q, qd, &p, &in, back, Q);\n"
                        << "  print(M, " << n * n << ");\n  print(f, " << n << ");\n"
                        << "  print(h, " << n << ");\n  print(g, " << n << ");\n"
                        << "  print(Q, " << n << ");\n  print(back, " << n << ");\n"
                        << "  printf(\"%d\\n\", ok);\n  return 0;\n}\n";
  const std::string compile = "gcc -std=c99 -O1 -Wall -Wextra -Wpedantic -Werror -o " +
                              program.string() + " " + driver.string() + " -lm > " + log.string() +
                              " 2>&1";
  ASSERT_EQ(exit_code(std::system(compile.c_str())), 0) << read_text(log);
  ASSERT_EQ(exit_code(std::system((program.string() + " > " + output.string()).c_str())), 0);
  std::ifstream numbers(output);
  auto next = [&](std::size_t count) {
    std::vector<double> v(count);
    for (auto& x : v) numbers >> x;
    return v;
  };
  const auto M = next(n * n), f = next(n), h = next(n), g = next(n), Q = next(n), back = next(n);
  int ok = 0;
  numbers >> ok;
  ASSERT_TRUE(numbers.good());
  const double scale = max_abs(M) + max_abs(f) + max_abs(Q);
  expect_close(M, generated.mass_matrix(0.5, q, qd), scale, 1e-13, "C M");
  expect_close(f, generated.forcing(0.5, q, qd), scale, 1e-13, "C f");
  expect_close(h, generated.nonlinear_effects(0.5, q, qd), scale, 1e-13, "C h");
  expect_close(g, generated.gravity(0.5, q), scale, 1e-13, "C g");
  expect_close(Q, generated.inverse_dynamics(0.5, q, qd, qdd), scale, 1e-13, "C Q");
  EXPECT_EQ(ok, 1);
  expect_close(back, qdd, max_abs(qdd), 1e-9, "C forward(inverse(qdd))");
}

TEST(CodegenC, CompilesAsC99AndComputesTheSameNumbers) {
  for (const char* name :
       {"planar_2r", "heavy_top", "spring_damper_cart", "rod_on_rotating_axes", "three_link_arm"}) {
    SCOPED_TRACE(name);
    check_c_output(name,
                   io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/" + name + ".yaml"));
  }
  SCOPED_TRACE("tree");
  check_c_output("tree", io::parse_model(tree_yaml, "tree.yaml"));
}

TEST(CodegenC, CliLanguageOption) {
  using appell::test_support::run_cli;
  const fs::path out = scratch_dir() / "cli.h";
  const auto ok = run_cli("codegen " + std::string(APPELL_EXAMPLES_DIR) +
                          "/planar_2r.yaml --language c --out " + out.string());
  ASSERT_EQ(ok.code, 0) << ok.out;
  const std::string text = read_text(out);
  EXPECT_NE(text.find("static inline void planar_2r_inverse_dynamics("), std::string::npos);
  EXPECT_NE(text.find("#include <math.h>"), std::string::npos);
  const auto bad = run_cli("codegen " + std::string(APPELL_EXAMPLES_DIR) +
                           "/planar_2r.yaml --language fortran --out " + out.string());
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.out.find("fortran"), std::string::npos) << bad.out;
}

}  // namespace
