// In-process evaluation by the generated C compiled into a cached shared object (JIT): equal to
// the tape (an independent route: M and f derived by Gibbs–Appell through GiNaC) at random
// states for every example codegen covers, in M, f, q̈ and the driving forces; simulate gives the
// tape's trajectory; the tape takes over when the compiler is missing, fails, times out or the
// cache is unwritable, and with --no-jit; a corrupt cached object is rebuilt; the cache key
// follows the source (values included), the compiler and the flags. Every test uses a cache
// folder of its own, never the user's.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "appell/codegen/loadable_source.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/jit/compiled_dynamics.hpp"
#include "appell/jit/dynamics_key.hpp"
#include "appell/numeric/dynamics.hpp"
#include "appell/numeric/inverse_dynamics.hpp"
#include "appell/numeric/native_library.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/numeric/state_evaluation.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/recursive_dynamics.hpp"
#include "support/c_compiler.hpp"
#include "support/test_models.hpp"

namespace {

using namespace appell;
namespace fs = std::filesystem;

// A fresh cache folder per test, removed afterwards.
class Jit : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    cache_ = fs::temp_directory_path() /
             ("appell-jit-test-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(cache_);
    fs::create_directories(cache_);
    options_.compiler.cache_directory = cache_;
  }
  void TearDown() override { fs::remove_all(cache_); }

  num::Dynamics compile(const std::shared_ptr<const model::Model>& model,
                        const model::Values& values = {}) {
    return jit::compile_dynamics(model, values, options_);
  }

  fs::path cache_;
  jit::JitOptions options_;
};

std::shared_ptr<const model::Model> example(const std::string& name) {
  return io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/" + name + ".yaml");
}

Eigen::VectorXd random_vector(std::mt19937& engine, std::size_t n, double low, double high) {
  std::uniform_real_distribution<double> u(low, high);
  Eigen::VectorXd v(static_cast<Eigen::Index>(n));
  for (auto& x : v) x = u(engine);
  return v;
}

// |a − b| ≤ tolerance · (1 + max |b|), entry by entry.
void expect_close(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double tolerance,
                  const std::string& what) {
  ASSERT_EQ(a.rows(), b.rows()) << what;
  ASSERT_EQ(a.cols(), b.cols()) << what;
  const double scale = 1.0 + b.cwiseAbs().maxCoeff();
  EXPECT_LE((a - b).cwiseAbs().maxCoeff(), tolerance * scale) << what << "\n" << a << "\n" << b;
}

// The compiled Dynamics of every example the recursions cover against its formed equations'
// tape: M, f, q̈, τ and `appell eval`'s state.
TEST_F(Jit, EqualsTheTapeAtRandomStatesForEveryExampleTheRecursionsCover) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  std::mt19937 engine(20261124);
  std::size_t compiled = 0;
  for (const auto& entry : fs::directory_iterator(APPELL_EXAMPLES_DIR)) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string name = entry.path().stem().string();
    const auto model = example(name);
    if (!principles::recursions_do_not_cover(*model).empty()) {
      EXPECT_THROW(compile(model), std::invalid_argument) << name;
      continue;
    }
    if (!model->constraints.empty()) continue;  // test_jit_constraints.cpp
    const num::Dynamics dynamics = compile(model);
    EXPECT_TRUE(dynamics.compilation().note.empty()) << name << ": " << dynamics.compilation().note;
    ASSERT_STREQ(dynamics.kind(), "jit") << name;
    ++compiled;
    const auto eq = principles::derive(model, principles::Method::GibbsAppell);
    const num::CompiledEquations tape(eq);
    const std::size_t n = eq.dof();
    num::DynamicsWorkspace work;
    for (int k = 0; k < 5; ++k) {
      const double t = 0.3 * k;
      const Eigen::VectorXd q = random_vector(engine, n, -1.2, 1.2),
                            qd = random_vector(engine, n, -2.0, 2.0),
                            qdd = random_vector(engine, n, -3.0, 3.0);
      Eigen::MatrixXd M1, M2;
      Eigen::VectorXd f1, f2, a1, Q1;
      dynamics.mass_matrix_and_forcing(t, q, qd, M1, f1, work);
      tape.evaluate(t, q, qd, M2, f2);
      expect_close(M1, M2, 1e-10, name + " M");
      expect_close(f1, f2, 1e-10, name + " f");
      dynamics.accelerations(t, q, qd, a1, work);
      expect_close(a1, tape.accelerations(M2, f2), 1e-9, name + " qdd");
      dynamics.inverse_dynamics(t, q, qd, qdd, Q1, work);
      expect_close(Q1, M2 * qdd - f2, 1e-10, name + " Q");
      // The state evaluation of `appell eval` by either path.
      const auto s1 = num::evaluate_state(dynamics, t, q, qd);
      const auto s2 = num::evaluate_state(tape, t, q, qd);
      expect_close(s1.qdd, s2.qdd, 1e-9, name + " eval qdd");
    }
  }
  EXPECT_GE(compiled, 8u);  // most examples are trees of frames the recursions cover
}

