// Constraint rows in the generated code and the JIT: the compiled A, b, q̈ and λ against the
// equations formed by Gibbs–Appell (an independent route, through GiNaC) at random states for
// every constrained model the recursions cover; the compiled projection against the one set up
// in GiNaC; the generated header's constraints() and constraint_manifold() compiled by a C++
// compiler against the formed A and against φ evaluated directly (Φ_q by central differences);
// `simulate` by the JIT against the interpreted recursions; the cache key follows the constraints
// and not their layout; a constrained sweep (run-time parameters, no GiNaC per case) against
// each case simulated in its formed equations, and threads against one thread bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "appell/codegen/cpp_generator.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/jit/compiled_dynamics.hpp"
#include "appell/jit/dynamics_key.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/constraint_manifold.hpp"
#include "appell/numeric/dynamics.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/recursive_dynamics.hpp"
#include "appell/sweep/sweep_runner.hpp"
#include "appell/sym/dag.hpp"
#include "support/c_compiler.hpp"
#include "support/examples.hpp"
#include "support/expect_close.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"

namespace {

using namespace appell;
namespace fs = std::filesystem;

std::shared_ptr<const model::Model> example(const std::string& name) {
  return io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/" + name + ".yaml");
}

// Every model file with constraints that the tests ship and the generated code covers (the
// recursions in q̇ and q̈: no generalized speeds; examples/ and its folders, tests/data/).
std::vector<std::string> constrained_models() {
  return test_support::shipped_models([](const model::Model& m) {
    return !m.constraints.empty() && !m.has_speeds() &&
           principles::recursions_do_not_cover(m).empty();
  });
}

Eigen::VectorXd random_vector(std::mt19937& engine, Eigen::Index n, double low, double high) {
  std::uniform_real_distribution<double> u(low, high);
  Eigen::VectorXd v(n);
  for (Eigen::Index i = 0; i < n; ++i) v[i] = u(engine);
  return v;
}

using test_support::expect_close;

// A JIT cache folder of the test's own (never the user's).
class JitConstraints : public test_support::ScratchDirTest {
 protected:
  jit::JitOptions jit_options() const {
    jit::JitOptions options;
    options.compiler.cache_directory = dir_ / "cache";
    return options;
  }
};

class ConstrainedJit : public ::testing::TestWithParam<std::string> {};

// The compiled rows, accelerations, multipliers and projection against the formed equations'
// and the projection set up in GiNaC (ConstraintManifold of the model).
TEST_P(ConstrainedJit, CompiledRowsAgreeWithTheFormedEquations) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  const auto model = io::read_model_file(GetParam());
  const fs::path cache =
      fs::temp_directory_path() / ("appell-jit-constraints-" + std::to_string(::getpid()) + "-" +
                                   fs::path(GetParam()).stem().string());
  jit::JitOptions options;
  options.compiler.cache_directory = cache;
  const num::Dynamics jit = jit::compile_dynamics(model, {}, options);
  fs::remove_all(cache);
  ASSERT_STREQ(jit.kind(), "jit") << jit.compilation().reason << jit.compilation().note;
  ASSERT_EQ(jit.constraint_count(), model->constraints.size());
  num::DynamicsWorkspace work;

  const auto eq = principles::derive(model, principles::Method::GibbsAppell);
  const num::CompiledEquations formed(eq);
  const num::ConstraintManifold by_ginac(*model, model::bind(*model, {}).substitution());
  const num::ConstraintManifold by_jit =
      jit.constraint_manifold({}, num::ConstraintTolerances{}.rank);
  ASSERT_EQ(by_jit.constraint_count(), by_ginac.constraint_count());
  ASSERT_EQ(by_jit.holonomic_count(), by_ginac.holonomic_count());

