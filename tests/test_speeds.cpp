// Generalized speeds and quaternions (issue 18, item 4): a free box turned by a unit quaternion
// gives Euler's equations in its angular velocity, conserves energy and angular momentum over
// long runs, takes about the same steps at every attitude, flips about its intermediate axis with
// the closed-form period; a pendulum in declared speeds moves as in its coordinates; bad input is
// located.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <tuple>

#include "appell/io/model_reader.hpp"
#include "appell/io/urdf_reader.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/momenta.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/numeric/speeds.hpp"
#include "appell/numeric/verification.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/speed_form.hpp"
#include "support/run_cli.hpp"

namespace {

// The options with the initial speeds `u0` (SimulationOptions::u0).
appell::num::SimulationOptions with_u0(appell::num::SimulationOptions options,
                                       std::vector<double> u0) {
  options.u0 = std::move(u0);
  return options;
}

using namespace appell;

const std::string examples = APPELL_EXAMPLES_DIR;

std::string floating_urdf();

// A free body with a full inertia tensor (products of inertia too), turned by a quaternion,
// moving without gravity.
const std::string tumbling_body = R"yaml(name: tumbling
parameters: {m: 1.3, Ixx: 0.4, Iyy: 0.7, Izz: 0.9, Ixy: 0.05, Iyz: -0.03, Ixz: 0.02}
coordinates: [x, y, z, e0, e1, e2, e3]
frames:
  body: {parent: world, translation: [x, y, z], rotation: "rot_quat(e0, e1, e2, e3)",
         speeds: [w1, w2, w3]}
bodies:
  b: {frame: body, mass: m, inertia: [Ixx, Iyy, Izz, Ixy, Iyz, Ixz]}
)yaml";

Eigen::Matrix3d tumbling_inertia() {
  Eigen::Matrix3d I;
  I << 0.4, 0.05, 0.02, 0.05, 0.7, -0.03, 0.02, -0.03, 0.9;
  return I;
}

// The box of examples/speeds/free_box_quaternion.yaml: m = 2, edges 0.3, 0.2, 0.1.
Eigen::Vector3d box_moments() {
  const double m = 2, a = 0.3, b = 0.2, c = 0.1;
  return {m * (b * b + c * c) / 12, m * (a * a + c * c) / 12, m * (a * a + b * b) / 12};
}

Eigen::VectorXd vec(std::initializer_list<double> values) {
  Eigen::VectorXd v(static_cast<Eigen::Index>(values.size()));
  Eigen::Index k = 0;
  for (double x : values) v[k++] = x;
  return v;
}

TEST(Quaternion, FreeBodyGivesEulersEquations) {
  const auto model = io::parse_model(tumbling_body, "tumbling.yaml");
  ASSERT_TRUE(model->has_speeds());
  ASSERT_EQ(model->speeds.size(), 6u);  // w1, w2, w3, then dot(x), dot(y), dot(z)
  EXPECT_EQ(model->speeds[0].name, "w1");
  EXPECT_EQ(model->speeds[3].name, "dot(x)");
  const Eigen::Matrix3d I = tumbling_inertia();
  for (const auto method : {principles::Method::GibbsAppell, principles::Method::Dalembert}) {
    const auto eq = principles::speed_form(model, method);
    // Symbolically: the rotational block is I and the forcing −w × I w, exactly.
    const auto s = principles::simplify(eq);
    GiNaC::exmap numbers = model->parameter_substitution();
    std::vector<GiNaC::ex> w;
    for (int k = 0; k < 3; ++k) w.push_back(model->speed_symbol(static_cast<std::size_t>(k)));
    for (unsigned i = 0; i < 3; ++i) {
      GiNaC::ex gyroscopic = 0;  // (w × I w)_i
      const unsigned a = (i + 1) % 3, b = (i + 2) % 3;
      for (unsigned k = 0; k < 3; ++k) gyroscopic += w[a] * I(b, k) * w[k] - w[b] * I(a, k) * w[k];
      const GiNaC::ex f = GiNaC::subs(s.forcing(i, 0), numbers);
      EXPECT_TRUE(GiNaC::normal(f + gyroscopic).is_zero()) << f;
      for (unsigned j = 0; j < 3; ++j)
        EXPECT_TRUE(GiNaC::normal(GiNaC::subs(s.mass_matrix(i, j), numbers) - I(i, j)).is_zero());
      for (unsigned j = 3; j < 6; ++j) EXPECT_TRUE(GiNaC::normal(s.mass_matrix(i, j)).is_zero());
    }
    // Numerically at random states, any attitude (|e| need not be 1: R(e)/|e|² is a rotation).
    const num::CompiledEquations compiled(eq);
    std::mt19937 random(7);
    std::uniform_real_distribution<double> any(-2.0, 2.0);
    for (int trial = 0; trial < 20; ++trial) {
      Eigen::VectorXd q(7), u(6);
      for (auto& v : q) v = any(random);
      for (auto& v : u) v = any(random);
      const auto state = compiled.solve(0.0, q, u);
      const Eigen::Vector3d omega = u.head<3>();
      const Eigen::Vector3d expected = -I.inverse() * omega.cross(I * omega);
      for (int k = 0; k < 3; ++k) EXPECT_NEAR(state.vdot[k], expected[k], 1e-12);
      for (int k = 3; k < 6; ++k) EXPECT_NEAR(state.vdot[k], 0.0, 1e-12);
      // ė = ½ e ⊗ (0, w): the quaternion's rate, e0 scalar.
      const double e0 = q[3], e1 = q[4], e2 = q[5], e3 = q[6];
      EXPECT_NEAR(state.qd[3], -0.5 * (e1 * u[0] + e2 * u[1] + e3 * u[2]), 1e-14);
      EXPECT_NEAR(state.qd[4], 0.5 * (e0 * u[0] - e3 * u[1] + e2 * u[2]), 1e-14);
      EXPECT_NEAR(state.qd[0], u[3], 1e-14);
    }
  }
}