TEST_F(Jit, ParametersAndInputsComeFromTheValues) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  // The cart's force input u and two parameters, set at once.
  const auto model = example("spring_damper_cart");
  const auto eq = principles::derive(model, principles::Method::GibbsAppell);
  model::Values values;
  values.set("m", 1.7).set("g", 3.0).set("u", 2.5);
  const num::Dynamics dynamics = compile(model, values);
  ASSERT_STREQ(dynamics.kind(), "jit");
  const num::CompiledEquations tape(eq, values);
  const Eigen::Vector2d q(0.4, -0.9), qd(1.1, 0.3);
  Eigen::MatrixXd M1, M2;
  Eigen::VectorXd f1, f2;
  num::DynamicsWorkspace work;
  dynamics.mass_matrix_and_forcing(0.5, q, qd, M1, f1, work);
  tape.evaluate(0.5, q, qd, M2, f2);
  expect_close(M1, M2, 1e-12, "M");
  expect_close(f1, f2, 1e-12, "f");
  // And they matter: the default values give other numbers.
  Eigen::MatrixXd M0;
  Eigen::VectorXd f0;
  compile(model).mass_matrix_and_forcing(0.5, q, qd, M0, f0, work);
  EXPECT_GT((M0 - M1).norm(), 1e-3);
}

TEST_F(Jit, TheSecondLoadComesFromTheCache) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  const auto model = example("double_pendulum");
  const auto first = compile(model), second = compile(model);
  EXPECT_TRUE(first.compilation().compiled_now);
  EXPECT_FALSE(second.compilation().compiled_now);
  EXPECT_EQ(first.compilation().library_path, second.compilation().library_path);
  EXPECT_EQ(fs::path(first.compilation().library_path).parent_path(), cache_ / "jit");
  // Nothing half-written is left behind: the object and the record of its SHA-256, nothing else.
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(cache_ / "jit"))
    files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  const std::string key = fs::path(first.compilation().library_path).stem().string();
  EXPECT_EQ(files, (std::vector<std::string>{key + ".sha256", key + ".so"}));
}

TEST_F(Jit, ACorruptCachedObjectIsCompiledAgain) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  const auto model = example("double_pendulum");
  const std::string path = compile(model).compilation().library_path;
  ASSERT_FALSE(path.empty());
  {
    std::ofstream garbage(path, std::ios::binary | std::ios::trunc);
    garbage << "\x7f"
            << "ELF this is not a shared object";
  }
  const auto again = compile(model);
  EXPECT_TRUE(again.compilation().compiled_now);
  ASSERT_STREQ(again.kind(), "jit");
  const num::Dynamics interpreted(model);
  const Eigen::Vector2d q(0.2, 0.5), qd(-0.3, 0.8);
  Eigen::VectorXd a1, a2;
  num::DynamicsWorkspace work;
  again.accelerations(0.0, q, qd, a1, work);
  interpreted.accelerations(0.0, q, qd, a2, work);
  expect_close(a1, a2, 1e-10, "qdd");
}

