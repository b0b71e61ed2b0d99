// Statics judged relative to the scale of Q and K (issue 39 item 4, issue 43): roots of high
// multiplicity reached, not the edge of the region where Q is below a tolerance; degenerate
// (flat) equilibria reported as such with their direction; the same equilibria and verdicts
// whatever the units; every true equilibrium found; no rounding noise printed as coordinates.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "appell/io/model_reader.hpp"
#include "appell/numeric/statics.hpp"
#include "support/run_cli.hpp"

namespace {

using namespace appell;

// A bob of mass m at x = l sin φ, y = −l cos^19 φ under gravity −g along y: a pendulum whose
// height is flattened near the horizontal.
//
// By hand: V = m g y = −m g l cos^19 φ, so
//   Q(φ)  = −V'(φ)  = −19 m g l cos^18 φ sin φ,
//   K(φ)  =  V''(φ) =  19 m g l (cos^19 φ − 18 cos^17 φ sin² φ).
// Q = 0 where sin φ = 0 or cos φ = 0; in [−π, π) these are exactly four points:
//   φ = 0:   cos = 1,  K = 19 m g l > 0            → stable (V = −m g l, the lowest);
//   φ = −π:  cos = −1, K = 19 m g l (−1) < 0        → unstable (V = +m g l, the highest);
//   φ = ±π/2: cos = 0, K = 0 (and every derivative of Q up to the 17th): a root of Q of
//     multiplicity 18. With ψ = φ ∓ π/2, cos φ = ∓sin ψ, so V = ±m g l sin^19 ψ ≈ ±m g l ψ^19:
//     an inflection of V, flat to 18th order. The quadratic test (K) cannot decide there:
//     neutral, degenerate along φ. (To 19th order V falls on one side, so the point is in fact
//     unstable; that is higher-order information the stiffness does not hold.)
// Nothing else: Q ≠ 0 elsewhere, although |Q| < 1e-10 m g l over |ψ| < 0.24 beside ±π/2, which is
// where a Newton iteration stopped on |Q| alone reported its "equilibria" (1.33, 1.80, ...), and
// where the maximum of |Q| over the circle is 2.68 m g l (at tan² φ = 1/18).
constexpr const char* kCos19 = R"(name: cos19-pendulum
parameters: {m: 0.1, l: 1.0, g: 9.81}
coordinates: [{name: phi, initial: 0.3}]
particles:
  bob: {frame: world, mass: m, position: [l*sin(phi), -l*cos(phi)^19, 0]}
gravity: [0, -g, 0]
)";

