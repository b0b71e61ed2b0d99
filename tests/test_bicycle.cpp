// The Whipple bicycle (examples/whipple_bicycle.yaml) against the benchmark of Meijaard,
// Papadopoulos, Ruina and Schwab, "Linearized dynamics equations for the balance and steer of a
// bicycle: a benchmark and review", Proc. R. Soc. A 463 (2007) 1955-1982. The model file is the
// full nonlinear multibody system (8 coordinates, the front contact holonomic, four rolling
// conditions); appell's own linearization about upright straight running at speed v must give
// the benchmark's linear lean and steer equations
//   M q̈ + v C1 q̇ + (g K0 + v² K2) q = 0,   q = (lean φ, steer δ),
// whose matrices the paper prints to 14 digits (its eq. (5.4)), and their eigenvalues (its
// Table 2), and the speeds where the weave and the capsize mode change stability.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <complex>
#include <string>
#include <vector>

#include "appell/io/model_reader.hpp"
#include "appell/numeric/linearization.hpp"
#include "appell/principles/derive.hpp"
#include "support/run_cli.hpp"

namespace {

using namespace appell;
using test_support::run_cli;

const std::string kBicycle = std::string(APPELL_EXAMPLES_DIR) + "/whipple_bicycle.yaml";
constexpr double kG = 9.81, kRearRadius = 0.3, kLambda = 3.14159265358979323846 / 10;

// The benchmark's linear equations, as printed (eq. 5.4).
const Eigen::Matrix2d kM{{80.81722, 2.31941332208709}, {2.31941332208709, 0.29784188199686}};
const Eigen::Matrix2d kC1{{0.0, 33.86641391492494}, {-0.85035641456978, 1.68540397397560}};
const Eigen::Matrix2d kK0{{-80.95, -2.59951685249872}, {-2.59951685249872, -0.80329488458618}};
const Eigen::Matrix2d kK2{{0.0, 76.59734589573222}, {0.0, 2.65431523794604}};

// The model's coordinates: x, y, psi, phi, theta, thetaR, delta, thetaF.
constexpr Eigen::Index kPhi = 3, kTheta = 4, kThetaR = 5, kDelta = 6;

class Bicycle : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    equations_ = new principles::Equations(
        principles::derive(io::read_model_file(kBicycle), principles::Method::GibbsAppell));
  }
  static void TearDownTestSuite() {
    delete equations_;
    equations_ = nullptr;
  }

  // Upright straight running at v: only the rear wheel's rate -v/rR is given; the pitch (theta)
  // and the dependent speeds (dot(x) = v, the front wheel's rate) are solved by linearize from
  // the constraints.
  static num::LinearModel at_speed(double v) {
    Eigen::VectorXd q = Eigen::VectorXd::Zero(8), qd = Eigen::VectorXd::Zero(8);
    q[kTheta] = 0.3;  // not upright: linearize finds theta = lambda from the front contact
    qd[kThetaR] = -v / kRearRadius;
    return num::linearize(*equations_, q, qd, num::LinearizationOptions{});
  }

  static Eigen::Index state(const num::LinearModel& lin, const std::string& name) {
    const auto it = std::find(lin.states.begin(), lin.states.end(), name);
    EXPECT_NE(it, lin.states.end()) << name;
    return static_cast<Eigen::Index>(it - lin.states.begin());
  }

  // The nonzero eigenvalues (the lean and steer modes), sorted by real, then imaginary part.
  static std::vector<std::complex<double>> modes(const num::LinearModel& lin) {
    std::vector<std::complex<double>> s;
    for (const auto& e : lin.eigenvalues)
      if (std::abs(e) > 1e-6) s.push_back(e);
    std::sort(s.begin(), s.end(), [](auto a, auto b) {
      return a.real() != b.real() ? a.real() < b.real() : a.imag() < b.imag();
    });
    return s;
  }

  // The largest real part of the weave pair (stable when negative).
  static double weave_real_part(double v) {
    double largest = -1e300;
    for (const auto& s : modes(at_speed(v)))
      if (s.imag() != 0.0) largest = std::max(largest, s.real());
    return largest;
  }

  // The capsize mode is real and passes through 0, where the lean and steer stiffness block of A
  // (−M⁻¹(g K0 + v² K2)) is singular: its determinant changes sign there.
  static double stiffness_determinant(double v) {
    const auto lin = at_speed(v);
    const Eigen::Index rows[2] = {state(lin, "dot(phi)"), state(lin, "dot(delta)")};
    const Eigen::Index angles[2] = {state(lin, "phi"), state(lin, "delta")};
    return lin.A(rows[0], angles[0]) * lin.A(rows[1], angles[1]) -
           lin.A(rows[0], angles[1]) * lin.A(rows[1], angles[0]);
  }

  // Where f changes sign between a and b: secant steps kept inside the bracket (regula falsi,
  // Illinois variant), to 1e-12 in v.
  template <typename F>
  static double root(const F& f, double a, double b) {
    double fa = f(a), fb = f(b);
    EXPECT_LT(fa * fb, 0.0);
    int side = 0;
    for (int i = 0; i < 60 && std::abs(b - a) > 1e-12; ++i) {
      const double c = (a * fb - b * fa) / (fb - fa), fc = f(c);
      if (fc == 0.0) return c;
      if (fc * fb < 0) {
        a = b;
        fa = fb;
        if (side == -1) fb /= 2;
        side = -1;
      } else {
        if (side == 1) fa /= 2;
        side = 1;
      }
      b = c;
      fb = fc;
    }
    return b;
  }

  static principles::Equations* equations_;
};

