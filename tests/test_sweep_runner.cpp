// The sweep's runner: one num::Dynamics with the cases' parameters read at run time gives the
// numbers of a Dynamics with those values folded in (parameters whose defaults follow them and
// inputs driven by expressions of them included); every case of a sweep equals its own
// simulation; threads give the bits of one thread; a bad case fails alone.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "appell/io/model_reader.hpp"
#include "appell/numeric/dynamics.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/sweep/sweep_runner.hpp"
#include "support/test_models.hpp"

namespace {

using namespace appell;

// A chain whose second link's inertia is a parameter computed from others, and a motor torque
// driven by an expression of a parameter.
const char* const kArm = R"(name: arm
parameters: {m: 1.0, l: 0.6, J: m*l^2/3, A: 0.5, g: 9.81}
coordinates: [{name: a, initial: 0.3}, {name: b, initial: -0.2, velocity: 0.4}]
inputs: [u]
frames:
  upper: {parent: world, rotation: rot_z(a)}
  lower: {parent: upper, translation: [l, 0, 0], rotation: rot_z(b)}
bodies:
  rod: {frame: upper, mass: m, com: [l/2, 0, 0], inertia: {rod: {length: l, axis: x}}}
  wheel: {frame: lower, mass: 2*m, inertia: [J, J, J]}
particles:
  tip: {frame: lower, mass: 0.3, position: [l, 0, 0]}
gravity: [0, -g, 0]
loads:
  - generalized: {coordinate: b, value: u}
)";

Eigen::VectorXd random_vector(std::mt19937& engine, Eigen::Index n) {
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  Eigen::VectorXd v(n);
  for (Eigen::Index i = 0; i < n; ++i) v[i] = u(engine);
  return v;
}

TEST(RuntimeParameters, GiveTheNumbersOfFoldedValues) {
  const auto model = io::parse_model(kArm, "arm.yaml");
  model::Values common;
  common.drive("u", num::parse_time_function(*model, "A*sin(3*t)"));
  num::DynamicsOptions options;
  options.runtime_parameters = {"m", "A"};
  const num::Dynamics runtime(model, common, options);
  // J follows m (its default uses m); l and g stay folded.
  EXPECT_EQ(runtime.runtime_parameters(), (std::vector<std::string>{"m", "J", "A"}));
  std::mt19937 engine(7);
  for (const auto& [m, A] : {std::pair{1.0, 0.5}, {2.5, -1.0}, {0.2, 3.0}}) {
    SCOPED_TRACE("m = " + std::to_string(m) + ", A = " + std::to_string(A));
    model::Values values = common;
    values.set("m", m).set("A", A);
    const num::Dynamics folded(model, values);
    num::DynamicsWorkspace work, folded_work;
    work.parameters = runtime.runtime_parameter_values(model::bind(*model, values));
    ASSERT_EQ(work.parameters.size(), 3u);
    EXPECT_DOUBLE_EQ(work.parameters[1], m * 0.36 / 3);
    for (int s = 0; s < 3; ++s) {
      const double t = 0.4 + s;
      const Eigen::VectorXd q = random_vector(engine, 2), qd = random_vector(engine, 2);
      Eigen::VectorXd want, got;
      folded.accelerations(t, q, qd, want, folded_work);
      runtime.accelerations(t, q, qd, got, work);
      EXPECT_LE((got - want).cwiseAbs().maxCoeff(), 1e-12 * (1 + want.cwiseAbs().maxCoeff()));
      double T0, V0, T1, V1;
      folded.energies(t, q, qd, T0, V0, folded_work);
      runtime.energies(t, q, qd, T1, V1, work);
      EXPECT_NEAR(T1, T0, 1e-12 * (1 + std::abs(T0)));
      EXPECT_NEAR(V1, V0, 1e-12 * (1 + std::abs(V0)));
    }
  }
  // A parameter given a number keeps it: J set explicitly no longer follows m.
  model::Values fixed = common;
  fixed.set("J", 0.05);
  EXPECT_EQ(num::Dynamics(model, fixed, options).runtime_parameters(),
            (std::vector<std::string>{"m", "A"}));
  num::DynamicsOptions unknown;
  unknown.runtime_parameters = {"mass"};
  EXPECT_THROW(num::Dynamics(model, common, unknown), std::invalid_argument);
}

sweep::CaseTable parameter_cases(const std::vector<double>& masses, const std::vector<double>& a0) {
  sweep::CaseTable table;
  table.columns = {{"m", sweep::ColumnKind::Parameter, "m"},
                   {"q0.a", sweep::ColumnKind::InitialCoordinate, "a"}};
  for (std::size_t k = 0; k < masses.size(); ++k) {
    table.numbers.push_back({masses[k], a0[k]});
    table.expressions.push_back({"", ""});
    table.rows.push_back({"cases.csv", static_cast<int>(k + 2), 1});
  }
  return table;
}

sweep::RunnerOptions runner_options(const model::Model& model, sweep::Save save, bool jit) {
  sweep::RunnerOptions options;
  options.settings.t_end = 2.0;
  options.settings.output_step = 0.1;
  options.settings.save = save;
  options.jit.enabled = jit;
  options.common.drive("u", num::parse_time_function(model, "A*sin(3*t)"));
  return options;
}

