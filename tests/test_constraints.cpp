// Constrained systems with Lagrange multipliers: M q̈ = f + Aᵀλ, A q̈ = b.
#include <gtest/gtest.h>

#include <random>

#include "appell/io/model_reader.hpp"
#include "appell/numeric/agreement.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/principles/derive.hpp"
#include "support/run_cli.hpp"

namespace {

using namespace appell;

const std::string examples = APPELL_EXAMPLES_DIR;

void solve(const principles::Equations& eq, double t, const Eigen::VectorXd& q,
           const Eigen::VectorXd& qd, Eigen::VectorXd& qdd, Eigen::VectorXd& lambda) {
  num::CompiledEquations c(eq);
  Eigen::MatrixXd M, A;
  Eigen::VectorXd f, b;
  c.evaluate(t, q, qd, M, f);
  c.constraints(A, b);
  c.accelerations_and_multipliers(M, f, A, b, qdd, lambda);
}

TEST(Constraints, ChaplyginSleighMatchesItsClosedForm) {
  // Forward speed v of the knife edge and turning rate ω obey v̇ = a ω² and
  // ω̇ = −m a v ω / (I + m a²) (I about the centre of mass).
  auto model = io::read_model_file(examples + "/chaplygin_sleigh.yaml");
  const double m = 2.0, I = 0.05, a = 0.2;
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-2, 2);
  for (auto method : principles::all_methods) {
    SCOPED_TRACE(principles::method_name(method));
    const auto eq = principles::derive(model, method);
    ASSERT_EQ(eq.constraint_count(), 1u);
    for (int i = 0; i < 20; ++i) {
      const double theta = u(rng) * 1.5, v = u(rng), w = u(rng);
      Eigen::VectorXd q(3), qd(3), qdd, lambda;
      q << u(rng), u(rng), theta;
      qd << v * std::cos(theta), v * std::sin(theta), w;  // no sideways slip
      solve(eq, 0.0, q, qd, qdd, lambda);
      const double vdot = a * w * w, wdot = -m * a * v * w / (I + m * a * a);
      EXPECT_NEAR(qdd[0], vdot * std::cos(theta) - v * w * std::sin(theta), 1e-12);
      EXPECT_NEAR(qdd[1], vdot * std::sin(theta) + v * w * std::cos(theta), 1e-12);
      EXPECT_NEAR(qdd[2], wdot, 1e-12);
      // The knife edge's sideways reaction: λ = m (v ω + a ω̇) from Newton's law across the edge.
      EXPECT_NEAR(lambda[0], m * (v * w + a * wdot), 1e-12);
    }
  }
}

TEST(Constraints, SliderCrankKeepsItsLoopClosedAtAccelerationLevel) {
  // Independent of appell's differentiator: the loop closure differentiated twice by GiNaC.
  auto model = io::read_model_file(examples + "/slider_crank.yaml");
  const auto eq = principles::derive(model, principles::Method::GibbsAppell);
  ASSERT_EQ(eq.constraint_count(), 2u);
  const double r = 0.1, L = 0.3;
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int i = 0; i < 20; ++i) {
    const double q1 = 3 * u(rng), q2 = std::asin(-r * std::sin(q1) / L);
    const double w1 = 3 * u(rng);
    // Consistent velocities: d/dt of the closure.
    const double w2 = -r * std::cos(q1) * w1 / (L * std::cos(q2));
    const double xd = -r * std::sin(q1) * w1 - L * std::sin(q2) * w2;
    Eigen::VectorXd q(3), qd(3), qdd, lambda;
    q << q1, q2, r * std::cos(q1) + L * std::cos(q2);
    qd << w1, w2, xd;
    solve(eq, 0.0, q, qd, qdd, lambda);
    const double closure_x = -r * (std::cos(q1) * w1 * w1 + std::sin(q1) * qdd[0]) -
                             L * (std::cos(q2) * w2 * w2 + std::sin(q2) * qdd[1]) - qdd[2];
    const double closure_y = r * (-std::sin(q1) * w1 * w1 + std::cos(q1) * qdd[0]) +
                             L * (-std::sin(q2) * w2 * w2 + std::cos(q2) * qdd[1]);
    EXPECT_NEAR(closure_x, 0.0, 1e-10);
    EXPECT_NEAR(closure_y, 0.0, 1e-10);
  }
}

TEST(Constraints, EveryPrincipleGivesTheSameConstrainedEquations) {
  for (const std::string file : {"/slider_crank.yaml", "/chaplygin_sleigh.yaml"}) {
    SCOPED_TRACE(file);
    auto model = io::read_model_file(examples + file);
    const auto reference = principles::derive(model, principles::Method::Lagrange);
    for (auto method : principles::all_methods) {
      const auto agreement = num::compare(reference, principles::derive(model, method));
      EXPECT_TRUE(agreement.symbolic) << agreement.first_difference;
      EXPECT_LT(agreement.max_numeric_error, 1e-12);
    }
  }
}

TEST(ConstraintsCli, EvalPrintsTheMultipliersAndOtherCommandsRefuse) {
  const auto sleigh = examples + "/chaplygin_sleigh.yaml";
  const auto r = test_support::run_cli("eval " + sleigh + " --qd 1,0,2 --json");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("\"lambda\""), std::string::npos) << r.out;
  const auto derive = test_support::run_cli("derive " + sleigh + " --format json");
  EXPECT_NE(derive.out.find("\"constraint_matrix\""), std::string::npos) << derive.out;
  EXPECT_EQ(test_support::run_cli("verify " + examples + "/slider_crank.yaml").code, 0);
  const auto refused = test_support::run_cli("inverse " + sleigh +
                                             " --trajectory \"x=t; y=0; theta=0\" --t-end 1 "
                                             "--output-step 0.5 --out /tmp/sleigh_tau.csv");
  EXPECT_EQ(refused.code, 2) << refused.out;
  EXPECT_NE(refused.out.find("not supported"), std::string::npos) << refused.out;
}

}  // namespace