  const auto n = static_cast<Eigen::Index>(model->dof());
  std::mt19937 engine(20261127);
  std::size_t solved = 0;
  for (int s = 0; s < 6; ++s) {
    SCOPED_TRACE("state " + std::to_string(s));
    const double t = 0.3 * s;
    const Eigen::VectorXd q = random_vector(engine, n, -1.0, 1.0);
    const Eigen::VectorXd qd = random_vector(engine, n, -1.0, 1.0);
    Eigen::MatrixXd M, A, M_jit, A_jit;
    Eigen::VectorXd f, b, f_jit, b_jit;
    formed.evaluate(t, q, qd, M, f);
    formed.constraints(A, b);
    jit.mass_matrix_and_forcing(t, q, qd, M_jit, f_jit, work);
    jit.constraints(t, q, qd, A_jit, b_jit, work);
    expect_close(A_jit, A, 1e-11, "A");
    expect_close(b_jit, b, 1e-11, "b");
    expect_close(M_jit, M, 1e-11, "M");
    expect_close(f_jit, f, 1e-11, "f");

    // The same solver on both: the same q̈ and λ, at the state moved onto the constraints
    // (off them redundant rows may ask for different accelerations: both refuse alike).
    Eigen::VectorXd q_on = q, qd_on = qd;
    if (by_ginac.project_positions(t, q_on, 1e-12)) by_ginac.project_velocities(t, q_on, qd_on);
    formed.evaluate(t, q_on, qd_on, M, f);
    formed.constraints(A, b);
    Eigen::VectorXd qdd, lambda, qdd_jit, lambda_jit;
    bool refused = false, refused_jit = false;
    try {
      formed.accelerations_and_multipliers(M, f, A, b, qdd, lambda, num::ConstraintTolerances{});
    } catch (const model::ComputationError&) {
      refused = true;
    }
    try {
      jit.accelerations(t, q_on, qd_on, qdd_jit, lambda_jit, work, num::ConstraintTolerances{});
    } catch (const model::ComputationError&) {
      refused_jit = true;
    }
    ASSERT_EQ(refused_jit, refused);
    if (!refused) {
      ++solved;
      expect_close(qdd_jit, qdd, 1e-8, "qdd");
      expect_close(lambda_jit, lambda, 1e-8, "lambda");
    }

    // The projections: the same distance from the manifold, the same corrected state.
    const num::ConstraintViolation v = by_jit.violation(t, q, qd), w = by_ginac.violation(t, q, qd);
    EXPECT_NEAR(v.position, w.position, 1e-12 * (1 + w.position));
    EXPECT_NEAR(v.velocity, w.velocity, 1e-12 * (1 + w.velocity));
    Eigen::VectorXd q_jit = 0.1 * q, q_ginac = 0.1 * q, qd_jit = qd, qd_ginac = qd;
    const bool on = by_ginac.project_positions(t, q_ginac, 1e-12);
    ASSERT_EQ(by_jit.project_positions(t, q_jit, 1e-12), on);
    expect_close(q_jit, q_ginac, 1e-9, "projected q");
    by_jit.project_velocities(t, q_ginac, qd_jit);
    by_ginac.project_velocities(t, q_ginac, qd_ginac);
    expect_close(qd_jit, qd_ginac, 1e-9, "projected qd");
    if (on) {
      EXPECT_LE(by_jit.violation(t, q_ginac, qd_jit).velocity, 1e-9);
    }
  }
  EXPECT_GT(solved, 0u);
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = fs::path(info.param).stem().string();
  std::replace_if(
      name.begin(), name.end(), [](unsigned char c) { return !std::isalnum(c); }, '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(JitConstraints, ConstrainedJit, ::testing::ValuesIn(constrained_models()),
                         test_name);

TEST_F(JitConstraints, TheShippedConstrainedExamplesAreAmongThem) {
  const auto models = constrained_models();
  for (const char* name : {"slider_crank", "bricard", "rolling_disk", "chaplygin_sleigh",
                           "overconstrained_pendulum", "whipple_bicycle"}) {
    const std::string path = std::string(APPELL_EXAMPLES_DIR) + "/" + name + ".yaml";
    EXPECT_NE(std::find(models.begin(), models.end(), path), models.end()) << name;
  }
}

// The rows of a row of q: a simulation's positions and multipliers, flattened.
struct Motion {
  std::vector<double> q, qd, lambda;
  num::SimulationResult result;
};

Motion simulate(const std::shared_ptr<const model::Model>& model, num::SimulationOptions options) {
  Motion m;
  m.result = num::simulate(model, options, [&](const num::SimulationRow& row) {
    m.q.insert(m.q.end(), row.q.data(), row.q.data() + row.q.size());
    m.qd.insert(m.qd.end(), row.qd.data(), row.qd.data() + row.qd.size());
    m.lambda.insert(m.lambda.end(), row.lambda.data(), row.lambda.data() + row.lambda.size());
  });
  return m;
}

// Simulate by the JIT against the recursions interpreted: the same motion to the level at which
// two roundings of the same numbers part under the integrator (far below its tolerance).
TEST_F(JitConstraints, SimulateByTheJitEqualsTheInterpretedRecursions) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  for (const char* name : {"slider_crank", "bricard", "rolling_disk", "overconstrained_pendulum",
                           "chaplygin_sleigh"}) {
    SCOPED_TRACE(name);
    const auto model = example(name);
    num::SimulationOptions options;
    options.t_end = 1.0;
    options.output_step = 0.1;
    const Motion interpreted = simulate(model, options);
    options.dynamics =
        std::make_shared<const num::Dynamics>(jit::compile_dynamics(model, {}, jit_options()));
    ASSERT_STREQ(options.dynamics->kind(), "jit");
    const Motion compiled = simulate(model, options);
    ASSERT_EQ(compiled.q.size(), interpreted.q.size());
    ASSERT_EQ(compiled.lambda.size(), interpreted.lambda.size());
    ASSERT_EQ(compiled.result.rows, 11u);
    EXPECT_GT(compiled.lambda.size(), 0u);
    for (std::size_t i = 0; i < compiled.q.size(); ++i) {
      EXPECT_NEAR(compiled.q[i], interpreted.q[i], 1e-9) << i;
      EXPECT_NEAR(compiled.qd[i], interpreted.qd[i], 1e-8) << i;
    }
    for (std::size_t i = 0; i < compiled.lambda.size(); ++i)
      EXPECT_NEAR(compiled.lambda[i], interpreted.lambda[i],
                  1e-7 * (1 + std::fabs(interpreted.lambda[i])))
          << i;
    EXPECT_EQ(compiled.result.redundant_constraints, interpreted.result.redundant_constraints);
    EXPECT_NEAR(compiled.result.initial_correction.position,
                interpreted.result.initial_correction.position, 1e-12);
    EXPECT_LE(compiled.result.max_violation.position, 1e-7);
    EXPECT_LE(compiled.result.max_violation.velocity, 1e-6);
  }
}