// Loads in the speeds: a moment given in the body's axes and a force at a point of the body, on
// the tumbling body: I ẇ + w × I w = M + r × (Rᵀ F) and m v̇ = F (the centre of mass at the origin).
TEST(Quaternion, LoadsGiveEulersEquationsWithTheirMoment) {
  const std::string loaded = tumbling_body + R"yaml(loads:
  - {torque: [0.3, -0.2, 0.5], on: body, in: body}
  - {force: [1.0, 2.0, -0.5], on: body, at: [0.1, 0.2, -0.3]}
)yaml";
  const auto model = io::parse_model(loaded, "loaded.yaml");
  const num::CompiledEquations compiled(principles::speed_form(model));
  const Eigen::Matrix3d I = tumbling_inertia();
  std::mt19937 random(11);
  std::uniform_real_distribution<double> any(-2.0, 2.0);
  for (int trial = 0; trial < 10; ++trial) {
    Eigen::VectorXd q(7), u(6);
    for (auto& v : q) v = any(random);
    for (auto& v : u) v = any(random);
    const auto s = compiled.solve(0.0, q, u);
    const Eigen::Quaterniond e(q[3], q[4], q[5], q[6]);
    const Eigen::Matrix3d R = e.normalized().toRotationMatrix();  // body to world
    const Eigen::Vector3d F(1.0, 2.0, -0.5), r(0.1, 0.2, -0.3), w = u.head<3>();
    const Eigen::Vector3d M = Eigen::Vector3d(0.3, -0.2, 0.5) + r.cross(R.transpose() * F);
    const Eigen::Vector3d expected = I.inverse() * (M - w.cross(I * w));
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(s.vdot[k], expected[k], 1e-12);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(s.vdot[3 + k], F[k] / 1.3, 1e-12);
  }
}

struct BoxRun {
  num::SimulationResult result;
  std::vector<double> t, w2, energy, momentum_norm, quaternion_norm;
  Eigen::Vector3d first_momentum, max_momentum_change{0, 0, 0};
};

BoxRun run_box(const std::vector<double>& q0, const std::vector<double>& u0, double t_end,
               double output_step, double rtol, double atol) {
  const auto model = io::read_model_file(examples + "/speeds/free_box_quaternion.yaml");
  const auto eq = principles::speed_form(model);
  num::SimulationOptions options;
  options.t_end = t_end;
  options.output_step = output_step;
  options.rtol = rtol;
  options.atol = atol;
  options.q0 = q0;
  const num::CompiledMomenta momenta(model);
  BoxRun run;
  run.result = num::simulate(eq, with_u0(options, u0), [&](const num::SimulationRow& r) {
    run.t.push_back(r.t);
    run.w2.push_back(r.v[4]);
    run.energy.push_back(r.total);
    const Eigen::Vector3d L = momenta.evaluate(r.t, r.q, r.qd).angular;
    if (run.t.size() == 1) run.first_momentum = L;
    run.max_momentum_change = run.max_momentum_change.cwiseMax((L - run.first_momentum).cwiseAbs());
    run.momentum_norm.push_back(L.norm());
    run.quaternion_norm.push_back(r.q.segment<4>(3).norm());
  });
  return run;
}

TEST(Quaternion, EnergyAndAngularMomentumConservedOver1000Seconds) {
  // A general tumble: every component of w nonzero.
  const BoxRun run = run_box({0, 0, 0, 0.9, 0.3, -0.2, 0.25}, {0, 0, 0, 1.1, -0.7, 1.9}, 1000.0,
                             1.0, 1e-11, 1e-12);
  ASSERT_EQ(run.t.size(), 1001u);
  EXPECT_TRUE(run.result.conservative);
  const double E0 = run.energy.front(), L0 = run.momentum_norm.front();
  double energy_drift = 0, momentum_drift = 0, length_error = 0;
  for (std::size_t k = 0; k < run.t.size(); ++k) {
    energy_drift = std::max(energy_drift, std::abs(run.energy[k] - E0) / E0);
    momentum_drift = std::max(momentum_drift, std::abs(run.momentum_norm[k] - L0) / L0);
    length_error = std::max(length_error, std::abs(run.quaternion_norm[k] - 1.0));
  }
  EXPECT_LT(energy_drift, 1e-6);
  EXPECT_LT(momentum_drift, 1e-6);
  // L is constant in world axes, not only in length.
  EXPECT_LT(run.max_momentum_change.maxCoeff() / L0, 1e-6);
  EXPECT_LT(length_error, 1e-12);  // the projection keeps |e| = 1
  std::cout << "[ measured ] 1000 s: " << run.result.steps << " steps, relative drift of E "
            << energy_drift << ", of |L| " << momentum_drift << "\n";
}

