// `appell codegen` of a model in generalized speeds (quaternion frames, URDF floating bases): the
// generated C++ and C, compiled with every warning an error and run, against num::Dynamics in the
// speeds at random states (M̃, f̃, h, g, τ, u̇, q̇ = W u, q̈ = W u̇ + γ), forward dynamics undoing
// inverse dynamics, and a torque-free box whose u̇ obeys Euler's equations I ẇ + w × I w = 0
// (written out here, no library involved). The loadable C source compiled and loaded
// (num::load_native_library) gives the same numbers through its entry points; the command line
// writes the quaternion examples and refuses what is not written in the speeds, saying why.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <Eigen/Dense>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "appell/codegen/cpp_generator.hpp"
#include "appell/codegen/loadable_source.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/io/urdf_reader.hpp"
#include "appell/numeric/dynamics.hpp"
#include "appell/numeric/native_library.hpp"
#include "appell/numeric/speeds.hpp"
#include "support/c_compiler.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"
#include "support/spawn_cli.hpp"

namespace {

using namespace appell;
namespace fs = std::filesystem;

const std::string examples = APPELL_EXAMPLES_DIR;

std::shared_ptr<const model::Model> load(const std::string& name) {
  if (name.size() > 5 && name.substr(name.size() - 5) == ".urdf") {
    io::UrdfOptions options;
    options.floating_base = true;
    return io::read_urdf_file(examples + "/urdf/" + name, options);
  }
  return io::read_model_file(examples + "/speeds/" + name);
}

std::string read_text(const fs::path& path) { return test_support::file_text(path.string()); }

int exit_code(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

// A state in the speeds: t, q with unit quaternions, u, a test u̇ and extra forces.
struct State {
  double t = 0.0;
  Eigen::VectorXd q, u, udot;
};

std::vector<State> random_states(const model::Model& m, unsigned seed, int count) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  auto random = [&](std::size_t size, double scale) {
    Eigen::VectorXd v(static_cast<Eigen::Index>(size));
    for (Eigen::Index i = 0; i < v.size(); ++i) v[i] = scale * uniform(engine);
    return v;
  };
  std::vector<State> states;
  for (int s = 0; s < count; ++s) {
    State state;
    state.t = 0.3 + 0.7 * s;
    state.q = random(m.dof(), 1.5);
    num::normalize_quaternions(m, state.q);
    state.u = random(m.speeds.size(), 2.0);
    state.udot = random(m.speeds.size(), 1.0);
    states.push_back(state);
  }
  return states;
}

std::string list(const Eigen::VectorXd& v) {
  std::ostringstream s;
  s.precision(17);
  for (Eigen::Index i = 0; i < v.size(); ++i) s << (i ? ", " : "") << v[i];
  return s.str();
}

// What the generated functions gave at one state.
struct Outputs {
  Eigen::VectorXd M, f, M_alone, f_alone, h, g, tau, back, free, qd, qdd;
  int back_ok = 0, free_ok = 0;
};

// The header of `model` (generate_code in `language` with `values`) compiled with a driver that
// evaluates every function at `states` and prints the numbers; what it printed.
std::vector<Outputs> run_generated(const model::Model& model, codegen::Language language,
                                   const model::Values& values, const std::vector<State>& states,
                                   const fs::path& dir) {
  const bool c = language == codegen::Language::C;
  const std::string ns = c ? "gen" : "gen::speeds";
  codegen::CodegenOptions options;
  options.namespace_name = ns;
  options.values = values;
  options.language = language;
  const std::string header = codegen::generate_code(model, options);
  const std::size_t n = model.dof(), p = model.speeds.size();
  const fs::path header_path = dir / (c ? "gen.h" : "gen.hpp");
  const fs::path driver = dir / (c ? "driver.c" : "driver.cpp"), program = dir / "driver",
                 output = dir / "driver.out", log = dir / "compile.log";
  std::ofstream(header_path) << header;
  // C: gen_NAME(..., &P, &I, ...); C++: gen::speeds::NAME(..., P, I, ...).
  auto call = [&](const std::string& name) { return c ? "gen_" + name : ns + "::" + name; };
  const std::string P = c ? "&P" : "P", I = c ? "&I" : "I";
  std::ostringstream d;
  d << "#include <stdio.h>\n#include \"" << header_path.string() << "\"\n"
    << "static void print(const double* v, int count) {\n"
    << "  int i;\n  for (i = 0; i < count; ++i) printf(\"%.17g\\n\", v[i]);\n}\n"
    << "int main(void) {\n";
  if (c)
    d << "  const gen_parameters P = gen_default_parameters();\n"
      << "  const gen_inputs I = gen_default_inputs();\n";
  else
    d << "  const " << ns << "::Parameters P{};\n  const " << ns << "::Inputs I{};\n";
  // The sizes from the header's constants: they must be what the model says.
  d << "  double M["
    << (c ? "gen_speed_count * gen_speed_count" : ns + "::speed_count * " + ns + "::speed_count")
    << "], M2[" << p * p << "], f[" << p << "], f2[" << p << "], h[" << p << "], g[" << p
    << "], tau[" << p << "], back[" << p << "], free_[" << p << "], qd["
    << (c ? "gen_dof" : ns + "::dof") << "], qdd[" << n << "];\n"
    << "  int ok;\n"
    << "  if (" << (c ? "gen_dof" : ns + "::dof") << " != " << n << " || "
    << (c ? "gen_speed_count" : ns + "::speed_count") << " != " << p << ") return 3;\n";
  for (const State& s : states) {
    d << "  {\n"
      << "    const double t = " << list(Eigen::VectorXd::Constant(1, s.t)) << ";\n"
      << "    const double q[] = {" << list(s.q) << "};\n"
      << "    const double u[] = {" << list(s.u) << "};\n"
      << "    const double udot[] = {" << list(s.udot) << "};\n"
      << "    " << call("mass_matrix_and_forcing") << "(t, q, u, " << P << ", " << I << ", M, f);\n"
      << "    " << call("mass_matrix") << "(t, q, u, " << P << ", " << I << ", M2);\n"
      << "    " << call("forcing") << "(t, q, u, " << P << ", " << I << ", f2);\n"
      << "    " << call("nonlinear_effects") << "(t, q, u, " << P << ", " << I << ", h);\n"
      << "    " << call("gravity") << "(t, q, " << P << ", " << I << ", g);\n"
      << "    " << call("inverse_dynamics") << "(t, q, u, udot, " << P << ", " << I << ", tau);\n"
      << "    ok = " << call("forward_dynamics") << "(t, q, u, " << P << ", " << I
      << ", back, tau);\n"
      << "    printf(\"%d\\n\", ok);\n"
      << "    ok = " << call("forward_dynamics") << "(t, q, u, " << P << ", " << I << ", free_, "
      << (c ? "0" : "nullptr") << ");\n"
      << "    printf(\"%d\\n\", ok);\n"
      << "    " << call("coordinate_velocities") << "(t, q, u, " << P << ", " << I << ", qd);\n"
      << "    " << call("coordinate_accelerations") << "(t, q, u, udot, " << P << ", " << I
      << ", qdd);\n"
      << "    print(M, " << p * p << ");\n    print(f, " << p << ");\n"
      << "    print(M2, " << p * p << ");\n    print(f2, " << p << ");\n"
      << "    print(h, " << p << ");\n    print(g, " << p << ");\n"
      << "    print(tau, " << p << ");\n    print(back, " << p << ");\n"
      << "    print(free_, " << p << ");\n    print(qd, " << n << ");\n"
      << "    print(qdd, " << n << ");\n"
      << "  }\n";
  }
  d << "  return 0;\n}\n";
  std::ofstream(driver) << d.str();
  const std::string compile =
      (c ? std::string("gcc -std=c99 -O1 -Wall -Wextra -Wpedantic -Werror -o ")
         : std::string(APPELL_CXX_COMPILER) +
               " -std=c++17 -O1 -Wall -Wextra -Wpedantic -Wshadow -Werror -o ") +
      program.string() + " " + driver.string() + " -lm > " + log.string() + " 2>&1";
  std::vector<Outputs> out;
  const int compiled = exit_code(std::system(compile.c_str()));
  EXPECT_EQ(compiled, 0) << read_text(log);
  if (compiled != 0) return out;
  const int ran = exit_code(std::system((program.string() + " > " + output.string()).c_str()));
  EXPECT_EQ(ran, 0) << "the header's dof or speed_count is not the model's";
  if (ran != 0) return out;
  std::ifstream numbers(output);
  auto next = [&](std::size_t count) {
    Eigen::VectorXd v(static_cast<Eigen::Index>(count));
    for (Eigen::Index i = 0; i < v.size(); ++i) numbers >> v[i];
    return v;
  };
  for (std::size_t s = 0; s < states.size(); ++s) {
    Outputs o;
    numbers >> o.back_ok >> o.free_ok;
    o.M = next(p * p);
    o.f = next(p);
    o.M_alone = next(p * p);
    o.f_alone = next(p);
    o.h = next(p);
    o.g = next(p);
    o.tau = next(p);
    o.back = next(p);
    o.free = next(p);
    o.qd = next(n);
    o.qdd = next(n);
    out.push_back(o);
  }
  EXPECT_TRUE(numbers.good()) << "fewer numbers than expected";
  return out;
}

// |a − b| ≤ tolerance · (1 + max |b|), entry by entry.
void expect_close(const Eigen::VectorXd& a, const Eigen::VectorXd& b, double tolerance,
                  const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  const double scale = 1.0 + (b.size() ? b.cwiseAbs().maxCoeff() : 0.0);
  for (Eigen::Index i = 0; i < a.size(); ++i)
    EXPECT_LE(std::abs(a[i] - b[i]), tolerance * scale)
        << what << "[" << i << "]: " << a[i] << " vs " << b[i];
}

Eigen::VectorXd row_major(const Eigen::MatrixXd& M) {
  Eigen::VectorXd v(M.size());
  for (Eigen::Index i = 0; i < M.rows(); ++i)
    for (Eigen::Index j = 0; j < M.cols(); ++j) v[i * M.cols() + j] = M(i, j);
  return v;
}

// num::Dynamics in the speeds at `s`, the reference for every function.
struct Reference {
  Eigen::MatrixXd M;
  Eigen::VectorXd f, h, g, tau, free, qd, qdd;
};

Reference reference(const num::Dynamics& dynamics, const State& s) {
  num::DynamicsWorkspace work;
  Reference r;
  dynamics.mass_matrix_and_forcing(s.t, s.q, s.u, r.M, r.f, work);
  dynamics.nonlinear_effects(s.t, s.q, s.u, r.h, work);
  dynamics.gravity(s.t, s.q, r.g, work);
  dynamics.inverse_dynamics(s.t, s.q, s.u, s.udot, r.tau, work);
  dynamics.accelerations(s.t, s.q, s.u, r.free, work);
  dynamics.coordinate_velocities(s.t, s.q, s.u, r.qd, work);
  dynamics.coordinate_accelerations(s.t, s.q, s.u, s.udot, r.qdd, work);
  return r;
}

struct Case {
  std::string model;
  std::map<std::string, double> values;  // new defaults of the generated structs
};

// gtest prints a failing case's parameter by this: the model's file name.
void PrintTo(const Case& c, std::ostream* os) { *os << c.model; }

class CodegenSpeeds : public test_support::ScratchDirTest,
                      public ::testing::WithParamInterface<Case> {};

// Every function of the generated C++ and C against num::Dynamics in the speeds, and forward
// dynamics undoing inverse dynamics.
TEST_P(CodegenSpeeds, GeneratedCodeAgreesWithTheRecursionsInTheSpeeds) {
  const Case& test = GetParam();
  const auto model = load(test.model);
  ASSERT_TRUE(model->has_speeds());
  ASSERT_EQ(codegen::recursions_do_not_write(*model), "");
  const model::Values values(test.values);
  const num::Dynamics dynamics(model, values);
  ASSERT_EQ(dynamics.speed_count(), model->speeds.size());
  const auto states = random_states(*model, 11, 3);
  for (auto language : {codegen::Language::Cpp, codegen::Language::C}) {
    const bool c = language == codegen::Language::C;
    SCOPED_TRACE(test.model + (c ? " (C)" : " (C++)"));
    const fs::path dir = dir_ / (c ? "c" : "cpp");
    fs::create_directories(dir);
    const auto outputs = run_generated(*model, language, values, states, dir);
    ASSERT_EQ(outputs.size(), states.size());
    for (std::size_t s = 0; s < states.size(); ++s) {
      SCOPED_TRACE("state " + std::to_string(s));
      const Outputs& o = outputs[s];
      const Reference r = reference(dynamics, states[s]);
      expect_close(o.M, row_major(r.M), 1e-10, "M");
      expect_close(o.M_alone, row_major(r.M), 1e-10, "mass_matrix");
      expect_close(o.f, r.f, 1e-10, "f");
      expect_close(o.f_alone, r.f, 1e-10, "forcing");
      expect_close(o.h, r.h, 1e-10, "nonlinear_effects");
      expect_close(o.g, r.g, 1e-10, "gravity");
      expect_close(o.tau, r.tau, 1e-10, "inverse_dynamics");
      EXPECT_EQ(o.free_ok, 1);
      expect_close(o.free, r.free, 1e-10, "forward_dynamics");
      expect_close(o.qd, r.qd, 1e-10, "coordinate_velocities");
      expect_close(o.qdd, r.qdd, 1e-10, "coordinate_accelerations");
      // Physics without the reference: h = −f, and forward(inverse(u̇)) = u̇.
      expect_close(o.h, -o.f, 1e-12, "h + f");
      EXPECT_EQ(o.back_ok, 1);
      expect_close(o.back, states[s].udot, 1e-9, "forward(inverse(udot))");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Models, CodegenSpeeds,
    ::testing::Values(Case{"free_box_quaternion.yaml", {{"m", 2.5}}},
                      Case{"damped_cube.yaml", {{"k", 0.2}}}, Case{"satellite_arm.urdf", {}},
                      Case{"simple_humanoid.urdf", {}}),
    [](const ::testing::TestParamInfo<Case>& info) {
      // free_box_quaternion.yaml -> FreeBoxQuaternion
      std::string name;
      bool upper = true;
      for (char ch : info.param.model.substr(0, info.param.model.find('.'))) {
        if (ch == '_') {
          upper = true;
          continue;
        }
        name += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(ch))) : ch;
        upper = false;
      }
      return name;
    });

class CodegenSpeedsPhysics : public test_support::ScratchDirTest {};

// The free box (no gravity, no loads; the frame's origin its centre of mass): the generated
// forward dynamics gives v̇ = 0 and Euler's I ẇ = −w × I w with I = diag of the box's
// m (b² + c²)/12 ..., and its kinematic equations ẋ = v, ė = ½ e ⊗ (0, w).
TEST_F(CodegenSpeedsPhysics, ATorqueFreeBoxObeysEulersEquations) {
  const auto model = load("free_box_quaternion.yaml");
  const double m = 2.0, a = 0.3, b = 0.2, c = 0.1;
  const Eigen::Vector3d I(m * (b * b + c * c) / 12, m * (a * a + c * c) / 12,
                          m * (a * a + b * b) / 12);
  const auto states = random_states(*model, 5, 4);
  const auto outputs = run_generated(*model, codegen::Language::Cpp, {}, states, dir_);
  ASSERT_EQ(outputs.size(), states.size());
  for (std::size_t s = 0; s < states.size(); ++s) {
    SCOPED_TRACE("state " + std::to_string(s));
    const Eigen::VectorXd& u = states[s].u;
    const Eigen::Vector3d w = u.tail<3>();
    const Eigen::Vector3d Iw = I.cwiseProduct(w);
    const Eigen::Vector3d wdot = (-w.cross(Iw)).cwiseQuotient(I);
    const Outputs& o = outputs[s];
    ASSERT_EQ(o.free_ok, 1);
    expect_close(o.free.head<3>(), Eigen::Vector3d::Zero(), 1e-12, "vdot");
    expect_close(o.free.tail<3>(), wdot, 1e-11, "wdot");
    // M̃ = diag(m, m, m, I) whatever the attitude.
    Eigen::VectorXd diagonal(6);
    diagonal << m, m, m, I;
    expect_close(row_major(diagonal.asDiagonal().toDenseMatrix()), o.M, 1e-12, "M");
    const Eigen::VectorXd& q = states[s].q;
    const Eigen::Quaterniond e(q[3], q[4], q[5], q[6]);
    const Eigen::Quaterniond rate = e * Eigen::Quaterniond(0.0, w[0], w[1], w[2]);
    Eigen::VectorXd qd(7);
    qd << u.head<3>(), 0.5 * rate.w(), 0.5 * rate.x(), 0.5 * rate.y(), 0.5 * rate.z();
    expect_close(o.qd, qd, 1e-14, "qd");
  }
}

// The loadable C source of a model in the speeds, compiled and loaded: its entry points give
// num::Dynamics' numbers, and the speed count (n for a model without speeds).
TEST_F(CodegenSpeedsPhysics, LoadableSourceInTheSpeedsAgreesWithTheRecursions) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  num::NativeCompilerOptions options;
  options.cache_directory = dir_ / "cache";
  for (const std::string name : {"satellite_arm.urdf", "damped_cube.yaml"}) {
    SCOPED_TRACE(name);
    const auto model = load(name);
    const codegen::LoadableSource source = codegen::loadable_c_source(*model);
    ASSERT_TRUE(source.in_speeds);
    ASSERT_TRUE(source.recursive);
    const std::size_t n = model->dof(), p = model->speeds.size();
    EXPECT_EQ(source.dof, n);
    EXPECT_EQ(source.speed_count, p);
    const num::NativeLibrary library = num::load_native_library(source.code, options);
    auto function = [&](const char* symbol) { return library.symbol(symbol); };
    using Count = int (*)();
    using MassAndForcing = void (*)(double, const double*, const double*, const double*,
                                    const double*, double*, double*);
    using Forward =
        int (*)(double, const double*, const double*, const double*, const double*, double*);
    using Inverse = void (*)(double, const double*, const double*, const double*, const double*,
                             const double*, double*);
    using Velocities =
        void (*)(double, const double*, const double*, const double*, const double*, double*);
    using Accelerations = void (*)(double, const double*, const double*, const double*,
                                   const double*, const double*, double*);
    EXPECT_EQ(reinterpret_cast<Count>(function(codegen::kLoadableDof))(), static_cast<int>(n));
    EXPECT_EQ(reinterpret_cast<Count>(function(codegen::kLoadableSpeedCount))(),
              static_cast<int>(p));
    const auto mass_and_forcing =
        reinterpret_cast<MassAndForcing>(function(codegen::kLoadableMassMatrixAndForcing));
    const auto forward = reinterpret_cast<Forward>(function(codegen::kLoadableForwardDynamics));
    const auto inverse = reinterpret_cast<Inverse>(function(codegen::kLoadableInverseDynamics));
    const auto velocities =
        reinterpret_cast<Velocities>(function(codegen::kLoadableCoordinateVelocities));
    const auto accelerations =
        reinterpret_cast<Accelerations>(function(codegen::kLoadableCoordinateAccelerations));
    const num::Dynamics dynamics(model);
    const double* P = source.parameters.data();
    const double* I = source.inputs.data();
    for (const State& s : random_states(*model, 23, 3)) {
      const Reference r = reference(dynamics, s);
      Eigen::VectorXd M(static_cast<Eigen::Index>(p * p)), f(static_cast<Eigen::Index>(p)),
          udot(static_cast<Eigen::Index>(p)), tau(static_cast<Eigen::Index>(p)),
          qd(static_cast<Eigen::Index>(n)), qdd(static_cast<Eigen::Index>(n));
      mass_and_forcing(s.t, s.q.data(), s.u.data(), P, I, M.data(), f.data());
      expect_close(M, row_major(r.M), 1e-10, "M");
      expect_close(f, r.f, 1e-10, "f");
      EXPECT_EQ(forward(s.t, s.q.data(), s.u.data(), P, I, udot.data()), 1);
      expect_close(udot, r.free, 1e-10, "forward");
      inverse(s.t, s.q.data(), s.u.data(), s.udot.data(), P, I, tau.data());
      expect_close(tau, r.tau, 1e-10, "inverse");
      velocities(s.t, s.q.data(), s.u.data(), P, I, qd.data());
      expect_close(qd, r.qd, 1e-10, "coordinate_velocities");
      accelerations(s.t, s.q.data(), s.u.data(), s.udot.data(), P, I, qdd.data());
      expect_close(qdd, r.qdd, 1e-10, "coordinate_accelerations");
    }
  }
  // Without speeds the speed count is the coordinates', and no kinematic equations are defined.
  const auto pendulum = io::read_model_file(examples + "/double_pendulum.yaml");
  const codegen::LoadableSource plain = codegen::loadable_c_source(*pendulum);
  EXPECT_FALSE(plain.in_speeds);
  EXPECT_EQ(plain.speed_count, pendulum->dof());
  const num::NativeLibrary library = num::load_native_library(plain.code, options);
  EXPECT_EQ(reinterpret_cast<int (*)()>(library.symbol(codegen::kLoadableSpeedCount))(),
            static_cast<int>(pendulum->dof()));
  EXPECT_THROW(library.symbol(codegen::kLoadableCoordinateVelocities), num::NativeCompileError);
}