// The numbers of the CSV after its header line.
std::vector<double> csv_numbers(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::vector<double> out;
  while (std::getline(in, line)) {
    std::stringstream cells(line);
    std::string cell;
    while (std::getline(cells, cell, ',')) out.push_back(std::strtod(cell.c_str(), nullptr));
  }
  return out;
}

// `appell simulate` of a constrained model runs the JIT and writes the interpreted route's
// numbers (--no-jit) to rounding.
TEST_F(JitConstraints, SimulateCommandUsesTheJit) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  const std::string cache = (dir_ / "cli-cache").string();
  ::setenv("APPELL_CACHE_DIR", cache.c_str(), 1);
  const std::string model = std::string(APPELL_EXAMPLES_DIR) + "/bricard.yaml";
  const std::string jit_csv = (dir_ / "jit.csv").string(), tape_csv = (dir_ / "tape.csv").string();
  const auto by_jit = test_support::run_cli("simulate " + model + " --t-end 0.5 --out " + jit_csv);
  const auto interpreted =
      test_support::run_cli("simulate " + model + " --t-end 0.5 --no-jit --out " + tape_csv);
  ::unsetenv("APPELL_CACHE_DIR");
  ASSERT_EQ(by_jit.code, 0) << by_jit.out;
  ASSERT_EQ(interpreted.code, 0) << interpreted.out;
  EXPECT_NE(by_jit.out.find("steps/s (jit)"), std::string::npos) << by_jit.out;
  EXPECT_NE(interpreted.out.find("steps/s (recursions)"), std::string::npos) << interpreted.out;
  EXPECT_EQ(by_jit.out.find("note:"), std::string::npos) << by_jit.out;
  const auto a = csv_numbers(jit_csv), b = csv_numbers(tape_csv);
  ASSERT_EQ(a.size(), b.size());
  ASSERT_GT(a.size(), 50u);
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-7 * (1 + std::fabs(b[i])));
}