TEST(SweepRunner, EachCaseIsItsOwnSimulation) {
  const auto model = io::parse_model(kArm, "arm.yaml");
  const sweep::SweepRunner runner(model, parameter_cases({1.0, 2.0, 0.5}, {0.3, -0.6, 1.2}),
                                  runner_options(*model, sweep::Save::Series, false));
  EXPECT_EQ(runner.evaluator(), "recursions");
  for (std::size_t k = 0; k < 3; ++k) {
    SCOPED_TRACE("case " + std::to_string(k));
    const sweep::CaseResult r = runner.run(k);
    ASSERT_EQ(r.status, "ok");
    ASSERT_EQ(r.rows, runner.times().size());
    // The same motion by num::simulate with the values folded.
    num::SimulationOptions options;
    options.t_end = 2.0;
    options.output_step = 0.1;
    options.values.set("m", std::vector<double>{1.0, 2.0, 0.5}[k]);
    options.inputs["u"] = num::parse_time_function(*model, "A*sin(3*t)");
    options.q0 = {std::vector<double>{0.3, -0.6, 1.2}[k], -0.2};
    options.qd0 = {0.0, 0.4};
    std::vector<double> q;
    num::simulate(model, options, [&](const num::SimulationRow& row) {
      q.insert(q.end(), row.q.data(), row.q.data() + row.q.size());
    });
    ASSERT_EQ(q.size(), r.q.size());
    for (std::size_t i = 0; i < q.size(); ++i) EXPECT_NEAR(r.q[i], q[i], 1e-6);
    EXPECT_EQ(r.final_q, std::vector<double>(r.q.end() - 2, r.q.end()));
    EXPECT_LE(r.min_q[0], r.final_q[0]);
    EXPECT_GE(r.max_q[0], r.final_q[0]);
  }
}

TEST(SweepRunner, ThreadsGiveTheBitsOfOneThreadAndABadCaseFailsAlone) {
  const auto model = io::parse_model(kArm, "arm.yaml");
  std::vector<double> masses, a0;
  for (int k = 0; k < 12; ++k) {
    masses.push_back(0.5 + 0.25 * k);
    a0.push_back(-1.0 + 0.2 * k);
  }
  masses[5] = -1.0;  // an impossible body: this case fails, the others run
  for (const bool jit : {false, true}) {
    SCOPED_TRACE(jit ? "jit" : "recursions");
    const sweep::SweepRunner runner(model, parameter_cases(masses, a0),
                                    runner_options(*model, sweep::Save::Series, jit));
    std::vector<std::size_t> all(masses.size());
    for (std::size_t k = 0; k < all.size(); ++k) all[k] = k;
    std::vector<sweep::CaseResult> one(all.size()), two(all.size());
    sweep::run_cases(runner, all, 1, [&](sweep::CaseResult&& r) { one[r.index] = std::move(r); });
    sweep::run_cases(runner, all, 3, [&](sweep::CaseResult&& r) { two[r.index] = std::move(r); });
    for (std::size_t k = 0; k < all.size(); ++k) {
      SCOPED_TRACE("case " + std::to_string(k));
      EXPECT_EQ(one[k].status, two[k].status);
      EXPECT_EQ(one[k].q, two[k].q);
      EXPECT_EQ(one[k].qd, two[k].qd);
      EXPECT_EQ(one[k].total, two[k].total);
      EXPECT_EQ(one[k].steps, two[k].steps);
      if (k == 5) {
        EXPECT_NE(one[k].status.find("failed: "), std::string::npos);
        EXPECT_NE(one[k].status.find("mass must be positive"), std::string::npos) << one[k].status;
        EXPECT_NE(one[k].status.find("cases.csv:7:1"), std::string::npos) << one[k].status;
      } else {
        EXPECT_EQ(one[k].status, "ok");
      }
    }
  }
}

TEST(SweepRunner, EnergyOfAConservativeChainStaysAndFailuresAreCases) {
  const auto model = io::parse_model(test_support::spatial_chain_yaml(3), "chain.yaml");
  sweep::CaseTable table;
  table.columns = {{"l", sweep::ColumnKind::Parameter, "l"},
                   {"qd0.q2", sweep::ColumnKind::InitialRate, "q2"}};
  table.numbers = {{0.5, 1.0}, {0.8, -2.0}};
  table.expressions = {{"", ""}, {"", ""}};
  table.rows = {{"--grid", 0, 0}, {"--grid", 0, 0}};
  sweep::RunnerOptions options;
  options.settings.t_end = 1.0;
  options.settings.save = sweep::Save::Summary;
  options.jit.enabled = false;
  const sweep::SweepRunner runner(model, table, options);
  for (std::size_t k = 0; k < 2; ++k) {
    const sweep::CaseResult r = runner.run(k);
    ASSERT_EQ(r.status, "ok");
    EXPECT_TRUE(r.q.empty());  // no series kept
    EXPECT_LT(r.energy_drift, 1e-5 * (1 + std::abs(r.final_total)));
    EXPECT_NEAR(r.max_total - r.min_total, r.energy_drift, 2 * r.energy_drift + 1e-12);
  }
  options.settings.rtol = -1;
  EXPECT_THROW(sweep::SweepRunner(model, table, options), model::ModelError);
}

}  // namespace