TEST_F(Jit, AnObjectOfAnotherKeyIsNotLoadedForThisOne) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  const auto pendulum = example("double_pendulum");
  const auto arm = example("three_link_arm");
  const std::string pendulum_path = compile(pendulum).compilation().library_path;
  const std::string arm_path = compile(arm).compilation().library_path;
  ASSERT_NE(pendulum_path, arm_path);
  fs::copy_file(arm_path, pendulum_path, fs::copy_options::overwrite_existing);
  const auto again = compile(pendulum);
  EXPECT_TRUE(again.compilation().compiled_now);  // the key inside the object told it apart
  EXPECT_STREQ(again.kind(), "jit");
  EXPECT_EQ(again.dof(), 2u);
}

TEST_F(Jit, TheKeyFollowsTheValuesTheCompilerAndTheFlags) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  const auto eq = principles::derive(example("planar_2r"), principles::Method::GibbsAppell);
  model::Values heavier;
  heavier.set("M", 2.0);
  const std::string plain = codegen::loadable_c_source(eq).code;
  const std::string set = codegen::loadable_c_source(eq, heavier).code;
  num::NativeCompilerOptions options;
  options.cache_directory = cache_;
  const std::string key = num::native_library_key(plain, options);
  EXPECT_EQ(key, num::native_library_key(plain, options));  // deterministic
  EXPECT_EQ(key, num::native_library_key(codegen::loadable_c_source(eq).code, options));
  // --set M=2 changes no code: the number crosses at run time, one library serves both.
  EXPECT_EQ(key, num::native_library_key(set, options));
  const auto plain_values = codegen::loadable_c_source(eq).parameters;
  const auto set_values = codegen::loadable_c_source(eq, heavier).parameters;
  ASSERT_EQ(plain_values.size(), set_values.size());
  EXPECT_NE(plain_values, set_values);
  EXPECT_NE(std::find(set_values.begin(), set_values.end(), 2.0), set_values.end());
  auto o2 = options;
  o2.flags = {"-O1", "-fPIC", "-shared"};
  EXPECT_NE(key, num::native_library_key(plain, o2));
  EXPECT_EQ(key.size(), 64u);
}

TEST_F(Jit, AMissingCompilerFallsBackToTheRecursionsInterpretedWithANote) {
  options_.compiler.compiler = "appell-no-such-compiler";
  const auto dynamics = compile(example("double_pendulum"));
  EXPECT_STREQ(dynamics.kind(), "recursions");
  EXPECT_NE(dynamics.compilation().note.find("appell-no-such-compiler"), std::string::npos)
      << dynamics.compilation().note;
  // And it still gives the numbers.
  Eigen::VectorXd qdd;
  num::DynamicsWorkspace work;
  dynamics.accelerations(0.0, Eigen::Vector2d(0.1, 0.2), Eigen::Vector2d::Zero(), qdd, work);
  EXPECT_TRUE(qdd.allFinite());
}

TEST_F(Jit, ACompilerThatFailsIsReportedWithItsMessages) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  num::NativeCompilerOptions options;
  options.cache_directory = cache_;
  try {
    num::load_native_library("int broken = ;\n", options);
    FAIL() << "compiled a syntax error";
  } catch (const num::NativeCompileError& e) {
    EXPECT_NE(std::string(e.what()).find("error"), std::string::npos) << e.what();
  }
  // Nothing left in the cache.
  EXPECT_TRUE(fs::is_empty(cache_ / "jit"));
}

TEST_F(Jit, ACompilerThatHangsIsKilledAfterTheTimeout) {
  // A "compiler" that answers --version and then never finishes.
  const fs::path script = cache_ / "slowcc";
  {
    std::ofstream s(script);
    s << "#!/bin/sh\nif [ \"$1\" = --version ]; then echo slowcc 1.0; exit 0; fi\nsleep 30\n";
  }
  fs::permissions(script, fs::perms::owner_all);
  num::NativeCompilerOptions options;
  options.cache_directory = cache_ / "cache";
  options.compiler = script.string();
  options.timeout = std::chrono::seconds(1);
  try {
    num::load_native_library("int x;\n", options);
    FAIL() << "a hanging compiler returned";
  } catch (const num::NativeCompileError& e) {
    EXPECT_NE(std::string(e.what()).find("did not finish within 1 s"), std::string::npos)
        << e.what();
  }
}