// A second process finds the first one's library: the key of a constrained model is the same in
// every run (GiNaC keeps Bricard's closures in a different tree from run to run: their sign
// inside or outside a sum), so each model is compiled once.
TEST_F(JitConstraints, AnotherProcessFindsTheCompiledLibrary) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  const fs::path cache = dir_ / "cli-cache";
  ::setenv("APPELL_CACHE_DIR", cache.c_str(), 1);
  const std::vector<std::string> names = {"bricard", "slider_crank", "rolling_disk"};
  for (int run = 0; run < 3; ++run)
    for (const auto& name : names) {
      const auto r =
          test_support::run_cli("simulate " + std::string(APPELL_EXAMPLES_DIR) + "/" + name +
                                ".yaml --t-end 0.01 --out " + (dir_ / "out.csv").string());
      EXPECT_EQ(r.code, 0) << r.out;
    }
  ::unsetenv("APPELL_CACHE_DIR");
  std::size_t libraries = 0;
  for (const auto& entry : fs::directory_iterator(cache / "jit"))
    libraries += entry.path().extension() == ".so";
  EXPECT_EQ(libraries, names.size());
}

// The cache key holds the constraints by their structure: another constraint is another key, a
// constraint written with other spaces (or in another order of keys) the same.
TEST_F(JitConstraints, TheKeyFollowsTheConstraintsNotTheirLayout) {
  const std::string head = R"(name: loop
parameters: {r: 0.1, L: 0.3, m: 1.0}
coordinates: [q1, q2, x]
frames:
  crank: {rotation: rot_z(q1)}
  rod: {translation: [r*cos(q1), r*sin(q1), 0], rotation: rot_z(q2)}
  slider: {translation: [x, 0, 0]}
bodies:
  crank_body: {frame: crank, mass: m, com: [r/2, 0, 0], inertia: {rod: {length: r, axis: x}}}
  rod_body: {frame: rod, mass: m, com: [L/2, 0, 0], inertia: {rod: {length: L, axis: x}}}
particles:
  block: {frame: slider, mass: m, position: [0, 0, 0]}
constraints:
)";
  const auto content = [&](const std::string& constraints) {
    return jit::dynamics_content(*io::parse_model(head + constraints, "loop.yaml"));
  };
  const std::string original = content(
      "  - {name: loop_x, holonomic: \"r*cos(q1) + L*cos(q2) - x\"}\n"
      "  - {name: loop_y, holonomic: \"r*sin(q1) + L*sin(q2)\"}\n");
  const std::string spaced = content(
      "  - {holonomic: \"r*cos( q1 )+L*cos(q2)-x\",   name: loop_x}\n"
      "  - {name: loop_y, holonomic: \"L*sin(q2) + r*sin(q1)\"}   # the same\n");
  const std::string edited = content(
      "  - {name: loop_x, holonomic: \"r*cos(q1) + L*cos(q2) - x - 0.01\"}\n"
      "  - {name: loop_y, holonomic: \"r*sin(q1) + L*sin(q2)\"}\n");
  const std::string nonholonomic = content(
      "  - {name: loop_x, nonholonomic: \"r*cos(q1) + L*cos(q2) - x\"}\n"
      "  - {name: loop_y, holonomic: \"r*sin(q1) + L*sin(q2)\"}\n");
  const std::string fewer =
      content("  - {name: loop_x, holonomic: \"r*cos(q1) + L*cos(q2) - x\"}\n");
  EXPECT_EQ(spaced, original);
  EXPECT_NE(edited, original);
  EXPECT_NE(nonholonomic, original);
  EXPECT_NE(fewer, original);
  if (!test_support::have_compiler()) return;
  const auto key = [&](const std::string& constraints) {
    return jit::dynamics_key(*io::parse_model(head + constraints, "loop.yaml"));
  };
  EXPECT_EQ(key("  - {name: a, holonomic: \"r*sin(q1) + L*sin(q2)\"}\n"),
            key("  - {name: a, holonomic: \"r*sin(q1)+L*sin(q2)\"}\n"));
  EXPECT_NE(key("  - {name: a, holonomic: \"r*sin(q1) + L*sin(q2)\"}\n"),
            key("  - {name: a, holonomic: \"r*sin(q1) - L*sin(q2)\"}\n"));
}

