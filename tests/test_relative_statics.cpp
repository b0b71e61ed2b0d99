// Statics of moving systems (issue 27): relative equilibria with the inertial forces of the
// prescribed motion, their stability from the linearized relative motion, and no answer where
// the relative problem is not steady. Before, statics used the applied forces alone: it called
// the bead on a fast hoop's bottom stable, missed its tilted equilibria, and put a turntable
// pendulum at rest hanging straight down.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "appell/io/model_reader.hpp"
#include "appell/model/source_location.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/numeric/statics.hpp"
#include "appell/principles/derive.hpp"
#include "support/run_cli.hpp"

namespace {

using namespace appell;

const std::string examples = APPELL_EXAMPLES_DIR;

// examples/bead_on_hoop.yaml: R = 0.4, g = 9.81, so g/R = 24.525 (rad/s)².
constexpr double g = 9.81, R = 0.4;

num::StaticsResult bead_statics(double omega, double tolerance = 1e-10) {
  num::StaticsOptions o;
  o.values = {{"omega", omega}};
  o.tolerance = tolerance;
  return num::solve_statics(io::read_model_file(examples + "/bead_on_hoop.yaml"), o);
}

// The equilibrium at angle `theta` (within `within`, a turn apart counting as the same), or
// nullptr.
const num::Equilibrium* at(const num::StaticsResult& result, double theta, double within = 1e-9) {
  for (const auto& e : result.equilibria) {
    const double gap = std::remainder(e.q[0] - theta, 2 * M_PI);
    if (std::abs(gap) < within) return &e;
  }
  return nullptr;
}

// The verdict at angle `theta`, or a failure when there is no equilibrium there.
std::string verdict(const num::StaticsResult& result, double theta, double within = 1e-9) {
  const auto* e = at(result, theta, within);
  if (!e) return "no equilibrium at " + std::to_string(theta);
  return num::stability_name(e->stability);
}

TEST(RelativeStatics, FastHoopHasTiltedStableEquilibriaAndAnUnstableBottom) {
  const double omega = 6.0;  // ω² = 36 > g/R
  const double theta_star = std::acos(g / (R * omega * omega));
  const auto result = bead_statics(omega);
  ASSERT_TRUE(result.relative.has_value());
  EXPECT_EQ(result.relative->prescribed, std::vector<std::string>{"psi"});
  EXPECT_EQ(result.relative->steady_by, "symbolically");
  ASSERT_EQ(result.equilibria.size(), 4u);
  for (const double theta : {theta_star, -theta_star}) {
    const auto* e = at(result, theta);
    ASSERT_NE(e, nullptr) << theta;
    EXPECT_NEAR(e->q[0], theta, 1e-9);
    EXPECT_EQ(e->stability, num::Stability::Stable);
    EXPECT_GT(e->stiffness_eigenvalues[0], 0.0);
    EXPECT_FALSE(e->gyroscopic_stabilization);
  }
  EXPECT_EQ(verdict(result, 0.0), "unstable");
  EXPECT_EQ(verdict(result, M_PI), "unstable");
  // K at the bottom is m R (g − R ω²) < 0: the inertial forces' part, not gravity's alone.
  ASSERT_NE(at(result, 0.0), nullptr);
  EXPECT_NEAR(at(result, 0.0)->stiffness_eigenvalues[0], 0.1 * R * (g - R * omega * omega), 1e-9);
}

TEST(RelativeStatics, SlowHoopHasOnlyTheBottomStableAndTheTopUnstable) {
  const auto result = bead_statics(3.0);  // ω² = 9 < g/R
  ASSERT_TRUE(result.relative.has_value());
  EXPECT_EQ(result.equilibria.size(), 2u);
  EXPECT_EQ(verdict(result, 0.0), "stable");
  EXPECT_EQ(verdict(result, M_PI), "unstable");
}

// The bottom's stability switches at ω² = g/R, where the tilted pair is born from it. So close
// to it the stiffness is small (K ≈ 4e-4), so Newton's residual bound of 1e-13 leaves the angles
// within ~1e-9 of the exact ones; compared within 1e-7.
TEST(RelativeStatics, TheBottomLosesStabilityAtTheCriticalRate) {
  const double critical = std::sqrt(g / R);
  const auto below = bead_statics(critical * std::sqrt(1 - 1e-3), 1e-13);
  EXPECT_EQ(below.equilibria.size(), 2u);
  EXPECT_EQ(verdict(below, 0.0, 1e-7), "stable");
  EXPECT_EQ(verdict(below, M_PI, 1e-7), "unstable");
  ASSERT_NE(at(below, 0.0, 1e-7), nullptr);
  EXPECT_GT(at(below, 0.0, 1e-7)->stiffness_eigenvalues[0], 0.0);

  const double omega = critical * std::sqrt(1 + 1e-3);
  const auto above = bead_statics(omega, 1e-13);
  EXPECT_EQ(above.equilibria.size(), 4u);
  EXPECT_EQ(verdict(above, 0.0, 1e-7), "unstable");
  ASSERT_NE(at(above, 0.0, 1e-7), nullptr);
  EXPECT_LT(at(above, 0.0, 1e-7)->stiffness_eigenvalues[0], 0.0);
  const double theta_star = std::acos(g / (R * omega * omega));  // 0.0447
  EXPECT_EQ(verdict(above, theta_star, 1e-7), "stable");
  EXPECT_EQ(verdict(above, -theta_star, 1e-7), "stable");
}

// A relative equilibrium is a motion: the bead started there at rest on the hoop stays there.
TEST(RelativeStatics, ASimulationStartedAtTheRelativeEquilibriumStaysThere) {
  const double omega = 6.0;
  const double theta_star = std::acos(g / (R * omega * omega));
  const auto model = io::read_model_file(examples + "/bead_on_hoop.yaml");
  num::StaticsOptions statics;
  const auto result = num::solve_statics(model, statics);
  ASSERT_NE(at(result, theta_star), nullptr);

  num::SimulationOptions o;
  o.t_end = 4.0;
  o.output_step = 0.01;
  o.rtol = 1e-12;
  o.atol = 1e-12;
  o.q0 = {at(result, theta_star)->q[0]};
  o.qd0 = {0.0};
  double worst = 0.0;
  num::simulate(principles::derive(model, principles::Method::GibbsAppell), o,
                [&](const num::SimulationRow& row) {
                  worst = std::max(worst, std::abs(row.q[0] - theta_star));
                });
  EXPECT_LT(worst, 1e-8);
  // Started off it, the bead does move: the test can tell.
  o.q0 = {theta_star + 0.05};
  double moved = 0.0;
  num::simulate(principles::derive(model, principles::Method::GibbsAppell), o,
                [&](const num::SimulationRow& row) {
                  moved = std::max(moved, std::abs(row.q[0] - theta_star - 0.05));
                });
  EXPECT_GT(moved, 1e-2);
}

TEST(RelativeStatics, TheCliSaysWhichForcesItIncluded) {
  const auto text = test_support::run_cli("statics " + examples + "/bead_on_hoop.yaml");
  EXPECT_EQ(text.code, 0) << text.out;
  EXPECT_NE(text.out.find("including the inertial forces of the prescribed motion psi = omega*t"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("F_theta = m*R^2*omega^2*cos(theta)*sin(theta)"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("q = [0.821328]  stable"), std::string::npos) << text.out;

  const auto json = test_support::run_cli("statics " + examples + "/bead_on_hoop.yaml --json");
  ASSERT_EQ(json.code, 0) << json.out;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["relative"]["steady"], "symbolically");
  EXPECT_EQ(j["relative"]["prescribed"], nlohmann::json::array({"psi"}));
  ASSERT_EQ(j["equilibria"].size(), 4u);
  int stable = 0;
  for (const auto& e : j["equilibria"]) stable += e["stable"].get<bool>() ? 1 : 0;
  EXPECT_EQ(stable, 2);
}

// The pendulum on a turntable leans outwards, tan θ = ω² (a + l sin θ) / g; hanging straight
// down is no equilibrium at all.
TEST(RelativeStatics, TurntablePendulumLeansOutwards) {
  const auto model = io::read_model_file(examples + "/turntable_pendulum.yaml");
  const double a = 0.3, l = 0.25, omega = 4.0;
  const auto result = num::solve_statics(model, num::StaticsOptions{});
  ASSERT_TRUE(result.relative.has_value());
  ASSERT_FALSE(result.equilibria.empty());
  int stable = 0;
  for (const auto& e : result.equilibria) {
    const double theta = e.q[0];
    EXPECT_GT(std::abs(theta), 0.1) << "hanging straight down is no relative equilibrium";
    EXPECT_NEAR(std::sin(theta) * g, std::cos(theta) * omega * omega * (a + l * std::sin(theta)),
                1e-9);
    if (e.stability == num::Stability::Stable) {
      ++stable;
      EXPECT_GT(theta, 0.0);  // outwards
      EXPECT_LT(theta, M_PI / 2);
    }
  }
  EXPECT_EQ(stable, 1);
}

// An accelerating turntable (ω = α t) and a shaken support: the inertial forces at rest change
// with t, so nothing stays at rest relative to them and statics says so instead of answering.
TEST(RelativeStatics, AnUnsteadyMotionHasNoRelativeEquilibria) {
  const std::string accelerating = R"(name: accelerating
parameters: {m: 0.5, a: 0.3, l: 0.25, g: 9.81, alpha: 0.5}
coordinates: [{name: theta, initial: 0.2}]
prescribed: {psi: alpha*t^2/2}
frames:
  turntable: {rotation: rot_z(psi)}
  arm: {parent: turntable, translation: [a, 0, 0], rotation: rot_y(-theta)}
particles: {bob: {frame: arm, mass: m, position: [0, 0, -l]}}
gravity: [0, 0, -g]
)";
  const std::string shaken = R"(name: shaken
parameters: {m: 1, l: 0.5, g: 9.81, A: 0.01, Omega: 20}
coordinates: [{name: th, initial: 0.1}]
prescribed: {y: A*sin(Omega*t)}
frames:
  support: {translation: [0, y, 0]}
  arm: {parent: support, rotation: rot_z(th)}
particles: {bob: {frame: arm, mass: m, position: [0, -l, 0]}}
gravity: [0, -g, 0]
)";
  for (const auto& [name, text] :
       {std::pair{"accelerating.yaml", accelerating}, std::pair{"shaken.yaml", shaken}}) {
    SCOPED_TRACE(name);
    const auto model = io::parse_model(text, name);
    try {
      num::solve_statics(model, num::StaticsOptions{});
      ADD_FAILURE() << "expected no steady relative problem";
    } catch (const model::ComputationError& e) {
      EXPECT_NE(std::string(e.what()).find("no steady relative problem"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("changes with t"), std::string::npos) << e.what();
    }
    const std::string path = testing::TempDir() + name;
    std::ofstream(path) << text;
    const auto run = test_support::run_cli("statics " + path);
    EXPECT_EQ(run.code, 1) << run.out;
    EXPECT_NE(run.out.find("no steady relative problem"), std::string::npos) << run.out;
    EXPECT_EQ(run.out.find("equilibria ("), std::string::npos) << run.out;
  }
  // Switched off (α = 0, A = 0) the same models are steady again.
  num::StaticsOptions still;
  still.values = {{"alpha", 0.0}};
  EXPECT_NO_THROW(num::solve_statics(io::parse_model(accelerating, "a.yaml"), still));
  still.values = {{"A", 0.0}};
  EXPECT_NO_THROW(num::solve_statics(io::parse_model(shaken, "s.yaml"), still));
}

// An unspecified prescribed function moves as its given numbers say: the block of seed 003's
// pendulum carried round a circle (dot(theta) = 1) is not steady, held still it is.
TEST(RelativeStatics, AnUnspecifiedMotionIsSteadyOnlyWhenItsNumbersSaySo) {
  const auto model = io::read_model_file(examples + "/pendulum_on_translating_block.yaml");
  num::StaticsOptions moving;
  moving.values = {{"dot(theta)", 1.0}};
  EXPECT_THROW(num::solve_statics(model, moving), model::ComputationError);
  const auto still = num::solve_statics(model, num::StaticsOptions{});
  ASSERT_TRUE(still.relative.has_value());
  EXPECT_EQ(still.relative->carrier, "block");
  EXPECT_EQ(still.relative->steady_by, "numerically at 5 times");
  // The turntable of the spinning disk at a constant rate: the disk's relative problem is
  // steady (the turntable's angle is cyclic), at a constant acceleration it is not.
  const auto disk = io::read_model_file(examples + "/spinning_disk.yaml");
  num::StaticsOptions spinning;
  spinning.values = {{"dot(alpha)", 3.0}};
  EXPECT_FALSE(num::solve_statics(disk, spinning).equilibria.empty());
  spinning.values = {{"ddot(alpha)", 3.0}};
  EXPECT_THROW(num::solve_statics(disk, spinning), model::ComputationError);
}

// A particle on a saddle that turns at Ω (x, y in the turning frame, V = ½ k (x² − y²)): the
// stiffness diag(k − m Ω², −k − m Ω²) is indefinite or negative, yet for Ω² > k/m the Coriolis
// force holds the particle (the rotating saddle, a Paul trap): stable by gyroscopic
// stabilisation, which the stiffness alone would call unstable; for Ω² < k/m a mode grows.
TEST(RelativeStatics, ARotatingSaddleIsHeldGyroscopically) {
  const auto model = io::parse_model(R"(name: rotating-saddle
parameters: {m: 1, k: 4, Omega: 3}
coordinates: [{name: x, initial: 0.1}, {name: y, initial: -0.1}]
prescribed: {psi: Omega*t}
frames:
  saddle: {rotation: rot_z(psi)}
particles: {p: {frame: saddle, mass: m, position: [x, y, 0]}}
loads:
  - {potential: k*(x^2 - y^2)/2}
)",
                                     "saddle.yaml");
  const auto fast = num::solve_statics(model, num::StaticsOptions{});  // Ω² = 9 > k/m = 4
  ASSERT_EQ(fast.equilibria.size(), 1u);
  const auto& held = fast.equilibria.front();
  EXPECT_NEAR(held.q.norm(), 0.0, 1e-9);
  EXPECT_LT(held.stiffness_eigenvalues.maxCoeff(), 0.0);
  EXPECT_EQ(held.stability, num::Stability::Stable);
  EXPECT_TRUE(held.gyroscopic_stabilization);

