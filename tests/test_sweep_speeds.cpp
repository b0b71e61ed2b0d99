// A sweep of models in generalized speeds (quaternion frames, a URDF's floating base) through one
// num::Dynamics in the speeds shared by every case on threads, nothing formed or bound per case:
// each case equals its own num::simulate(model, ...) with that case's values (its parameters
// folded, its initial speeds given, or by the velocities); eight threads give the bits of one; the
// free box keeps E = T + V at its value worked out by hand; the damped cube's speeds decay as
// w0 exp(−k t / I), I = m a²/6; the initial speeds of velocities by W (least squares) are Y's. A
// model in the speeds with constraints keeps the formed equations (its projection is set up per
// case), and simulate() of its Dynamics says why.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "appell/io/model_reader.hpp"
#include "appell/io/urdf_reader.hpp"
#include "appell/numeric/dynamics.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/numeric/speeds.hpp"
#include "appell/sweep/sweep_runner.hpp"
#include "support/c_compiler.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"

namespace {

using namespace appell;

const std::string examples = APPELL_EXAMPLES_DIR;

std::shared_ptr<const model::Model> example(const std::string& name) {
  return io::read_model_file(examples + "/speeds/" + name);
}

std::shared_ptr<const model::Model> floating_satellite() {
  io::UrdfOptions options;
  options.floating_base = true;
  options.symbolic_inertia = true;  // its masses are parameters to sweep
  return io::read_urdf_file(examples + "/urdf/satellite_arm.urdf", options);
}

// A Cartesian grid of `values` (one list per column), the first column slowest.
sweep::CaseTable grid(const std::vector<sweep::CaseColumn>& columns,
                      const std::vector<std::vector<double>>& values) {
  sweep::CaseTable table;
  table.columns = columns;
  std::vector<std::size_t> at(columns.size(), 0);
  for (bool more = true; more;) {
    std::vector<double> row;
    for (std::size_t c = 0; c < columns.size(); ++c) row.push_back(values[c][at[c]]);
    table.numbers.push_back(row);
    table.expressions.emplace_back(columns.size());
    table.rows.push_back({"grid", 0, 0});
    more = false;
    for (std::size_t c = columns.size(); c-- > 0;) {
      if (++at[c] < values[c].size()) {
        more = true;
        break;
      }
      at[c] = 0;
    }
  }
  return table;
}

sweep::RunnerOptions runner_options(double t_end, bool jit = false) {
  sweep::RunnerOptions options;
  options.jit.enabled = jit;
  options.settings.t_end = t_end;
  options.settings.output_step = 0.05;
  options.settings.rtol = 1e-10;
  options.settings.atol = 1e-10;
  options.settings.save = sweep::Save::Series;
  return options;
}

std::vector<std::size_t> all_cases(const sweep::SweepRunner& runner) {
  std::vector<std::size_t> all(runner.cases().size());
  for (std::size_t k = 0; k < all.size(); ++k) all[k] = k;
  return all;
}

void expect_near(const std::vector<double>& got, const std::vector<double>& want, double tolerance,
                 const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double worst = 0.0;
  for (std::size_t i = 0; i < got.size(); ++i)
    worst = std::max(worst, std::abs(got[i] - want[i]) / (1.0 + std::abs(want[i])));
  EXPECT_LE(worst, tolerance) << what;
}

// Every case of `runner` against num::simulate(model, ...) with the case's values: its parameters
// folded (options.values), its initial coordinates and rates, and its initial speeds (u0 columns)
// over the speeds of its velocities by Y (num::speeds_from_velocities of the model: the
// reference's own, symbolic route).
void expect_each_case_its_own_simulation(const std::shared_ptr<const model::Model>& model,
                                         const sweep::SweepRunner& runner) {
  const model::Model& m = *model;
  const sweep::CaseTable& table = runner.cases();
  const sweep::SweepSettings& settings = runner.options().settings;
  EXPECT_EQ(runner.evaluator(), runner.options().jit.enabled ? "jit" : "recursions");
  EXPECT_TRUE(runner.parallel());
  for (std::size_t k = 0; k < table.size(); ++k) {
    SCOPED_TRACE("case " + std::to_string(k));
    const sweep::CaseResult r = runner.run(k);
    ASSERT_EQ(r.status, "ok");
    ASSERT_EQ(r.rows, runner.times().size());
    ASSERT_EQ(r.speeds, m.speeds.size());

    num::SimulationOptions options;
    options.t_end = settings.t_end;
    options.output_step = settings.output_step;
    options.rtol = settings.rtol;
    options.atol = settings.atol;
    const std::size_t n = m.dof();
    Eigen::VectorXd q0(static_cast<Eigen::Index>(n)), qd0(static_cast<Eigen::Index>(n));
    for (std::size_t j = 0; j < n; ++j) {
      q0[static_cast<Eigen::Index>(j)] = m.coordinates[j].initial;
      qd0[static_cast<Eigen::Index>(j)] = m.coordinates[j].velocity;
    }
    bool speeds_given = false;
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      const sweep::CaseColumn& column = table.columns[c];
      const double value = table.numbers[k][c];
      if (column.kind == sweep::ColumnKind::Parameter) options.values.set(column.target, value);
      for (std::size_t j = 0; j < n; ++j)
        if (m.coordinates[j].name == column.target) {
          if (column.kind == sweep::ColumnKind::InitialCoordinate)
            q0[static_cast<Eigen::Index>(j)] = value;
          if (column.kind == sweep::ColumnKind::InitialRate)
            qd0[static_cast<Eigen::Index>(j)] = value;
        }
      speeds_given = speeds_given || column.kind == sweep::ColumnKind::InitialSpeed;
    }
    options.q0.assign(q0.data(), q0.data() + q0.size());
    if (speeds_given) {
      num::normalize_quaternions(m, q0);
      const Eigen::VectorXd u = num::speeds_from_velocities(m, options.values, 0.0, q0, qd0);
      options.u0.assign(u.data(), u.data() + u.size());
      for (std::size_t c = 0; c < table.columns.size(); ++c)
        for (std::size_t s = 0; s < m.speeds.size(); ++s)
          if (table.columns[c].kind == sweep::ColumnKind::InitialSpeed &&
              m.speeds[s].name == table.columns[c].target)
            options.u0[s] = table.numbers[k][c];
    } else {
      options.qd0.assign(qd0.data(), qd0.data() + qd0.size());
    }
    std::vector<double> q, u, total;
    num::simulate(model, options, [&](const num::SimulationRow& row) {
      q.insert(q.end(), row.q.data(), row.q.data() + row.q.size());
      u.insert(u.end(), row.v.data(), row.v.data() + row.v.size());
      total.push_back(row.total);
    });
    expect_near(r.q, q, 1e-8, "q");
    expect_near(r.u, u, 1e-8, "u");
    expect_near(r.total, total, 1e-8, "E");
    EXPECT_EQ(r.final_u,
              std::vector<double>(r.u.end() - static_cast<long>(m.speeds.size()), r.u.end()));
  }
}

