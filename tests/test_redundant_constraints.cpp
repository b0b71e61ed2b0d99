// Over-constrained mechanisms: redundant constraints give a unique motion and minimum-norm
// multipliers instead of a failure; inconsistent redundant constraints are a computation error.
//
// The model: a particle on a rod of length l from the origin, in Cartesian coordinates x, y, z,
// held in the plane z = 0 and on the circle x² + y² = l², and also on the sphere x² + y² + z² = l².
// Where z = 0 the sphere's gradient (2x, 2y, 2z) is a combination of the circle's (2x, 2y, 0) and
// the plane's (0, 0, 1): three constraints of rank two, the motion of a plane pendulum.
#include <gtest/gtest.h>

#include <cmath>

#include "appell/model/builder.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/numeric/state_evaluation.hpp"
#include "appell/principles/derive.hpp"

namespace {

using namespace appell;

std::shared_ptr<const model::Model> pendulum(bool with_sphere, bool inconsistent = false) {
  model::ModelBuilder b("over-constrained pendulum");
  b.parameter("m", 2);
  b.parameter("l", "3/2");
  b.parameter("g", 9.81);
  const double theta0 = 0.7;  // from the downward vertical
  b.coordinate("x", 1.5 * std::sin(theta0));
  b.coordinate("y", -1.5 * std::cos(theta0));
  b.coordinate("z");
  b.frame("slider", {.translation = {"x", "y", "z"}});
  b.particle("bob", {.frame = "slider", .mass = "m"});
  b.gravity({0, "-g", 0});
  b.holonomic_constraint("plane", "z");
  b.holonomic_constraint("circle", "x^2 + y^2 - l^2");
  if (with_sphere) b.holonomic_constraint("sphere", "x^2 + y^2 + z^2 - l^2");
  if (inconsistent) b.holonomic_constraint("lifted", "z - t^2/20");
  return b.build();
}

TEST(RedundantConstraints, UniqueAccelerationsAndMinimumNormMultipliers) {
  const num::CompiledEquations three(
      principles::derive(pendulum(true), principles::Method::GibbsAppell));
  const num::CompiledEquations two(
      principles::derive(pendulum(false), principles::Method::GibbsAppell));
  Eigen::VectorXd q(3), qd(3);
  const double theta = 0.4, omega = 1.3, l = 1.5;
  q << l * std::sin(theta), -l * std::cos(theta), 0;
  qd << l * omega * std::cos(theta), l * omega * std::sin(theta), 0;
  const auto redundant = num::evaluate_state(three, 0.0, q, qd);
  const auto independent = num::evaluate_state(two, 0.0, q, qd);
  EXPECT_LT((redundant.qdd - independent.qdd).norm(), 1e-10);
  // The plane pendulum: θ̈ = −(g/l) sin θ, so the tangential acceleration is l θ̈.
  const Eigen::Vector3d tangent(std::cos(theta), std::sin(theta), 0);
  EXPECT_NEAR(redundant.qdd.dot(tangent), -9.81 * std::sin(theta), 1e-10);
  ASSERT_EQ(redundant.redundant.size(), 1u);
  EXPECT_TRUE(independent.redundant.empty());
  // The same constraint force Aᵀλ, shared between circle and sphere with the least ‖λ‖: the
  // circle's and the sphere's gradients are equal at z = 0, so each carries half.
  const Eigen::VectorXd force3 = redundant.constraint_matrix.transpose() * redundant.lambda;
  const Eigen::VectorXd force2 = independent.constraint_matrix.transpose() * independent.lambda;
  EXPECT_LT((force3 - force2).norm(), 1e-9 * (1 + force2.norm()));
  EXPECT_NEAR(redundant.lambda[1], redundant.lambda[2], 1e-9 * (1 + std::abs(redundant.lambda[1])));
  EXPECT_NEAR(redundant.lambda[1], independent.lambda[1] / 2, 1e-9);
}

TEST(RedundantConstraints, SimulatedLikeThePlanePendulumAndNamed) {
  num::SimulationOptions options;
  options.t_end = 2.0;
  options.output_step = 0.5;
  options.rtol = options.atol = 1e-10;
  std::vector<double> x_redundant, x_independent;
  const auto r3 =
      num::simulate(principles::derive(pendulum(true), principles::Method::Lagrange), options,
                    [&](const num::SimulationRow& row) { x_redundant.push_back(row.q[0]); });
  const auto r2 =
      num::simulate(principles::derive(pendulum(false), principles::Method::Lagrange), options,
                    [&](const num::SimulationRow& row) { x_independent.push_back(row.q[0]); });
  ASSERT_EQ(r3.redundant_constraints.size(), 1u);
  EXPECT_EQ(r3.redundant_constraints[0], "sphere");
  EXPECT_TRUE(r2.redundant_constraints.empty());
  ASSERT_EQ(x_redundant.size(), x_independent.size());
  for (std::size_t k = 0; k < x_redundant.size(); ++k)
    EXPECT_NEAR(x_redundant[k], x_independent[k], 1e-6) << "row " << k;
  EXPECT_LT(r3.energy_drift, 1e-6 * std::abs(r3.initial_energy));
}

TEST(RedundantConstraints, InconsistentRedundantConstraintsAreAComputationError) {
  // z = 0 and z = t²/20 agree at t = 0 in position and velocity but ask for z̈ = 0 and z̈ = 1/10.
  const num::CompiledEquations compiled(
      principles::derive(pendulum(false, true), principles::Method::GibbsAppell));
  Eigen::VectorXd q(3), qd(3);
  q << 0, -1.5, 0;
  qd << 0, 0, 0;
  try {
    num::evaluate_state(compiled, 0.0, q, qd);
    ADD_FAILURE() << "no error";
  } catch (const model::ComputationError& e) {
    EXPECT_NE(std::string(e.what()).find("inconsistent"), std::string::npos) << e.what();
  }
}

TEST(CompiledEquationsSizes, AStateOfTheWrongSizeIsRefused) {
  const num::CompiledEquations compiled(
      principles::derive(pendulum(false), principles::Method::GibbsAppell));
  Eigen::MatrixXd M;
  Eigen::VectorXd f;
  EXPECT_THROW(compiled.evaluate(0.0, Eigen::VectorXd::Zero(2), Eigen::VectorXd::Zero(3), M, f),
               std::invalid_argument);
  EXPECT_THROW(compiled.evaluate(0.0, Eigen::VectorXd::Zero(3), Eigen::VectorXd::Zero(4), M, f),
               std::invalid_argument);
  EXPECT_NO_THROW(compiled.evaluate(0.0, Eigen::VectorXd::Zero(3), Eigen::VectorXd::Zero(3), M, f));
  EXPECT_EQ(M.rows(), 3);
}

}  // namespace
