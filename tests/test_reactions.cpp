// Reaction forces (num::CompiledReactions, `eval --reactions`, `simulate --reactions`): the
// tension of a simple pendulum and a two-link arm against Newton–Euler worked by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "appell/io/model_reader.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/momenta.hpp"
#include "appell/numeric/reactions.hpp"
#include "appell/numeric/state_evaluation.hpp"
#include "appell/principles/derive.hpp"
#include "support/run_cli.hpp"

namespace {

using namespace appell;
using Eigen::Vector3d;
using Eigen::VectorXd;

constexpr const char* kPendulum = R"yaml(name: pendulum
parameters: {m: 1.3, l: 0.9, g: 9.81}
coordinates: [theta]
frames:
  arm: {rotation: rot_z(theta)}
particles:
  bob: {frame: arm, mass: m, position: [0, -l, 0]}
gravity: [0, -g, 0]
)yaml";

// Two uniform rods joined by revolute joints about z, motors tau1 and tau2 at the joints, a
// point force P at the tip.
constexpr const char* kTwoLink = R"yaml(name: two-link
parameters: {m1: 1.2, m2: 0.7, l1: 0.6, l2: 0.45, g: 9.81, tau1: 0.8, tau2: -0.3}
coordinates: [q1, q2]
frames:
  link1: {rotation: rot_z(q1)}
  link2: {parent: link1, translation: [l1, 0, 0], rotation: rot_z(q2)}
bodies:
  rod1: {frame: link1, mass: m1, com: [l1/2, 0, 0], inertia: {rod: {length: l1, axis: x}}}
  rod2: {frame: link2, mass: m2, com: [l2/2, 0, 0], inertia: {rod: {length: l2, axis: x}}}
gravity: [0, -g, 0]
loads:
  - {force: [1.5, -2.0, 0], on: link2, at: [l2, 0, 0]}
  - {generalized: {coordinate: q1, value: tau1}}
  - {generalized: {coordinate: q2, value: tau2}}
)yaml";