TEST(Quaternion, NoSlowdownAtAnyAttitude) {
  // Spins about the box's major and minor axes (stable), from attitudes where Euler angles
  // would be singular for one of them (the spin axis along the world z axis) and from others.
  const double s = std::sqrt(0.5);
  const std::vector<std::vector<double>> attitudes = {{0, 0, 0, 1, 0, 0, 0},
                                                      {0, 0, 0, s, s, 0, 0},
                                                      {0, 0, 0, s, 0, s, 0},
                                                      {0, 0, 0, 0.5, 0.5, 0.5, 0.5}};
  const std::vector<std::vector<double>> spins = {{0, 0, 0, 2, 0.01, 0.01},
                                                  {0, 0, 0, 0.01, 0.01, 2}};
  long fewest = -1, most = 0;
  for (const auto& q0 : attitudes)
    for (const auto& u0 : spins) {
      const BoxRun run = run_box(q0, u0, 30.0, 0.1, 1e-8, 1e-8);
      fewest = fewest < 0 ? run.result.steps : std::min(fewest, run.result.steps);
      most = std::max(most, run.result.steps);
    }
  std::cout << "[ measured ] 30 s spins, 4 attitudes x 2 axes: " << fewest << " to " << most
            << " steps\n";
  EXPECT_LE(most, 2 * fewest);
}

TEST(Quaternion, IntermediateAxisFlipsWithTheClosedFormPeriod) {
  // Spin mostly about the intermediate axis y (I1 < I2 < I3 for x, y, z): w2 flips sign and back
  // periodically. Landau & Lifshitz, Mechanics §37: for L² > 2E I2,
  //   ω2 = sqrt((2E I3 − L²)/(I2 (I3 − I2))) sn τ,  τ = t sqrt((I3 − I2)(L² − 2E I1)/(I1 I2 I3)),
  //   k² = (I2 − I1)(2E I3 − L²)/((I3 − I2)(L² − 2E I1)),
  // and sn has the period 4K(k) in τ, so T = 4 K(k) / sqrt((I3 − I2)(L² − 2E I1)/(I1 I2 I3)).
  // For L² < 2E I2 the same holds with I1 and I3 exchanged.
  const Eigen::Vector3d I = box_moments();
  const Eigen::Vector3d w0(0.05, 2.0, 0.08);
  const double twoE = (I.array() * w0.array().square()).sum();
  const double L2 = (I.array().square() * w0.array().square()).sum();
  double I1 = I[0], I2 = I[1], I3 = I[2];
  if (L2 < twoE * I2) std::swap(I1, I3);
  const double rate = std::sqrt((I3 - I2) * (L2 - twoE * I1) / (I1 * I2 * I3));
  const double k = std::sqrt((I2 - I1) * (twoE * I3 - L2) / ((I3 - I2) * (L2 - twoE * I1)));
  const double period = 4 * std::comp_ellint_1(k) / rate;

  const BoxRun run = run_box({0, 0, 0, 1, 0, 0, 0}, {0, 0, 0, w0[0], w0[1], w0[2]}, 3.2 * period,
                             1e-3, 1e-11, 1e-12);
  // Downward zero crossings of w2, by linear interpolation: one per period.
  std::vector<double> crossings;
  for (std::size_t i = 1; i < run.t.size(); ++i)
    if (run.w2[i - 1] > 0 && run.w2[i] <= 0)
      crossings.push_back(run.t[i - 1] +
                          (run.t[i] - run.t[i - 1]) * run.w2[i - 1] / (run.w2[i - 1] - run.w2[i]));
  ASSERT_GE(crossings.size(), 3u) << "period " << period;
  double smallest = 1e300, largest = 0;
  for (double w : run.w2) {
    smallest = std::min(smallest, w);
    largest = std::max(largest, w);
  }
  EXPECT_LT(smallest, -1.9);  // a full flip: w2 from +2 to about −2
  EXPECT_GT(largest, 1.9);
  for (std::size_t i = 1; i < crossings.size(); ++i)
    EXPECT_NEAR(crossings[i] - crossings[i - 1], period, 1e-5 * period);
  std::cout << "[ measured ] flip period " << crossings[1] - crossings[0] << " s, closed form "
            << period << " s\n";
}

// A double pendulum in its angles, and the same in declared speeds u1 = dot(th1) + dot(th2),
// u2 = 2 dot(th2) − cos(th1) dot(th1) (Y invertible: det = 2 + cos(th1) > 0).
std::string double_pendulum(bool speeds) {
  std::string yaml = R"yaml(name: double-pendulum
parameters: {m1: 1.0, m2: 0.7, l1: 0.5, l2: 0.4, g: 9.81}
coordinates:
  - {name: th1, initial: 0.6, velocity: 0.3}
  - {name: th2, initial: -0.4, velocity: 1.1}
frames:
  a: {parent: world, rotation: rot_z(th1)}
  b: {parent: a, translation: [l1, 0, 0], rotation: rot_z(th2)}
particles:
  p1: {frame: a, mass: m1, position: [l1, 0, 0]}
  p2: {frame: b, mass: m2, position: [l2, 0, 0]}
gravity: [0, -g, 0]
)yaml";
  if (speeds)
    yaml +=
        "speeds:\n  - {name: u1, value: \"dot(th1) + dot(th2)\"}\n"
        "  - {name: u2, value: \"2*dot(th2) - cos(th1)*dot(th1)\"}\n";
  return yaml;
}

