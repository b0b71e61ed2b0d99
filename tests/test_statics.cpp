// Statics by virtual work: generalized forces at rest, equilibria, stability.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

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

// --- Free coordinates, neutral directions, stability with a tolerance (issue 12) ---

// A cart of mass M on a level track (x, free: nothing depends on it) carrying a pendulum of
// length l (th from the downward vertical). The cart starts far from the origin: a free
// coordinate is neither moved nor wrapped into [−π, π).
constexpr const char* kCartPendulum = R"(name: cart-pendulum
parameters: {M: 2.0, m: 0.5, l: 0.8, g: 9.81}
coordinates: [{name: x, initial: 7.5}, {name: th, initial: 0.01}]
frames:
  cart: {translation: [x, 0, 0]}
  arm: {parent: cart, rotation: rot_z(th)}
particles:
  body: {frame: cart, mass: M, position: [0, 0, 0]}
  bob: {frame: arm, mass: m, position: [0, -l, 0]}
gravity: [0, -g, 0]
)";

// A spherical pendulum: azimuth ps about the vertical y, then th away from the downward
// vertical; the height −l cos th does not depend on ps (free).
constexpr const char* kSphericalPendulum = R"(name: spherical-pendulum
parameters: {m: 1.5, l: 0.6, g: 9.81}
coordinates: [{name: th, initial: 3.1}, {name: ps, initial: 0.4}]
frames:
  azimuth: {rotation: rot_y(ps)}
  arm: {parent: azimuth, rotation: rot_z(th)}
particles:
  bob: {frame: arm, mass: m, position: [0, -l, 0]}
gravity: [0, -g, 0]
)";

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

TEST(Statics, CartPendulumHoldsTheFreeCartPosition) {
  auto model = io::parse_model(kCartPendulum, "cart.yaml");
  num::StaticsOptions options;
  options.random_starts = 0;  // the issue's case: one start, 0.01 from the hanging equilibrium
  const auto near = num::solve_statics(model, options);
  ASSERT_EQ(near.free_coordinates, std::vector<std::size_t>{0});
  ASSERT_EQ(near.equilibria.size(), 1u);
  const double m = 0.5, l = 0.8, g = 9.81;
  const auto& hanging = near.equilibria[0];
  EXPECT_EQ(hanging.q[0], 7.5);  // held exactly, not wrapped
  EXPECT_NEAR(hanging.q[1], 0.0, 1e-12);
  // K = diag(0, m g l): no restoring force along x, so neutral (not "unstable").
  EXPECT_EQ(hanging.stability, num::Stability::Neutral);
  EXPECT_FALSE(hanging.stable);
  ASSERT_EQ(hanging.stiffness_eigenvalues.size(), 2);
  EXPECT_EQ(hanging.stiffness_eigenvalues[0], 0.0);
  EXPECT_NEAR(hanging.stiffness_eigenvalues[1], m * g * l, 1e-12);
  ASSERT_EQ(hanging.neutral_directions.cols(), 1);
  EXPECT_EQ(hanging.neutral_directions.col(0), Eigen::Vector2d(1, 0));

  // From every start: hanging (neutral) and upright (unstable), each once, x still 7.5.
  const auto all = num::solve_statics(model, {});
  ASSERT_EQ(all.equilibria.size(), 2u);
  for (const auto& e : all.equilibria) {
    EXPECT_EQ(e.q[0], 7.5);
    const bool up = std::abs(e.q[1]) > 1;
    EXPECT_NEAR(std::abs(e.q[1]), up ? M_PI : 0.0, 1e-9);
    EXPECT_EQ(e.stability, up ? num::Stability::Unstable : num::Stability::Neutral);
    EXPECT_NEAR(e.stiffness_eigenvalues[0], up ? -m * g * l : 0.0, 1e-9);
  }

  // A guess moves the family's representative: the cart stays where the guess put it.
  options.guesses = {Eigen::Vector2d(-3.25, 3.0)};
  const auto guessed = num::solve_statics(model, options);
  ASSERT_EQ(guessed.equilibria.size(), 2u);
  EXPECT_EQ(guessed.equilibria[1].q[0], -3.25);
  EXPECT_NEAR(std::abs(guessed.equilibria[1].q[1]), M_PI, 1e-9);
  EXPECT_EQ(guessed.equilibria[1].stability, num::Stability::Unstable);
}