sweep::CaseColumn parameter(const std::string& name) {
  return {name, sweep::ColumnKind::Parameter, name};
}
sweep::CaseColumn initial_speed(const std::string& name) {
  return {"u0." + name, sweep::ColumnKind::InitialSpeed, name};
}
sweep::CaseColumn initial_rate(const std::string& name) {
  return {"qd0." + name, sweep::ColumnKind::InitialRate, name};
}

TEST(SweepSpeeds, EachCaseOfTheFreeBoxIsItsOwnSimulation) {
  const auto model = example("free_box_quaternion.yaml");
  // A parameter and an initial speed; qd0.x enters through vx, the speed of its velocity.
  const sweep::SweepRunner runner(
      model,
      grid({parameter("a"), initial_speed("w2"), initial_speed("w1"), initial_rate("x")},
           {{0.3, 0.45}, {2.0, -3.0}, {0.05}, {0.0, 0.4}}),
      runner_options(3.0));
  expect_each_case_its_own_simulation(model, runner);
}

TEST(SweepSpeeds, EachCaseOfTheDampedCubeIsItsOwnSimulationAndDecaysAsExpected) {
  const auto model = example("damped_cube.yaml");
  const std::vector<double> k{0.02, 0.05, 0.2}, w1{1.5, -2.0};
  // The interpreted recursions, then the JIT's code (u̇ and the kinematics compiled, the case's k
  // bound to it).
  for (const bool jit : {false, true}) {
    if (jit && !test_support::have_compiler()) break;
    SCOPED_TRACE(jit ? "jit" : "recursions");
    const sweep::SweepRunner runner(model, grid({parameter("k"), initial_speed("w1")}, {k, w1}),
                                    runner_options(2.0, jit));
    expect_each_case_its_own_simulation(model, runner);
  }
  const sweep::SweepRunner runner(model, grid({parameter("k"), initial_speed("w1")}, {k, w1}),
                                  runner_options(2.0));
  // A cube has no gyroscopic term: each speed decays alone, w(t) = w0 exp(−k t / I).
  const double I = 2.0 * 0.3 * 0.3 / 6;
  for (std::size_t c = 0; c < runner.cases().size(); ++c) {
    const sweep::CaseResult r = runner.run(c);
    ASSERT_EQ(r.final_u.size(), 3u);
    const double want = w1[c % 2] * std::exp(-k[c / 2] * 2.0 / I);
    EXPECT_NEAR(r.final_u[0], want, 1e-7 * (1 + std::abs(want))) << "case " << c;
    EXPECT_NEAR(r.final_u[1], 0.0, 1e-12);
    EXPECT_NEAR(r.final_u[2], 0.0, 1e-12);
  }
}