principles::Equations* Bicycle::equations_ = nullptr;

// The operating point: the front contact fixes the pitch at lambda (the steer axis tilt) when
// upright, and the constraints give dot(x) = v and the front wheel's rate -v/rF.
TEST_F(Bicycle, UprightRunningIsSolvedFromTheConstraints) {
  const auto lin = at_speed(5.0);
  EXPECT_TRUE(lin.completed);
  EXPECT_NEAR(lin.q[kTheta], kLambda, 1e-12);
  EXPECT_NEAR(lin.qd[0], 5.0, 1e-12);          // dot(x)
  EXPECT_NEAR(lin.qd[7], -5.0 / 0.35, 1e-11);  // dot(thetaF)
  for (Eigen::Index j : {Eigen::Index{1}, Eigen::Index{2}, kPhi, kTheta, kDelta})
    EXPECT_NEAR(lin.qd[j], 0.0, 1e-12) << j;
  // The holonomic front contact makes the pitch dependent; the free speeds are the model's
  // independent ones.
  EXPECT_EQ(lin.dependent_coordinates, (std::vector<std::size_t>{4}));
  EXPECT_EQ(lin.independent_speeds, (std::vector<std::size_t>{3, 5, 6}));
}

// The lean and steer rows of appell's A are those of the benchmark's equations:
//   [φ̈; δ̈] = −M⁻¹ (g K0 + v² K2) [φ; δ] − v M⁻¹ C1 [φ̇; δ̇],
// entry by entry, at standstill, below the weave speed, in the stable range and above capsize.
// The printed matrices have 14 decimals, so the entries computed from them carry ~1e-14 of
// relative rounding (M⁻¹ has a condition number of ~30); the tolerance is 1e-11 relative.
TEST_F(Bicycle, LinearLeanAndSteerEquationsAreTheBenchmarks) {
  const Eigen::Matrix2d Minv = kM.inverse();
  for (double v : {0.0, 1.0, 4.0, 5.0, 10.0}) {
    SCOPED_TRACE("v = " + std::to_string(v));
    const auto lin = at_speed(v);
    const Eigen::Index rows[2] = {state(lin, "dot(phi)"), state(lin, "dot(delta)")};
    const Eigen::Index angles[2] = {state(lin, "phi"), state(lin, "delta")};
    const Eigen::Index rates[2] = {state(lin, "dot(phi)"), state(lin, "dot(delta)")};
    const Eigen::Matrix2d stiffness = -Minv * (kG * kK0 + v * v * kK2), damping = -v * Minv * kC1;
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 2; ++k) {
        const double scale = std::max(1.0, std::abs(stiffness(i, k)));
        EXPECT_NEAR(lin.A(rows[i], angles[k]), stiffness(i, k), 1e-11 * scale) << i << "," << k;
        EXPECT_NEAR(lin.A(rows[i], rates[k]), damping(i, k),
                    1e-11 * std::max(1.0, std::abs(damping(i, k))))
            << i << "," << k;
      }
    // Lean and steer do not depend on where the bicycle is, where it heads, or the wheels' angles.
    for (const char* other : {"x", "y", "psi", "thetaR", "thetaF"})
      for (Eigen::Index row : rows) EXPECT_NEAR(lin.A(row, state(lin, other)), 0.0, 1e-12) << other;
  }
}