// The slider-crank swept over the slider's mass and the crank's radius (the loop's closure):
// each case as it moves in its own formed equations.
sweep::CaseTable slider_cases() {
  sweep::CaseTable table;
  table.columns = {{"m3", sweep::ColumnKind::Parameter, "m3"},
                   {"r", sweep::ColumnKind::Parameter, "r"},
                   {"qd0.q1", sweep::ColumnKind::InitialRate, "q1"}};
  const std::vector<std::vector<double>> rows = {{2.0, 0.1, 0.0},   {0.5, 0.08, 3.0},
                                                 {4.0, 0.12, -2.0}, {1.0, 0.1, 1.0},
                                                 {3.0, 0.09, 0.5},  {6.0, 0.11, -1.0}};
  for (std::size_t k = 0; k < rows.size(); ++k) {
    table.numbers.push_back(rows[k]);
    table.expressions.push_back({"", "", ""});
    table.rows.push_back({"cases.csv", static_cast<int>(k + 2), 1});
  }
  return table;
}

sweep::RunnerOptions slider_options(const jit::JitOptions& jit, bool enabled) {
  sweep::RunnerOptions options;
  options.settings.t_end = 1.0;
  options.settings.output_step = 0.1;
  options.settings.save = sweep::Save::Series;
  // Tight, so that the two routes' integration errors stay below what the comparison resolves.
  options.settings.rtol = 1e-10;
  options.settings.atol = 1e-10;
  options.jit = jit;
  options.jit.enabled = enabled;
  return options;
}