TEST(SweepSpeeds, EachCaseOfAFloatingBaseIsItsOwnSimulation) {
  const auto robot = floating_satellite();
  ASSERT_TRUE(robot->has_speeds());
  // A mass of the arm, a speed of the base and the shoulder's rate (a coordinate's own speed).
  const std::string base_w = robot->speeds[4].name;
  const sweep::SweepRunner runner(
      robot,
      grid({parameter("m_upper"), initial_speed(base_w), initial_rate("shoulder")},
           {{1.0, 2.5}, {-0.8, 0.6}, {1.5}}),
      runner_options(1.0));
  expect_each_case_its_own_simulation(robot, runner);
}

TEST(SweepSpeeds, EightThreadsGiveTheBitsOfOneAndTheFreeBoxKeepsItsEnergy) {
  const auto model = example("free_box_quaternion.yaml");
  const std::vector<double> m{1.0, 2.0, 3.5, 5.0}, w2{4.0, -5.0, 6.0, 8.0};
  const std::vector<double> w1{0.05}, vx{0.3};
  for (const bool jit : {false, true}) {
    if (jit && !test_support::have_compiler()) break;
    SCOPED_TRACE(jit ? "jit" : "recursions");
    const sweep::SweepRunner runner(
        model,
        grid({parameter("m"), initial_speed("w2"), initial_speed("w1"), initial_speed("vx")},
             {m, w2, w1, vx}),
        runner_options(5.0, jit));
    const auto all = all_cases(runner);
    std::vector<sweep::CaseResult> one(all.size()), eight(all.size());
    sweep::run_cases(runner, all, 1, [&](sweep::CaseResult&& r) { one[r.index] = std::move(r); });
    sweep::run_cases(runner, all, 8, [&](sweep::CaseResult&& r) { eight[r.index] = std::move(r); });
    const double a = 0.3, b = 0.2, c = 0.1;
    for (std::size_t k = 0; k < all.size(); ++k) {
      SCOPED_TRACE("case " + std::to_string(k));
      ASSERT_EQ(one[k].status, "ok");
      EXPECT_EQ(one[k].status, eight[k].status);
      EXPECT_EQ(one[k].q, eight[k].q);
      EXPECT_EQ(one[k].u, eight[k].u);
      EXPECT_EQ(one[k].qd, eight[k].qd);
      EXPECT_EQ(one[k].total, eight[k].total);
      EXPECT_EQ(one[k].steps, eight[k].steps);
      // E = ½ m v² + ½ (Ixx w1² + Iyy w2²) for the box's principal moments, at every row.
      const double mass = m[k / 4], spin = w2[k % 4];
      const double Ixx = mass * (b * b + c * c) / 12, Iyy = mass * (a * a + c * c) / 12;
      const double E = 0.5 * mass * vx[0] * vx[0] + 0.5 * (Ixx * w1[0] * w1[0] + Iyy * spin * spin);
      // (rtol 1e-10: the error of u accumulates over some thousand steps of a fast tumble.)
      EXPECT_NEAR(one[k].min_total, E, 1e-7 * E);
      EXPECT_NEAR(one[k].max_total, E, 1e-7 * E);
      EXPECT_LT(one[k].energy_drift, 1e-7 * E);
      // It tumbled (the intermediate axis: w2 changes sign): T moved between the axes.
      EXPECT_LT(one[k].min_u[4] * one[k].max_u[4], 0.0);
    }
  }
}