TEST(Speeds, DeclaredSpeedsMoveAsTheCoordinates) {
  const auto plain = io::parse_model(double_pendulum(false), "plain.yaml");
  const auto declared = io::parse_model(double_pendulum(true), "declared.yaml");
  ASSERT_FALSE(plain->has_speeds());
  ASSERT_EQ(declared->speeds.size(), 2u);
  num::SimulationOptions options;
  options.t_end = 3.0;
  options.output_step = 0.05;
  options.rtol = 1e-12;
  options.atol = 1e-12;
  std::vector<Eigen::VectorXd> q_plain, qd_plain;
  num::simulate(principles::derive(plain, principles::Method::GibbsAppell), options,
                [&](const num::SimulationRow& r) {
                  q_plain.push_back(r.q);
                  qd_plain.push_back(r.qd);
                });
  for (const auto method : {principles::Method::GibbsAppell, principles::Method::Dalembert}) {
    std::size_t row = 0;
    double worst = 0.0;
    num::simulate(principles::speed_form(declared, method), with_u0(options, {}),
                  [&](const num::SimulationRow& r) {
                    ASSERT_LT(row, q_plain.size());
                    const Eigen::VectorXd& q = q_plain[row];
                    const Eigen::VectorXd& qd = qd_plain[row];
                    worst = std::max(worst, (r.q - q).cwiseAbs().maxCoeff());
                    worst = std::max(worst, (r.qd - qd).cwiseAbs().maxCoeff());
                    // The speeds are Y(q) q̇ of the plain motion.
                    EXPECT_NEAR(r.v[0], qd[0] + qd[1], 1e-7);
                    EXPECT_NEAR(r.v[1], 2 * qd[1] - std::cos(q[0]) * qd[0], 1e-7);
                    ++row;
                  });
    EXPECT_EQ(row, q_plain.size());
    EXPECT_LT(worst, 1e-7);
    std::cout << "[ measured ] largest difference in q, dot(q) over 3 s: " << worst << "\n";
  }
  // The energy is the same function of the state either way.
  const auto eq = principles::speed_form(declared);
  const num::CompiledEquations compiled(eq);
  const Eigen::VectorXd u =
      num::speeds_from_velocities(*declared, {}, 0.0, vec({0.6, -0.4}), vec({0.3, 1.1}));
  EXPECT_NEAR(u[0], 1.4, 1e-15);
  EXPECT_NEAR(u[1], 2.2 - std::cos(0.6) * 0.3, 1e-15);
  EXPECT_NEAR(compiled.solve(0.0, vec({0.6, -0.4}), u).qd[1], 1.1, 1e-14);
}