// Q of the cos^19 pendulum by hand (above), for m g l = `mgl`.
double cos19_force(double phi, double mgl) {
  return -19 * mgl * std::pow(std::cos(phi), 18) * std::sin(phi);
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

// The equilibrium at `phi` (a turn apart counting as the same, within `within`), or nullptr.
const num::Equilibrium* at(const num::StaticsResult& result, double phi, double within) {
  for (const auto& e : result.equilibria)
    if (std::abs(std::remainder(e.q[0] - phi, 2 * M_PI)) < within) return &e;
  return nullptr;
}

// The four true equilibria of the cos^19 pendulum, each once, with the verdicts derived above,
// and nothing else; `mgl` its m g l.
void expect_cos19_equilibria(const num::StaticsResult& result, double mgl) {
  ASSERT_EQ(result.equilibria.size(), 4u);
  // Every equilibrium reported is one of the four (no spurious point in the flat regions).
  for (const auto& e : result.equilibria) {
    const double phi = e.q[0];
    const double nearest = std::round(phi / (M_PI / 2)) * (M_PI / 2);
    EXPECT_NEAR(phi, nearest, 1e-6) << "not a true equilibrium: " << phi;
  }
  const auto* bottom = at(result, 0.0, 1e-9);
  ASSERT_NE(bottom, nullptr);
  EXPECT_EQ(bottom->q[0], 0.0);  // exactly: no rounding noise
  EXPECT_EQ(bottom->stability, num::Stability::Stable);
  ASSERT_EQ(bottom->stiffness_eigenvalues.size(), 1);
  EXPECT_NEAR(bottom->stiffness_eigenvalues[0], 19 * mgl, 1e-9 * 19 * mgl);

  const auto* top = at(result, M_PI, 1e-9);
  ASSERT_NE(top, nullptr);
  EXPECT_NEAR(top->q[0], -M_PI, 1e-12);  // reported in [−π, π)
  EXPECT_EQ(top->stability, num::Stability::Unstable);
  EXPECT_NEAR(top->stiffness_eigenvalues[0], -19 * mgl, 1e-9 * 19 * mgl);

  for (const double side : {M_PI / 2, -M_PI / 2}) {
    const auto* flat = at(result, side, 1e-6);
    ASSERT_NE(flat, nullptr) << side;
    EXPECT_EQ(flat->stability, num::Stability::Neutral) << side;
    EXPECT_FALSE(flat->stable);
    // K vanishes there: its eigenvalue is 0 at the scale of K (19 m g l), printed as 0.
    EXPECT_EQ(flat->stiffness_eigenvalues[0], 0.0) << side;
    // Isolated, not a family: the direction is degenerate, not neutral.
    EXPECT_EQ(flat->neutral_directions.cols(), 0) << side;
    ASSERT_EQ(flat->degenerate_directions.cols(), 1) << side;
    EXPECT_EQ(flat->degenerate_directions(0, 0), 1.0) << side;
    // And Q really vanishes there (by hand, to rounding of the reported angle).
    EXPECT_LT(std::abs(cos19_force(flat->q[0], mgl)), 1e-12 * mgl) << side;
  }
}

TEST(StaticsScale, Cos19PendulumHasItsFourTrueEquilibriaAndNoSpuriousOnes) {
  const auto model = io::parse_model(kCos19, "cos19.yaml");
  const auto result = num::solve_statics(model, {});
  expect_cos19_equilibria(result, 0.1 * 9.81 * 1.0);
  // The other route (Q formed symbolically and compiled) finds the same.
  num::StaticsOptions formed;
  formed.from_formed_forces = true;
  expect_cos19_equilibria(num::solve_statics(model, formed), 0.1 * 9.81 * 1.0);
}

// The top at π attracts Newton's method only from within 0.23 of it (where Q' = 0: tan² φ =
// 1/18); none of the starts lies there (the initial 0.3 and the eight fixed random points), so
// only deflation finds it. Without random starts there is no deflation: the initial value's
// basin alone, the flat π/2 — reached, not stopped short of.
TEST(StaticsScale, Cos19TopIsFoundBeyondEveryStartsBasinAndTheFlatRootIsReached) {
  const auto model = io::parse_model(kCos19, "cos19.yaml");
  num::StaticsOptions one;
  one.random_starts = 0;
  const auto alone = num::solve_statics(model, one);
  ASSERT_EQ(alone.equilibria.size(), 1u);
  EXPECT_NEAR(alone.equilibria[0].q[0], M_PI / 2, 1e-6);  // not 1.33 or 1.80
  EXPECT_EQ(alone.equilibria[0].degenerate_directions.cols(), 1);
  // From next to the top: the top.
  one.guesses = {Eigen::VectorXd::Constant(1, 3.0)};
  const auto guessed = num::solve_statics(model, one);
  ASSERT_EQ(guessed.equilibria.size(), 2u);
  EXPECT_NEAR(guessed.equilibria[1].q[0], -M_PI, 1e-12);
}

// The same pendulum hung from a base on a stiff spring (k = 1000, y vertical): a flat
// direction beside a stiff one. The base settles at y = −(M + m) g / k whatever φ, and φ has the
// four equilibria above; the flat ones must be reached along φ although the spring's column of
// the Jacobian is 1e11 times the flat one's where |Q| first comes within tolerance.
TEST(StaticsScale, Cos19PendulumOnAStiffSpringReachesTheFlatRootsToo) {
  const auto model = io::parse_model(R"(name: cos19-on-a-spring
parameters: {m: 0.1, l: 1.0, g: 9.81, k: 1000.0}
coordinates: [{name: y, initial: 0.01}, {name: phi, initial: 0.3}]
particles:
  bob: {frame: world, mass: m, position: [l*sin(phi), y - l*cos(phi)^19, 0]}
  base: {frame: world, mass: 1, position: [0, y, 0]}
gravity: [0, -g, 0]
loads:
  - {potential: "1/2*k*y^2"}
)",
                                     "spring.yaml");
  const auto result = num::solve_statics(model, {});
  ASSERT_EQ(result.equilibria.size(), 4u);
  const double y = -(1.0 + 0.1) * 9.81 / 1000.0;
  std::vector<double> angles;
  for (const auto& e : result.equilibria) {
    EXPECT_NEAR(e.q[0], y, 1e-12);
    angles.push_back(e.q[1]);
    const bool flat = std::abs(std::abs(e.q[1]) - M_PI / 2) < 1e-6;
    EXPECT_EQ(e.degenerate_directions.cols(), flat ? 1 : 0) << e.q.transpose();
    if (flat) {
      EXPECT_EQ(e.degenerate_directions.col(0), Eigen::Vector2d(0, 1));
    }
  }
  std::sort(angles.begin(), angles.end());
  const std::vector<double> expected = {-M_PI, -M_PI / 2, 0.0, M_PI / 2};
  for (std::size_t k = 0; k < 4; ++k) EXPECT_NEAR(angles[k], expected[k], 1e-6) << k;
}