std::string write_temp(const std::string& name, const char* text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(Reactions, SimplePendulumCarriesTheTensionAlongTheRod) {
  // The pivot pulls the bob towards itself with T = m (g cos θ + l θ̇²); no moment about it.
  const double m = 1.3, l = 0.9, g = 9.81;
  const auto model = io::parse_model(kPendulum, "pendulum.yaml");
  const num::CompiledEquations compiled(principles::derive(model, principles::Method::Lagrange));
  const num::CompiledReactions reactions(model);
  ASSERT_EQ(reactions.frames(), std::vector<std::string>{"arm"});
  std::mt19937 random(7);
  std::uniform_real_distribution<double> angle(-3.0, 3.0), rate(-4.0, 4.0);
  for (int k = 0; k < 10; ++k) {
    VectorXd q(1), qd(1);
    q << angle(random);
    qd << rate(random);
    const auto state = num::evaluate_state(compiled, 0.0, q, qd);
    const auto r = reactions.evaluate(0.0, q, qd, state.qdd).at(0);
    const double tension = m * (g * std::cos(q[0]) + l * qd[0] * qd[0]);
    const Vector3d towards_pivot(-std::sin(q[0]), std::cos(q[0]), 0.0);
    EXPECT_LT((r.force - tension * towards_pivot).norm(), 1e-11) << r.force.transpose();
    EXPECT_LT(r.moment.norm(), 1e-11) << r.moment.transpose();
  }
}

TEST(Reactions, TwoLinkArmAgainstNewtonEulerByHand) {
  const double m1 = 1.2, m2 = 0.7, l1 = 0.6, l2 = 0.45, g = 9.81, tau1 = 0.8, tau2 = -0.3;
  const Vector3d P(1.5, -2.0, 0.0), gravity(0, -g, 0), z(0, 0, 1);
  const auto model = io::parse_model(kTwoLink, "two_link.yaml");
  const num::CompiledEquations compiled(principles::derive(model, principles::Method::GibbsAppell));
  const num::CompiledReactions reactions(model);
  ASSERT_EQ(reactions.frames(), (std::vector<std::string>{"link1", "link2"}));
  std::mt19937 random(11);
  std::uniform_real_distribution<double> angle(-3.0, 3.0), rate(-3.0, 3.0);
  for (int k = 0; k < 10; ++k) {
    VectorXd q(2), qd(2);
    q << angle(random), angle(random);
    qd << rate(random), rate(random);
    const auto state = num::evaluate_state(compiled, 0.0, q, qd);
    const VectorXd& qdd = state.qdd;
    // Planar kinematics: a point at distance s along a link of absolute angle φ, from a point
    // O of acceleration a_O: a = a_O + s (φ̈ e⊥ − φ̇² e).
    auto e = [](double phi) { return Vector3d(std::cos(phi), std::sin(phi), 0); };
    auto n = [](double phi) { return Vector3d(-std::sin(phi), std::cos(phi), 0); };
    const double p1 = q[0], w1 = qd[0], a1 = qdd[0];
    const double p2 = q[0] + q[1], w2 = qd[0] + qd[1], a2 = qdd[0] + qdd[1];
    const Vector3d O2 = l1 * e(p1), c1 = l1 / 2 * e(p1), c2 = O2 + l2 / 2 * e(p2);
    const Vector3d tip = O2 + l2 * e(p2);
    const Vector3d ac1 = l1 / 2 * (a1 * n(p1) - w1 * w1 * e(p1));
    const Vector3d aO2 = l1 * (a1 * n(p1) - w1 * w1 * e(p1));
    const Vector3d ac2 = aO2 + l2 / 2 * (a2 * n(p2) - w2 * w2 * e(p2));
    const double I1 = m1 * l1 * l1 / 12, I2 = m2 * l2 * l2 / 12;
    // Link 2 with the tip force; link 1 carries link 2's reaction back.
    const Vector3d F2 = m2 * (ac2 - gravity) - P;
    const Vector3d N2 = (c2 - O2).cross(m2 * (ac2 - gravity)) + I2 * a2 * z - (tip - O2).cross(P);
    const Vector3d F1 = m1 * (ac1 - gravity) + F2;
    const Vector3d N1 = c1.cross(m1 * (ac1 - gravity)) + I1 * a1 * z + N2 + O2.cross(F2);
    const auto r = reactions.evaluate(0.0, q, qd, qdd);
    EXPECT_LT((r[0].force - F1).norm(), 1e-10) << r[0].force.transpose() << " vs " << F1;
    EXPECT_LT((r[0].moment - N1).norm(), 1e-10) << r[0].moment.transpose() << " vs " << N1;
    EXPECT_LT((r[1].force - F2).norm(), 1e-10) << r[1].force.transpose() << " vs " << F2;
    EXPECT_LT((r[1].moment - N2).norm(), 1e-10) << r[1].moment.transpose() << " vs " << N2;
    // About the joint axes the parent's moment is the motor's torque.
    EXPECT_NEAR(r[0].moment.z(), tau1, 1e-10);
    EXPECT_NEAR(r[1].moment.z(), tau2, 1e-10);
  }
}

TEST(Reactions, HeavyTopPivotIsTheRateOfMomentumLessTheWeight) {
  // The top turns about its fixed point O (the world origin, the frame's origin): the pivot's force
  // is dp/dt - m g and its moment about O is dL_O/dt - r_c x m g, where r_c = R (0, 0, h); an ideal
  // ball joint transmits no moment, so that moment vanishes. p and L from num::CompiledMomenta,
  // their rates by central differences along (q, q̇, q̈); exercises the bodies' R (I ε + ω × I ω).
  const double m = 1.5, h = 0.2, g = 9.81;
  const auto model = io::parse_model(R"yaml(name: heavy-top
parameters: {m: 1.5, h: 0.2, A: 0.03, C: 0.05, g: 9.81}
coordinates: [psi, theta, phi]
frames:
  top: {parent: world, rotation: rot_z(psi)*rot_x(theta)*rot_z(phi)}
bodies:
  spinner: {frame: top, mass: m, com: [0, 0, h], inertia: [A, A, C, 0, 0, 0]}
gravity: [0, 0, -g]
)yaml",
                                     "top.yaml");
  const num::CompiledEquations compiled(principles::derive(model, principles::Method::GibbsAppell));
  const num::CompiledReactions reactions(model);
  const num::CompiledMomenta momenta(model);
  std::mt19937 random(5);
  std::uniform_real_distribution<double> angle(0.3, 2.8), rate(-3.0, 3.0), spin(10.0, 40.0);
  for (int k = 0; k < 8; ++k) {
    VectorXd q(3), qd(3);
    q << angle(random), angle(random), angle(random);
    qd << rate(random), rate(random), spin(random);
    const auto state = num::evaluate_state(compiled, 0.0, q, qd);
    const double step = 1e-6;
    const auto ahead = momenta.evaluate(0.0, q + step * qd, qd + step * state.qdd);
    const auto behind = momenta.evaluate(0.0, q - step * qd, qd - step * state.qdd);
    const Vector3d dp = (ahead.linear - behind.linear) / (2 * step);
    const Vector3d dL = (ahead.angular - behind.angular) / (2 * step);
    const double ps = q[0], th = q[1];
    const Vector3d axis(std::sin(th) * std::sin(ps), -std::sin(th) * std::cos(ps), std::cos(th));
    const Vector3d weight(0, 0, -m * g), rc = h * axis;
    const auto r = reactions.evaluate(0.0, q, qd, state.qdd).at(0);
    EXPECT_LT((r.force - (dp - weight)).norm(), 1e-6 * (1 + dp.norm())) << r.force.transpose();
    EXPECT_LT((r.moment - (dL - rc.cross(weight))).norm(), 1e-6 * (1 + dL.norm()))
        << r.moment.transpose();
    EXPECT_LT(r.moment.norm(), 1e-9) << r.moment.transpose();
  }
}