// The command line: a quaternion example and a floating base are written in their speeds; what
// is not written in the speeds exits 2 naming them.
TEST_F(CodegenSpeedsPhysics, CommandLineWritesTheSpeedsAndRefusesWhatIsNotInThem) {
  const std::string out = (dir_ / "box.hpp").string();
  const std::string box = examples + "/speeds/free_box_quaternion.yaml";
  auto run = test_support::run_cli("codegen " + box + " --out " + out);
  ASSERT_EQ(run.code, 0) << run.out;
  EXPECT_NE(run.out.find("in 6 generalized speeds"), std::string::npos) << run.out;
  const std::string header = read_text(out);
  EXPECT_NE(header.find("constexpr int speed_count = 6;"), std::string::npos);
  EXPECT_NE(header.find("Speeds (the order of u, udot, f, Q and of M's rows and columns): vx, vy, "
                        "vz, w1, w2, w3"),
            std::string::npos);
  EXPECT_NE(header.find("inline void coordinate_accelerations("), std::string::npos);

  run = test_support::run_cli("codegen " + examples +
                              "/urdf/satellite_arm.urdf --floating-base --language c --out " +
                              (dir_ / "arm.h").string());
  ASSERT_EQ(run.code, 0) << run.out;
  EXPECT_NE(read_text(dir_ / "arm.h").find("satellite_arm_speed_count = "), std::string::npos);

  run = test_support::run_cli("codegen " + box + " --regressor --out " + out);
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_NE(run.out.find("--regressor"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("generalized speeds"), std::string::npos) << run.out;
  run = test_support::run_cli("codegen " + box + " --derivatives --out " + out);
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_NE(run.out.find("--derivatives"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("generalized speeds"), std::string::npos) << run.out;
  // A quaternion body with constraints: no rows in the speeds, named at the quaternion.
  run =
      test_support::run_cli("codegen " + examples + "/speeds/slotted_ball_joint.yaml --out " + out);
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_NE(run.out.find("slotted_ball_joint.yaml:"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("constraints in generalized speeds"), std::string::npos) << run.out;
  // --split forms the equations in the coordinates, which a quaternion has none of.
  run = test_support::run_cli("codegen " + box + " --split --out " + out);
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_NE(run.out.find("--split"), std::string::npos) << run.out;
}

}  // namespace