TEST(StaticsScale, Cos19PendulumThroughTheCli) {
  const std::string path = write_temp("cos19.yaml", kCos19);
  const auto text = test_support::run_cli("statics " + path);
  ASSERT_EQ(text.code, 0) << text.out;
  const std::regex equilibrium(R"(  q = \[([^\]]*)\]  (\w+) )");
  std::vector<std::pair<std::string, std::string>> lines;
  for (auto it = std::sregex_iterator(text.out.begin(), text.out.end(), equilibrium);
       it != std::sregex_iterator(); ++it)
    lines.emplace_back((*it)[1], (*it)[2]);
  ASSERT_EQ(lines.size(), 4u) << text.out;
  std::vector<std::pair<std::string, std::string>> expected = {
      {"1.5708", "neutral"}, {"0", "stable"}, {"-1.5708", "neutral"}, {"-3.14159", "unstable"}};
  std::sort(lines.begin(), lines.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(lines, expected) << text.out;
  // The flat points say which direction is degenerate, and why the verdict is not stable or
  // unstable.
  const std::string flat_line = "neutral  (eigenvalues of K: 0; degenerate along phi)";
  std::size_t degenerate = 0;
  for (std::size_t p = text.out.find(flat_line); p != std::string::npos;
       p = text.out.find(flat_line, p + 1))
    ++degenerate;
  EXPECT_EQ(degenerate, 2u) << text.out;
  EXPECT_NE(text.out.find("degenerate: K is zero along that direction"), std::string::npos)
      << text.out;

  const auto json = test_support::run_cli("statics " + path + " --json");
  ASSERT_EQ(json.code, 0) << json.out;
  const auto j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j["equilibria"].size(), 4u);
  std::size_t flat = 0;
  for (const auto& e : j["equilibria"]) {
    const double phi = e["q"][0].get<double>();
    if (std::abs(std::abs(phi) - M_PI / 2) < 1e-6) {
      ++flat;
      EXPECT_EQ(e["stability"], "neutral");
      EXPECT_EQ(e["degenerate_directions"], nlohmann::json::parse("[[1.0]]"));
      EXPECT_EQ(e["neutral_directions"], nlohmann::json::array());
      EXPECT_EQ(e["stiffness_eigenvalues"][0].get<double>(), 0.0);
    } else {
      EXPECT_EQ(e["degenerate_directions"], nlohmann::json::array());
    }
  }
  EXPECT_EQ(flat, 2u);
}

// --- The same system in other units ---