// In declared speeds the equations are the coordinates' projected: M̃ = WᵀMW, f̃ = Wᵀ(f − Mγ)
// at q̇ = W u (the virtual work of δq = W δu), by Gibbs–Appell and by Kane alike.
TEST(Speeds, AreTheProjectionOfTheEquationsInTheCoordinates) {
  const auto declared = io::parse_model(double_pendulum(true), "declared.yaml");
  const num::CompiledEquations coordinates(
      principles::derive(declared, principles::Method::Lagrange));
  std::mt19937 random(3);
  std::uniform_real_distribution<double> any(-2.0, 2.0);
  for (const auto method : {principles::Method::GibbsAppell, principles::Method::Dalembert}) {
    const num::CompiledEquations speeds(principles::speed_form(declared, method));
    for (int trial = 0; trial < 20; ++trial) {
      const Eigen::VectorXd q = vec({any(random), any(random)}),
                            u = vec({any(random), any(random)});
      const auto s = speeds.solve(0.0, q, u);
      Eigen::MatrixXd M;
      Eigen::VectorXd f;
      coordinates.evaluate(0.0, q, s.qd, M, f);
      const Eigen::MatrixXd& W = s.speed_matrix;
      const Eigen::VectorXd gamma = s.qdd - W * s.vdot;
      EXPECT_LT((W.transpose() * M * W - s.mass_matrix).cwiseAbs().maxCoeff(), 1e-12);
      EXPECT_LT((W.transpose() * (f - M * gamma) - s.forcing).cwiseAbs().maxCoeff(), 1e-11);
      // And q̈ is the coordinates' own.
      EXPECT_LT((M.ldlt().solve(f) - s.qdd).cwiseAbs().maxCoeff(), 1e-10);
    }
  }
  // appell verify adds both, compared with the coordinates' equations projected.
  const num::VerificationReport report = num::verify(declared);
  EXPECT_TRUE(report.all_agree) << report.first_disagreement;
  EXPECT_TRUE(report.has_speeds);
  ASSERT_EQ(report.rows.size(), 7u);
  EXPECT_EQ(report.rows[5].method, "speeds-appell");
  EXPECT_TRUE(report.rows[6].symbolic);
  // Kane and Gibbs–Appell agree on the floating robot too (no equations in q there).
  io::UrdfOptions options;
  options.floating_base = true;
  const auto robot = io::read_urdf_file(floating_urdf(), options);
  const num::CompiledEquations appell(principles::speed_form(robot));
  const num::CompiledEquations kane(principles::speed_form(robot, principles::Method::Dalembert));
  for (int trial = 0; trial < 10; ++trial) {
    Eigen::VectorXd q(9), u(8);
    for (auto& v : q) v = any(random);
    for (auto& v : u) v = any(random);
    const auto a = appell.solve(0.0, q, u), k = kane.solve(0.0, q, u);
    EXPECT_LT((a.mass_matrix - k.mass_matrix).cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_LT((a.forcing - k.forcing).cwiseAbs().maxCoeff(), 1e-11);
  }
}

void expect_error(const std::string& yaml, int line, int column, const std::string& offending,
                  const std::string& message) {
  try {
    io::parse_model(yaml, "m.yaml");
    FAIL() << "expected a ModelError: " << message;
  } catch (const model::ModelError& e) {
    EXPECT_EQ(e.where().line, line) << e.what();
    EXPECT_EQ(e.where().column, column) << e.what();
    EXPECT_EQ(e.offending(), offending) << e.what();
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

const std::string two_sliders = R"yaml(name: sliders
parameters: {m: 1}
coordinates: [{name: a, initial: 1.5707963267948966}, b]
frames:
  f: {parent: world, translation: [a, b, 0]}
particles:
  p: {frame: f, mass: m}
)yaml";

TEST(SpeedsErrors, AreLocated) {
  expect_error(two_sliders + "speeds:\n  - {name: u1, value: \"dot(a)^2\"}\n", 9, 23, "u1",
               "must be linear in the velocities");
  expect_error(two_sliders + "speeds:\n  - {name: u1, value: \"dot(a) + a\"}\n", 9, 23, "u1",
               "a term without any");
  expect_error(two_sliders + "speeds:\n  - {name: u1, value: \"ddot(a)\"}\n", 9, 23, "u1",
               "may not use accelerations");
  expect_error(two_sliders + "speeds:\n  - {name: u1, value: \"a\"}\n", 9, 23, "u1", "has none");
  // One speed for two coordinates; two speeds that are one.
  expect_error(two_sliders + "speeds:\n  - {name: u1, value: \"dot(a) + dot(b)\"}\n", 9, 3,
               "speeds", "1 declared speed mention 2 coordinates (a, b)");
  expect_error(two_sliders +
                   "speeds:\n  - {name: u1, value: \"dot(a) + dot(b)\"}\n"
                   "  - {name: u2, value: \"2*dot(a) + 2*dot(b)\"}\n",
               9, 3, "speeds", "singular everywhere");
  // Y = [[1, 1], [cos(a), 1]] is invertible but for a = 0, where the model starts.
  std::string at_zero = two_sliders;
  at_zero.replace(at_zero.find("initial: 1.5707963267948966"), 27, "initial: 0");
  expect_error(at_zero +
                   "speeds:\n  - {name: u1, value: \"dot(a) + dot(b)\"}\n"
                   "  - {name: u2, value: \"cos(a)*dot(a) + dot(b)\"}\n",
               9, 3, "speeds", "singular at the initial state");
  expect_error(two_sliders + "speeds:\n  - {name: b, value: \"dot(a)\"}\n", 9, 12, "b",
               "name already defined");

  const std::string body = R"yaml(name: q
coordinates: [e0, e1, e2, e3, s]
parameters: {k: 1}
bodies:
  b: {frame: f, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}
frames:
)yaml";
  expect_error(
      body + "  f: {parent: world, rotation: \"rot_quat(e0, e1, e2, e3)\", speeds: [w1, w2]}\n", 7,
      69, "f", "needs three speeds");
  expect_error(body + "  f: {parent: world, rotation: \"rot_quat(e0, e1, e2, e3)\"}\n", 7, 32, "f",
               "needs three speeds");
  expect_error(body + "  f: {parent: world, rotation: rot_z(s), speeds: [w1, w2, w3]}\n", 7, 51,
               "w1", "this frame has none");
  expect_error(body + "  f: {parent: world, rotation: \"rot_quat(e0, e1, e2, k)\"}\n", 7, 54, "k",
               "rot_quat takes four coordinates");
  expect_error(body + "  f: {parent: world, rotation: \"rot_quat(e0, e1, e2, e2)\"}\n", 7, 54, "e2",
               "uses a coordinate twice");
  expect_error(body + "  f: {parent: world, rotation: \"rot_quat(e0, e1, e2, e3)*rot_z(s)\"}\n", 7,
               57, "*", "rot_quat must be the last factor");
  // The quaternion's rates come from the frame's speeds only.
  expect_error(body +
                   "  f: {parent: world, rotation: \"rot_quat(e0, e1, e2, e3)\", speeds: [w1, w2, "
                   "w3]}\nspeeds:\n  - {name: u, value: \"dot(s) + dot(e0)\"}\n",
               9, 5, "e0", "a declared speed may not use them");
}

TEST(SpeedsCli, DeriveSimulateAndRefusals) {
  const auto box = examples + "/speeds/free_box_quaternion.yaml";
  const auto text = test_support::run_cli("derive " + box);
  ASSERT_EQ(text.code, 0) << text.out;
  EXPECT_NE(text.out.find("dot(e0) = -1/2*e1*w1 - 1/2*e2*w2 - 1/2*e3*w3"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("eq 4 (w1): 1/12*m*(b^2 + c^2)*dot(w1) = 1/12*m*(c^2 - b^2)*w2*w3"),
            std::string::npos)
      << text.out;
  const auto json = test_support::run_cli("derive " + box + " --format json --method dalembert");
  ASSERT_EQ(json.code, 0) << json.out;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j.at("form"), "speeds");
  EXPECT_EQ(j.at("speeds"), (std::vector<std::string>{"vx", "vy", "vz", "w1", "w2", "w3"}));
  EXPECT_EQ(j.at("kinematic_equations").at("x"), "vx");

  const std::string csv = testing::TempDir() + "speeds_box.csv";
  const auto run = test_support::run_cli(
      "simulate " + box + " --t-end 1 --output-step 0.5 --u0 0.1,0,0,0,2,0.01 --out " + csv);
  ASSERT_EQ(run.code, 0) << run.out;
  std::ifstream in(csv);
  std::string header, first;
  std::getline(in, header);
  std::getline(in, first);
  EXPECT_EQ(header, "t,x,y,z,e0,e1,e2,e3,vx,vy,vz,w1,w2,w3,T,V,E,p_x,p_y,p_z,L_x,L_y,L_z");
  EXPECT_EQ(first.rfind("0,0,0,0,1,0,0,0,0.10000000000000001,0,0,0,2,0.01,", 0), 0u) << first;

  // Bad input: exit 2 naming the flag or the place.
  const auto count = test_support::run_cli("simulate " + box + " --t-end 1 --u0 1,2 --out " + csv);
  EXPECT_EQ(count.code, 2) << count.out;
  EXPECT_NE(count.out.find("--u0"), std::string::npos) << count.out;
  EXPECT_NE(count.out.find("expected 6 speeds"), std::string::npos) << count.out;
  const auto both = test_support::run_cli(
      "simulate " + box + " --t-end 1 --u0 1,2,3,4,5,6 --qd0 1,2,3,4,5,6,7 --out " + csv);
  EXPECT_EQ(both.code, 2) << both.out;
  const auto zero =
      test_support::run_cli("simulate " + box + " --t-end 1 --q0 0,0,0,0,0,0,0 --out " + csv);
  EXPECT_EQ(zero.code, 2) << zero.out;
  EXPECT_NE(zero.out.find("--q0: the quaternion of a frame must not be zero"), std::string::npos)
      << zero.out;
  const auto no_speeds = test_support::run_cli(
      "simulate " + examples + "/double_pendulum.yaml --t-end 1 --u0 1,2 --out " + csv);
  EXPECT_EQ(no_speeds.code, 2) << no_speeds.out;
  EXPECT_NE(no_speeds.out.find("--u0"), std::string::npos) << no_speeds.out;
  // Commands that need the equations in the coordinates refuse a quaternion frame, located.
  for (const std::string& command : std::vector<std::string>{"linearize " + box}) {
    const auto r = test_support::run_cli(command);
    EXPECT_EQ(r.code, 2) << command << "\n" << r.out;
    EXPECT_NE(r.out.find("free_box_quaternion.yaml:26:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("rot_quat"), std::string::npos) << r.out;
  }
  // verify compares Kane with Gibbs-Appell in the speeds.
  const auto verified = test_support::run_cli("verify " + box);
  EXPECT_EQ(verified.code, 0) << verified.out;
  EXPECT_NE(verified.out.find("speeds-kane   equal"), std::string::npos) << verified.out;
  const auto lagrange = test_support::run_cli("derive " + box + " --method lagrange");
  EXPECT_EQ(lagrange.code, 2) << lagrange.out;
  EXPECT_NE(lagrange.out.find("--method"), std::string::npos) << lagrange.out;
}

// eval of a quaternion model works in its speeds: u̇ is Euler's right-hand side, q̇ = ½ e ⊗ (0, w),
// q̈ = W u̇ + γ; a declared-speeds model evaluated with --u gives the q̈ of the coordinates' equations
// at the same velocities.
TEST(SpeedsCli, EvalInTheSpeeds) {
  const std::string box = std::string(APPELL_EXAMPLES_DIR) + "/speeds/free_box_quaternion.yaml";
  const double w1 = 0.5, w2 = 1.0, w3 = 2.0, m = 2.0, a = 0.3, b = 0.2, c = 0.1;
  const auto run = test_support::run_cli("eval " + box + " --u 0.1,0,-0.2,0.5,1,2 --json");
  ASSERT_EQ(run.code, 0) << run.out;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["speeds"], (std::vector<std::string>{"vx", "vy", "vz", "w1", "w2", "w3"}));
  const double I1 = m * (b * b + c * c) / 12, I2 = m * (a * a + c * c) / 12,
               I3 = m * (a * a + b * b) / 12;
  const std::vector<double> udot = j["udot"];
  EXPECT_NEAR(udot[3], (I2 - I3) * w2 * w3 / I1, 1e-12);
  EXPECT_NEAR(udot[4], (I3 - I1) * w3 * w1 / I2, 1e-12);
  EXPECT_NEAR(udot[5], (I1 - I2) * w1 * w2 / I3, 1e-12);
  EXPECT_NEAR(udot[0], 0.0, 1e-15);
  const std::vector<double> qd = j["qd"];  // at e = (1, 0, 0, 0): ė = ½ (0, w)
  EXPECT_NEAR(qd[0], 0.1, 1e-15);
  EXPECT_NEAR(qd[2], -0.2, 1e-15);
  EXPECT_NEAR(qd[3], 0.0, 1e-15);
  EXPECT_NEAR(qd[4], w1 / 2, 1e-15);
  EXPECT_NEAR(qd[5], w2 / 2, 1e-15);
  EXPECT_NEAR(qd[6], w3 / 2, 1e-15);
  EXPECT_EQ(j["mass_matrix"].size(), 6u);
  // Without --u the speeds follow from the velocities: the model's are zero.
  const auto rest = nlohmann::json::parse(test_support::run_cli("eval " + box + " --json").out);
  for (double x : rest["udot"].get<std::vector<double>>()) EXPECT_EQ(x, 0.0);

  // Declared speeds u1 = th1' + th2', u2 = 2 th2' − cos(th1) th1' at th' = (0.3, 1.1).
  const std::string declared = ::testing::TempDir() + "/declared_eval.yaml";
  std::ofstream(declared) << double_pendulum(true);
  const std::string plain = ::testing::TempDir() + "/plain_eval.yaml";
  std::ofstream(plain) << double_pendulum(false);
  const double th1 = 0.6, d1 = 0.3, d2 = 1.1;
  const std::string u = std::to_string(d1 + d2) + "," + std::to_string(2 * d2 - std::cos(th1) * d1);
  const auto in_speeds = nlohmann::json::parse(
      test_support::run_cli("eval " + declared + " --u " + u + " --json").out);
  const auto in_coordinates =
      nlohmann::json::parse(test_support::run_cli("eval " + plain + " --qd 0.3,1.1 --json").out);
  for (int k = 0; k < 2; ++k) {
    EXPECT_NEAR(in_speeds["qd"][k].get<double>(), in_coordinates["qd"][k].get<double>(), 1e-6);
    EXPECT_NEAR(in_speeds["qdd"][k].get<double>(), in_coordinates["qdd"][k].get<double>(), 1e-5);
  }
  // Refusals: a wrong count, --u with --qd, --u without speeds, --minimal and --reactions.
  for (const auto& [command, option] : std::vector<std::pair<std::string, std::string>>{
           {"eval " + box + " --u 1,2", "--u"},
           {"eval " + box + " --u 0,0,0,0,0,0 --qd 0,0,0,0,0,0,0", "--u"},
           {"eval " + plain + " --u 1,2", "--u"},
           {"eval " + box + " --minimal", "--minimal"},
           {"eval " + box + " --reactions", "--reactions"}}) {
    const auto r = test_support::run_cli(command);
    EXPECT_EQ(r.code, 2) << command << "\n" << r.out;
    EXPECT_NE(r.out.find(option), std::string::npos) << command << "\n" << r.out;
  }
}

// A load may name a generalized speed: a cube turned by a quaternion with the damping torque
// −k w decays as w(t) = w0 exp(−k t / I) (a cube has no gyroscopic term), and a declared speed in
// a load is its value in the velocities.
// examples/speeds/damped_cube.yaml as text.
std::string damped_cube() {
  std::ifstream file(std::string(APPELL_EXAMPLES_DIR) + "/speeds/damped_cube.yaml");
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(SpeedsInLoads, ADampedCubeDecaysExponentially) {
  const auto model = io::parse_model(damped_cube(), "cube.yaml");
  const auto equations = principles::speed_form(model);
  num::SimulationOptions options;
  options.t_end = 3.0;
  options.output_step = 0.5;
  options.rtol = 1e-10;
  options.atol = 1e-12;
  const double m = 2, a = 0.3, k = 0.05, I = m * a * a / 6;
  const std::vector<double> w0{1.0, -2.0, 0.5};
  int rows = 0;
  num::simulate(equations, with_u0(options, w0), [&](const num::SimulationRow& row) {
    for (int c = 0; c < 3; ++c)
      EXPECT_NEAR(row.v[c], w0[static_cast<std::size_t>(c)] * std::exp(-k * row.t / I), 1e-8)
          << "t = " << row.t;
    ++rows;
  });
  EXPECT_EQ(rows, 7);
}

TEST(SpeedsInLoads, ADeclaredSpeedInALoadIsItsValueInTheVelocities) {
  std::string named = double_pendulum(true), plain = double_pendulum(true);
  named += "loads:\n  - {generalized: {coordinate: th1, value: \"-0.4*u1 + 0.1*u2\"}}\n";
  plain +=
      "loads:\n  - {generalized: {coordinate: th1, value: \"-0.4*(dot(th1) + dot(th2)) + "
      "0.1*(2*dot(th2) - cos(th1)*dot(th1))\"}}\n";
  const auto with_names = io::parse_model(named, "named.yaml");
  const auto with_values = io::parse_model(plain, "plain.yaml");
  // In the coordinates (every principle's M q̈ = f) and in the speeds alike.
  const num::CompiledEquations a(principles::derive(with_names, principles::Method::Lagrange)),
      b(principles::derive(with_values, principles::Method::Lagrange));
  Eigen::VectorXd q(2), qd(2);
  q << 0.6, -0.4;
  qd << 0.3, 1.1;
  Eigen::MatrixXd Ma, Mb;
  Eigen::VectorXd fa, fb;
  a.evaluate(0.0, q, qd, Ma, fa);
  b.evaluate(0.0, q, qd, Mb, fb);
  EXPECT_LT((fa - fb).norm(), 1e-12);
  const num::CompiledEquations sa(principles::speed_form(with_names)),
      sb(principles::speed_form(with_values));
  Eigen::VectorXd u(2);
  u << 1.4, 1.9;
  EXPECT_LT((sa.solve(0.0, q, u).vdot - sb.solve(0.0, q, u).vdot).norm(), 1e-12);
}

TEST(SpeedsInLoads, AreAllowedOnlyInTheValueOfALoad) {
  const std::string cube = damped_cube();
  for (const auto& [from, to, message] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"-k*w1, -k*w2", "-k*dot(w1), -k*w2", "not a generalized speed"},
           {"bodies:\n", "  tip: {parent: box, translation: [w1, 0, 0]}\nbodies:\n",
            "allowed only in the value of a force, torque or generalized load"}}) {
    std::string yaml = cube;
    yaml.replace(yaml.find(from), from.size(), to);
    try {
      io::parse_model(yaml, "bad.yaml");
      ADD_FAILURE() << "accepted: " << to;
    } catch (const model::ModelError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("bad.yaml:"), std::string::npos) << e.what();
    }
  }
}

}  // namespace