TEST_F(Jit, AnUnwritableCacheFallsBackToTheRecursionsInterpreted) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  if (::geteuid() == 0) {
    // root writes anywhere: a regular file in the way of the folder does it instead.
    std::ofstream(cache_ / "blocked") << "x";
    options_.compiler.cache_directory = cache_ / "blocked";
  } else {
    fs::permissions(cache_, fs::perms::owner_read | fs::perms::owner_exec);
  }
  const auto dynamics = compile(example("double_pendulum"));
  fs::permissions(cache_, fs::perms::owner_all);
  EXPECT_STREQ(dynamics.kind(), "recursions");
  EXPECT_NE(dynamics.compilation().note.find("not writable"), std::string::npos)
      << dynamics.compilation().note;
}

// simulate() of the model by the compiled Dynamics, of the model interpreted and of its formed
// equations with the compiled Dynamics for q̈: one motion.
TEST_F(Jit, SimulateGivesTheTapesTrajectory) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  const auto model = example("three_link_arm");
  const auto eq = principles::derive(model, principles::Method::GibbsAppell);
  num::SimulationOptions options;
  options.t_end = 1.0;
  options.output_step = 0.1;
  options.rtol = options.atol = 1e-10;
  std::vector<Eigen::VectorXd> tape_rows, jit_rows, interpreted_rows, mixed_rows;
  auto record = [](std::vector<Eigen::VectorXd>& rows) {
    return [&rows](const num::SimulationRow& r) {
      Eigen::VectorXd x(2 * r.q.size() + 1);
      x << r.q, r.qd, r.total;
      rows.push_back(x);
    };
  };
  num::simulate(eq, options, record(tape_rows));
  num::simulate(model, options, record(interpreted_rows));
  options.dynamics = std::make_shared<const num::Dynamics>(compile(model));
  ASSERT_STREQ(options.dynamics->kind(), "jit");
  num::simulate(model, options, record(jit_rows));
  num::simulate(eq, options, record(mixed_rows));
  ASSERT_EQ(tape_rows.size(), jit_rows.size());
  ASSERT_EQ(tape_rows.size(), interpreted_rows.size());
  ASSERT_EQ(tape_rows.size(), mixed_rows.size());
  for (std::size_t i = 0; i < tape_rows.size(); ++i) {
    expect_close(jit_rows[i], tape_rows[i], 1e-7, "row " + std::to_string(i));
    expect_close(interpreted_rows[i], tape_rows[i], 1e-7, "row " + std::to_string(i));
    expect_close(mixed_rows[i], tape_rows[i], 1e-7, "row " + std::to_string(i));
  }
}

TEST_F(Jit, SimulateRefusesADynamicsForConstrainedEquationsOrAnotherModel) {
  const auto eq = principles::derive(example("slider_crank"), principles::Method::GibbsAppell);
  ASSERT_GT(eq.constraint_count(), 0u);
  num::SimulationOptions options;
  options.dynamics = std::make_shared<const num::Dynamics>(example("double_pendulum"));
  EXPECT_THROW(num::simulate(eq, options, [](const num::SimulationRow&) {}), std::invalid_argument);
  EXPECT_THROW(num::simulate(example("three_link_arm"), options, [](const num::SimulationRow&) {}),
               std::invalid_argument);
}

