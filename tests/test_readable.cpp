// sym::readable: trigonometric canonicalisation and collection for people.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "appell/sym/dag.hpp"
#include "appell/sym/operation_count.hpp"
#include "appell/sym/readable.hpp"
#include "appell/sym/time_functions.hpp"

namespace {

using GiNaC::cos;
using GiNaC::ex;
using GiNaC::numeric;
using GiNaC::pow;
using GiNaC::sin;
using GiNaC::sqrt;

class ReadableTest : public ::testing::Test {
 protected:
  ReadableTest() {
    for (const char* name : {"q1", "q2", "x"})
      functions.declare(name, appell::sym::TimeFunctionKind::Coordinate);
    q1 = functions.derivative("q1", 0);
    q2 = functions.derivative("q2", 0);
    x = functions.derivative("x", 0);
    dq1 = functions.derivative("q1", 1);
    dq2 = functions.derivative("q2", 1);
    dx = functions.derivative("x", 1);
    context = appell::sym::ReadableContext::for_functions(functions, {"q1", "q2", "x"},
                                                          {M, l, g, k, m, beta});
  }

  ex simplify(const ex& e) const { return appell::sym::readable(e, context); }

  /// |a - b| at a random point of all symbols involved (away from singular values).
  double difference_at_random_point(const ex& a, const ex& b, unsigned seed) const {
    std::mt19937 generator(seed);
    std::uniform_real_distribution<double> value(0.3, 1.7);
    GiNaC::exmap point;
    for (const GiNaC::symbol& s : {q1, q2, x, dq1, dq2, dx, M, l, g, k, m, beta})
      point[s] = value(generator);
    const ex difference = GiNaC::evalf(appell::sym::substitute(a - b, point));
    if (!GiNaC::is_a<numeric>(difference) || !GiNaC::ex_to<numeric>(difference).is_real())
      return HUGE_VAL;  // a symbol left over, or an imaginary part
    return std::abs(GiNaC::ex_to<numeric>(difference).to_double());
  }

  void expect_numerically_equal(const ex& a, const ex& b) const {
    for (unsigned seed = 1; seed <= 5; ++seed)
      EXPECT_LT(difference_at_random_point(a, b, seed), 1e-9) << a << " vs " << b;
  }