  num::StaticsOptions slow;
  slow.values = {{"Omega", 1.5}};  // Ω² = 2.25 < k/m
  const auto loose = num::solve_statics(model, slow);
  ASSERT_EQ(loose.equilibria.size(), 1u);
  EXPECT_EQ(loose.equilibria.front().stability, num::Stability::Unstable);
  EXPECT_FALSE(loose.equilibria.front().gyroscopic_stabilization);

  const std::string path = testing::TempDir() + "rotating_saddle.yaml";
  {
    std::ofstream out(path);
    out << "name: rotating-saddle\nparameters: {m: 1, k: 4, Omega: 3}\ncoordinates: [{name: x, "
           "initial: 0.1}, {name: y, initial: -0.1}]\nprescribed: {psi: Omega*t}\nframes:\n  "
           "saddle: {rotation: rot_z(psi)}\nparticles: {p: {frame: saddle, mass: m, position: "
           "[x, y, 0]}}\nloads:\n  - {potential: k*(x^2 - y^2)/2}\n";
  }
  const auto run = test_support::run_cli("statics " + path);
  EXPECT_EQ(run.code, 0) << run.out;
  EXPECT_NE(run.out.find("stable by gyroscopic stabilization"), std::string::npos) << run.out;
}

// A model whose frames do not move keeps the statics of applied forces, and says nothing of
// inertial forces.
TEST(RelativeStatics, AFixedModelIsNotARelativeProblem) {
  const auto model = io::read_model_file(examples + "/double_pendulum.yaml");
  const auto result = num::solve_statics(model, num::StaticsOptions{});
  EXPECT_FALSE(result.relative.has_value());
  const auto run = test_support::run_cli("statics " + examples + "/double_pendulum.yaml --json");
  EXPECT_EQ(run.code, 0) << run.out;
  EXPECT_EQ(run.out.find("inertial"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("relative"), std::string::npos) << run.out;
}

}  // namespace
