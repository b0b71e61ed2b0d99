// Statics by virtual work: generalized forces at rest, equilibria, stability.
#include <gtest/gtest.h>

#include <cmath>

#include "appell/io/model_reader.hpp"
#include "appell/numeric/statics.hpp"
#include "support/run_cli.hpp"

namespace {

using namespace appell;

double evaluate(const GiNaC::ex& e, const GiNaC::exmap& at) {
  return GiNaC::ex_to<GiNaC::numeric>(GiNaC::evalf(e.subs(at))).to_double();
}

TEST(Statics, PreloadedTorsionalSpringPendulum) {
  // A rod of mass m and length L hanging from a pivot, angle q from the downward vertical, a
  // torsional spring preloaded at q0: equilibrium where k(q − q0) + m g (L/2) sin q = 0.
  auto model = io::parse_model(R"(name: preloaded-pendulum
parameters: {m: 1.0, L: 1.0, g: 9.81, k: 20.0, q0: 1.0}
coordinates: [q]
frames:
  arm: {rotation: rot_z(q)}
bodies:
  rod: {frame: arm, mass: m, com: [0, -L/2, 0], inertia: {rod: {length: L, axis: y}}}
gravity: [0, -g, 0]
loads:
  - {potential: "1/2*k*(q - q0)^2"}
)",
                               "pendulum.yaml");
  const auto result = num::solve_statics(model, {});
  const double m = 1, L = 1, g = 9.81, k = 20, q0 = 1;
  auto residual = [&](double q) { return k * (q - q0) + m * g * L / 2 * std::sin(q); };
  // Independent root by bisection on [0, q0] (residual(0) < 0 < residual(q0)).
  double lo = 0, hi = q0;
  for (int i = 0; i < 200; ++i) ((residual((lo + hi) / 2) < 0) ? lo : hi) = (lo + hi) / 2;
  ASSERT_EQ(result.equilibria.size(), 1u);
  EXPECT_NEAR(result.equilibria[0].q[0], (lo + hi) / 2, 1e-9);
  EXPECT_TRUE(result.equilibria[0].stable);
  // Q(q) itself at random angles.
  const GiNaC::symbol q = model->coordinate_symbol(0);
  GiNaC::exmap at = model->parameter_substitution();
  for (double angle : {-2.0, -0.3, 0.7, 2.5}) {
    at[q] = angle;
    EXPECT_NEAR(evaluate(result.generalized_forces(0, 0), at), -residual(angle), 1e-12);
  }
}

TEST(Statics, TwoLinkMechanismUnderATipLoad) {
  // Two massless links with torsional springs at the joints and a downward tip load P:
  // Q1 = −P (l1 cos q1 + l2 cos(q1+q2)) − k1 q1, Q2 = −P l2 cos(q1+q2) − k2 q2.
  auto model = io::parse_model(R"(name: two-link
parameters: {l1: 1.0, l2: 0.8, k1: 30.0, k2: 20.0, P: 15.0}
coordinates: [{name: q1, initial: 0.2}, {name: q2, initial: 0.1}]
frames:
  link1: {rotation: rot_z(q1)}
  link2: {parent: link1, translation: [l1, 0, 0], rotation: rot_z(q2)}
loads:
  - {force: [0, -P, 0], on: link2, at: [l2, 0, 0]}
  - {potential: "1/2*k1*q1^2 + 1/2*k2*q2^2"}
)",
                               "two-link.yaml");
  num::StaticsOptions options;
  options.random_starts = 0;  // from the initial values only: the loaded, stable branch
  const auto result = num::solve_statics(model, options);
  ASSERT_FALSE(result.equilibria.empty());
  const auto& e = result.equilibria[0];
  const double l1 = 1.0, l2 = 0.8, k1 = 30, k2 = 20, P = 15, q1 = e.q[0], q2 = e.q[1];
  EXPECT_NEAR(-P * (l1 * std::cos(q1) + l2 * std::cos(q1 + q2)) - k1 * q1, 0.0, 1e-9);
  EXPECT_NEAR(-P * l2 * std::cos(q1 + q2) - k2 * q2, 0.0, 1e-9);
  EXPECT_LT(q1, 0.0);  // the load bends the arm down
  EXPECT_TRUE(e.stable);
}