TEST_F(JitConstraints, AConstrainedSweepRunsEachCaseAsItsFormedEquations) {
  const auto model = example("slider_crank");
  const auto eq = principles::derive(model, principles::Method::GibbsAppell);
  const sweep::CaseTable table = slider_cases();
  for (const bool enabled : {false, true}) {
    if (enabled && !test_support::have_compiler()) continue;
    SCOPED_TRACE(enabled ? "jit" : "recursions");
    const sweep::SweepRunner runner(model, table, slider_options(jit_options(), enabled));
    EXPECT_TRUE(runner.parallel());
    EXPECT_EQ(runner.evaluator(), enabled ? "jit" : "recursions");
    EXPECT_EQ(runner.note(), "");
    for (std::size_t k = 0; k < table.size(); ++k) {
      SCOPED_TRACE("case " + std::to_string(k));
      const sweep::CaseResult r = runner.run(k);
      ASSERT_EQ(r.status, "ok");
      num::SimulationOptions options;
      options.t_end = 1.0;
      options.output_step = 0.1;
      options.rtol = 1e-10;
      options.atol = 1e-10;
      options.values.set("m3", table.numbers[k][0]).set("r", table.numbers[k][1]);
      options.qd0 = {table.numbers[k][2], 0.0, 0.0};
      std::vector<double> q;
      std::size_t constraints = 0;
      const auto formed = num::simulate(eq, options, [&](const num::SimulationRow& row) {
        q.insert(q.end(), row.q.data(), row.q.data() + row.q.size());
        constraints = static_cast<std::size_t>(row.lambda.size());
      });
      EXPECT_EQ(constraints, 2u);
      ASSERT_EQ(r.q.size(), q.size());
      for (std::size_t i = 0; i < q.size(); ++i) EXPECT_NEAR(r.q[i], q[i], 1e-7) << i;
      // The loop of this case's r is closed along the motion: the x of the slider follows it.
      const double r_case = table.numbers[k][1], q1 = r.final_q[0], q2 = r.final_q[1];
      EXPECT_NEAR(r_case * std::cos(q1) + 0.3 * std::cos(q2), r.final_q[2], 1e-9);
      EXPECT_NEAR(r_case * std::sin(q1) + 0.3 * std::sin(q2), 0.0, 1e-9);
      EXPECT_LE(r.energy_drift, 1e-5 * (1 + std::fabs(formed.initial_energy)));
    }
  }
}

TEST_F(JitConstraints, AConstrainedSweepOnThreadsGivesTheBitsOfOneThread) {
  const auto model = example("slider_crank");
  sweep::CaseTable table = slider_cases();
  // More cases than threads, so that threads take cases in varying order.
  for (int copy = 0; copy < 2; ++copy)
    for (std::size_t k = 0; k < 6; ++k) {
      std::vector<double> row = table.numbers[k];
      row[2] += 0.25 * (copy + 1);
      table.numbers.push_back(row);
      table.expressions.push_back({"", "", ""});
      table.rows.push_back({"cases.csv", static_cast<int>(table.rows.size() + 2), 1});
    }
  for (const bool enabled : {false, true}) {
    if (enabled && !test_support::have_compiler()) continue;
    SCOPED_TRACE(enabled ? "jit" : "recursions");
    const sweep::SweepRunner runner(model, table, slider_options(jit_options(), enabled));
    std::vector<std::size_t> all(table.size());
    for (std::size_t k = 0; k < all.size(); ++k) all[k] = k;
    std::vector<sweep::CaseResult> one(all.size()), three(all.size());
    sweep::run_cases(runner, all, 1, [&](sweep::CaseResult&& r) { one[r.index] = std::move(r); });
    sweep::run_cases(runner, all, 3, [&](sweep::CaseResult&& r) { three[r.index] = std::move(r); });
    for (std::size_t k = 0; k < all.size(); ++k) {
      SCOPED_TRACE("case " + std::to_string(k));
      EXPECT_EQ(one[k].status, "ok");
      EXPECT_EQ(three[k].status, one[k].status);
      EXPECT_EQ(three[k].q, one[k].q);
      EXPECT_EQ(three[k].qd, one[k].qd);
      EXPECT_EQ(three[k].total, one[k].total);
      EXPECT_EQ(three[k].steps, one[k].steps);
    }
  }
}

