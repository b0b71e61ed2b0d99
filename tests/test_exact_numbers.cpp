// Numbers written exactly are held to the range of a double where they are read (issue 39,
// items 1 and 5). CLN, which GiNaC evaluates with, has a far wider exponent range than a double
// and is wrong near its end: exp(x) is exactly 1 for x above about 1e20, so exp(exp(1000)) was a
// parameter of value 1 (eval and simulate ran with it, exit 0) and a claim multiplied by it
// "held". sqrt(-1) or log(-1) in an input, a case or a trajectory reached a tape as "internal
// error: complex number in a numeric expression". Each is now exit 2 at its place, and the
// numbers that are in range keep their correctly rounded values.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <string>

#include "appell/appell.hpp"
#include "appell/sym/finite_number.hpp"
#include "support/model_error_of.hpp"
#include "support/run_cli.hpp"

namespace {

using namespace appell;
using test_support::run_cli;

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = "/tmp/appell_exact_numbers_" + std::to_string(::getpid()) + "_" + name;
  std::ofstream(path) << text;
  return path;
}

// An exact number as an expression: GiNaC::exp(GiNaC::numeric) would evaluate at once by CLN.
GiNaC::ex num(int n) { return GiNaC::numeric(n); }

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A pendulum whose length is `length` (an expression of the parameter a).
std::string pendulum(const std::string& a, const std::string& length) {
  return "name: p\nparameters:\n  a: " + a + "\n  l: " + length +
         "\n  g: 9.81\ncoordinates: [q]\nframes:\n  arm: {parent: world, rotation: rot_z(q)}\n"
         "particles:\n  bob: {frame: arm, mass: 1, position: [0, -l, 0]}\n"
         "gravity: [0, -g, 0]\n";
}

TEST(ExactNumbers, ClnsExpOfAHugeArgumentIsNotTakenForOne) {
  // The cause itself: CLN's exp of 1e100 is 1. The walk never lets CLN see such an argument.
  const GiNaC::ex huge = GiNaC::exp(GiNaC::exp(num(1000)));
  ASSERT_EQ(GiNaC::evalf(huge), GiNaC::ex(GiNaC::numeric(1.0)))
      << "CLN no longer takes exp(exp(1000)) for 1: the guard may be simpler now";
  const auto why = sym::finite_double_defect(huge);
  ASSERT_TRUE(why.has_value());
  EXPECT_TRUE(contains(*why, "exp(1000)")) << *why;
  EXPECT_TRUE(contains(*why, "beyond the range of a double")) << *why;
  EXPECT_THROW(static_cast<void>(sym::finite_double(huge)), sym::NotAFiniteDouble);
  // exp(exp(exp(5))): exp(5) and exp(148.4) are doubles, exp(1.9e64) is not.
  EXPECT_TRUE(sym::finite_double_defect(GiNaC::exp(GiNaC::exp(GiNaC::exp(num(5))))).has_value());
}

TEST(ExactNumbers, NumbersInRangeKeepTheirCorrectlyRoundedValues) {
  EXPECT_EQ(sym::finite_double(GiNaC::numeric(4, 5)), 0.8);
  EXPECT_EQ(sym::finite_double(GiNaC::sqrt(num(2)) / 2), std::sqrt(2.0) / 2);
  EXPECT_EQ(sym::finite_double(GiNaC::exp(num(709))), std::exp(709.0));
  EXPECT_EQ(sym::finite_double(GiNaC::Pi), M_PI);
  // Cancellation to zero is a value, not an underflow; sin(pi) is exactly 0 in GiNaC.
  EXPECT_EQ(sym::finite_double(GiNaC::sin(GiNaC::Pi)), 0.0);
  // Symbols take the numbers given apart: exp(exp(l)) at l = 1000 is refused, at l = 1 it is e^e.
  const GiNaC::symbol l("l");
  EXPECT_TRUE(sym::finite_double_defect(GiNaC::exp(GiNaC::exp(l)), {{l, 1000}}).has_value());
  EXPECT_NEAR(sym::finite_double(GiNaC::exp(GiNaC::exp(l)), {{l, 1}}), std::exp(std::exp(1.0)),
              1e-15 * std::exp(std::exp(1.0)));
  EXPECT_TRUE(sym::finite_double_defect(GiNaC::exp(l)).has_value());  // no number for l
}