TEST(Statics, InvertedPendulumIsUnstable) {
  auto model = io::parse_model(R"(name: pendulum
parameters: {m: 1.0, l: 1.0, g: 9.81}
coordinates: [{name: phi, initial: 3.0}]
frames:
  arm: {rotation: rot_z(phi)}
particles:
  bob: {frame: arm, mass: m, position: [0, -l, 0]}
gravity: [0, -g, 0]
)",
                               "pendulum.yaml");
  num::StaticsOptions options;
  options.random_starts = 0;
  const auto result = num::solve_statics(model, options);
  ASSERT_EQ(result.equilibria.size(), 1u);
  EXPECT_NEAR(std::abs(result.equilibria[0].q[0]), M_PI, 1e-9);  // angles reported in [−π, π)
  EXPECT_FALSE(result.equilibria[0].stable);
}

TEST(Statics, DoublePendulumHasFourEquilibriaAndOneIsStable) {
  // Angles are 2π-periodic: equilibria a turn apart are one, so exactly the four hanging or
  // upright combinations remain, and only both-down is stable.
  auto model = io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/double_pendulum.yaml");
  const auto result = num::solve_statics(model, {});
  ASSERT_EQ(result.equilibria.size(), 4u);
  int stable = 0;
  for (const auto& e : result.equilibria) {
    for (Eigen::Index j = 0; j < 2; ++j) {
      EXPECT_GE(e.q[j], -M_PI - 1e-9);
      EXPECT_LT(e.q[j], M_PI);
    }
    stable += e.stable ? 1 : 0;
    if (e.stable) {
      EXPECT_LT(e.q.cwiseAbs().maxCoeff(), 1e-9);
    }
  }
  EXPECT_EQ(stable, 1);
}

TEST(Statics, SliderCrankRestsWithItsCrankDownOnEitherAssemblyBranch) {
  // Loop-closed by two holonomic constraints. On the loop the potential is
  // V(q1) = g r sin q1 (m1 + m2) / 2, so the crank rests straight down (stable) or up
  // (unstable), with the rod to the right or to the left of the crank (sin q2 = −(r/L) sin q1).
  // The slider carries half the rod's weight: λ_y = m2 g / 2, and nothing horizontally.
  auto model = io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/slider_crank.yaml");
  const auto result = num::solve_statics(model, {});
  const double m1 = 0.5, m2 = 1.0, r = 0.1, L = 0.3, g = 9.81;
  ASSERT_EQ(result.equilibria.size(), 4u);
  int stable = 0;
  for (const auto& e : result.equilibria) {
    const double q1 = e.q[0], q2 = e.q[1], x = e.q[2];
    EXPECT_NEAR(std::abs(q1), M_PI / 2, 1e-9);
    EXPECT_NEAR(std::sin(q2), -r / L * std::sin(q1), 1e-9);
    EXPECT_NEAR(x, r * std::cos(q1) + L * std::cos(q2), 1e-9);
    ASSERT_EQ(e.lambda.size(), 2);
    EXPECT_NEAR(e.lambda[0], 0.0, 1e-9);
    EXPECT_NEAR(e.lambda[1], m2 * g / 2, 1e-9);
    // One freedom left: K on the loop's tangent (1, 0, r) / |..| is V''(q1) / (1 + r²).
    ASSERT_EQ(e.stiffness_eigenvalues.size(), 1);
    const double curvature = -g * r * (m1 + m2) / 2 * std::sin(q1);
    EXPECT_NEAR(e.stiffness_eigenvalues[0], curvature / (1 + r * r), 1e-8);
    EXPECT_EQ(e.stable, q1 < 0);
    stable += e.stable ? 1 : 0;
  }
  EXPECT_EQ(stable, 2);
}

TEST(Statics, ConstraintsAreSatisfiedAtEveryEquilibriumOfTheCli) {
  const auto r = test_support::run_cli("statics " + std::string(APPELL_EXAMPLES_DIR) +
                                       "/slider_crank.yaml --json");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("\"lambda\":["), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"stable\":true"), std::string::npos) << r.out;
}

TEST(Statics, NoEquilibriumIsAComputationError) {
  // A constant generalized force never balances.
  auto model = io::parse_model(R"(name: pushed
coordinates: [x]
particles:
  p: {frame: world, mass: 1, position: [x, 0, 0]}
loads:
  - {generalized: {coordinate: x, value: 1}}
)",
                               "pushed.yaml");
  EXPECT_THROW(num::solve_statics(model, {}), model::ComputationError);
}

}  // namespace
