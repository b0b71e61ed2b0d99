// Golden equations against closed forms nobody here derived with appell: seed 001's thread
// pendulum, a heavy symmetric top (3-1-3 Euler angles) and a bead on a spinning hoop.
#include <gtest/gtest.h>

#include <random>

#include "appell/io/model_reader.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/principles/derive.hpp"

namespace {

using namespace appell;

constexpr principles::Method kMethods[] = {principles::Method::Lagrange,
                                           principles::Method::GibbsAppell};

// q̈ of the derived equations at a state.
Eigen::VectorXd accelerations(const principles::Equations& eq, double t, const Eigen::VectorXd& q,
                              const Eigen::VectorXd& qd) {
  num::CompiledEquations c(eq);
  Eigen::MatrixXd M;
  Eigen::VectorXd f;
  c.evaluate(t, q, qd, M, f);
  return c.accelerations(M, f);
}

TEST(Physics, ThreadPendulumOfSeed001) {
  // φ from the downward vertical; the bob hangs at −l along the pendulum's y axis.
  auto model = io::parse_model(R"(name: thread-pendulum
parameters: {m: 0.3, l: 1.2, g: 9.81}
coordinates: [phi]
frames:
  thread: {rotation: rot_z(phi)}
particles:
  bob: {frame: thread, mass: m, position: [0, -l, 0]}
gravity: [0, -g, 0]
)",
                               "thread.yaml");
  for (auto method : kMethods) {
    auto eq = principles::derive(model, method);
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-3, 3);
    for (int i = 0; i < 20; ++i) {
      Eigen::VectorXd q(1), qd(1);
      q << u(rng);
      qd << u(rng);
      EXPECT_NEAR(accelerations(eq, 0, q, qd)[0], -(9.81 / 1.2) * std::sin(q[0]), 1e-12);
    }
  }
}

TEST(Physics, BeadOnHoopSpinningAtConstantRate) {
  // Hoop of radius R about the vertical z axis at ψ = ω t; θ from the downward vertical:
  // bead at (R sinθ cosψ, R sinθ sinψ, −R cosθ), θ̈ = (ω² cos θ − g/R) sin θ.
  auto model = io::parse_model(R"(name: bead-on-hoop
parameters: {m: 0.1, R: 0.4, g: 9.81, omega: 6.0}
coordinates: [{name: theta, initial: 0.3}]
prescribed: {psi: omega*t}
frames:
  hoop: {rotation: rot_z(psi)}
  arm: {parent: hoop, rotation: rot_y(theta)}
particles:
  bead: {frame: arm, mass: m, position: [0, 0, -R]}
gravity: [0, 0, -g]
)",
                               "hoop.yaml");
  for (auto method : kMethods) {
    auto eq = principles::derive(model, method);
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> u(-3, 3), time(0, 5);
    for (int i = 0; i < 20; ++i) {
      Eigen::VectorXd q(1), qd(1);
      q << u(rng);
      qd << u(rng);
      const double th = q[0];
      EXPECT_NEAR(accelerations(eq, time(rng), q, qd)[0],
                  (36.0 * std::cos(th) - 9.81 / 0.4) * std::sin(th), 1e-10);
    }
  }
}

TEST(Physics, HeavySymmetricTopMatchesTextbookLagrangian) {
  auto model = io::parse_model(R"(name: heavy-top
parameters: {m: 1.5, h: 0.2, A: 0.03, C: 0.05, g: 9.81}
coordinates: [psi, {name: theta, initial: 0.5}, phi]
frames:
  top: {rotation: rot_z(psi)*rot_x(theta)*rot_z(phi)}
bodies:
  spinner: {frame: top, mass: m, com: [0, 0, h], inertia: [A, A, C, 0, 0, 0]}
gravity: [0, 0, -g]
)",
                               "top.yaml");
  // Independent reference, differentiated by GiNaC itself: about the fixed point, with
  // A_O = A + m h², T = ½A_O(θ̇² + ψ̇² sin²θ) + ½C(φ̇ + ψ̇ cos θ)², V = m g h cos θ.
  GiNaC::symbol psi("psi"), th("th"), ph("ph"), dpsi("dpsi"), dth("dth"), dph("dph");
  GiNaC::symbol ddpsi("ddpsi"), ddth("ddth"), ddph("ddph");
  const double m = 1.5, h = 0.2, A = 0.03, C = 0.05, g = 9.81, AO = A + m * h * h;
  const GiNaC::ex T =
      GiNaC::numeric(AO) / 2 * (dth * dth + dpsi * dpsi * GiNaC::pow(GiNaC::sin(th), 2)) +
      GiNaC::numeric(C) / 2 * GiNaC::pow(dph + dpsi * GiNaC::cos(th), 2);
  const GiNaC::ex V = m * g * h * GiNaC::cos(th);
  const GiNaC::symbol qs[] = {psi, th, ph}, dqs[] = {dpsi, dth, dph}, ddqs[] = {ddpsi, ddth, ddph};
  GiNaC::ex lagrange[3];
  for (int j = 0; j < 3; ++j) {
    GiNaC::ex p = T.diff(dqs[j]), dt = 0;
    for (int k = 0; k < 3; ++k) dt += p.diff(qs[k]) * dqs[k] + p.diff(dqs[k]) * ddqs[k];
    lagrange[j] = dt - T.diff(qs[j]) + V.diff(qs[j]);  // = 0 along the motion
  }

  for (auto method : kMethods) {
    SCOPED_TRACE(principles::method_name(method));
    auto eq = principles::derive(model, method);
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(-2, 2), angle(0.2, 2.9);
    for (int i = 0; i < 20; ++i) {
      Eigen::VectorXd q(3), qd(3);
      q << u(rng), angle(rng), u(rng);
      qd << u(rng), u(rng), u(rng);
      const Eigen::VectorXd qdd = accelerations(eq, 0, q, qd);
      GiNaC::exmap at;
      for (int k = 0; k < 3; ++k) {
        at[qs[k]] = q[k];
        at[dqs[k]] = qd[k];
        at[ddqs[k]] = qdd[k];
      }
      for (int j = 0; j < 3; ++j) {
        const double residual =
            GiNaC::ex_to<GiNaC::numeric>(GiNaC::evalf(lagrange[j].subs(at))).to_double();
        EXPECT_NEAR(residual, 0.0, 1e-11) << "equation " << j;
      }
    }
  }
}

}  // namespace