// The forces ×1e6 and ×1e-6 (the mass scaled): Q and K scale, the equilibria and verdicts do
// not. With an absolute tolerance the ×1e-6 pendulum's flat regions grew (|Q| < 1e-10 over
// |ψ| < 0.36) and the ×1e6 one's rounding (1e6 × 1e-16) came near the tolerance.
TEST(StaticsScale, ForcesScaledByAMillionEitherWayGiveTheSameEquilibria) {
  const auto model = io::parse_model(kCos19, "cos19.yaml");
  for (const double factor : {1e6, 1e-6}) {
    num::StaticsOptions options;
    options.values = {{"m", 0.1 * factor}};
    SCOPED_TRACE(factor);
    expect_cos19_equilibria(num::solve_statics(model, options), 0.1 * factor * 9.81);
  }
  // And the CLI prints the same equilibria and verdicts.
  const std::string path = write_temp("cos19_scaled.yaml", kCos19);
  const std::regex verdicts(R"(  q = \[[^\]]*\]  \w+ )");
  auto listing = [&](const std::string& set) {
    const auto run = test_support::run_cli("statics " + path + set);
    EXPECT_EQ(run.code, 0) << run.out;
    std::string out;
    for (auto it = std::sregex_iterator(run.out.begin(), run.out.end(), verdicts);
         it != std::sregex_iterator(); ++it)
      out += it->str() + "\n";
    return out;
  };
  const std::string unscaled = listing("");
  EXPECT_EQ(listing(" --set m=1e5"), unscaled);
  EXPECT_EQ(listing(" --set m=1e-7"), unscaled);
}

// A two-coordinate model scaled: the double pendulum's four equilibria (both links down, one or
// both up) with g ×1e6 and ×1e-6, each with the same verdict and the same stiffness / g.
TEST(StaticsScale, DoublePendulumScaledKeepsItsFourEquilibria) {
  const auto model =
      io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/double_pendulum.yaml");
  const auto reference = num::solve_statics(model, {});
  ASSERT_EQ(reference.equilibria.size(), 4u);
  const double g = 9.81;
  for (const double factor : {1e6, 1e-6}) {
    SCOPED_TRACE(factor);
    num::StaticsOptions options;
    options.values = {{"g", g * factor}};
    const auto scaled = num::solve_statics(model, options);
    ASSERT_EQ(scaled.equilibria.size(), 4u);
    for (std::size_t k = 0; k < 4; ++k) {
      const auto& a = reference.equilibria[k];
      const auto& b = scaled.equilibria[k];
      EXPECT_LT((a.q - b.q).cwiseAbs().maxCoeff(), 1e-9);
      EXPECT_EQ(a.stability, b.stability);
      EXPECT_LT((a.stiffness_eigenvalues * factor - b.stiffness_eigenvalues).cwiseAbs().maxCoeff(),
                1e-9 * factor * a.stiffness_eigenvalues.cwiseAbs().maxCoeff());
    }
  }
}

// --- A degenerate equilibrium beside a free coordinate ---

// An inverted pendulum (bob m at height l cos φ above its pivot) on a cart that rolls freely
// along x, held by a torsion spring of stiffness k = m g l at the pivot:
//   V = m g l cos φ + ½ k φ² = m g l (cos φ + φ²/2) = m g l (1 + φ⁴/24 − φ⁶/720 + ...),
//   Q_φ = m g l (sin φ − φ), Q_x = 0.
// sin φ = φ only at φ = 0, so the one equilibrium (a family in the free x) is φ = 0, where
// K = diag(0, m g l (1 − cos 0)) = 0: flat to third order in Q (V ~ φ⁴, a quartic minimum, so in
// fact stable at higher order). Reported neutral: neutral along x (the family), degenerate
// along φ (isolated: Q = −m g l φ³/6 pulls back).
constexpr const char* kQuarticCart = R"(name: quartic-cart
parameters: {M: 2.0, m: 0.5, l: 0.8, g: 9.81}
coordinates: [{name: x, initial: 1.5}, {name: phi, initial: 0.4}]
frames:
  cart: {translation: [x, 0, 0]}
  arm: {parent: cart, rotation: rot_z(phi)}
particles:
  body: {frame: cart, mass: M, position: [0, 0, 0]}
  bob: {frame: arm, mass: m, position: [0, l, 0]}
