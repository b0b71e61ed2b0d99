// Forward dynamics with constraints: M q̈ = f + Aᵀλ, A q̈ = b integrated with projection onto the
// constraint manifold. References nobody here wrote: the pendulum in polar form and its rod
// tension, the Chaplygin sleigh's reduced equations, a bead on a spinning rod (r = r0 cosh Ωt),
// and the slider-crank's closed-form loop driving a flexible connecting rod.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "appell/fem/frame_motion.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/principles/derive.hpp"
#include "support/run_cli.hpp"

namespace {

using namespace appell;

const std::string kExamples = APPELL_EXAMPLES_DIR;

struct Run {
  std::vector<double> t, energy;
  std::vector<Eigen::VectorXd> q, qd, qdd, lambda;
  num::SimulationResult result;
};

Run simulate(const std::shared_ptr<const model::Model>& model, num::SimulationOptions options) {
  Run out;
  const auto equations = principles::derive(model, principles::Method::GibbsAppell);
  out.result = num::simulate(equations, options, [&](const num::SimulationRow& row) {
    out.t.push_back(row.t);
    out.q.push_back(row.q);
    out.qd.push_back(row.qd);
    out.qdd.push_back(row.qdd);
    out.lambda.push_back(row.lambda);
    out.energy.push_back(row.total);
  });
  return out;
}

num::SimulationOptions tight(double t_end, double step = 0.01) {
  num::SimulationOptions o;
  o.t_end = t_end;
  o.output_step = step;
  o.rtol = 1e-10;
  o.atol = 1e-10;
  return o;
}

constexpr const char* kCartesianPendulum = R"(
name: cartesian-pendulum
parameters: {m: 0.7, L: 1.3, g: 9.81}
coordinates:
  - {name: x, initial: L*sin(0.9)}
  - {name: y, initial: -L*cos(0.9)}
frames:
  bob: {translation: [x, y, 0]}
particles:
  p: {frame: bob, mass: m, position: [0, 0, 0]}
gravity: [0, -g, 0]
constraints:
  - {name: rod, holonomic: "x*x + y*y - L*L"}
)";

constexpr const char* kPolarPendulum = R"(
name: polar-pendulum
parameters: {m: 0.7, L: 1.3, g: 9.81}
coordinates:
  - {name: theta, initial: 0.9}
frames:
  arm: {rotation: rot_z(theta)}
particles:
  p: {frame: arm, mass: m, position: [0, -L, 0]}
gravity: [0, -g, 0]
)";

TEST(ConstrainedSimulation, CartesianPendulumFollowsThePolarOneWithTheRodTension) {
  const auto cartesian = simulate(io::parse_model(kCartesianPendulum, "cartesian.yaml"), tight(5));
  const auto polar = simulate(io::parse_model(kPolarPendulum, "polar.yaml"), tight(5));
  ASSERT_EQ(cartesian.t.size(), polar.t.size());
  const double m = 0.7, L = 1.3, g = 9.81;
  for (std::size_t k = 0; k < cartesian.t.size(); ++k) {
    const double x = cartesian.q[k][0], y = cartesian.q[k][1];
    const double vx = cartesian.qd[k][0], vy = cartesian.qd[k][1];
    EXPECT_NEAR(std::atan2(x, -y), polar.q[k][0], 1e-7) << "t = " << cartesian.t[k];
    EXPECT_NEAR(x * x + y * y, L * L, 1e-9);
    EXPECT_NEAR(x * vx + y * vy, 0.0, 1e-8);
    // m r̈ = −(T/L) r + m g with φ = |r|² − L²: Aᵀλ = 2 r λ, so λ = −T / (2L), and the tension
    // holds the bob on its circle: T = m (v²/L + g cos θ), cos θ = −y/L.
    const double tension = m * ((vx * vx + vy * vy) / L + g * (-y / L));
    ASSERT_EQ(cartesian.lambda[k].size(), 1);
    EXPECT_NEAR(cartesian.lambda[k][0], -tension / (2 * L), 1e-7 * (1 + tension));
  }
  EXPECT_TRUE(cartesian.result.conservative);
  EXPECT_LT(cartesian.result.energy_drift, 1e-7 * std::abs(cartesian.result.initial_energy));
  EXPECT_LT(cartesian.result.max_violation.position, 1e-9);
  EXPECT_EQ(cartesian.result.constraints, 1u);
}

TEST(ConstrainedSimulation, AnInconsistentInitialStateIsProjectedOntoTheConstraints) {
  auto options = tight(0.5);
  options.q0 = {1.0, -1.0};   // radius √2, not L = 1.3
  options.qd0 = {0.4, -0.1};  // with a radial part
  const auto run = simulate(io::parse_model(kCartesianPendulum, "cartesian.yaml"), options);
  const double L = 1.3;
  EXPECT_NEAR(run.q[0].norm(), L, 1e-10);
  EXPECT_NEAR(run.q[0].dot(run.qd[0]), 0.0, 1e-10);
  // The smallest correction: straight towards the centre, so the angle is kept.
  EXPECT_NEAR(std::atan2(run.q[0][0], -run.q[0][1]), std::atan2(1.0, 1.0), 1e-10);
  EXPECT_NEAR(run.result.initial_correction.position, std::sqrt(2.0) / 2 * (std::sqrt(2.0) - L),
              1e-9);
  EXPECT_GT(run.result.initial_correction.velocity, 0.1);
}