TEST(SweepSpeeds, SimulateOfADynamicsInTheSpeedsIsTheModelsSimulation) {
  const auto model = example("damped_cube.yaml");
  num::DynamicsOptions build;
  build.runtime_parameters = {"k"};
  const num::Dynamics dynamics(model, {}, build);
  ASSERT_EQ(dynamics.speed_count(), 3u);
  num::SimulationOptions options;
  options.t_end = 1.0;
  options.output_step = 0.1;
  options.q0 = {0.8, 0.1, -0.3, 0.2};   // normalized by either
  options.qd0 = {0.1, 0.4, -0.2, 0.3};  // radial part too: Y and W's least squares agree
  const std::vector<double> parameters{0.3};
  std::vector<double> got, want;
  num::simulate(dynamics, parameters, options, [&](const num::SimulationRow& row) {
    got.insert(got.end(), row.q.data(), row.q.data() + row.q.size());
    got.insert(got.end(), row.v.data(), row.v.data() + row.v.size());
  });
  num::SimulationOptions folded = options;
  folded.values.set("k", 0.3);
  num::simulate(model, folded, [&](const num::SimulationRow& row) {
    want.insert(want.end(), row.q.data(), row.q.data() + row.q.size());
    want.insert(want.end(), row.v.data(), row.v.data() + row.v.size());
  });
  expect_near(got, want, 1e-10, "q and u");

  // The speeds of velocities by W equal Y's, radial part and all.
  Eigen::VectorXd q = Eigen::Map<const Eigen::VectorXd>(options.q0.data(), 4);
  num::normalize_quaternions(*model, q);
  const Eigen::VectorXd qd = Eigen::Map<const Eigen::VectorXd>(options.qd0.data(), 4);
  const Eigen::VectorXd by_w = num::speeds_from_velocities(dynamics, parameters, 0.0, q, qd);
  const Eigen::VectorXd by_y = num::speeds_from_velocities(*model, folded.values, 0.0, q, qd);
  EXPECT_LE((by_w - by_y).cwiseAbs().maxCoeff(), 1e-14);

  // Values belong to the Dynamics; the run-time parameters are its own number.
  EXPECT_THROW(num::simulate(dynamics, parameters, folded, [](const num::SimulationRow&) {}),
               std::invalid_argument);
  EXPECT_THROW(num::simulate(dynamics, {0.3, 1.0}, options, [](const num::SimulationRow&) {}),
               std::invalid_argument);
}

TEST(SweepSpeeds, WithConstraintsTheFormedEquationsStay) {
  const auto model = example("slotted_ball_joint.yaml");
  ASSERT_FALSE(model->constraints.empty());
  // Its projection of q needs the constraints in q with the values bound: not in a Dynamics.
  const num::Dynamics dynamics(model);
  EXPECT_THROW(num::simulate(dynamics, {}, {}, [](const num::SimulationRow&) {}),
               std::invalid_argument);
  sweep::RunnerOptions options = runner_options(0.2);
  const sweep::SweepRunner runner(model, grid({parameter("m")}, {{1.0}}), options);
  EXPECT_EQ(runner.evaluator(), "equations");
  EXPECT_FALSE(runner.parallel());
  const sweep::CaseResult r = runner.run(0);
  EXPECT_EQ(r.status, "ok");
  EXPECT_EQ(r.speeds, model->speeds.size());
}

class SweepSpeedsCli : public test_support::ScratchDirTest {};

TEST_F(SweepSpeedsCli, RunsOnThreadsThroughTheRecursionsOrTheirCode) {
  // The cases by the interpreted recursions (--no-jit), then by the JIT's code.
  for (const bool jit : {false, true}) {
    if (jit && !test_support::have_compiler()) break;
    const std::string out = (dir_ / (jit ? "jit.h5" : "interpreted.h5")).string();
    const auto run = test_support::run_cli(
        "sweep " + examples +
        "/speeds/free_box_quaternion.yaml --grid m=1,2 --grid u0.w2=1,3 --t-end 1 --jobs 2 " +
        (jit ? "" : "--no-jit ") + "--out " + out);
    ASSERT_EQ(run.code, 0) << run.out;
    EXPECT_NE(run.out.find("swept free-box-quaternion: 4 cases; ok 4, failed 0"), std::string::npos)
        << run.out;
    EXPECT_NE(run.out.find(jit ? "(jit, 1 rank x 2 threads)" : "(recursions, 1 rank x 2 threads)"),
              std::string::npos)
        << run.out;
  }
}

}  // namespace