namespace {

TEST(Physics, Seed003Example1PendulumOnACircularlyTranslatingBlockIsEq70) {
  // m(ρ² + R²)φ̈ + m l0 R θ̇² sin(φ − θ) + m l0 R θ̈ cos(φ − θ) + m g R sin φ = 0, θ(t) left
  // unspecified so that θ̇ and θ̈ stay symbolic as in the paper.
  auto model =
      io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/pendulum_on_translating_block.yaml");
  const auto& m = *model;
  const GiNaC::ex M = m.parameters[0].symbol, R = m.parameters[1].symbol,
                  rho = m.parameters[2].symbol, l0 = m.parameters[3].symbol,
                  g = m.parameters[4].symbol;
  const GiNaC::ex phi = m.coordinate_symbol(0), dphi = m.coordinate_symbol(0, 1);
  const GiNaC::ex theta = *m.time_functions->find_derivative("theta", 0),
                  dtheta = *m.time_functions->find_derivative("theta", 1),
                  ddtheta = *m.time_functions->find_derivative("theta", 2);
  const GiNaC::ex eq70_mass = M * (rho * rho + R * R);
  const GiNaC::ex eq70_forcing =
      -(M * l0 * R * dtheta * dtheta * GiNaC::sin(phi - theta) +
        M * l0 * R * ddtheta * GiNaC::cos(phi - theta) + M * g * R * GiNaC::sin(phi));
  (void)dphi;
  for (auto method : principles::all_methods) {
    SCOPED_TRACE(principles::method_name(method));
    auto eq = principles::derive(model, method);
    principles::Equations difference = eq;
    difference.mass_matrix(0, 0) = eq.mass_matrix(0, 0) - eq70_mass;
    difference.forcing(0, 0) = eq.forcing(0, 0) - eq70_forcing;
    difference = principles::simplify(difference);
    EXPECT_TRUE(difference.mass_matrix(0, 0).is_zero()) << difference.mass_matrix(0, 0);
    EXPECT_TRUE(difference.forcing(0, 0).is_zero()) << difference.forcing(0, 0);
  }
}

TEST(Physics, Seed003Example2RodOnRotatingAxesIsEq91) {
  // θ̈ − (ω² − 3k/m) sin θ cos θ − 3g/(2l) sin θ = 0.
  auto model = io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/rod_on_rotating_axes.yaml");
  const double m = 1.0, l = 0.8, k = 2.0, omega = 3.0, g = 9.81;
  std::mt19937 rng(21);
  std::uniform_real_distribution<double> angle(0.05, 1.5), rate(-2, 2), time(0, 4);
  for (auto method : principles::all_methods) {
    SCOPED_TRACE(principles::method_name(method));
    auto eq = principles::derive(model, method);
    for (int i = 0; i < 20; ++i) {
      Eigen::VectorXd q(1), qd(1);
      q << angle(rng);
      qd << rate(rng);
      const double th = q[0];
      EXPECT_NEAR(accelerations(eq, time(rng), q, qd)[0],
                  (omega * omega - 3 * k / m) * std::sin(th) * std::cos(th) +
                      3 * g / (2 * l) * std::sin(th),
                  1e-10);
    }
  }
}

}  // namespace
