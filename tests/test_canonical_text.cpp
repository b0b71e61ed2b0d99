// sym::canonical_text: the same characters in every run, whatever order GiNaC keeps a sum's or a
// product's operands in (it follows the order the symbols were created in); and `appell codegen`
// of a model with a parameter defined by an expression, which prints it in a comment, gives the
// same bytes in every process.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <string>

#include "appell/sym/canonical_text.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"

namespace {

using appell::sym::canonical_text;

// m*(a^2 + b^2)/12 + l*a*b - 3*sin(a - l) over symbols made in the given order.
GiNaC::ex made_in_order(const std::vector<std::string>& order) {
  std::map<std::string, GiNaC::symbol> s;
  for (const auto& name : order) s.emplace(name, GiNaC::symbol(name));
  const GiNaC::ex a = s.at("a"), b = s.at("b"), l = s.at("l"), m = s.at("m");
  return m * (GiNaC::pow(a, 2) + GiNaC::pow(b, 2)) / 12 + l * a * b - 3 * GiNaC::sin(a - l);
}

TEST(CanonicalText, TheSameWhateverOrderTheSymbolsWereMadeIn) {
  const std::string first = canonical_text(made_in_order({"a", "b", "l", "m"}));
  EXPECT_EQ(canonical_text(made_in_order({"m", "l", "b", "a"})), first);
  EXPECT_EQ(canonical_text(made_in_order({"l", "a", "m", "b"})), first);
  // It is GiNaC's syntax: it reads back as the same expression.
  GiNaC::symbol a("a"), b("b"), l("l"), m("m");
  GiNaC::lst symbols{a, b, l, m};
  const GiNaC::ex read = GiNaC::ex(first, symbols);
  EXPECT_TRUE(
      (read - (m * (GiNaC::pow(a, 2) + GiNaC::pow(b, 2)) / 12 + l * a * b - 3 * GiNaC::sin(a - l)))
          .expand()
          .is_zero())
      << first;
}

TEST(CanonicalText, SignsAndGroupingReadAsWritten) {
  GiNaC::symbol x("x"), y("y");
  EXPECT_EQ(canonical_text(GiNaC::ex(-x)), "-x");
  EXPECT_EQ(canonical_text(GiNaC::pow(x + y, 2)), canonical_text(GiNaC::pow(y + x, 2)));
  EXPECT_NE(canonical_text(GiNaC::pow(x + y, 2)).find("("), std::string::npos);
  EXPECT_EQ(canonical_text(GiNaC::numeric(1, 3) * x), canonical_text(x / 3));
}

// GiNaC keeps a sum factor of a product with either sign, by hash order: −cos(λ)·(−r + f) in one
// run is cos(λ)·(r − f) in the next (the Whipple bicycle's d2 in `appell codegen`'s comment). Both
// trees, held as written, give one text, which reads back as the expression.
TEST(CanonicalText, ASumFactorsSignDoesNotShowInTheText) {
  GiNaC::symbol r("r"), f("f"), l("l");
  const GiNaC::ex c = GiNaC::cos(l);
  const GiNaC::ex one = GiNaC::mul(GiNaC::exvector{c, r - f}).hold();
  const GiNaC::ex other = GiNaC::mul(GiNaC::exvector{GiNaC::ex(-1), c, f - r}).hold();
  ASSERT_NE(GiNaC::ex_to<GiNaC::mul>(one).nops(), GiNaC::ex_to<GiNaC::mul>(other).nops());
  EXPECT_EQ(canonical_text(one), canonical_text(other));
  EXPECT_EQ(canonical_text(1 + one), canonical_text(1 + other));
  // An odd power moves the sign, an even one does not.
  EXPECT_EQ(
      canonical_text(GiNaC::mul(c, GiNaC::power(r - f, 3)).hold()),
      canonical_text(
          GiNaC::mul(GiNaC::exvector{GiNaC::ex(-1), c, GiNaC::power(f - r, 3).hold()}).hold()));
  EXPECT_EQ(canonical_text(GiNaC::mul(c, GiNaC::power(r - f, 2)).hold()),
            canonical_text(GiNaC::mul(c, GiNaC::power(f - r, 2).hold()).hold()));
  GiNaC::lst symbols{r, f, l};
  const GiNaC::ex read = GiNaC::ex(canonical_text(other), symbols);
  EXPECT_TRUE((read - c * (r - f)).expand().is_zero()) << canonical_text(other);
}

// A negative coefficient is a sign like any other: GiNaC keeps −1/3·c·(r − f) or 1/3·c·(f − r)
// (and −0.5·c·(r − f) or 0.5·c·(f − r)); one text, which reads back as the expression.
TEST(CanonicalText, ANegativeCoefficientsSignIsTheProducts) {
  GiNaC::symbol r("r"), f("f"), l("l");
  const GiNaC::ex c = GiNaC::cos(l);
  for (const GiNaC::numeric& k : {GiNaC::numeric(1, 3), GiNaC::numeric(0.5)}) {
    const GiNaC::ex one = GiNaC::mul(GiNaC::exvector{-k, c, r - f}).hold();
    const GiNaC::ex other = GiNaC::mul(GiNaC::exvector{k, c, f - r}).hold();
    ASSERT_FALSE(one.is_equal(other));
    for (const auto style : {appell::sym::TextStyle::Readable, appell::sym::TextStyle::Marked}) {
      EXPECT_EQ(canonical_text(one, style), canonical_text(other, style));
      EXPECT_EQ(canonical_text(1 + one, style), canonical_text(1 + other, style));
    }
    GiNaC::lst symbols{r, f, l};
    const GiNaC::ex read = GiNaC::ex(canonical_text(other), symbols);
    EXPECT_TRUE((read + k * c * (r - f)).expand().is_zero()) << canonical_text(other);
  }
}

// An integer power of a sum is kept by GiNaC as (a − b)ⁿ or (b − a)ⁿ, anywhere (not only as a
// factor of a product); and a term −x² must read as a minus and the text of x², or a sum with
// squares of both signs orders its terms one way in one run and another in the next (the rotation
// of a quaternion frame: (e0² + e1² − e2² − e3²)·c or −(e2² + e3² − e0² − e1²)·c). One text for
// each pair, which reads back as the expression.
TEST(CanonicalText, PowersAndSquaresReadTheSameWhicheverSignGiNaCKeeps) {
  GiNaC::symbol r("r"), f("f"), l("l"), e0("e0"), e1("e1"), e2("e2"), e3("e3");
  const GiNaC::ex c = GiNaC::cos(l);
  const GiNaC::ex x = GiNaC::pow(e0, 2) + GiNaC::pow(e1, 2) - GiNaC::pow(e2, 2) - GiNaC::pow(e3, 2);
  const std::vector<std::pair<GiNaC::ex, GiNaC::ex>> pairs = {
      {GiNaC::power(r - f, 2).hold(), GiNaC::power(f - r, 2).hold()},
      {GiNaC::power(r - f, 3).hold(),
       GiNaC::mul(GiNaC::ex(-1), GiNaC::power(f - r, 3).hold()).hold()},
      {GiNaC::mul(c, x).hold(), GiNaC::mul(GiNaC::exvector{GiNaC::ex(-1), c, -x}).hold()},
  };
  GiNaC::lst symbols{r, f, l, e0, e1, e2, e3};
  for (const auto& [one, other] : pairs) {
    ASSERT_FALSE(one.is_equal(other));
    for (const auto style : {appell::sym::TextStyle::Readable, appell::sym::TextStyle::Marked}) {
      EXPECT_EQ(canonical_text(one, style), canonical_text(other, style)) << one << " " << other;
      EXPECT_EQ(canonical_text(l + one, style), canonical_text(l + other, style));
    }
    const GiNaC::ex read = GiNaC::ex(canonical_text(other), symbols);
    EXPECT_TRUE((read - one).expand().is_zero()) << canonical_text(other);
  }
  // A negative exponent in a product reads back (GiNaC reads x^-1*y as x^(-y)).
  const GiNaC::ex quotient = l / (r - f) * GiNaC::pow(e0, -2);
  const GiNaC::ex read = GiNaC::ex(canonical_text(quotient), symbols);
  EXPECT_TRUE((read - quotient).normal().is_zero()) << canonical_text(quotient);
}

// Marked (for a key), names and numbers say their kind and length: what reads alike in GiNaC's
// syntax (a name holding an operator, f(x) and its derivative D[0](f)(x), a matrix's shape) is
// told apart, a number is written exactly (the next double up is another text), and the text is
// as blind to GiNaC's choice of sign as the readable one.
TEST(CanonicalText, MarkedTextsTellApartWhatReadsAlike) {
  using appell::sym::TextStyle;
  const auto marked = [](const GiNaC::ex& e) { return canonical_text(e, TextStyle::Marked); };
  GiNaC::symbol a("a"), b("b"), ab("a*b"), x("x");
  EXPECT_EQ(canonical_text(ab), canonical_text(a * b));  // why the key marks names
  EXPECT_NE(marked(ab), marked(a * b));
  EXPECT_EQ(marked(a * b), "s1:a*s1:b");
  const GiNaC::ex derivative =
      GiNaC::fderivative(GiNaC::sin_SERIAL::serial, GiNaC::paramset{0}, GiNaC::exvector{x});
  EXPECT_NE(marked(derivative), marked(GiNaC::sin(x)));
  EXPECT_NE(canonical_text(derivative), canonical_text(GiNaC::sin(x)));
  EXPECT_NE(marked(GiNaC::matrix(1, 2, GiNaC::lst{a, b})),
            marked(GiNaC::matrix(2, 1, GiNaC::lst{a, b})));
  EXPECT_NE(marked(GiNaC::Pi), marked(GiNaC::symbol("Pi")));
  // Numbers exactly: the next double, a rational, an integer and its float.
  const double tenth = 0.1;
  EXPECT_NE(marked(GiNaC::numeric(tenth) * x),
            marked(GiNaC::numeric(std::nextafter(tenth, 1.0)) * x));
  EXPECT_NE(marked(GiNaC::numeric(1, 3) * x), marked(GiNaC::numeric(1.0 / 3) * x));
  EXPECT_NE(marked(2 * x), marked(GiNaC::numeric(2.0) * x));
  EXPECT_EQ(marked(-GiNaC::numeric(1, 12) * x), "-(n4:1/12)*s1:x");
  // The sign of a sum factor, as in ASumFactorsSignDoesNotShowInTheText.
  GiNaC::symbol r("r"), f("f"), l("l");
  const GiNaC::ex c = GiNaC::cos(l);
  const GiNaC::ex one = GiNaC::mul(GiNaC::exvector{c, r - f}).hold();
  const GiNaC::ex other = GiNaC::mul(GiNaC::exvector{GiNaC::ex(-1), c, f - r}).hold();
  EXPECT_EQ(marked(one), marked(other));
  EXPECT_EQ(marked(1 + one), marked(1 + other));
  EXPECT_NE(marked(one), marked(GiNaC::mul(c, f - r).hold()));
}

class CanonicalTextCli : public appell::test_support::ScratchDirTest {};

TEST_F(CanonicalTextCli, CodegenOfAnExpressionDefaultIsTheSameInEveryProcess) {
  const std::string model = write("rod.yaml", R"yaml(name: rod
parameters:
  m: 2
  a: 0.3
  b: 0.1
  l: 0.5
  I: m*(a^2 + b^2)/12 + l*a*b
coordinates: [q]
frames:
  rod: {rotation: rot_z(q)}
bodies:
  bar: {frame: rod, mass: m, com: [l, 0, 0], inertia: [0, 0, I]}
gravity: [0, -9.81, 0]
)yaml");
  auto generated = [&](int run) {
    const std::string out = (dir_ / ("rod" + std::to_string(run) + ".hpp")).string();
    const auto r = appell::test_support::run_cli("codegen " + model + " --out " + out);
    EXPECT_EQ(r.code, 0) << r.out;
    std::ifstream in(out);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string first = generated(0);
  EXPECT_NE(first.find("I = "), std::string::npos) << first;
  for (int run = 1; run < 5; ++run) EXPECT_EQ(generated(run), first);
}

}  // namespace