// The generated C++ header of a constrained model: compiled with -Wall -Wextra -Werror, its
// constraints() equal the formed A and b, and constraint_manifold() gives φ as the model's
// expressions evaluate, Φ_q as central differences of φ, the velocity coefficients as A (φ̈ and
// φ̇ have the same coefficients of q̈ and q̇) and the residual as the rate of φ along q̇.
TEST_F(JitConstraints, GeneratedHeaderHasTheRowsAndTheLevels) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  for (const char* name : {"slider_crank", "rolling_disk"}) {
    SCOPED_TRACE(name);
    const auto model = example(name);
    const auto eq = principles::derive(model, principles::Method::GibbsAppell);
    const std::size_t n = model->dof(), m = model->constraints.size();
    std::size_t h = 0;
    for (const auto& c : model->constraints) h += c.kind == model::Constraint::Kind::Holonomic;
    codegen::CodegenOptions options;
    options.namespace_name = "generated";
    const std::string header = codegen::generate_code(*model, options);
    EXPECT_NE(header.find("constexpr int constraint_count = " + std::to_string(m) + ";"),
              std::string::npos);
    // The same bytes for the same model (deterministic output).
    EXPECT_EQ(codegen::generate_code(*model, options), header);
    const fs::path header_path = dir_ / (std::string(name) + ".hpp"),
                   driver = dir_ / (std::string(name) + ".cpp"),
                   program = dir_ / (std::string(name) + ".bin"), out = dir_ / "out.txt",
                   log = dir_ / "log.txt";
    std::ofstream(header_path) << header;
    const double t = 0.2;
    std::vector<double> q, qd;
    for (std::size_t j = 0; j < n; ++j) {
      q.push_back(0.3 + 0.4 * std::sin(1.3 * static_cast<double>(j + 1)));
      qd.push_back(0.5 * std::cos(0.9 * static_cast<double>(j + 1)));
    }
    std::ostringstream d;
    d.precision(17);
    d << "#include \"" << header_path.string() << "\"\n#include <cstdio>\nint main() {\n"
      << "  const double q[] = {";
    for (double v : q) d << v << ", ";
    d << "}, qd[] = {";
    for (double v : qd) d << v << ", ";
    d << "};\n  double A[" << m * n << "], b[" << m << "], phi[" << std::max<std::size_t>(h, 1)
      << "], phi_q[" << std::max<std::size_t>(h * n, 1) << "], g[" << m << "], g_qd[" << m * n
      << "];\n  generated::Parameters p;\n  generated::Inputs in;\n"
      << "  generated::constraints(" << t << ", q, qd, p, in, A, b);\n"
      << "  generated::constraint_manifold(" << t << ", q, qd, p, in, phi, phi_q, g, g_qd);\n"
      << "  for (double v : A) std::printf(\"%.17g\\n\", v);\n"
      << "  for (double v : b) std::printf(\"%.17g\\n\", v);\n"
      << "  for (int i = 0; i < generated::holonomic_count; ++i) std::printf(\"%.17g\\n\", "
         "phi[i]);\n"
      << "  for (int i = 0; i < generated::holonomic_count * generated::dof; ++i)"
      << " std::printf(\"%.17g\\n\", phi_q[i]);\n"
      << "  for (double v : g) std::printf(\"%.17g\\n\", v);\n"
      << "  for (double v : g_qd) std::printf(\"%.17g\\n\", v);\n}\n";
    std::ofstream(driver) << d.str();
    const std::string compile = std::string(APPELL_CXX_COMPILER) +
                                " -std=c++17 -O1 -Wall -Wextra -Wpedantic -Wshadow -Werror -o " +
                                program.string() + " " + driver.string() + " > " + log.string() +
                                " 2>&1";
    ASSERT_EQ(std::system(compile.c_str()), 0) << [&] {
      std::ifstream in(log);
      return std::string(std::istreambuf_iterator<char>(in), {});
    }();
    ASSERT_EQ(std::system((program.string() + " > " + out.string()).c_str()), 0);
    std::ifstream numbers(out);
    auto next = [&](std::size_t rows, std::size_t cols) {
      Eigen::MatrixXd v(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
      for (Eigen::Index i = 0; i < v.rows(); ++i)
        for (Eigen::Index j = 0; j < v.cols(); ++j) numbers >> v(i, j);
      return v;
    };
    const Eigen::MatrixXd A = next(m, n), b = next(m, 1), phi = next(h, 1), phi_q = next(h, n),
                          g = next(m, 1), g_qd = next(m, n);
    ASSERT_TRUE(numbers.good());

    const num::CompiledEquations formed(eq);
    const auto nn = static_cast<Eigen::Index>(n);
    const Eigen::VectorXd qv = Eigen::Map<const Eigen::VectorXd>(q.data(), nn),
                          qdv = Eigen::Map<const Eigen::VectorXd>(qd.data(), nn);
    Eigen::MatrixXd M, A_formed;
    Eigen::VectorXd f, b_formed;
    formed.evaluate(t, qv, qdv, M, f);
    formed.constraints(A_formed, b_formed);
    expect_close(A, A_formed, 1e-12, "A");
    expect_close(b, b_formed, 1e-12, "b");
    expect_close(g_qd, A_formed, 1e-12, "g_qd");

    // φ straight from the model's expressions, with the parameters' numbers.
    const GiNaC::exmap numbers_of = model::bind(*model, {}).substitution();
    const auto holonomic_at = [&](const Eigen::VectorXd& at) {
      GiNaC::exmap state = numbers_of;
      state[model->time_functions->time()] = t;
      for (std::size_t j = 0; j < n; ++j)
        state[model->coordinate_symbol(j, 0)] = at[static_cast<Eigen::Index>(j)];
      Eigen::VectorXd out(static_cast<Eigen::Index>(h));
      Eigen::Index i = 0;
      for (const auto& c : model->constraints)
        if (c.kind == model::Constraint::Kind::Holonomic)
          out[i++] =
              GiNaC::ex_to<GiNaC::numeric>(GiNaC::evalf(sym::substitute(c.expression, state)))
                  .to_double();
      return out;
    };
    expect_close(phi, holonomic_at(qv), 1e-13, "phi");
    const double step = 1e-6;
    Eigen::MatrixXd differences(static_cast<Eigen::Index>(h), nn);
    for (Eigen::Index j = 0; j < nn; ++j) {
      Eigen::VectorXd up = qv, down = qv;
      up[j] += step;
      down[j] -= step;
      differences.col(j) = (holonomic_at(up) - holonomic_at(down)) / (2 * step);
    }
    expect_close(phi_q, differences, 1e-8, "phi_q");
    // The holonomic residuals at velocity level: the rate of φ along q̇ (no φ depends on t).
    const Eigen::VectorXd rate =
        (holonomic_at(qv + step * qdv) - holonomic_at(qv - step * qdv)) / (2 * step);
    expect_close(g.topRows(static_cast<Eigen::Index>(h)), rate, 1e-8, "g of the holonomic");
    // A nonholonomic g is linear in q̇ with no other term in these models: g = g_qd q̇.
    expect_close(g.bottomRows(static_cast<Eigen::Index>(m - h)),
                 (g_qd * qdv).bottomRows(static_cast<Eigen::Index>(m - h)), 1e-12,
                 "g of the nonholonomic");
  }
}