  appell::sym::TimeFunctions functions;
  GiNaC::symbol q1, q2, x, dq1, dq2, dx;
  GiNaC::symbol M{"M"}, l{"l"}, g{"g"}, k{"k"}, m{"m"}, beta{"beta"};
  appell::sym::ReadableContext context;
};

TEST_F(ReadableTest, PythagoreanIdentityIsOne) {
  EXPECT_EQ(simplify(pow(sin(q1), 2) + pow(cos(q1), 2)), ex(1));
  EXPECT_EQ(simplify(pow(sin(q1 + q2), 2) + pow(cos(q1 + q2), 2)), ex(1));
}

TEST_F(ReadableTest, ProductsOfTrigBecomeAngleSums) {
  EXPECT_EQ(simplify(cos(q1) * cos(q2) - sin(q1) * sin(q2)), cos(q1 + q2));
  EXPECT_EQ(simplify(sin(q1) * cos(q2) + cos(q1) * sin(q2)), sin(q1 + q2));
  EXPECT_EQ(simplify(cos(q1) * cos(q2) + sin(q1) * sin(q2)), cos(q1 - q2));
}

TEST_F(ReadableTest, DoubleAndHalfAngles) {
  EXPECT_EQ(simplify(2 * sin(q1) * cos(q1)), sin(2 * q1));
  EXPECT_EQ(simplify(pow(cos(q1), 2) - pow(sin(q1), 2)), cos(2 * q1));
  EXPECT_EQ(simplify(sin(2 * q1) - 2 * sin(q1) * cos(q1)), ex(0));
  // cos(q/2) needs z = exp(i q/2) for the atom q, also where q appears whole.
  EXPECT_EQ(simplify(2 * pow(cos(q1 / 2), 2) - 1 - cos(q1)), ex(0));
  // Written back as a power of the half angle, which is shorter than 1/2 + cos(q1)/2.
  EXPECT_EQ(simplify(pow(cos(q1 / 2), 2)), pow(cos(q1 / 2), 2));
  EXPECT_EQ(simplify(pow(cos(q1 / 2), 2) - numeric(1, 2) - cos(q1) / 2), ex(0));
}

TEST_F(ReadableTest, ConstantPhasesAreEvaluated) {
  EXPECT_EQ(simplify(cos(q1 + GiNaC::Pi / 2)), -sin(q1));
  EXPECT_EQ(simplify(sin(q1 + GiNaC::Pi)), -sin(q1));
  const ex shifted = cos(q1 + 1);
  expect_numerically_equal(simplify(shifted), shifted);
}

// Seed 000, planar 2R robot: M11 = M l^2 (5/3 + cos q2) from rod inertias and the second rod's
// centre of mass velocity, written the long way.
TEST_F(ReadableTest, PlanarRobotMassEntry) {
  const ex messy = M * pow(l, 2) / 3 + M * pow(l, 2) / 12 +
                   (M * pow(l, 2) / 4) *
                       (pow(2 * cos(q1) + cos(q1 + q2), 2) + pow(2 * sin(q1) + sin(q1 + q2), 2));
  const ex expected = M * pow(l, 2) * (numeric(5, 3) + cos(q2));
  const ex result = simplify(messy);
  EXPECT_TRUE(result.is_equal(expected)) << result;
  EXPECT_EQ(simplify(messy - expected), ex(0));
  expect_numerically_equal(result, messy);
}

TEST_F(ReadableTest, ForcingIsCollectedOverVelocities) {
  const ex f = M * pow(l, 2) * sin(q2) * dq1 * dq2 + M * pow(l, 2) * sin(q2) * pow(dq2, 2) / 2 -
               numeric(3, 2) * M * g * l * cos(q1) -
               M * g * l * (cos(q1) * cos(q2) - sin(q1) * sin(q2)) / 2;
  // The velocity groups share M l² sin(q2) q̇2 (merged: q̇2 (2 q̇1 + q̇2)), and every group
  // shares M l / 2, which is taken out: shorter than the groups side by side, as SymPy writes it.
  const ex expected = numeric(1, 2) * M * l *
                      (l * sin(q2) * dq2 * (2 * dq1 + dq2) - g * (3 * cos(q1) + cos(q1 + q2)));
  const ex result = simplify(f);
  EXPECT_TRUE(result.is_equal(expected)) << result;
  expect_numerically_equal(result, f);
}

TEST_F(ReadableTest, EqualNumericContentIsFactoredOut) {
  // Both velocity-free terms have coefficient -1/2: it is factored with M*g*l.
  const ex f = -M * g * l * cos(q1) / 2 - M * g * l * cos(q1 + q2) / 2;
  const ex expected = numeric(-1, 2) * M * g * l * (cos(q1) + cos(q1 + q2));
  EXPECT_TRUE(simplify(f).is_equal(expected)) << simplify(f);
}

TEST_F(ReadableTest, ParametersInDenominators) {
  EXPECT_EQ(simplify(g / l * pow(sin(q1), 2) + g / l * pow(cos(q1), 2)), g / l);
  const ex pendulum = -g * sin(q1) / l + k * (pow(cos(q2), 2) + pow(sin(q2), 2)) / (M + m);
  const ex result = simplify(pendulum);
  EXPECT_EQ(simplify(result - (-g * sin(q1) / l + k / (M + m))), ex(0));
  expect_numerically_equal(result, pendulum);
  // An angle-dependent denominator is not a Laurent polynomial: kept, simplified inside.
  const ex ratio = k / (l * (2 + pow(cos(q1), 2) + pow(sin(q1), 2) + cos(q2)));
  const ex simplified_ratio = simplify(ratio);
  expect_numerically_equal(simplified_ratio, ratio);
  EXPECT_EQ(simplify(simplified_ratio * (3 + cos(q2)) * l / k), ex(1));
}

TEST_F(ReadableTest, RationalTermsCancelOverOneDenominator) {
  // A pendulum in polar speeds (x, k as its position) has 1/(x^2 + k^2) in its entries; the
  // terms of one coefficient cancel only over one denominator.
  const ex r2 = pow(x, 2) + pow(k, 2);
  const ex vanishing = 2 * pow(x, 4) / r2 + 4 * pow(x, 2) * pow(k, 2) / r2 + 2 * pow(k, 4) / r2 -
                       2 * pow(x, 2) - 2 * pow(k, 2);
  const ex forcing = m * dq1 * dx * vanishing / pow(r2, 3) - m * g * x / r2;
  const ex result = simplify(forcing);
  EXPECT_TRUE(result.is_equal(simplify(-m * g * x / r2))) << result;
  expect_numerically_equal(result, forcing);
  // A quaternion's |e|^4 over |e|^4 (a box's inertia in its speeds) is 1.
  EXPECT_EQ(
      simplify(m * pow(l, 2) * (pow(x, 4) + 2 * pow(x, 2) * pow(k, 2) + pow(k, 4)) / pow(r2, 2)),
      m * pow(l, 2));
  // What does not cancel is left as short as it was, and equal.
  const ex kept = m / r2 + m * x / pow(r2, 2);
  const ex kept_result = simplify(kept);
  expect_numerically_equal(kept_result, kept);
  EXPECT_LE(appell::sym::operation_count(kept_result), appell::sym::operation_count(kept))
      << kept_result;
}

TEST_F(ReadableTest, LengthCoordinatesAreCoefficients) {
  EXPECT_EQ(simplify(x * pow(cos(q1), 2) + x * pow(sin(q1), 2)), ex(x));
  const ex slider = m * pow(dx, 2) * cos(q1) + m * x * dq1 * dx * sin(q1) * 2 +
                    m * pow(x, 2) * pow(dq1, 2) * (pow(sin(q1), 2) + pow(cos(q1), 2));
  const ex result = simplify(slider);
  expect_numerically_equal(result, slider);
  EXPECT_EQ(simplify(result - m * pow(x, 2) * pow(dq1, 2) - m * pow(dx, 2) * cos(q1) -
                     2 * m * x * sin(q1) * dq1 * dx),
            ex(0));
}

TEST_F(ReadableTest, OpaqueFunctionsAndNestedRoots) {
  const ex one = pow(sin(q1), 2) + pow(cos(q1), 2);
  EXPECT_EQ(simplify(sqrt(1 + sqrt(2 + one))), sqrt(1 + sqrt(ex(3))));
  EXPECT_EQ(simplify(GiNaC::tan(q1 * one)), GiNaC::tan(q1));
  EXPECT_EQ(simplify(GiNaC::exp(one * q2)), GiNaC::exp(q2));
  const ex distance = sqrt(pow(l * cos(q1) + x, 2) + pow(l * sin(q1), 2));
  expect_numerically_equal(simplify(distance), distance);
  const ex mixed = GiNaC::tan(q1) * cos(q1) + sqrt(l) * pow(sin(q2), 2);
  expect_numerically_equal(simplify(mixed), mixed);
}

TEST_F(ReadableTest, ConstantAnglesStayInCoefficients) {
  // A parameter angle (a fixed tilt) is written out of the coordinate's angle.
  EXPECT_TRUE(simplify(cos(q1 - beta)).is_equal(cos(beta) * cos(q1) + sin(beta) * sin(q1)))
      << simplify(cos(q1 - beta));
  EXPECT_EQ(simplify(pow(sin(beta), 2) + pow(cos(beta), 2)), ex(1));
  EXPECT_EQ(simplify(m * pow(sin(q1 + beta), 2) + m * pow(cos(q1 + beta), 2)), ex(m));
  const ex tilted = m * g * l * sin(q1 + beta) * cos(beta) * dq1;
  expect_numerically_equal(simplify(tilted), tilted);
}

TEST_F(ReadableTest, RootsKeepTheirFactoredBase) {
  // Not sqrt(l^2 + 2*l*x + x^2): a polynomial under a root is factored, the root of a square is
  // its magnitude, and expansions of the products around it leave it alone.
  const ex spring = k * (x + l) * (l / sqrt(pow(x + l, 2)) - 1);
  const ex result = simplify(spring);
  EXPECT_TRUE(result.has(GiNaC::abs(x + l))) << result;
  expect_numerically_equal(result, spring);
}

TEST_F(ReadableTest, FloatingPointCoefficients) {
  EXPECT_EQ(simplify(pow(cos(0.5 * q1), 2) + pow(sin(0.5 * q1), 2)), ex(1));
  const ex e = 0.25 * M * cos(q1) * cos(q2) - 0.25 * M * sin(q1) * sin(q2);
  expect_numerically_equal(simplify(e), e);
}

TEST_F(ReadableTest, SharedNodesAreVisitedOnce) {
  // e_k+1 = e_k cos² + e_k sin²: the tree has 2^200 copies of e_0, the DAG 200 levels.
  ex e = cos(q1) * cos(q2) - sin(q1) * sin(q2);
  for (int level = 0; level < 200; ++level) e = e * pow(cos(x), 2) + e * pow(sin(x), 2);
  EXPECT_EQ(simplify(e), cos(q1 + q2));
}

TEST_F(ReadableTest, MatrixEntriesAreSimplified) {
  GiNaC::matrix mass{{M * (pow(sin(q2), 2) + pow(cos(q2), 2)), M * cos(q1) * cos(q2)},
                     {M * cos(q1) * cos(q2), M * l}};
  const GiNaC::matrix result = appell::sym::readable(mass, context);
  EXPECT_EQ(result(0, 0), ex(M));
  // The product of cosines is shorter than M*(cos(q1 - q2) + cos(q1 + q2))/2, so it stays.
  EXPECT_TRUE(result(0, 1).is_equal(M * cos(q1) * cos(q2))) << result(0, 1);
  EXPECT_TRUE(result(1, 0).is_equal(result(0, 1)));
  EXPECT_EQ(result(1, 1), M * l);
}

TEST_F(ReadableTest, ResultIsIdempotent) {
  const ex e = M * pow(l, 2) * pow(cos(q1) + sin(q2), 3) * dq1 + g * cos(q1 - q2);
  const ex once = simplify(e);
  EXPECT_TRUE(simplify(once).is_equal(once)) << once;
  expect_numerically_equal(once, e);
}

}  // namespace