TEST(Reactions, EvalAndSimulateWriteThemByFrame) {
  const std::string path = write_temp("reactions_pendulum.yaml", kPendulum);
  const auto run = test_support::run_cli("eval " + path + " --q 0.4 --qd 1.5 --reactions --json");
  ASSERT_EQ(run.code, 0) << run.out;
  const auto j = nlohmann::json::parse(run.out);
  const double m = 1.3, l = 0.9, g = 9.81, tension = m * (g * std::cos(0.4) + l * 1.5 * 1.5);
  ASSERT_TRUE(j.contains("reactions")) << run.out;
  EXPECT_NEAR(j["reactions"]["arm"]["force"][0].get<double>(), -tension * std::sin(0.4), 1e-12);
  EXPECT_NEAR(j["reactions"]["arm"]["force"][1].get<double>(), tension * std::cos(0.4), 1e-12);
  EXPECT_EQ(j["reactions"]["arm"]["moment"].size(), 3u);
  const auto text = test_support::run_cli("eval " + path + " --q 0.4 --qd 1.5 --reactions");
  ASSERT_EQ(text.code, 0) << text.out;
  EXPECT_NE(text.out.find("arm: force = ["), std::string::npos) << text.out;

  const std::string csv = ::testing::TempDir() + "/reactions_pendulum.csv";
  const auto sim = test_support::run_cli("simulate " + path +
                                         " --t-end 1 --output-step 0.5 --q0 1.0 --reactions "
                                         "--out " +
                                         csv);
  ASSERT_EQ(sim.code, 0) << sim.out;
  std::ifstream in(csv);
  std::string header, line;
  std::getline(in, header);
  EXPECT_EQ(header,
            "t,theta,dot(theta),T,V,E,p_x,p_y,p_z,L_x,L_y,L_z,F_arm_x,F_arm_y,F_arm_z,M_arm_x,"
            "M_arm_y,M_arm_z");
  // Every row: the force along the rod with the tension of its state.
  int rows = 0;
  while (std::getline(in, line)) {
    std::vector<double> v;
    std::istringstream fields(line);
    for (std::string f; std::getline(fields, f, ',');) v.push_back(std::stod(f));
    ASSERT_EQ(v.size(), 18u) << line;
    const double T = m * (g * std::cos(v[1]) + l * v[2] * v[2]);
    EXPECT_NEAR(v[12], -T * std::sin(v[1]), 1e-9) << line;
    EXPECT_NEAR(v[13], T * std::cos(v[1]), 1e-9) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 3);

  const auto minimal = test_support::run_cli("eval " + std::string(APPELL_EXAMPLES_DIR) +
                                             "/slider_crank.yaml --minimal --reactions");
  EXPECT_EQ(minimal.code, 2) << minimal.out;
  EXPECT_NE(minimal.out.find("--reactions"), std::string::npos) << minimal.out;
}