TEST(ExactNumbers, OverflowUnderflowAndNonRealValuesAreNamed) {
  const auto defect = [](const GiNaC::ex& e) { return sym::finite_double_defect(e).value_or(""); };
  EXPECT_TRUE(contains(defect(GiNaC::exp(num(-1000))), "underflows"));
  EXPECT_TRUE(contains(defect(GiNaC::log(num(-1))), "complex"));
  EXPECT_TRUE(contains(defect(GiNaC::asin(num(2))), "not a real number"));
  EXPECT_TRUE(contains(defect(GiNaC::sqrt(num(-1))), "complex"));
  EXPECT_TRUE(contains(defect(GiNaC::pow(GiNaC::numeric(10), 400)), "beyond the range"));
  EXPECT_TRUE(contains(defect(GiNaC::cosh(num(800))), "beyond the range"));
  EXPECT_TRUE(
      contains(defect(GiNaC::pow(num(-8), GiNaC::ex(GiNaC::numeric(1, 3)))), "not a real number"));
}

TEST(ExactNumbers, AParameterOutOfRangeIsRefusedAtItsPlace) {
  for (const std::string value : {"exp(exp(1000))", "exp(exp(exp(5)))", "exp(exp(20))",
                                  "1e300*1e300", "exp(-1000)", "log(-1)", "sqrt(-1)", "acos(2)"}) {
    const std::string text = pendulum(value, "1");
    const auto e = test_support::model_error_of(text);
    EXPECT_EQ(e.where().line, 3) << value << ": " << e.what();
    EXPECT_TRUE(contains(e.what(), "not a finite real number") ||
                contains(e.what(), "parameter value is not a real number"))
        << value << ": " << e.what();
    const std::string path = write_file("range.yaml", text);
    const auto r = run_cli("eval " + path + " --q 0.1 --qd 0");
    EXPECT_EQ(r.code, 2) << value << "\n" << r.out;
    EXPECT_TRUE(contains(r.out, path + ":3:")) << r.out;
    EXPECT_FALSE(contains(r.out, "internal error")) << r.out;
  }
}

TEST(ExactNumbers, ADefaultOfEarlierParametersOutOfRangeIsRefused) {
  // a = 1000 is fine; l = exp(exp(a)) is exp(exp(1000)): refused at l, not taken for 1.
  const std::string path = write_file("derived.yaml", pendulum("1000", "exp(exp(a))"));
  const auto r = run_cli("eval " + path + " --q 0.1 --qd 0");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(contains(r.out, path + ":4:")) << r.out;
  EXPECT_TRUE(contains(r.out, "exp(a) is beyond the range of a double (at a = 1000)")) << r.out;
  // Given at run time: the default of l is recomputed from --set a=1000 and refused there.
  const std::string fine = write_file("derived_fine.yaml", pendulum("1", "exp(exp(a))/10"));
  EXPECT_EQ(run_cli("eval " + fine + " --q 0.1 --qd 0").code, 0);
  const auto set = run_cli("eval " + fine + " --q 0.1 --qd 0 --set a=1000");
  EXPECT_EQ(set.code, 2) << set.out;
  EXPECT_FALSE(contains(set.out, "internal error")) << set.out;
  EXPECT_TRUE(contains(set.out, "parameter value is not a real number")) << set.out;
}

TEST(ExactNumbers, NonRealValuesInEveryOptionAreLocatedBadInput) {
  const std::string cart = std::string(APPELL_EXAMPLES_DIR) + "/spring_damper_cart.yaml";
  const std::string arm = std::string(APPELL_EXAMPLES_DIR) + "/planar_2r.yaml";
  for (const std::string bad : {"sqrt(-1)", "log(-1)", "asin(2)", "exp(exp(1000))"}) {
    for (const std::string& args :
         {"eval " + cart + " --q 0.1,0.2 --qd 0,0 --set 'u=" + bad + "'",
          "simulate " + cart + " --t-end 0.1 --out /dev/null --input 'u=" + bad + "'",
          "simulate " + cart + " --t-end 0.1 --out /dev/null --set 'k=" + bad + "'",
          "inverse " + arm + " --trajectory 'q1=" + bad +
              "*t; q2=t' --t-end 0.1 --output-step 0.05 --out /dev/null",
          "eval " + cart + " --q '" + bad + ",0' --qd 0,0"}) {
      const auto r = run_cli(args);
      EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
      EXPECT_FALSE(contains(r.out, "internal error")) << args << "\n" << r.out;
      EXPECT_FALSE(contains(r.out, "complex number in a numeric expression")) << r.out;
    }
  }
}

TEST(ExactNumbers, AClaimScaledByAHugeNumberDoesNotHold) {
  const std::string model = std::string(APPELL_EXAMPLES_DIR) + "/planar_2r.yaml";
  const std::string claims = write_file("claims.yaml",
                                        "claims:\n  - name: scaled\n    equation: "
                                        "exp(exp(1000))*(ddot(q1)) = 0\n    coordinate: q1\n");
  const auto r = run_cli("check " + model + " " + claims);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(contains(r.out, claims + ":3:")) << r.out;
  EXPECT_FALSE(contains(r.out, "holds")) << r.out;
}

}  // namespace