// Table 2 of the benchmark: the eigenvalues of the lean and steer motion at 0, 4, 5 and 10 m/s
// (printed with 14 decimals; appell's are within 4e-14 of them). The other six eigenvalues
// (position, heading, the wheels' angles and the forward speed) are 0.
TEST_F(Bicycle, EigenvaluesAreThoseOfTable2) {
  using C = std::complex<double>;
  const std::vector<std::pair<double, std::vector<C>>> table{
      {0.0, {C(-5.53094371765393), C(-3.13164324790656), C(3.13164324790656), C(5.53094371765393)}},
      {4.0,
       {C(-12.15861426576447), C(-1.42944427361326), C(0.41325331521125, -3.07910818603206),
        C(0.41325331521125, 3.07910818603206)}},
      {5.0,
       {C(-14.07838969279822), C(-0.77534188219585, -4.46486771378823),
        C(-0.77534188219585, 4.46486771378823), C(-0.32286642900409)}},
      {10.0,
       {C(-24.62459635017404), C(-3.72016840437287, -10.90681139476287),
        C(-3.72016840437287, 10.90681139476287), C(0.16105338653172)}}};
  for (const auto& [v, published] : table) {
    SCOPED_TRACE("v = " + std::to_string(v));
    const auto lin = at_speed(v);
    ASSERT_EQ(lin.eigenvalues.size(), 10);
    std::size_t zeros = 0;
    for (const auto& e : lin.eigenvalues) zeros += e == C(0.0, 0.0) ? 1 : 0;
    EXPECT_EQ(zeros, 6u);
    const auto ours = modes(lin);
    ASSERT_EQ(ours.size(), 4u);
    for (std::size_t k = 0; k < 4; ++k)
      EXPECT_LT(std::abs(ours[k] - published[k]), 1e-12) << ours[k] << " vs " << published[k];
  }
}

// The self-stable range: the weave mode becomes stable at v_w = 4.29238253634111 m/s and the
// capsize mode unstable at v_c = 6.02426201538837 m/s (the benchmark's section 5), found here
// from appell's linear model: where the weave pair's real part and the capsize eigenvalue cross 0.
TEST_F(Bicycle, WeaveAndCapsizeSpeedsAreTheBenchmarks) {
  EXPECT_GT(weave_real_part(3.0), 0.0);  // weave grows
  EXPECT_LT(weave_real_part(5.0), 0.0);  // self-stable: every mode decays
  for (const auto& s : modes(at_speed(5.0))) EXPECT_LT(s.real(), 0.0) << s;
  EXPECT_GT(modes(at_speed(7.0)).back().real(), 0.0);  // capsize grows
  EXPECT_NEAR(root(weave_real_part, 4.0, 4.5), 4.29238253634111, 1e-11);
  EXPECT_NEAR(root(stiffness_determinant, 5.5, 6.5), 6.02426201538837, 1e-11);
}

// `appell verify` on the bicycle (13 coordinates and constraints) ends with a true verdict: no
// row differs, each is equal or agrees numerically. It once ran out of memory in the minimal
// form's symbolic comparison.
TEST(BicycleCli, VerifyAgrees) {
  for (const std::string options : {"", " --numeric-only"}) {
    SCOPED_TRACE(options);
    const auto run = run_cli("verify " + kBicycle + options);
    EXPECT_EQ(run.code, 0) << run.out;
    EXPECT_EQ(run.out.find("DISAGREEMENT"), std::string::npos) << run.out;
    EXPECT_EQ(run.out.find("differ "), std::string::npos) << run.out;
    for (const char* row :
         {"lagrange ", "gibbs-appell ", "dalembert ", "gauss ", "nielsen ", "minimal "}) {
      const auto at = run.out.find(std::string("\n") + row);
      ASSERT_NE(at, std::string::npos) << row << run.out;
      const std::string line = run.out.substr(at + 1, run.out.find('\n', at + 1) - at - 1);
      EXPECT_TRUE(line.find("agree numerically") != std::string::npos ||
                  line.find("equal") != std::string::npos)
          << line;
    }
  }
}

// `appell linearize` prints the benchmark's eigenvalues at the model's initial state (5 m/s).
TEST(BicycleCli, LinearizePrintsTheBenchmarksEigenvalues) {
  const auto run = run_cli("linearize " + kBicycle);
  EXPECT_EQ(run.code, 0) << run.out;
  for (const char* s : {"-14.0783896928", "-0.775341882196 ± 4.46486771379i", "-0.322866429004"})
    EXPECT_NE(run.out.find(s), std::string::npos) << s << "\n" << run.out;
}

}  // namespace