TEST_F(Jit, InverseDynamicsByTheCompiledRecursionEqualsTheTape) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  const auto model = example("three_link_arm");
  const auto eq = principles::derive(model, principles::Method::Lagrange);
  const num::InverseDynamics compiled(std::make_shared<const num::Dynamics>(compile(model))),
      tape(eq);
  EXPECT_STREQ(compiled.kind(), "jit");
  EXPECT_STREQ(tape.kind(), "tape");
  EXPECT_THROW(static_cast<void>(compiled.compiled()), std::logic_error);
  std::mt19937 engine(7);
  for (int k = 0; k < 5; ++k) {
    const auto q = random_vector(engine, 3, -1, 1), qd = random_vector(engine, 3, -1, 1),
               qdd = random_vector(engine, 3, -1, 1);
    expect_close(compiled.driving_forces(0.1 * k, q, qd, qdd),
                 tape.driving_forces(0.1 * k, q, qd, qdd), 1e-10, "Q");
  }
}

TEST_F(Jit, OffAndGeneralizedSpeedsMeanTheRecursionsInterpretedWithoutANote) {
  options_.enabled = false;
  const auto off = compile(example("double_pendulum"));
  EXPECT_STREQ(off.kind(), "recursions");
  EXPECT_TRUE(off.compilation().note.empty());
  EXPECT_FALSE(off.compilation().reason.empty());
  EXPECT_TRUE(off.compilation().library_path.empty());
  options_.enabled = true;
  // What the recursions do not cover (relative motion in a carrier frame) has no Dynamics.
  EXPECT_THROW(compile(example("rod_on_rotating_axes")), std::invalid_argument);
}