TEST(ConstrainedSimulation, ChaplyginSleighFollowsItsReducedEquations) {
  // Knife edge speed v along the heading and turning rate ω (I about the centre of mass, which
  // is a ahead of the edge): m v̇ = m a ω², (I + m a²) ω̇ = −m a v ω. Integrated here by RK4.
  const double m = 2.0, I = 0.05, a = 0.2;
  auto options = tight(4.0, 0.05);
  options.qd0 = {1.0, 0.0, 2.0};
  const auto run = simulate(io::read_model_file(kExamples + "/chaplygin_sleigh.yaml"), options);
  auto rate = [&](const Eigen::Vector2d& s) {
    return Eigen::Vector2d(a * s[1] * s[1], -m * a * s[0] * s[1] / (I + m * a * a));
  };
  Eigen::Vector2d s(1.0, 2.0);
  const double h = 1e-4;
  double t = 0;
  for (std::size_t k = 0; k < run.t.size(); ++k) {
    while (t < run.t[k] - 1e-12) {
      const auto k1 = rate(s), k2 = rate(s + h / 2 * k1), k3 = rate(s + h / 2 * k2),
                 k4 = rate(s + h * k3);
      s += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
      t += h;
    }
    const double theta = run.q[k][2];
    const double v = run.qd[k][0] * std::cos(theta) + run.qd[k][1] * std::sin(theta);
    EXPECT_NEAR(v, s[0], 1e-7) << "t = " << run.t[k];
    EXPECT_NEAR(run.qd[k][2], s[1], 1e-7) << "t = " << run.t[k];
    // The knife edge never slides sideways.
    EXPECT_NEAR(-std::sin(theta) * run.qd[k][0] + std::cos(theta) * run.qd[k][1], 0.0, 1e-8);
  }
  EXPECT_TRUE(run.result.conservative);
  EXPECT_LT(run.result.energy_drift, 1e-7);
}

TEST(ConstrainedSimulation, BeadOnASpinningRodSlidesOutAsCoshOfOmegaT) {
  // A rheonomic constraint: the bead stays on a rod turning at Ω in the plane, φ = −sin Ωt x +
  // cos Ωt y. Without gravity r̈ = Ω² r, so from rest on the rod r = r0 cosh Ωt. The initial
  // velocity is left at zero: the projection gives it the rod's speed Ω r0.
  const auto model = io::parse_model(R"(
name: bead-on-spinning-rod
parameters: {m: 0.3, W: 2.0, r0: 0.1}
coordinates:
  - {name: x, initial: r0}
  - y
frames:
  bead: {translation: [x, y, 0]}
particles:
  p: {frame: bead, mass: m, position: [0, 0, 0]}
constraints:
  - {name: rod, holonomic: "-sin(W*t)*x + cos(W*t)*y"}
)",
                                     "bead.yaml");
  const auto run = simulate(model, tight(1.5, 0.05));
  const double W = 2.0, r0 = 0.1;
  EXPECT_NEAR(run.qd[0][1], W * r0, 1e-12);
  for (std::size_t k = 0; k < run.t.size(); ++k) {
    EXPECT_NEAR(run.q[k].norm(), r0 * std::cosh(W * run.t[k]), 1e-7 * std::cosh(W * run.t[k]))
        << "t = " << run.t[k];
    EXPECT_NEAR(std::atan2(run.q[k][1], run.q[k][0]),
                std::remainder(W * run.t[k], 2 * std::numbers::pi), 1e-8);
  }
  EXPECT_FALSE(run.result.conservative);
  EXPECT_NE(run.result.not_conservative_because.find("t explicitly"), std::string::npos);
}

TEST(ConstrainedSimulation, SliderCrankKeepsItsLoopAndItsEnergy) {
  const auto run = simulate(io::read_model_file(kExamples + "/slider_crank.yaml"), tight(3));
  const double r = 0.1, L = 0.3;
  for (std::size_t k = 0; k < run.t.size(); ++k) {
    const auto& q = run.q[k];
    EXPECT_NEAR(r * std::cos(q[0]) + L * std::cos(q[1]), q[2], 1e-9);
    EXPECT_NEAR(r * std::sin(q[0]) + L * std::sin(q[1]), 0.0, 1e-9);
    ASSERT_EQ(run.lambda[k].size(), 2);
  }
  EXPECT_TRUE(run.result.conservative);
  EXPECT_LT(run.result.energy_drift, 1e-6 * std::abs(run.result.initial_energy));
  // It does move: the crank falls through more than a radian.
  double lowest = run.q[0][0];
  for (const auto& q : run.q) lowest = std::min(lowest, q[0]);
  EXPECT_LT(lowest, run.q[0][0] - 1.0);
}