gravity: [0, -g, 0]
loads:
  - {potential: "1/2*m*g*l*phi^2"}
)";

TEST(StaticsScale, AQuarticMinimumIsDegenerateAlongItsAngleAndNeutralAlongTheFreeCart) {
  const auto model = io::parse_model(kQuarticCart, "quartic.yaml");
  const auto result = num::solve_statics(model, {});
  EXPECT_EQ(result.free_coordinates, std::vector<std::size_t>{0});
  ASSERT_EQ(result.equilibria.size(), 1u);  // sin φ = φ only at 0
  const auto& e = result.equilibria[0];
  EXPECT_EQ(e.q[0], 1.5);  // the free cart keeps its initial value
  // Q = −m g l φ³/6: Newton converges only linearly (by 2/3 a step) to this triple root, and
  // ends some 1e-11 from it, where Q is the rounding of the m g l φ and m g l sin φ it cancels;
  // there, a coordinate that small is 0 as Q is no larger at 0.
  EXPECT_EQ(e.q[1], 0.0);
  EXPECT_EQ(e.stability, num::Stability::Neutral);
  ASSERT_EQ(e.stiffness_eigenvalues.size(), 2);
  EXPECT_EQ(e.stiffness_eigenvalues[0], 0.0);
  EXPECT_EQ(e.stiffness_eigenvalues[1], 0.0);
  ASSERT_EQ(e.neutral_directions.cols(), 1);
  EXPECT_EQ(e.neutral_directions.col(0), Eigen::Vector2d(1, 0));
  ASSERT_EQ(e.degenerate_directions.cols(), 1);
  EXPECT_EQ(e.degenerate_directions.col(0), Eigen::Vector2d(0, 1));

  // Stiffer spring (k = 2 m g l): V = m g l (cos φ + φ²) has K = m g l > 0 at 0: stable, no
  // zero direction but the free cart's.
  const auto stiff_model = io::parse_model(
      std::regex_replace(std::string(kQuarticCart), std::regex("1/2\\*m\\*g\\*l"), "m*g*l"),
      "stiff.yaml");
  const auto stiff = num::solve_statics(stiff_model, {});
  ASSERT_EQ(stiff.equilibria.size(), 1u);
  EXPECT_EQ(stiff.equilibria[0].degenerate_directions.cols(), 0);
  EXPECT_EQ(stiff.equilibria[0].neutral_directions.cols(), 1);
  EXPECT_NEAR(stiff.equilibria[0].stiffness_eigenvalues[1], 0.5 * 9.81 * 0.8, 1e-9);

  const std::string path = write_temp("quartic.yaml", kQuarticCart);
  const auto text = test_support::run_cli("statics " + path);
  ASSERT_EQ(text.code, 0) << text.out;
  EXPECT_NE(text.out.find("neutral  (eigenvalues of K: 0 0; neutral along x; degenerate along "
                          "phi)"),
            std::string::npos)
      << text.out;
}

// A family stays a family: two particles joined by a spring balance at any x1 = x2 (the
// minimum-norm step never moves along it), neutral along (1, 1)/√2 and degenerate along
// nothing; the weak spring beside a stiff one (1e-6 against 1e6) counts as zero at the default
// tolerance, and is isolated: degenerate along y.
TEST(StaticsScale, AFamilyIsNeutralAndAnIsolatedZeroDegenerate) {
  const auto pair = io::parse_model(R"(name: spring-pair
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
  const auto family = num::solve_statics(pair, options);
  ASSERT_EQ(family.equilibria.size(), 1u);
  EXPECT_EQ(family.equilibria[0].neutral_directions.cols(), 1);
  EXPECT_EQ(family.equilibria[0].degenerate_directions.cols(), 0);

  const auto weak = io::parse_model(R"(name: weak
parameters: {k1: 1.0e6, k2: 1.0e-6}
coordinates: [{name: x, initial: 0.1}, {name: y, initial: 0.1}]
particles:
  p: {frame: world, mass: 1, position: [x, y, 0]}
loads:
  - {potential: "1/2*k1*x^2 + 1/2*k2*y^2"}
)",
                                    "weak.yaml");
  const auto isolated = num::solve_statics(weak, options);
  ASSERT_EQ(isolated.equilibria.size(), 1u);
  const auto& e = isolated.equilibria[0];
  EXPECT_EQ(e.stability, num::Stability::Neutral);
  EXPECT_EQ(e.neutral_directions.cols(), 0);
  ASSERT_EQ(e.degenerate_directions.cols(), 1);
  EXPECT_EQ(e.degenerate_directions.col(0), Eigen::Vector2d(0, 1));
  EXPECT_EQ(e.q, Eigen::Vector2d(0, 0));  // a linear Q: Newton lands on 0 exactly
}