TEST(NativeLibrary, Sha256OfTheStandardsTestVectors) {
  EXPECT_EQ(num::sha256_hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(num::sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(num::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

// --- the key of a model's code, from what determines it ---------------------------------------

// `text` with `from` replaced once by `to` (which must be there).
std::string edited(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// test_support::tree_yaml (every kind of load) written otherwise: comments, blanks, a frame and
// a body in block style with their keys in another order, gravity before the frames, the
// operands of a sum and a product the other way round, and another name (which is only in the
// code's comments).
std::string tree_written_otherwise() {
  std::string y = test_support::tree_yaml;
  y = edited(y, "name: tree\n", "# the tree of test_models.hpp, laid out otherwise\nname: other\n");
  y = edited(y, "gravity: [0, 0, -g]\n", "");
  y = edited(y, "frames:\n", "gravity:   [ 0, 0,   -g ]   # down\nframes:\n");
  y = edited(y, "  table: {parent: world, rotation: rot_z(a)}\n",
             "  table:\n    rotation: rot_z(a)    # the turntable\n\n    parent: world\n");
  y = edited(y, "0.2 + s", "s + 0.2");
  y = edited(y,
             "base: {frame: table, mass: 2*m, com: [0, 0, 0.05], inertia: {box: {size: [0.4, "
             "0.4, 0.1]}}}",
             "base:\n    inertia: {box: {size: [0.4, 0.4, 0.1]}}\n    com: [0, 0, 0.05]\n"
             "    mass: m*2\n    frame: table");
  for (std::size_t at = y.find(", "); at != std::string::npos; at = y.find(", ", at + 3))
    y.replace(at, 2, " ,  ");
  return y;
}

TEST(JitKey, TheModelsKeyIgnoresTheLayoutOfItsFileAndTheNumbersThatCrossAtRunTime) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  const auto tree = io::parse_model(test_support::tree_yaml, "tree.yaml");
  const auto other = io::parse_model(tree_written_otherwise(), "other.yaml");
  ASSERT_EQ(other->name, "other");
  const std::string key = jit::dynamics_key(*tree);
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(key, jit::dynamics_key(*tree));  // deterministic
  EXPECT_EQ(jit::dynamics_content(*other), jit::dynamics_content(*tree));
  EXPECT_EQ(jit::dynamics_key(*other), key);
  // Numbers are members of p and in, read at run time: one library for every --set.
  model::Values numbers;
  numbers.set("m", 2.5).set("k", 3.0).set("u", 0.4);
  EXPECT_EQ(jit::dynamics_key(*tree, numbers), key);
  // The key of the content is never the key of a source, even of the same text.
  EXPECT_NE(num::native_content_key(jit::dynamics_content(*tree), {}),
            num::native_library_key(jit::dynamics_content(*tree), {}));
}

TEST(JitKey, AnythingThatChangesTheCodeChangesTheModelsKey) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  const std::string tree = test_support::tree_yaml;
  // One edit each, of everything the code holds: numbers folded into it (a constant offset, a
  // fixed rotation, a mass factor, an inertia's size, a particle's mass, a default written into
  // the code's defaults), axes, parents, gravity, every kind of load, names of members.
  const std::vector<std::pair<std::string, std::string>> edits = {
      {"0.2 + s", "0.25 + s"},
      {"rot_x(0.4)", "rot_x(0.5)"},
      {"rot_y(c2)", "rot_x(c2)"},
      {"rot_z(0.3*b2 + 0.2)", "rot_z(0.3*b2 + 0.21)"},
      {"mount: {parent: table", "mount: {parent: slider"},
      {"mass: 0.7*m", "mass: 0.75*m"},
      {"com: [l/3, 0, 0]", "com: [l/3, 0.01, 0]"},
      {"{sphere: {radius: 0.05}}", "{sphere: {radius: 0.06}}"},
      {"tip: {frame: arm2b, mass: 0.2", "tip: {frame: arm2b, mass: 0.3"},
      {"tip: {frame: arm2b", "tip: {frame: arm2"},
      {"gravity: [0, 0, -g]", "gravity: [0, -g, 0]"},
      {"k: 40.0", "k: 41.0"},
      {"parameters: {m: 1.3", "parameters: {M: 1.3, m: 1.3"},
      {"inputs: [u]", "inputs: [u, w]"},
      {"force: [1.5, -0.5, 2*u]", "force: [1.5, -0.5, 3*u]"},
      {"on: arm1b, at: [l, 0, 0]}", "on: arm1b, at: [l, 0.1, 0]}"},
      {"on: arm2, at: [l/2, 0, 0], in: arm2}", "on: arm2, at: [l/2, 0, 0]}"},
      {"{torque: [0, 0, 0.8], on: arm2b}", "{torque: [0, 0, 0.8], on: arm2}"},
      {"rest_length: 0.3", "rest_length: 0.35"},
      {"stiffness: k,", "stiffness: 2*k,"},
      {"coefficient: c}", "coefficient: 2*c}"},
      {"-3*s - c*dot(s)", "-3.5*s - c*dot(s)"},
      {"{generalized: {coordinate: s", "{generalized: {coordinate: a"},
      {"0.5*k*(a - 0.1)^2", "0.5*k*(a - 0.2)^2"},
  };
  std::set<std::string> keys{jit::dynamics_key(*io::parse_model(tree, "tree.yaml"))};
  for (const auto& [from, to] : edits) {
    SCOPED_TRACE(from + " -> " + to);
    const std::string key = jit::dynamics_key(*io::parse_model(edited(tree, from, to), "t.yaml"));
    EXPECT_TRUE(keys.insert(key).second) << "the same key as the tree or an earlier edit";
  }
  // A function driven by an expression of t is generated as code: each expression its own key.
  const auto model = io::parse_model(tree, "tree.yaml");
  for (const char* expression : {"sin(t)", "sin(2*t)", "m*sin(t)"}) {
    SCOPED_TRACE(expression);
    model::Values values;
    values.drive("u", num::parse_time_function(*model, expression));
    EXPECT_TRUE(keys.insert(jit::dynamics_key(*model, values)).second);
  }
  // The compiler's flags too.
  num::NativeCompilerOptions o1;
  o1.flags = {"-O1", "-fPIC", "-shared"};
  EXPECT_TRUE(keys.insert(jit::dynamics_key(*model, {}, o1)).second);
}

// The first compile generates and stores; a model written otherwise finds the same object under
// the key of its content (generate is not called), with the numbers of num::Dynamics.
TEST_F(Jit, AModelsCodeIsFoundAgainByItsKeyWithoutGeneratingIt) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  const auto tree = io::parse_model(test_support::tree_yaml, "tree.yaml");
  const auto first = jit::compile_dynamics(tree, {}, options_);
  ASSERT_STREQ(first.kind(), "jit") << first.compilation().note;
  EXPECT_TRUE(first.compilation().compiled_now);
  EXPECT_EQ(fs::path(first.compilation().library_path).stem().string(),
            jit::dynamics_key(*tree, {}, options_.compiler));
  model::Values values;
  values.set("m", 1.7).set("u", 0.4).set("k", 25.0);
  const auto other = io::parse_model(tree_written_otherwise(), "other.yaml");
  const auto again = jit::compile_dynamics(other, values, options_);
  ASSERT_STREQ(again.kind(), "jit") << again.compilation().note;
  EXPECT_FALSE(again.compilation().compiled_now);
  EXPECT_EQ(again.compilation().library_path, first.compilation().library_path);
  // The object lists the members of p and in: the values fill them as the model names them.
  const num::Dynamics interpreted(other, values);
  std::mt19937 engine(26);
  for (int s = 0; s < 4; ++s) {
    const Eigen::VectorXd q = random_vector(engine, 6, -1.2, 1.2),
                          qd = random_vector(engine, 6, -2.0, 2.0);
    Eigen::VectorXd want, got;
    num::DynamicsWorkspace work;
    interpreted.accelerations(0.3, q, qd, want, work);
    again.accelerations(0.3, q, qd, got, work);
    expect_close(got, want, 1e-10, "qdd");
  }
  // Only the object and its record are kept: no source, no other file.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(cache_ / "jit")) ++files;
  EXPECT_EQ(files, 2u);
}

TEST_F(Jit, AContentKeyedObjectIsGeneratedOnlyWhenItIsNotInTheCache) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  int generated = 0;
  const auto generate = [&] {
    ++generated;
    return std::string(
        "double appell_test_three(void);\ndouble appell_test_three(void) { "
        "return 3.0; }\n");
  };
  fs::path path;
  {
    const auto first = num::load_native_library("three, version 1", generate, options_.compiler);
    EXPECT_TRUE(first.compiled_now());
    EXPECT_EQ(generated, 1);
    const auto again = num::load_native_library("three, version 1", generate, options_.compiler);
    EXPECT_FALSE(again.compiled_now());
    EXPECT_EQ(generated, 1);
    EXPECT_EQ(again.key(), num::native_content_key("three, version 1", options_.compiler));
    EXPECT_EQ(reinterpret_cast<double (*)()>(again.symbol("appell_test_three"))(), 3.0);
    path = again.path();
  }  // unloaded before its file is overwritten
  // A corrupt object under that key is generated and compiled again, never loaded.
  {
    std::ofstream garbage(path, std::ios::binary | std::ios::trunc);
    garbage << "\x7f"
            << "ELF not an object";
  }
  const auto rebuilt = num::load_native_library("three, version 1", generate, options_.compiler);
  EXPECT_TRUE(rebuilt.compiled_now());
  EXPECT_EQ(generated, 2);
}

// --- the command line -----------------------------------------------------------------------

struct Output {
  int code = -1;
  std::string out, err;
};

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs appell with `environment` ("CC=x " etc., may be empty) in front; stdout and stderr apart.
Output run(const std::string& environment, const std::string& args, const fs::path& work) {
  const fs::path out = work / "stdout", err = work / "stderr";
  const std::string command = "env " + environment + " " + APPELL_CLI + " " + args + " >" +
                              out.string() + " 2>" + err.string();
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

TEST_F(Jit, CliFallsBackWhenTheCompilerIsMissingAndNoJitForcesTheRecursionsInterpreted) {
  const std::string cache = "APPELL_CACHE_DIR=" + cache_.string();
  const std::string model = std::string(APPELL_EXAMPLES_DIR) + "/double_pendulum.yaml";
  // inverse: many states, the recursions' Dynamics compiled (eval's one state never compiles).
  const fs::path forces = cache_ / "forces.csv";
  const std::string args = "inverse " + model +
                           " --trajectory 'q1=0.3*sin(t); q2=0.4' --t-end 1 --output-step 0.1 "
                           "--out " +
                           forces.string();
  const Output missing = run(cache + " CC=appell-no-such-compiler", args, cache_);
  EXPECT_EQ(missing.code, 0) << missing.err;
  EXPECT_NE(missing.err.find("note: evaluating by the recursions interpreted (slower)"),
            std::string::npos)
      << missing.err;
  const std::string interpreted = slurp(forces);
  const Output no_jit = run(cache + " CC=appell-no-such-compiler", args + " --no-jit", cache_);
  EXPECT_EQ(no_jit.code, 0);
  EXPECT_EQ(no_jit.err.find("note:"), std::string::npos) << no_jit.err;  // asked for: no note
  EXPECT_EQ(slurp(forces), interpreted);
  if (!test_support::have_compiler()) return;
  const Output compiled = run(cache, args, cache_);
  EXPECT_EQ(compiled.code, 0);
  EXPECT_EQ(compiled.err.find("note:"), std::string::npos) << compiled.err;
  EXPECT_FALSE(fs::is_empty(cache_ / "jit"));
  const std::string by_jit = slurp(forces);
  // Run to run the same bytes (compiled, then from the cache).
  EXPECT_EQ(run(cache, args, cache_).code, 0);
  EXPECT_EQ(slurp(forces), by_jit);
}

TEST_F(Jit, CliSimulateSaysItsSpeedAndPathOnStderrOnly) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  const std::string cache = "APPELL_CACHE_DIR=" + cache_.string();
  const std::string model = std::string(APPELL_EXAMPLES_DIR) + "/double_pendulum.yaml";
  const std::string csv = (cache_ / "run.csv").string();
  const Output jit = run(cache, "simulate " + model + " --t-end 0.5 --out " + csv, cache_);
  EXPECT_EQ(jit.code, 0) << jit.err;
  EXPECT_NE(jit.err.find(" steps/s (jit)"), std::string::npos) << jit.err;
  EXPECT_EQ(jit.out.find("steps/s"), std::string::npos) << jit.out;
  const std::string jit_csv = slurp(csv);
  const Output tape =
      run(cache, "simulate " + model + " --t-end 0.5 --no-jit --out " + csv, cache_);
  // --no-jit on a tree: the recursions interpreted (num::Dynamics), no equations formed.
  EXPECT_NE(tape.err.find(" steps/s (recursions)"), std::string::npos) << tape.err;
  const std::string tape_csv = slurp(csv);
  EXPECT_EQ(std::count(jit_csv.begin(), jit_csv.end(), '\n'),
            std::count(tape_csv.begin(), tape_csv.end(), '\n'));
  EXPECT_EQ(jit_csv.substr(0, jit_csv.find('\n')), tape_csv.substr(0, tape_csv.find('\n')));
}

// Runs in other processes (each its own address-space layout, so GiNaC's term order differs)
// find the object the first compiled: the key of the model's content is the same in every run.
// (The key of the source was not: the source's comments print a parameter's default expression
// in GiNaC's order, so a model with one, like `e` here, was compiled again by nearly every run.)
TEST_F(Jit, CliRunsOfOneModelShareOneObject) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  const std::string cache = "APPELL_CACHE_DIR=" + cache_.string();
  const fs::path model = cache_ / "tree.yaml";
  std::ofstream(model) << edited(test_support::tree_yaml, "c: 0.7}",
                                 "c: 0.7, e: m*l^2/12 + k*c - 2*g*l}");
  const std::string args =
      "simulate " + model.string() + " --t-end 0.05 --out " + (cache_ / "run.csv").string();
  for (int run_number = 0; run_number < 3; ++run_number) {
    const Output out = run(cache, args, cache_);
    ASSERT_EQ(out.code, 0) << out.err;
    EXPECT_NE(out.err.find("(jit)"), std::string::npos) << out.err;
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(cache_ / "jit"))
      files.push_back(e.path().filename().string());
    EXPECT_EQ(files.size(), 2u) << "run " << run_number << " compiled under another key";
  }
}

}  // namespace
