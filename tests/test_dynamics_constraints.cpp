// num::Dynamics with constraints as their own rows: M and f from the recursions, A q̈ = b from the
// constraints alone. Against an independent route, the equations formed by Gibbs–Appell and
// their tape (CompiledEquations): A, b, q̈ and λ at random states for every constrained model in
// examples/ and tests/data/; simulations of a slider-crank and of Bricard's overconstrained
// mechanism through both (the same motion, the constraints kept); `appell eval --json` against
// `--method gibbs-appell`; threads sharing one Dynamics against one thread, bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "appell/io/model_reader.hpp"
#include "appell/model/source_location.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/dynamics.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/numeric/speeds.hpp"
#include "appell/numeric/state_evaluation.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/recursive_dynamics.hpp"
#include "appell/principles/speed_form.hpp"
#include "support/examples.hpp"
#include "support/expect_close.hpp"
#include "support/run_cli.hpp"

namespace {

using namespace appell;
namespace fs = std::filesystem;

Eigen::VectorXd random_vector(std::mt19937& engine, Eigen::Index n, double low, double high) {
  std::uniform_real_distribution<double> u(low, high);
  Eigen::VectorXd v(n);
  for (Eigen::Index i = 0; i < n; ++i) v[i] = u(engine);
  return v;
}

// Every model file with constraints that the tests ship: examples/ (and its folders) and
// tests/data/.
std::vector<std::string> constrained_models() {
  return test_support::shipped_models([](const model::Model& m) { return !m.constraints.empty(); });
}

using test_support::expect_close;

class ConstrainedModel : public ::testing::TestWithParam<std::string> {};

TEST_P(ConstrainedModel, RowsAccelerationsAndMultipliersAgreeWithTheFormedEquations) {
  const auto model = io::read_model_file(GetParam());
  const std::string reason = principles::recursions_do_not_cover(*model);
  if (!reason.empty()) {
    // Not for the constraints (speeds, flexible bodies): refused with that reason.
    EXPECT_NE(reason, "constraints");
    EXPECT_THROW(num::Dynamics{model}, std::invalid_argument);
    return;
  }
  if (model->has_speeds()) {
    // The rows in the speeds (Ã u̇ = b̃, with u̇ and λ of the constrained solve) against the
    // formed equations in the speeds; tests/test_dynamics_speeds.cpp checks the rest.
    EXPECT_EQ(principles::recursions_alone_do_not_cover(*model), "generalized speeds");
    const num::Dynamics dynamics(model);
    const num::CompiledEquations formed(principles::speed_form(model));
    ASSERT_EQ(dynamics.constraint_count(), formed.constraint_count());
    std::mt19937 engine(27);
    num::DynamicsWorkspace work;
    for (int s = 0; s < 4; ++s) {
      SCOPED_TRACE("state " + std::to_string(s));
      const double t = 0.2 + 0.3 * s;
      Eigen::VectorXd q(static_cast<Eigen::Index>(model->dof()));
      for (Eigen::Index j = 0; j < q.size(); ++j)
        q[j] = model->coordinates[static_cast<std::size_t>(j)].initial;
      q += random_vector(engine, q.size(), -0.3, 0.3);
      num::normalize_quaternions(*model, q);
      const Eigen::VectorXd u =
          random_vector(engine, static_cast<Eigen::Index>(model->speeds.size()), -1.5, 1.5);
      const auto want = formed.solve(t, q, u);
      Eigen::MatrixXd A;
      Eigen::VectorXd b, udot, lambda;
      dynamics.constraints(t, q, u, A, b, work);
      expect_close(A, want.constraint_matrix, 1e-9, "A in the speeds");
      expect_close(b, want.constraint_rhs, 1e-9, "b in the speeds");
      dynamics.accelerations(t, q, u, udot, lambda, work, num::ConstraintTolerances{});
      expect_close(udot, want.vdot, 1e-8, "udot");
      expect_close(lambda, want.lambda, 1e-8, "lambda");
    }
    return;
  }
  EXPECT_EQ(principles::recursions_alone_do_not_cover(*model), "constraints");
  model::Values values;
  for (const auto& input : model->inputs) values.set(input.name, 0.7);
  const num::Dynamics dynamics(model, values);
  const auto eq = principles::derive(model, principles::Method::GibbsAppell);
  const num::CompiledEquations compiled(eq, values);
  ASSERT_EQ(dynamics.constraint_count(), eq.constraint_count());
  EXPECT_EQ(dynamics.multipliers(), eq.multipliers);

  const auto n = static_cast<Eigen::Index>(model->dof());
  std::mt19937 engine(26);
  num::DynamicsWorkspace work;
  int solved = 0;
  const num::ConstraintManifold manifold = dynamics.constraint_manifold({}, 1e-5);
  for (int s = 0; s < 6; ++s) {
    SCOPED_TRACE("state " + std::to_string(s));
    const double t = 0.2 + 0.3 * s;
    // Near the initial configuration (where the models are meant to be), off the constraints.
    Eigen::VectorXd q0(n);
    for (Eigen::Index j = 0; j < n; ++j)
      q0[j] = model->coordinates[static_cast<std::size_t>(j)].initial;
    Eigen::VectorXd q = q0 + random_vector(engine, n, -0.3, 0.3),
                    qd = random_vector(engine, n, -1.5, 1.5);
    // Every other state moved onto the constraints, where redundant rows agree (off them, an
    // over-constrained model's rows ask for different accelerations and both routes refuse).
    if (s % 2 == 1 && manifold.project_positions(t, q, 1e-12))
      manifold.project_velocities(t, q, qd);
    Eigen::MatrixXd M_want, A_want, A;
    Eigen::VectorXd f_want, b_want, b;
    compiled.evaluate(t, q, qd, M_want, f_want);
    compiled.constraints(A_want, b_want);
    dynamics.constraints(t, q, qd, A, b, work);
    expect_close(A, A_want, 1e-12, "A");
    expect_close(b, b_want, 1e-11, "b");

    Eigen::VectorXd qdd_want, lambda_want, qdd, lambda;
    std::string refused_want;
    try {
      compiled.accelerations_and_multipliers(M_want, f_want, A_want, b_want, qdd_want, lambda_want);
    } catch (const model::ComputationError& e) {
      refused_want = e.what();
    }
    if (!refused_want.empty()) {
      // The same state refused by both, for the same reason (a redundant row's inconsistency).
      try {
        dynamics.accelerations(t, q, qd, qdd, lambda, work, num::ConstraintTolerances{});
        ADD_FAILURE() << "solved where the formed equations refuse: " << refused_want;
      } catch (const model::ComputationError& e) {
        EXPECT_EQ(std::string(e.what()).substr(0, 40), refused_want.substr(0, 40));
      }
      continue;
    }
    ++solved;
    dynamics.accelerations(t, q, qd, qdd, lambda, work, num::ConstraintTolerances{});
    expect_close(qdd, qdd_want, 1e-9, "qdd");
    expect_close(lambda, lambda_want, 1e-9, "lambda");
    // What they solve, checked on the Dynamics' own M, f, A, b: the rows hold and the forces
    // balance with the constraint forces Aᵀλ.
    Eigen::MatrixXd M;
    Eigen::VectorXd f;
    dynamics.mass_matrix_and_forcing(t, q, qd, M, f, work);
    EXPECT_LE((A * qdd - b).cwiseAbs().maxCoeff(), 1e-9 * (1.0 + b.cwiseAbs().maxCoeff()));
    EXPECT_LE(
        (M * qdd - f - A.transpose() * lambda).cwiseAbs().maxCoeff(),
        1e-9 * (1.0 + f.cwiseAbs().maxCoeff() + (A.transpose() * lambda).cwiseAbs().maxCoeff()));
    // The one-call forms agree with the two-step ones.
    Eigen::VectorXd plain;
    dynamics.accelerations(t, q, qd, plain, work);
    EXPECT_EQ(plain, qdd);
    const num::StateEvaluation state = num::evaluate_state(dynamics, t, q, qd);
    EXPECT_EQ(state.qdd, qdd);
    EXPECT_EQ(state.lambda, lambda);
    EXPECT_EQ(state.constraint_matrix, A);
  }
  EXPECT_GT(solved, 0) << "no state solved: nothing compared";
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = fs::path(info.param).stem().string();
  std::replace_if(
      name.begin(), name.end(), [](unsigned char c) { return !std::isalnum(c); }, '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(DynamicsConstraints, ConstrainedModel,
                         ::testing::ValuesIn(constrained_models()), test_name);

TEST(DynamicsConstraints, EveryShippedConstrainedExampleIsCovered) {
  // The recursions cover the constrained examples of the issue: none falls back for its rows.
  for (const char* name : {"slider_crank", "bricard", "rolling_disk", "chaplygin_sleigh",
                           "overconstrained_pendulum", "whipple_bicycle"}) {
    const auto model = io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/" + name + ".yaml");
    EXPECT_EQ(principles::recursions_do_not_cover(*model), "") << name;
  }
}

// The motion through the Dynamics (num::simulate of the model) against the formed equations'
// (num::simulate of Equations): the same rows to the integration's tolerance, the constraints
// kept by the projection on both.
void expect_same_motion(const std::string& name, double t_end) {
  SCOPED_TRACE(name);
  const auto model = io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/" + name + ".yaml");
  num::SimulationOptions options;
  options.t_end = t_end;
  options.output_step = t_end / 10;
  options.rtol = 1e-9;
  options.atol = 1e-9;
  std::vector<Eigen::VectorXd> by_rows, formed_rows;
  std::vector<Eigen::VectorXd> by_lambda, formed_lambda;
  const num::SimulationResult by = num::simulate(model, options, [&](const num::SimulationRow& r) {
    by_rows.push_back(r.q);
    by_lambda.push_back(r.lambda);
  });
  const num::SimulationResult formed =
      num::simulate(principles::derive(model, principles::Method::GibbsAppell), options,
                    [&](const num::SimulationRow& r) {
                      formed_rows.push_back(r.q);
                      formed_lambda.push_back(r.lambda);
                    });
  ASSERT_EQ(by.rows, formed.rows);
  ASSERT_EQ(by.rows, 11u);
  EXPECT_EQ(by.constraints, model->constraints.size());
  EXPECT_EQ(by.redundant_constraints, formed.redundant_constraints);
  EXPECT_NEAR(by.initial_correction.position, formed.initial_correction.position, 1e-12);
  for (std::size_t k = 0; k < by_rows.size(); ++k) {
    SCOPED_TRACE("row " + std::to_string(k));
    EXPECT_LE((by_rows[k] - formed_rows[k]).cwiseAbs().maxCoeff(), 1e-6);
    ASSERT_EQ(by_lambda[k].size(), static_cast<Eigen::Index>(model->constraints.size()));
    EXPECT_LE((by_lambda[k] - formed_lambda[k]).cwiseAbs().maxCoeff(),
              1e-5 * (1.0 + formed_lambda[k].cwiseAbs().maxCoeff()));
  }
  // The projection keeps the motion on the constraints (drift bounded by the tolerances).
  EXPECT_LE(by.max_violation.position, 1e-7);
  EXPECT_LE(by.max_violation.velocity, 1e-6);
  EXPECT_GT(by.steps, 0);
}

TEST(DynamicsConstraints, SliderCrankMovesAsInTheFormedEquations) {
  expect_same_motion("slider_crank", 1.0);
}

TEST(DynamicsConstraints, BricardMovesAsInTheFormedEquations) {
  expect_same_motion("bricard", 1.0);
}

// A parameter read at run time (a sweep's) reaches the constraints' rows and their projection as
// the same number folded does: the crank's radius r moves the loop's closure.
TEST(DynamicsConstraints, RunTimeParametersReachTheConstraints) {
  const auto model = io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/slider_crank.yaml");
  num::DynamicsOptions build;
  build.runtime_parameters = {"r"};
  const num::Dynamics varied(model, {}, build);
  model::Values values;
  values.set("r", 0.12);
  const num::Dynamics folded(model, values);
  ASSERT_EQ(varied.runtime_parameters(), std::vector<std::string>{"r"});
  num::SimulationOptions options;
  options.t_end = 0.5;
  options.output_step = 0.1;
  std::vector<Eigen::VectorXd> by_varied, by_folded;
  const auto a = num::simulate(varied, {0.12}, options,
                               [&](const num::SimulationRow& r) { by_varied.push_back(r.q); });
  const auto b = num::simulate(folded, {}, options,
                               [&](const num::SimulationRow& r) { by_folded.push_back(r.q); });
  ASSERT_EQ(by_varied.size(), by_folded.size());
  // The initial state is projected onto r = 0.12's loop, not the default r's.
  EXPECT_GT(a.initial_correction.position, 1e-3);
  EXPECT_NEAR(a.initial_correction.position, b.initial_correction.position, 1e-12);
  for (std::size_t k = 0; k < by_varied.size(); ++k)
    EXPECT_LE((by_varied[k] - by_folded[k]).cwiseAbs().maxCoeff(), 1e-8) << "row " << k;
  EXPECT_LE(a.max_violation.position, 1e-8);
}

// The CLI's default route (the Dynamics) and the formed one (--method) print the same λ.
TEST(DynamicsConstraints, EvalJsonLambdaMatchesTheFormedRoute) {
  const std::string model = std::string(APPELL_EXAMPLES_DIR) + "/slider_crank.yaml";
  const auto parse = [](const test_support::CliRun& r) {
    // The object alone: a warning on stderr may come before or after it.
    const auto first = r.out.find('{'), last = r.out.rfind('}');
    if (first == std::string::npos || last == std::string::npos)
      return nlohmann::json::parse(r.out);
    return nlohmann::json::parse(r.out.substr(first, last - first + 1));
  };
  const auto by = test_support::run_cli("eval " + model + " --json --qd 1.5,0,0");
  const auto formed =
      test_support::run_cli("eval " + model + " --json --qd 1.5,0,0 --method gibbs-appell");
  ASSERT_EQ(by.code, 0) << by.out;
  ASSERT_EQ(formed.code, 0) << formed.out;
  const auto a = parse(by), b = parse(formed);
  ASSERT_TRUE(a.contains("lambda")) << by.out;
  ASSERT_EQ(a.at("lambda").size(), 2u);
  ASSERT_EQ(a.at("lambda").size(), b.at("lambda").size());
  for (std::size_t i = 0; i < a.at("lambda").size(); ++i) {
    const double x = a.at("lambda")[i].get<double>(), y = b.at("lambda")[i].get<double>();
    EXPECT_NEAR(x, y, 1e-9 * (1.0 + std::fabs(y)));
    EXPECT_NE(y, 0.0);  // the loop carries gravity: a force, not a zero compared with a zero
  }
  for (const char* key : {"qdd", "forcing"})
    for (std::size_t i = 0; i < b.at(key).size(); ++i)
      EXPECT_NEAR(a.at(key)[i].get<double>(), b.at(key)[i].get<double>(),
                  1e-9 * (1.0 + std::fabs(b.at(key)[i].get<double>())))
          << key;
}

// Eight threads sharing one constrained Dynamics, each with its workspace, give the bits one
// thread gives.
TEST(DynamicsConstraints, ThreadsGiveTheBitsOfOne) {
  const auto model = io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/bricard.yaml");
  const num::Dynamics dynamics(model);
  const auto n = static_cast<Eigen::Index>(dynamics.dof());
  std::mt19937 engine(8);
  std::vector<Eigen::VectorXd> qs, qds;
  for (int s = 0; s < 64; ++s) {
    qs.push_back(random_vector(engine, n, -1.0, 1.0));
    qds.push_back(random_vector(engine, n, -1.0, 1.0));
  }
  // Off the constraints the redundant rows may disagree: those states are refused alike.
  const auto run = [&](std::size_t s, num::DynamicsWorkspace& work, Eigen::VectorXd& out) {
    Eigen::VectorXd qdd, lambda;
    Eigen::MatrixXd A;
    Eigen::VectorXd b;
    try {
      dynamics.accelerations(0.1, qs[s], qds[s], qdd, lambda, work, num::ConstraintTolerances{});
    } catch (const model::ComputationError&) {
      out = Eigen::VectorXd::Constant(1, -1.0);
      return;
    }
    dynamics.constraints(0.1, qs[s], qds[s], A, b, work);
    out.resize(qdd.size() + lambda.size() + b.size());
    out << qdd, lambda, b;
  };
  std::vector<Eigen::VectorXd> alone(qs.size()), shared(qs.size());
  {
    num::DynamicsWorkspace work;
    for (std::size_t s = 0; s < qs.size(); ++s) run(s, work, alone[s]);
  }
  std::vector<std::thread> threads;
  for (std::size_t k = 0; k < 8; ++k)
    threads.emplace_back([&, k] {
      num::DynamicsWorkspace work;
      for (int round = 0; round < 20; ++round)
        for (std::size_t s = k; s < qs.size(); s += 8) run(s, work, shared[s]);
    });
  for (auto& thread : threads) thread.join();
  std::size_t solved = 0;
  for (std::size_t s = 0; s < qs.size(); ++s) {
    ASSERT_EQ(alone[s].size(), shared[s].size()) << s;
    EXPECT_EQ(std::memcmp(alone[s].data(), shared[s].data(),
                          static_cast<std::size_t>(alone[s].size()) * sizeof(double)),
              0)
        << "state " << s;
    solved += alone[s].size() > 1;
  }
  EXPECT_GT(solved, 0u);
}

// A constrained model's simulation is refused an evaluator without its rows (one of another
// model with as many coordinates): it would drop the constraint forces. Its own rows (the
// Dynamics itself, or the JIT's) are taken.
TEST(DynamicsConstraints, SimulationRefusesAnEvaluatorWithoutTheRows) {
  const auto model = io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/slider_crank.yaml");
  auto dynamics = std::make_shared<const num::Dynamics>(model);
  num::SimulationOptions options;
  options.t_end = 0.1;
  options.dynamics = std::make_shared<const num::Dynamics>(
      io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/three_link_arm.yaml"));
  ASSERT_EQ(options.dynamics->dof(), dynamics->dof());
  EXPECT_THROW(num::simulate(*dynamics, {}, options, [](const num::SimulationRow&) {}),
               std::invalid_argument);
  options.dynamics = dynamics;
  EXPECT_EQ(num::simulate(*dynamics, {}, options, [](const num::SimulationRow&) {}).constraints,
            2u);
  options.dynamics = nullptr;
  options.integrator = num::Integrator::Adams;
  EXPECT_THROW(num::simulate(*dynamics, {}, options, [](const num::SimulationRow&) {}),
               model::ModelError);
}

}  // namespace