TEST(Statics, SphericalPendulumAzimuthIsFree) {
  auto model = io::parse_model(kSphericalPendulum, "spherical.yaml");
  num::StaticsOptions options;
  options.random_starts = 0;
  options.guesses = {Eigen::Vector2d(0.02, 10.0)};
  const auto result = num::solve_statics(model, options);
  EXPECT_EQ(result.free_coordinates, std::vector<std::size_t>{1});
  ASSERT_EQ(result.equilibria.size(), 2u);
  const double mgl = 1.5 * 9.81 * 0.6;
  const auto& up = result.equilibria[0];  // from the initial values, th = 3.1
  EXPECT_NEAR(std::abs(up.q[0]), M_PI, 1e-9);
  EXPECT_EQ(up.q[1], 0.4);
  EXPECT_EQ(up.stability, num::Stability::Unstable);
  EXPECT_NEAR(up.stiffness_eigenvalues[0], -mgl, 1e-9);
  const auto& down = result.equilibria[1];  // from the guess
  EXPECT_NEAR(down.q[0], 0.0, 1e-12);
  EXPECT_EQ(down.q[1], 10.0);  // a free azimuth is not wrapped either
  EXPECT_EQ(down.stability, num::Stability::Neutral);
  EXPECT_NEAR(down.stiffness_eigenvalues[0], 0.0, 1e-12);
  EXPECT_NEAR(down.stiffness_eigenvalues[1], mgl, 1e-9);
  ASSERT_EQ(down.neutral_directions.cols(), 1);
  EXPECT_EQ(down.neutral_directions.col(0), Eigen::Vector2d(0, 1));
}

TEST(Statics, PendulumBottomIsStableAndTopUnstable) {
  auto model = io::parse_model(R"(name: pendulum
parameters: {m: 2.0, l: 0.5, g: 9.81}
coordinates: [{name: phi, initial: 0.3}]
frames:
  arm: {rotation: rot_z(phi)}
particles:
  bob: {frame: arm, mass: m, position: [0, -l, 0]}
gravity: [0, -g, 0]
)",
                               "pendulum.yaml");
  const auto result = num::solve_statics(model, {});
  EXPECT_TRUE(result.free_coordinates.empty());
  ASSERT_EQ(result.equilibria.size(), 2u);
  const double mgl = 2.0 * 9.81 * 0.5;
  for (const auto& e : result.equilibria) {
    const bool top = std::abs(e.q[0]) > 1;
    EXPECT_NEAR(e.q[0], top ? -M_PI : 0.0, 1e-9);
    ASSERT_EQ(e.stiffness_eigenvalues.size(), 1);
    EXPECT_NEAR(e.stiffness_eigenvalues[0], top ? -mgl : mgl, 1e-9);  // K = m g l cos phi
    EXPECT_EQ(e.stability, top ? num::Stability::Unstable : num::Stability::Stable);
    EXPECT_EQ(e.stable, !top);
    EXPECT_EQ(e.neutral_directions.cols(), 0);
  }
}