// `appell codegen` writes the rows of a constrained model (the CLI refused it before).
TEST_F(JitConstraints, CodegenCommandWritesTheRows) {
  const std::string model = std::string(APPELL_EXAMPLES_DIR) + "/chaplygin_sleigh.yaml";
  const std::string out = (dir_ / "sleigh.h").string();
  const auto r = test_support::run_cli("codegen " + model + " --language c --out " + out);
  ASSERT_EQ(r.code, 0) << r.out;
  std::ifstream in(out);
  const std::string text(std::istreambuf_iterator<char>(in), {});
  EXPECT_NE(text.find("_constraints(double t"), std::string::npos);
  EXPECT_NE(text.find("_constraint_manifold(double t"), std::string::npos);
  EXPECT_NE(text.find("_constraint_count = 1"), std::string::npos);
  // Inverse dynamics has no multipliers to give: still refused, at the constraint.
  const auto refused = test_support::run_cli(
      "inverse " + model + " --trajectory \"x=t; y=0; theta=0\" --t-end 1 --output-step 0.5 " +
      "--out " + (dir_ / "tau.csv").string());
  EXPECT_EQ(refused.code, 2) << refused.out;
  EXPECT_NE(refused.out.find("not supported by 'inverse'"), std::string::npos) << refused.out;
}

}  // namespace