// --- Rounding noise (issue 43) ---

// Newton's method used to stop on the tolerance with the bottom of the spinning hoop at
// 2.3618e-14 and the heavy top at [0, -1.2108e-14, 0]: now polished to rounding and cleaned by
// linearize's rule (below 1e-12 of the coordinates the search met is 0), in the text and the
// JSON. The slider-crank's horizontal multiplier, 1e-21 beside 4.905, is 0 too.
TEST(StaticsScale, ExactZerosArePrintedAsZero) {
  const std::string examples = APPELL_EXAMPLES_DIR;
  const std::regex noise(R"([0-9]e-(1[3-9]|[2-9][0-9]))");  // 1e-13 and smaller
  for (const std::string name : {"bead_on_hoop", "heavy_top", "slider_crank", "double_pendulum",
                                 "overconstrained_pendulum"}) {
    SCOPED_TRACE(name);
    const auto text = test_support::run_cli("statics " + examples + "/" + name + ".yaml");
    ASSERT_EQ(text.code, 0) << text.out;
    const std::size_t listing = text.out.find("equilibria (");
    ASSERT_NE(listing, std::string::npos) << text.out;
    const std::string equilibria = text.out.substr(listing);
    EXPECT_FALSE(std::regex_search(equilibria, noise)) << equilibria;
  }
  const auto bead = test_support::run_cli("statics " + examples + "/bead_on_hoop.yaml");
  EXPECT_NE(bead.out.find("  q = [0]  unstable"), std::string::npos) << bead.out;
  const auto top = test_support::run_cli("statics " + examples + "/heavy_top.yaml");
  EXPECT_NE(top.out.find("  q = [0, 0, 0]  unstable"), std::string::npos) << top.out;

  const auto json = test_support::run_cli("statics " + examples + "/heavy_top.yaml --json");
  ASSERT_EQ(json.code, 0) << json.out;
  const auto upright = nlohmann::json::parse(json.out)["equilibria"][0];
  for (const auto& v : upright["q"]) EXPECT_EQ(v.get<double>(), 0.0) << json.out;

  const auto crank = nlohmann::json::parse(
      test_support::run_cli("statics " + examples + "/slider_crank.yaml --json").out);
  ASSERT_EQ(crank["equilibria"].size(), 4u);
  for (const auto& e : crank["equilibria"]) {
    EXPECT_EQ(e["lambda"][0].get<double>(), 0.0);            // loop_x carries nothing at rest
    EXPECT_NEAR(e["lambda"][1].get<double>(), 4.905, 1e-9);  // half the rod's weight
  }
}

// The cleaning never moves a real value: a preloaded spring's equilibrium a hair from 0 (the
// preload 1e-9 rad) stays where it is, since 1e-9 is far above rounding beside the turn.
TEST(StaticsScale, ASmallButRealCoordinateIsKept) {
  const auto model = io::parse_model(R"(name: small
parameters: {k: 50.0, q0: 1.0e-9}
coordinates: [{name: q, initial: 0.5}]
particles:
  p: {frame: world, mass: 1, position: [q, 0, 0]}
loads:
  - {potential: "1/2*k*(q - q0)^2"}
)",
                                     "small.yaml");
  const auto result = num::solve_statics(model, {});
  ASSERT_EQ(result.equilibria.size(), 1u);
  EXPECT_NEAR(result.equilibria[0].q[0], 1e-9, 1e-20);
  EXPECT_EQ(result.equilibria[0].stability, num::Stability::Stable);
}

}  // namespace