TEST(Statics, AFamilyAlongACombinationIsNeutralAndTheSolverStaysOnIt) {
  // Two particles joined by a spring: V = k (x1 − x2)²/2 depends on both coordinates, yet any
  // x1 = x2 balances. The minimum-norm Newton step moves only across the family (along
  // (1, −1)), so from (0.2, −0.1) it lands at the mid point; K has eigenvalues 0 and 2k.
  auto model = io::parse_model(R"(name: spring-pair
parameters: {k: 40.0}
coordinates: [{name: x1, initial: 0.2}, {name: x2, initial: -0.1}]
particles:
  a: {frame: world, mass: 1, position: [x1, 0, 0]}
  b: {frame: world, mass: 1, position: [x2, 0, 0]}
loads:
  - {potential: "1/2*k*(x1 - x2)^2"}
)",
                               "pair.yaml");
  num::StaticsOptions options;
  options.random_starts = 0;
  const auto result = num::solve_statics(model, options);
  EXPECT_TRUE(result.free_coordinates.empty());
  ASSERT_EQ(result.equilibria.size(), 1u);
  const auto& e = result.equilibria[0];
  EXPECT_NEAR(e.q[0], 0.05, 1e-12);
  EXPECT_NEAR(e.q[1], 0.05, 1e-12);
  EXPECT_EQ(e.stability, num::Stability::Neutral);
  EXPECT_NEAR(e.stiffness_eigenvalues[0], 0.0, 1e-12);
  EXPECT_NEAR(e.stiffness_eigenvalues[1], 80.0, 1e-9);
  ASSERT_EQ(e.neutral_directions.cols(), 1);
  EXPECT_NEAR(e.neutral_directions(0, 0), std::sqrt(0.5), 1e-12);
  EXPECT_NEAR(e.neutral_directions(1, 0), std::sqrt(0.5), 1e-12);
}

TEST(Statics, AFreeParticleIsNeutralEverywhere) {
  auto model = io::parse_model(R"(name: free
coordinates: [{name: x, initial: -2.0}, {name: y, initial: 1.0}]
particles:
  p: {frame: world, mass: 1, position: [x, y, 0]}
)",
                               "free.yaml");
  const auto result = num::solve_statics(model, {});
  EXPECT_EQ(result.free_coordinates, (std::vector<std::size_t>{0, 1}));
  ASSERT_EQ(result.equilibria.size(), 1u);  // one family, however many starts
  const auto& e = result.equilibria[0];
  EXPECT_EQ(e.q, Eigen::Vector2d(-2.0, 1.0));
  EXPECT_EQ(e.stability, num::Stability::Neutral);
  EXPECT_EQ(e.neutral_directions, Eigen::Matrix2d::Identity());
}

TEST(Statics, StabilityToleranceSeparatesWeakFromZeroStiffness) {
  // Stiffnesses 1e6 and 1e-6 N/m: with the default relative tolerance 1e-9 the weak spring
  // counts as zero (neutral); with 1e-14 it counts (stable). A negative tolerance is an error
  // located at the option's library name.
  auto model = io::parse_model(R"(name: weak
parameters: {k1: 1.0e6, k2: 1.0e-6}
coordinates: [{name: x, initial: 0.1}, {name: y, initial: 0.1}]
particles:
  p: {frame: world, mass: 1, position: [x, y, 0]}
loads:
  - {potential: "1/2*k1*x^2 + 1/2*k2*y^2"}
)",
                               "weak.yaml");
  num::StaticsOptions options;
  options.random_starts = 0;
  EXPECT_EQ(num::solve_statics(model, options).equilibria[0].stability, num::Stability::Neutral);
  options.stability_tolerance = 1e-14;
  const auto strict = num::solve_statics(model, options);
  EXPECT_EQ(strict.equilibria[0].stability, num::Stability::Stable);
  EXPECT_NEAR(strict.equilibria[0].stiffness_eigenvalues[0], 1e-6, 1e-15);
  options.stability_tolerance = -1;
  try {
    num::solve_statics(model, options);
    FAIL() << "a negative tolerance was accepted";
  } catch (const model::ModelError& e) {
    EXPECT_EQ(e.where().file, "stability_tolerance");
  }
}

TEST(Statics, AGuessOfTheWrongSizeIsAnError) {
  auto model = io::parse_model(kCartPendulum, "cart.yaml");
  num::StaticsOptions options;
  options.guesses = {Eigen::Vector3d(0, 0, 0)};
  try {
    num::solve_statics(model, options);
    FAIL() << "a 3-value guess for 2 coordinates was accepted";
  } catch (const model::ModelError& e) {
    EXPECT_EQ(e.where().file, "guesses");  // the library never names a flag
    EXPECT_NE(std::string(e.what()).find("expected 2"), std::string::npos) << e.what();
  }
  const std::string path = write_temp("cart_pendulum.yaml", kCartPendulum);
  const auto r = test_support::run_cli("statics " + path + " --guess 1,2,3");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--guess"), std::string::npos) << r.out;
  const auto named = test_support::run_cli("statics " + path + " --guess z=1");
  EXPECT_EQ(named.code, 2) << named.out;
  EXPECT_NE(named.out.find("--guess"), std::string::npos) << named.out;
}

