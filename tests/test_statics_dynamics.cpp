// Statics through num::Dynamics: for a model the recursions cover whose frames do not move,
// solve_statics() takes Q(q) = f(q, 0, t) from num::Dynamics and K = −∂Q/∂q from the
// differentiated recursions instead of forming and compiling Q and its Jacobian. Checked against
// independent routes: the formed Q (StaticsOptions::from_formed_forces) on every example and URDF
// robot, central differences of Q, a pendulum whose equilibrium is known in closed form, and the
// command line.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "appell/io/model_reader.hpp"
#include "appell/io/urdf_reader.hpp"
#include "appell/numeric/dynamics.hpp"
#include "appell/numeric/statics.hpp"
#include "appell/principles/recursive_dynamics.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"

namespace {

using namespace appell;
namespace fs = std::filesystem;

std::shared_ptr<const model::Model> read(const std::string& name) {
  const std::string path = std::string(APPELL_EXAMPLES_DIR) + "/" + name;
  return fs::path(path).extension() == ".urdf" ? io::read_urdf_file(path)
                                               : io::read_model_file(path);
}

// Every example model and URDF robot, by its path under examples/.
std::vector<std::string> every_example() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(APPELL_EXAMPLES_DIR))
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().filename().string());
  for (const auto& entry : fs::directory_iterator(std::string(APPELL_EXAMPLES_DIR) + "/urdf"))
    if (entry.path().extension() == ".urdf")
      names.push_back("urdf/" + entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// solve_statics, or the message of the model::ComputationError it threw (no equilibrium).
struct Outcome {
  std::optional<num::StaticsResult> result;
  std::string failure;
};
Outcome solve(const std::shared_ptr<const model::Model>& model, num::StaticsOptions options,
              bool formed) {
  options.from_formed_forces = formed;
  Outcome o;
  try {
    o.result = num::solve_statics(model, options);
  } catch (const model::ComputationError& e) {
    o.failure = e.what();
  }
  return o;
}

double max_abs(const Eigen::MatrixXd& m) { return m.size() ? m.cwiseAbs().maxCoeff() : 0.0; }

// Two equilibria at the same point (within 1e-9) with the same verdict, stiffness eigenvalues
// and neutral directions.
void expect_same_equilibrium(const num::Equilibrium& a, const num::Equilibrium& b) {
  EXPECT_LE(max_abs(a.q - b.q), 1e-9) << a.q.transpose() << "\n" << b.q.transpose();
  EXPECT_EQ(a.stability, b.stability);
  EXPECT_EQ(a.stable, b.stable);
  ASSERT_EQ(a.stiffness_eigenvalues.size(), b.stiffness_eigenvalues.size());
  const double scale = std::max(1.0, max_abs(b.stiffness_eigenvalues));
  EXPECT_LE(max_abs(a.stiffness_eigenvalues - b.stiffness_eigenvalues), 1e-9 * scale)
      << a.stiffness_eigenvalues.transpose() << "\n"
      << b.stiffness_eigenvalues.transpose();
  ASSERT_EQ(a.neutral_directions.cols(), b.neutral_directions.cols());
  EXPECT_LE(max_abs(a.neutral_directions - b.neutral_directions), 1e-9);
  EXPECT_LE(a.residual, 1e-10);
  EXPECT_LE(b.residual, 1e-10);
}

// The two routes found the same equilibria in the same order, with the same verdicts, stiffness
// eigenvalues, neutral directions and free coordinates.
void expect_same_statics(const num::StaticsResult& recursions, const num::StaticsResult& formed) {
  EXPECT_TRUE(recursions.by_recursions);
  EXPECT_FALSE(formed.by_recursions);
  EXPECT_EQ(recursions.free_coordinates, formed.free_coordinates);
  ASSERT_EQ(recursions.equilibria.size(), formed.equilibria.size());
  for (std::size_t i = 0; i < formed.equilibria.size(); ++i) {
    SCOPED_TRACE("equilibrium " + std::to_string(i + 1));
    expect_same_equilibrium(recursions.equilibria[i], formed.equilibria[i]);
  }
}

// Every equilibrium of `found`, given as a start to the other route (`formed` the other route's
// choice), is one there too: the same point, verdict, eigenvalues and directions.
void expect_equilibria_of_the_other_route(const std::shared_ptr<const model::Model>& model,
                                          num::StaticsOptions options,
                                          const num::StaticsResult& found, bool formed) {
  options.random_starts = 0;
  options.from_formed_forces = formed;
  for (const auto& e : found.equilibria) options.guesses.push_back(e.q);
  const auto other = num::solve_statics(model, options);
  EXPECT_EQ(other.by_recursions, !formed);
  EXPECT_EQ(other.free_coordinates, found.free_coordinates);
  for (std::size_t i = 0; i < found.equilibria.size(); ++i) {
    SCOPED_TRACE(std::string(formed ? "formed" : "recursions") + " at equilibrium " +
                 std::to_string(i + 1));
    const num::Equilibrium& e = found.equilibria[i];
    const num::Equilibrium* same = nullptr;
    for (const auto& o : other.equilibria)
      if (max_abs(o.q - e.q) <= 1e-9) same = &o;
    ASSERT_NE(same, nullptr) << e.q.transpose();
    expect_same_equilibrium(*same, e);
  }
}

class StaticsDynamicsExample : public ::testing::TestWithParam<std::string> {};

// The route by the recursions against the formed Q, compiled: every example and robot it applies
// to, with its inputs unset and then given numbers; every other model keeps the formed route.
TEST_P(StaticsDynamicsExample, FindsTheEquilibriaOfTheFormedForces) {
  const auto model = read(GetParam());
  if (model->has_speeds()) return;  // statics takes coordinates only (refused alike)
  std::vector<model::Values> cases(1);
  if (!model->inputs.empty()) {
    cases.emplace_back();
    for (const auto& input : model->inputs) cases.back().set(input.name, 0.3);
  }
  for (const auto& values : cases) {
    num::StaticsOptions options;
    options.values = values;
    const Outcome automatic = solve(model, options, false);
    const Outcome formed = solve(model, options, true);
    EXPECT_EQ(automatic.failure, formed.failure);
    if (!automatic.result || !formed.result) {
      EXPECT_EQ(automatic.result.has_value(), formed.result.has_value());
      continue;
    }
    const bool covered = principles::recursions_alone_do_not_cover(*model).empty();
    if (!covered || automatic.result->relative) {
      EXPECT_FALSE(automatic.result->by_recursions);  // constraints, a carrier, motion
      continue;
    }
    // Each route's equilibria are the other's (any number of coordinates) ...
    expect_equilibria_of_the_other_route(model, options, *automatic.result, true);
    expect_equilibria_of_the_other_route(model, options, *formed.result, false);
    // ... and up to 9 coordinates both find the same ones from the same starts. Beyond (the
    // 29 of simple_humanoid), Newton's paths from the random starts through a landscape of many
    // equilibria part with the rounding of Q, each route reaching equilibria the other may not.
    if (model->dof() <= 9) expect_same_statics(*automatic.result, *formed.result);
  }
}

INSTANTIATE_TEST_SUITE_P(StaticsDynamics, StaticsDynamicsExample,
                         ::testing::ValuesIn(every_example()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

// A pendulum bob (mass m, rod L from the pivot, angle q from the downward vertical) pulled by a
// spring of zero rest length towards the point (d, 0) level with the pivot:
// V = −m g L cos q + ½ k (L² + d² − 2 d L sin q), so V′ = 0 at tan q = k d / (m g), and
// V″ = ±L √((k d)² + (m g)²) there: stable, and unstable half a turn away.
constexpr const char* spring_pendulum_yaml = R"(name: spring-pendulum
parameters: {m: 2.0, L: 1.5, g: 9.81, k: 30.0, d: 0.8}
coordinates: [{name: q, initial: 0.3}]
frames:
  arm: {rotation: rot_z(q)}
particles:
  bob: {frame: arm, mass: m, position: [0, -L, 0]}
gravity: [0, -g, 0]
loads:
  - spring: {from: [world, [d, 0, 0]], to: [arm, [0, -L, 0]], stiffness: k, rest_length: 0}
)";

TEST(StaticsDynamics, SpringPendulumRestsAtTheClosedFormAngle) {
  const auto model = io::parse_model(spring_pendulum_yaml, "spring_pendulum.yaml");
  const double m = 2.0, L = 1.5, g = 9.81, k = 30.0, d = 0.8;
  const double angle = std::atan2(k * d, m * g), stiffness = L * std::hypot(k * d, m * g);
  const auto result = num::solve_statics(model, {});
  EXPECT_TRUE(result.by_recursions);
  ASSERT_EQ(result.equilibria.size(), 2u);
  for (const auto& e : result.equilibria) {
    ASSERT_EQ(e.q.size(), 1);
    ASSERT_EQ(e.stiffness_eigenvalues.size(), 1);
    if (e.stable) {
      EXPECT_NEAR(e.q[0], angle, 1e-10);
      EXPECT_NEAR(e.stiffness_eigenvalues[0], stiffness, 1e-9 * stiffness);
    } else {
      EXPECT_EQ(e.stability, num::Stability::Unstable);
      EXPECT_NEAR(e.q[0], angle - M_PI, 1e-10);  // reported in [−π, π)
      EXPECT_NEAR(e.stiffness_eigenvalues[0], -stiffness, 1e-9 * stiffness);
    }
  }
  EXPECT_NE(result.equilibria[0].stable, result.equilibria[1].stable);
}

// K = −∂Q/∂q from the differentiated recursions against central differences of Q (from
// num::Dynamics::forcing at rest): at every equilibrium the symmetric part's eigenvalues agree,
// and each neutral direction is one along which Q does not change.
TEST(StaticsDynamics, StiffnessIsMinusTheCentralDifferencesOfTheForces) {
  std::vector<std::shared_ptr<const model::Model>> models = {
      io::parse_model(spring_pendulum_yaml, "spring_pendulum.yaml"), read("double_pendulum.yaml"),
      read("three_link_arm.yaml"), read("urdf/ur5_robot.urdf"), read("urdf/panda.urdf")};
  for (const auto& model : models) {
    SCOPED_TRACE(model->name);
    const auto result = num::solve_statics(model, {});
    EXPECT_TRUE(result.by_recursions);
    const num::Dynamics dynamics(model);
    num::DynamicsWorkspace work;
    const auto n = static_cast<Eigen::Index>(model->dof());
    const Eigen::VectorXd rest = Eigen::VectorXd::Zero(n);
    auto forces = [&](const Eigen::VectorXd& q) {
      Eigen::VectorXd f;
      dynamics.forcing(0.0, q, rest, f, work);
      return f;
    };
    for (const auto& e : result.equilibria) {
      const double h = 1e-5;
      Eigen::MatrixXd K(n, n);
      for (Eigen::Index j = 0; j < n; ++j) {
        Eigen::VectorXd plus = e.q, minus = e.q;
        plus[j] += h;
        minus[j] -= h;
        K.col(j) = -(forces(plus) - forces(minus)) / (2 * h);
      }
      EXPECT_LE(max_abs(forces(e.q)), 1e-10);
      const Eigen::MatrixXd symmetric = (K + K.transpose()) / 2;
      const Eigen::VectorXd mu =
          Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(symmetric).eigenvalues();
      const double scale = std::max(1.0, max_abs(mu));
      EXPECT_LE(max_abs(mu - e.stiffness_eigenvalues), 1e-6 * scale)
          << mu.transpose() << "\n"
          << e.stiffness_eigenvalues.transpose();
      for (Eigen::Index c = 0; c < e.neutral_directions.cols(); ++c)
        EXPECT_LE(max_abs(K * e.neutral_directions.col(c)), 1e-6 * scale);
    }
  }
}

// A load that changes with t on a model whose frames do not move: the recursions take it at the
// time asked for, as the formed Q does.
TEST(StaticsDynamics, ALoadChangingWithTimeIsTakenAtTheGivenTime) {
  const auto model = io::parse_model(R"(name: pushed-pendulum
parameters: {m: 1.0, L: 1.0, g: 9.81, F: 4.0, w: 1.3}
coordinates: [{name: q, initial: 0.1}]
frames:
  arm: {rotation: rot_z(q)}
particles:
  bob: {frame: arm, mass: m, position: [0, -L, 0]}
gravity: [0, -g, 0]
loads:
  - {force: [F*sin(w*t), 0, 0], on: arm, at: [0, -L, 0]}
)",
                                     "pushed.yaml");
  num::StaticsOptions options;
  options.t = 0.9;
  const auto automatic = num::solve_statics(model, options);
  options.from_formed_forces = true;
  const auto formed = num::solve_statics(model, options);
  expect_same_statics(automatic, formed);
  // The bob rests where the push balances gravity: tan q = F sin(w t) / (m g).
  const double angle = std::atan2(4.0 * std::sin(1.3 * 0.9), 9.81);
  bool found = false;
  for (const auto& e : automatic.equilibria)
    if (e.stable) found = std::abs(e.q[0] - angle) < 1e-10;
  EXPECT_TRUE(found);
}

class StaticsDynamicsCli : public test_support::ScratchDirTest {};

// The command line prints what the recursions found: the closed-form angle, and the formed Q.
TEST_F(StaticsDynamicsCli, PrintsTheClosedFormEquilibrium) {
  const std::string path = write("spring_pendulum.yaml", spring_pendulum_yaml);
  const auto run = test_support::run_cli("statics " + path + " --json");
  ASSERT_EQ(run.code, 0) << run.out;
  const auto j = nlohmann::json::parse(run.out);
  ASSERT_EQ(j.at("generalized_forces").size(), 1u);
  EXPECT_NE(j["generalized_forces"][0].get<std::string>().find("sin(q)"), std::string::npos)
      << j["generalized_forces"][0];
  const double angle = std::atan2(30.0 * 0.8, 2.0 * 9.81);
  int stable = 0;
  for (const auto& e : j.at("equilibria")) {
    if (!e.at("stable").get<bool>()) continue;
    ++stable;
    EXPECT_NEAR(e.at("q")[0].get<double>(), angle, 1e-10);
  }
  EXPECT_EQ(stable, 1);
  const auto text = test_support::run_cli("statics " + path);
  ASSERT_EQ(text.code, 0) << text.out;
  EXPECT_NE(text.out.find("Q_q = "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("stable"), std::string::npos) << text.out;
}

}  // namespace