// The slider-crank's loop closes through constraints that name no pin, so each frame's reaction
// is the resultant of its parent's force and the constraint forces on it. Where the parent can do
// no work the two are told apart by virtual work: the rail carries no force along x, so the
// slider's reaction along x is the loop's generalized force on x, m3 ẍ; the rod's frame turns
// freely about its origin (the crank pin) with q2, so its moment there is the loop's generalized
// force on q2.
TEST(Reactions, ConstrainedSliderCrankAgainstTheConstraintForcesByVirtualWork) {
  const auto model = io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/slider_crank.yaml");
  const auto eq = principles::derive(model, principles::Method::GibbsAppell);
  const num::CompiledEquations compiled(eq);
  const num::CompiledReactions reactions(model);
  const double r = 0.1, L = 0.3, m3 = 2.0, g = 9.81;
  for (const double q1 : {0.5, 2.0, -1.2}) {
    const double q2 = std::asin(-r * std::sin(q1) / L), w1 = 1.7;
    const double w2 = -r * std::cos(q1) * w1 / (L * std::cos(q2));
    VectorXd q(3), qd(3);
    q << q1, q2, r * std::cos(q1) + L * std::cos(q2);
    qd << w1, w2, -r * std::sin(q1) * w1 - L * std::sin(q2) * w2;
    const auto state = num::evaluate_state(compiled, 0.0, q, qd);
    const auto forces = num::generalized_constraint_forces(state);
    ASSERT_EQ(forces.size(), 2u);
    const VectorXd total = forces[0] + forces[1];
    // M q̈ = f + Σ λ_c A_cᵀ: the constraint forces are what the equations add to f.
    EXPECT_LT((state.mass_matrix * state.qdd - state.forcing - total).cwiseAbs().maxCoeff(), 1e-9);
    const auto all = reactions.evaluate(0.0, q, qd, state.qdd);
    ASSERT_EQ(reactions.frames(), (std::vector<std::string>{"crank", "rod", "slider"}));
    const auto& rod = all[1];
    const auto& slider = all[2];
    EXPECT_NEAR(slider.force[0], m3 * state.qdd[2], 1e-9) << q1;
    EXPECT_NEAR(slider.force[0], total[2], 1e-9) << q1;
    EXPECT_NEAR(slider.force[1], m3 * g, 1e-9) << q1;
    EXPECT_NEAR(rod.moment[2], total[1], 1e-9) << q1;
  }

  const auto json = test_support::run_cli("eval " + std::string(APPELL_EXAMPLES_DIR) +
                                          "/slider_crank.yaml --reactions --json");
  ASSERT_EQ(json.code, 0) << json.out;
  const auto j = nlohmann::json::parse(json.out);
  ASSERT_TRUE(j.contains("constraint_forces")) << json.out;
  EXPECT_EQ(j["constraint_forces"]["loop_x"].size(), 3u);
  EXPECT_EQ(j["constraint_forces"]["loop_y"].size(), 3u);
  EXPECT_EQ(j["reactions"].size(), 3u);
  const auto text = test_support::run_cli("eval " + std::string(APPELL_EXAMPLES_DIR) +
                                          "/slider_crank.yaml --reactions");
  ASSERT_EQ(text.code, 0) << text.out;
  EXPECT_NE(text.out.find("loop_y: ["), std::string::npos) << text.out;
  const std::string csv = ::testing::TempDir() + "/reactions_slider_crank.csv";
  const auto sim = test_support::run_cli("simulate " + std::string(APPELL_EXAMPLES_DIR) +
                                         "/slider_crank.yaml --t-end 0.2 --reactions --out " + csv);
  ASSERT_EQ(sim.code, 0) << sim.out;
  std::ifstream in(csv);
  std::string header;
  std::getline(in, header);
  EXPECT_NE(header.find("F_slider_x"), std::string::npos) << header;
}

}  // namespace