namespace {

// A URDF robot on a floating base: free in space its momenta stay constant; under gravity its
// linear momentum changes by the weight's impulse, M g t.
// examples/urdf/two_link.urdf with a base of mass 2 (its base link has none: floating, the base's
// turn about y and the shoulder's would then move the same masses, and M̃ be singular).
std::string floating_urdf() {
  std::ifstream in(examples + "/urdf/two_link.urdf");
  std::stringstream text;
  text << in.rdbuf();
  std::string urdf = text.str();
  const std::string base = "<link name=\"base\"/>";
  const auto at = urdf.find(base);
  EXPECT_NE(at, std::string::npos);
  urdf.replace(at, base.size(),
               "<link name=\"base\"><inertial><origin xyz=\"0.05 0 0.1\"/><mass value=\"2\"/>"
               "<inertia ixx=\"0.02\" ixy=\"0.001\" ixz=\"0\" iyy=\"0.03\" iyz=\"0\" "
               "izz=\"0.04\"/></inertial></link>");
  const std::string path = testing::TempDir() + "floating_two_link.urdf";
  std::ofstream(path) << urdf;
  return path;
}

TEST(SpeedsUrdf, FloatingBaseConservesMomentaAndFallsUnderGravity) {
  const std::string path = floating_urdf();
  for (const double g : {0.0, 9.81}) {
    io::UrdfOptions options;
    options.floating_base = true;
    options.gravity = {0.0, 0.0, -g};
    const auto model = io::read_urdf_file(path, options);
    ASSERT_EQ(model->dof(), 9u);
    ASSERT_EQ(model->speeds.size(), 8u);
    EXPECT_EQ(model->coordinates[3].name, "base_e0");
    EXPECT_EQ(model->coordinates[3].initial, 1.0);
    EXPECT_EQ(model->speeds[0].name, "base_vx");
    EXPECT_EQ(model->speeds[3].name, "base_wx");
    EXPECT_EQ(model->speeds[6].name, "dot(shoulder)");
    const auto eq = principles::speed_form(model);
    num::SimulationOptions sim;
    sim.t_end = 3.0;
    sim.output_step = 0.1;
    sim.rtol = 1e-10;
    sim.atol = 1e-10;
    sim.q0 = {0.1, -0.2, 0.3, 0.9, 0.1, 0.3, -0.2, 0.4, -0.7};
    const num::CompiledMomenta momenta(model);
    const double mass = 3.5;  // base 2, upper 1, lower 0.5
    Eigen::Vector3d p0, L0;
    double worst_p = 0, worst_L = 0, worst_E = 0, E0 = 0;
    num::simulate(eq, with_u0(sim, {0.2, 0.1, -0.3, 0.5, -1.2, 0.8, 2.0, -1.5}),
                  [&](const num::SimulationRow& r) {
                    const num::Momenta m = momenta.evaluate(r.t, r.q, r.qd);
                    if (r.t == 0.0) {
                      p0 = m.linear;
                      L0 = m.angular;
                      E0 = r.total;
                    }
                    const Eigen::Vector3d weight_impulse(0, 0, -mass * g * r.t);
                    worst_p =
                        std::max(worst_p, (m.linear - p0 - weight_impulse).cwiseAbs().maxCoeff());
                    if (g == 0.0) {
                      worst_L = std::max(worst_L, (m.angular - L0).cwiseAbs().maxCoeff());
                      worst_E = std::max(worst_E, std::abs(r.total - E0));
                    }
                  });
    EXPECT_LT(worst_p, 1e-7) << "g = " << g;
    EXPECT_LT(worst_L, 1e-7);
    EXPECT_LT(worst_E, 1e-7);
  }

  // appell import writes the same model as a file: rot_quat, the base's speeds.
  const auto imported =
      test_support::run_cli("import " + examples + "/urdf/satellite_arm.urdf --floating-base");
  ASSERT_EQ(imported.code, 0) << imported.out;
  EXPECT_NE(imported.out.find("rotation: \"rot_quat(base_e0, base_e1, base_e2, base_e3)\", "
                              "speeds: [base_wx, base_wy, base_wz]"),
            std::string::npos)
      << imported.out;
  EXPECT_NE(imported.out.find("- {name: base_vx, value: \"dot(base_x)\"}"), std::string::npos)
      << imported.out;
  const auto reread = io::parse_model(imported.out, "satellite_arm.yaml");
  EXPECT_EQ(reread->speeds.size(), 8u);
  EXPECT_EQ(reread->coordinates[3].initial, 1.0);
  const auto derived = test_support::run_cli("derive " + path + " --floating-base");
  ASSERT_EQ(derived.code, 0) << derived.out;
  EXPECT_NE(derived.out.find("dot(base_e0) = "), std::string::npos) << derived.out;
  // With a YAML model the flag is refused.
  EXPECT_EQ(
      test_support::run_cli("derive " + examples + "/double_pendulum.yaml --floating-base").code,
      2);
}

}  // namespace