TEST(ConstrainedSimulation, ConstraintsThatNoPositionMeetsAreAFailedComputation) {
  // x² + y² + L² = 0 has no real solution: Gauss–Newton cannot reach it, and appell says so
  // (exit 1 from the CLI) before integrating anything.
  std::string yaml = kCartesianPendulum;
  yaml.replace(yaml.find("x*x + y*y - L*L"), 15, "x*x + y*y + L*L");
  const auto model = io::parse_model(yaml, "unreachable.yaml");
  try {
    simulate(model, tight(1));
    FAIL() << "expected a ComputationError";
  } catch (const model::ComputationError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot be brought onto the constraints"),
              std::string::npos)
        << e.what();
  }
  const std::string path = testing::TempDir() + "unreachable.yaml";
  std::ofstream(path) << yaml;
  const auto r = test_support::run_cli("simulate " + path + " --t-end 1 --out " +
                                       testing::TempDir() + "unreachable.csv");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("cannot be brought onto the constraints"), std::string::npos) << r.out;
}

TEST(ConstrainedSimulation, AdamsIsRefusedWithConstraints) {
  auto options = tight(1);
  options.integrator = num::Integrator::Adams;
  try {
    simulate(io::parse_model(kCartesianPendulum, "cartesian.yaml"), options);
    FAIL() << "expected a ModelError";
  } catch (const model::ModelError& e) {
    EXPECT_EQ(e.where().file, "integrator") << e.what();
  }
}

TEST(ConstrainedSimulation, DrivenSliderCrankMovesTheFlexibleRodsFrameAlongTheLoop) {
  // The crank turns at Ω, so the loop gives the rod's angle in closed form:
  // sin q2 = −(r/L) sin Ωt, q̇2 = −r Ω cos Ωt / (L cos q2); and the rod frame's origin (the crank
  // pin) accelerates by −r Ω² (cos Ωt, sin Ωt) in the world.
  const auto model = io::read_model_file(kExamples + "/fem/flexible_slider_crank.yaml");
  const double Omega = 150.0, r = 0.1524, L = 0.3048;
  const double t_end = 2 * std::numbers::pi / Omega;  // one crank turn
  const fem::FrameMotion motion(model, "rod", {}, t_end, t_end / 400, {});
  for (int k = 0; k <= 40; ++k) {
    const double t = t_end * k / 40.0;
    const double q2 = std::asin(-r / L * std::sin(Omega * t));
    const double q2_rate = -r * Omega * std::cos(Omega * t) / (L * std::cos(q2));
    const fem::FrameState s = motion.at(t);
    EXPECT_NEAR(s.omega.z(), q2_rate, 1e-4 * Omega) << "t = " << t;
    const Eigen::Vector2d pin(-r * Omega * Omega * std::cos(Omega * t),
                              -r * Omega * Omega * std::sin(Omega * t));
    const Eigen::Vector2d local(std::cos(q2) * pin.x() + std::sin(q2) * pin.y(),
                                -std::sin(q2) * pin.x() + std::cos(q2) * pin.y());
    EXPECT_NEAR(s.origin_acceleration.x(), local.x(), 1e-4 * r * Omega * Omega) << "t = " << t;
    EXPECT_NEAR(s.origin_acceleration.y(), local.y(), 1e-4 * r * Omega * Omega) << "t = " << t;
  }
}

TEST(ConstrainedSimulationCli, WritesTheMultipliersAndReportsTheConstraints) {
  const std::string csv = testing::TempDir() + "slider_crank.csv";
  const auto r = test_support::run_cli("simulate " + kExamples +
                                       "/slider_crank.yaml --t-end 0.5 --out " + csv);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("constraints: 2"), std::string::npos) << r.out;
  std::ifstream in(csv);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header,
            "t,q1,q2,x,dot(q1),dot(q2),dot(x),T,V,E,lambda_loop_x,lambda_loop_y,p_x,p_y,p_z,L_x,"
            "L_y,L_z");
  const auto adams = test_support::run_cli(
      "simulate " + kExamples + "/slider_crank.yaml --t-end 0.5 --integrator adams --out " + csv);
  EXPECT_EQ(adams.code, 2) << adams.out;
  EXPECT_NE(adams.out.find("--integrator"), std::string::npos) << adams.out;

  const auto response =
      test_support::run_cli("fem " + kExamples +
                            "/fem/flexible_slider_crank.yaml --response --t-end 0.02 --step 1e-4 "
                            "--nodes 6 --csv " +
                            testing::TempDir() + "rod.csv");
  EXPECT_EQ(response.code, 0) << response.out;
}

}  // namespace