TEST(Statics, CliReportsFreeCoordinatesAndNeverPrintsNegativeZero) {
  // The cart starts at −0.0, which the solver keeps (a free coordinate is never moved): printed
  // as it is, it would read "-0".
  std::string text = kCartPendulum;
  text.replace(text.find("initial: 7.5"), 12, "initial: -0.0");
  const std::string path = write_temp("cart_pendulum_zero.yaml", text);
  const std::regex negative_zero(R"((^|[^0-9.eE])-0(\.0*)?([^0-9.]|$))");
  const auto json = test_support::run_cli("statics " + path + " --json");
  ASSERT_EQ(json.code, 0) << json.out;
  EXPECT_FALSE(std::regex_search(json.out, negative_zero)) << json.out;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["free_coordinates"], nlohmann::json::array({"x"}));
  ASSERT_EQ(j["equilibria"].size(), 2u);
  for (const auto& e : j["equilibria"]) {
    EXPECT_EQ(e["q"][0].get<double>(), 0.0);
    const bool up = std::abs(e["q"][1].get<double>()) > 1;
    EXPECT_EQ(e["stability"], up ? "unstable" : "neutral");
    EXPECT_EQ(e["stable"], false);  // the existing key, kept: true only when stable
    EXPECT_EQ(e["neutral_directions"].size(), up ? 0u : 1u);
  }
  for (const std::string& model : {path, write_temp("spherical.yaml", kSphericalPendulum)}) {
    const auto r = test_support::run_cli("statics " + model);
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_FALSE(std::regex_search(r.out, negative_zero)) << r.out;
    EXPECT_NE(r.out.find("free coordinates: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("neutral  (eigenvalues of K: "), std::string::npos) << r.out;
  }
  const auto tolerance = test_support::run_cli("statics " + path + " --stability-tolerance -1");
  EXPECT_EQ(tolerance.code, 2) << tolerance.out;
  EXPECT_NE(tolerance.out.find("--stability-tolerance"), std::string::npos) << tolerance.out;
}

TEST(Statics, NoCommandPrintsNegativeZero) {
  // The number formatting every command shares (the stream facet main() sets, the JSON writers):
  // eval at q = (−0, −0) computes −0 in q, q̈ and f, and prints each as 0.
  const std::string path = write_temp("cart_pendulum_eval.yaml", kCartPendulum);
  const std::regex negative_zero(R"((^|[^0-9.eE])-0(\.0*)?([^0-9.]|$))");
  for (const char* json : {"", " --json"}) {
    const auto r = test_support::run_cli("eval " + path + " --q=-0.0,-0.0" + std::string(json));
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_FALSE(std::regex_search(r.out, negative_zero)) << r.out;
    EXPECT_NE(r.out.find("0"), std::string::npos) << r.out;
  }
}

TEST(Statics, RedundantConstraintsGiveMinimumNormMultipliers) {
  // A particle held in the plane z = 0, on the circle and on the sphere of radius l: three
  // constraints of rank two. It hangs at (0, −l, 0) (stable, K = m g / l along x) or stands at
  // (0, l, 0) (unstable); the circle and the sphere share the rod's force equally (minimum norm):
  // λ_circle = λ_sphere = ∓m g / (4 l), and the sphere is named redundant.
  auto model =
      io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/overconstrained_pendulum.yaml");
  const auto result = num::solve_statics(model, {});
  const double m = 2.0, l = 1.5, g = 9.81;
  ASSERT_EQ(result.equilibria.size(), 2u);
  for (const auto& e : result.equilibria) {
    const double side = e.q[1] < 0 ? -1.0 : 1.0;  // hanging: −1
    EXPECT_NEAR(e.q[0], 0.0, 1e-9);
    EXPECT_NEAR(e.q[1], side * l, 1e-9);
    EXPECT_NEAR(e.q[2], 0.0, 1e-9);
    ASSERT_EQ(e.lambda.size(), 3);
    EXPECT_NEAR(e.lambda[0], 0.0, 1e-9);
    EXPECT_NEAR(e.lambda[1], side * m * g / (4 * l), 1e-9);
    EXPECT_NEAR(e.lambda[2], side * m * g / (4 * l), 1e-9);
    EXPECT_EQ(e.redundant_constraints, std::vector<std::string>{"sphere"});
    ASSERT_EQ(e.stiffness_eigenvalues.size(), 1);
    EXPECT_NEAR(e.stiffness_eigenvalues[0], -side * m * g / l, 1e-9);
    EXPECT_EQ(e.stability, side < 0 ? num::Stability::Stable : num::Stability::Unstable);
  }
}

// A mass on a spring with a damper: the small oscillations are s = −ζω ± iω√(1 − ζ²) with
// ω = √(k/m), ζ = c/(2√(mk)). With the damper reversed (a force +c ẋ feeding energy in) the
// stiffness still says stable, but the linear model's growing mode makes it unstable.
TEST(Statics, ModesAreTheDampedOscillatorAndAGrowingModeIsUnstable) {
  const auto oscillator = [](const std::string& damping) {
    return "name: oscillator\nparameters: {m: 2.0, k: 50.0, c: 1.2}\ncoordinates: [x]\n"
           "frames:\n  cart: {translation: [x, 0, 0]}\nparticles:\n"
           "  p: {frame: cart, mass: m, position: [0, 0, 0]}\nloads:\n"
           "  - {generalized: {coordinate: x, value: \"-k*x " +
           damping + " c*dot(x)\"}}\n";
  };
  const double m = 2.0, k = 50.0, c = 1.2, w = std::sqrt(k / m), zeta = c / (2 * std::sqrt(m * k));
  const auto damped = test_support::run_cli(
      "statics " + write_temp("oscillator.yaml", oscillator("-")) + " --modes --json");
  ASSERT_EQ(damped.code, 0) << damped.out;
  const auto j = nlohmann::json::parse(damped.out);
  ASSERT_EQ(j["equilibria"].size(), 1u);
  const auto& e = j["equilibria"][0];
  EXPECT_EQ(e["stability"], "stable");
  ASSERT_EQ(e["modes"].size(), 2u);
  for (const auto& mode : e["modes"]) {
    EXPECT_NEAR(mode["natural_frequency"].get<double>(), w, 1e-9);
    EXPECT_NEAR(mode["damping_ratio"].get<double>(), zeta, 1e-9);
    EXPECT_NEAR(mode["eigenvalue"][0].get<double>(), -zeta * w, 1e-9);
    EXPECT_NEAR(std::abs(mode["eigenvalue"][1].get<double>()), w * std::sqrt(1 - zeta * zeta),
                1e-9);
  }

  const std::string fed = write_temp("oscillator_fed.yaml", oscillator("+"));
  const auto growing = test_support::run_cli("statics " + fed + " --modes --json");
  ASSERT_EQ(growing.code, 0) << growing.out;
  const auto g = nlohmann::json::parse(growing.out);
  EXPECT_EQ(g["equilibria"][0]["stability"], "unstable");
  EXPECT_FALSE(g["equilibria"][0]["stable"].get<bool>());
  EXPECT_TRUE(g["equilibria"][0]["modes"][0]["unstable"].get<bool>());
  // Without --modes the verdict is the stiffness's alone.
  const auto stiffness =
      nlohmann::json::parse(test_support::run_cli("statics " + fed + " --json").out);
  EXPECT_EQ(stiffness["equilibria"][0]["stability"], "stable");
  const auto text = test_support::run_cli("statics " + fed + " --modes");
  ASSERT_EQ(text.code, 0) << text.out;
  EXPECT_NE(text.out.find("unstable by the linear model's growing mode"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("small oscillations"), std::string::npos) << text.out;
}

}  // namespace
