// Issue 17: readable forms never larger than formed, powers of sin and cos where shorter, √(x²)
// with `positive:`, a bounded simplification, and named intermediates for big systems.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <set>
#include <sstream>

#include "appell/io/derivation_writer.hpp"
#include "appell/io/equation_writer.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/principles/derivation.hpp"
#include "appell/principles/derive.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/intermediates.hpp"
#include "appell/sym/operation_count.hpp"
#include "appell/sym/readable.hpp"
#include "support/test_models.hpp"

namespace {

using namespace appell;
using GiNaC::ex;

/// Every symbol of `symbols` at a random value of the seeded generator.
GiNaC::exmap random_point(const std::vector<GiNaC::symbol>& symbols, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> value(0.3, 1.3);
  GiNaC::exmap point;
  for (const auto& s : symbols) point[s] = value(generator);
  return point;
}

/// The model's symbols: t, q, q̇, q̈ and the parameters.
std::vector<GiNaC::symbol> symbols_of(const model::Model& m) {
  std::vector<GiNaC::symbol> all{m.time_functions->time()};
  for (std::size_t j = 0; j < m.dof(); ++j)
    for (int order = 0; order <= 2; ++order) all.push_back(m.coordinate_symbol(j, order));
  for (const auto& p : m.parameters) all.push_back(p.symbol);
  for (const auto& i : m.inputs) all.push_back(m.time_functions->derivative(i.name, 0));
  return all;
}

/// Every symbol of `e` (prescribed functions, inputs ...) given a random value when `point` has
/// none yet.
void complete(const ex& e, GiNaC::exmap& point, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> value(0.3, 1.3);
  std::vector<ex> stack{e}, seen;
  std::set<const void*> visited;
  while (!stack.empty()) {
    ex node = stack.back();
    stack.pop_back();
    if (!visited.insert(sym::node_key(node)).second) continue;
    seen.push_back(node);
    if (GiNaC::is_a<GiNaC::symbol>(node) && point.count(node) == 0) point[node] = value(generator);
    for (std::size_t i = 0; i < node.nops(); ++i) stack.push_back(node.op(i));
  }
}

double value_at(const ex& e, const GiNaC::exmap& point) {
  const ex v = GiNaC::evalf(sym::substitute(e, point));
  EXPECT_TRUE(GiNaC::is_a<GiNaC::numeric>(v)) << v;
  return GiNaC::ex_to<GiNaC::numeric>(v).to_double();
}

std::string chain_yaml(int n) { return test_support::spatial_chain_yaml(n); }

TEST(ReadableCompact, EveryExampleIsNeverLargerAndEqualToTheRawForm) {
  std::size_t entries = 0;
  for (const auto& file : std::filesystem::directory_iterator(APPELL_EXAMPLES_DIR)) {
    if (file.path().extension() != ".yaml") continue;
    const auto model = io::read_model_file(file.path().string());
    if (model->dof() == 0) continue;
    const auto raw = principles::derive(model, principles::Method::GibbsAppell);
    const auto readable = principles::simplify(raw);
    const auto before = raw.entries(), after = readable.entries();
    ASSERT_EQ(before.size(), after.size());
    const auto symbols = symbols_of(*model);
    for (std::size_t k = 0; k < before.size(); ++k, ++entries) {
      EXPECT_LE(sym::operation_count(after[k]), sym::operation_count(before[k]))
          << file.path() << " entry " << k << ": " << after[k];
      for (unsigned seed = 1; seed <= 3; ++seed) {
        auto point = random_point(symbols, seed);
        complete(before[k], point, seed);
        const double a = value_at(before[k], point), b = value_at(after[k], point);
        EXPECT_NEAR(a, b, 1e-9 * std::max(1.0, std::abs(a))) << file.path() << " entry " << k;
      }
    }
  }
  EXPECT_GT(entries, 50u);
}

class QuotedForms : public ::testing::Test {
 protected:
  QuotedForms() {
    functions.declare("theta", sym::TimeFunctionKind::Coordinate);
    functions.declare("x", sym::TimeFunctionKind::Coordinate);
    theta = functions.derivative("theta", 0);
    x = functions.derivative("x", 0);
    context = sym::ReadableContext::for_functions(functions, {"theta", "x"}, {m, l, d});
  }
  sym::TimeFunctions functions;
  GiNaC::symbol theta, x, m{"m"}, l{"l"}, d{"d"};
  sym::ReadableContext context;
};

TEST_F(QuotedForms, DoubleAngleBecomesSquareOfSine) {
  // The issue's 1/2*m*l^2*(1 - cos(2*theta)).
  const ex e = ex(1) / 2 * m * GiNaC::pow(l, 2) * (1 - GiNaC::cos(2 * theta));
  EXPECT_EQ(sym::readable(e, context), m * GiNaC::pow(l, 2) * GiNaC::pow(GiNaC::sin(theta), 2));
}

TEST_F(QuotedForms, SleighTermBecomesOneOverCosineSquared) {
  // The issue's m*(1 - cos(2*theta)/(2*cos(theta)^2) + 1/(2*cos(theta)^2)).
  const ex c2 = GiNaC::pow(GiNaC::cos(theta), 2);
  const ex e = m * (1 - GiNaC::cos(2 * theta) / (2 * c2) + 1 / (2 * c2));
  EXPECT_EQ(sym::readable(e, context), m / c2);
}

TEST_F(QuotedForms, RootOfASquareIsItsMagnitudeOrItselfWhenPositive) {
  const ex root = GiNaC::sqrt(GiNaC::pow(d + x, 2).expand());
  EXPECT_EQ(sym::readable(root, context), GiNaC::abs(d + x));
  context.positive = {d, x};
  EXPECT_EQ(sym::readable(root, context), d + x);
  // A trigonometric square under a root: (l*sin(θ) + d)^2 written with cos(2θ).
  context.positive = {};
  const ex square = GiNaC::pow(l * GiNaC::sin(theta) + d, 2);
  const ex written = sym::readable(square, context);  // multiple angles or powers
  EXPECT_EQ(sym::readable(GiNaC::sqrt(written.expand()), context),
            GiNaC::abs(l * GiNaC::sin(theta) + d));
}

TEST(ReadableCompact, SleighMinimalMassIsMOverCosineSquared) {
  const auto model =
      io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/chaplygin_sleigh.yaml");
  principles::DerivationRequest request;
  request.minimal = true;
  const auto d = principles::derive(model, request);
  const ex theta = model->coordinate_symbol(2);
  const GiNaC::symbol m = model->find_parameter("m")->symbol;
  EXPECT_EQ(d.equations->mass_matrix(0, 0), m / GiNaC::pow(GiNaC::cos(theta), 2));
}

TEST(ReadableCompact, SphericalPendulumAzimuthInertiaIsSquareOfSine) {
  const auto model = io::parse_model(R"(name: spherical
parameters: {m: 1, l: 1, g: 9.81}
coordinates: [phi, theta]
frames:
  az: {rotation: rot_z(phi)}
  el: {parent: az, rotation: rot_y(theta)}
particles:
  bob: {frame: el, mass: m, position: [0, 0, -l]}
gravity: [0, 0, -g]
)",
                                     "spherical.yaml");
  const auto d = principles::derive(model, principles::DerivationRequest{});
  const ex theta = model->coordinate_symbol(1);
  const GiNaC::symbol m = model->find_parameter("m")->symbol,
                      l = model->find_parameter("l")->symbol;
  EXPECT_EQ(d.equations->mass_matrix(0, 0),
            m * GiNaC::pow(l, 2) * GiNaC::pow(GiNaC::sin(theta), 2));
}

std::string spring_model(const std::string& positive) {
  return "name: spring\nparameters: {m: 1, k: 10, d: 0.2, L0: 0.5}\ncoordinates: [x]\n"
         "frames:\n  cart: {translation: [x, 0, 0]}\n"
         "particles:\n  p: {frame: cart, mass: m, position: [0, 0, 0]}\n"
         "loads:\n  - {spring: {from: [world, [-d, 0, 0]], to: [cart, [0, 0, 0]], stiffness: k, "
         "rest_length: L0}}\n" +
         positive;
}

TEST(ReadableCompact, SpringLengthIsAMagnitudeOrPositive) {
  const auto plain = io::parse_model(spring_model(""), "spring.yaml");
  const auto d1 = principles::derive(plain, principles::DerivationRequest{});
  const std::string f1 = io::expression_text(d1.equations->forcing(0, 0), *plain);
  EXPECT_NE(f1.find("abs(d + x)"), std::string::npos) << f1;
  EXPECT_EQ(f1.find("sqrt"), std::string::npos) << f1;

  const auto positive = io::parse_model(spring_model("positive: [d, x]\n"), "spring.yaml");
  const auto d2 = principles::derive(positive, principles::DerivationRequest{});
  const std::string f2 = io::expression_text(d2.equations->forcing(0, 0), *positive);
  EXPECT_EQ(f2.find("abs"), std::string::npos) << f2;
  EXPECT_EQ(f2.find("sqrt"), std::string::npos) << f2;
  // -k (d + x - L0), by hand.
  const auto& p = *positive;
  const ex expected =
      -p.find_parameter("k")->symbol *
      (p.find_parameter("d")->symbol + p.coordinate_symbol(0) - p.find_parameter("L0")->symbol);
  EXPECT_TRUE(GiNaC::normal(d2.equations->forcing(0, 0) - expected).is_zero())
      << d2.equations->forcing(0, 0);
}

TEST(ReadableCompact, PositiveNamesAreCheckedWhereWritten) {
  try {
    io::parse_model(spring_model("positive: [d, y]\n"), "spring.yaml");
    FAIL() << "y is no parameter or coordinate";
  } catch (const model::ModelError& e) {
    EXPECT_EQ(e.offending(), "y");
    EXPECT_EQ(e.where().line, 10);
  }
}

TEST(ReadableCompact, OverBudgetEntriesStayAsFormed) {
  const auto model = io::parse_model(chain_yaml(4), "chain.yaml");
  const auto raw = principles::derive(model, principles::Method::GibbsAppell);
  sym::ReadableBudget tiny;
  tiny.max_terms = 20;
  const auto result =
      sym::readable_within(raw.entries(), principles::readable_context(*model), tiny);
  EXPECT_GT(result.count(sym::EntryForm::OverBudget), 0u);
  for (std::size_t k = 0; k < result.entries.size(); ++k) {
    if (result.forms[k] == sym::EntryForm::OverBudget) {
      EXPECT_TRUE(result.entries[k].is_equal(raw.entries()[k]));
    }
  }
}

TEST(ReadableCompact, NamedIntermediatesGiveTheEntriesBack) {
  const auto model = io::parse_model(chain_yaml(5), "chain.yaml");
  const auto raw = principles::derive(model, principles::Method::GibbsAppell);
  const auto named = sym::named_intermediates(raw.entries());
  ASSERT_FALSE(named.intermediates.empty());
  // Substituting the definitions back in reverse order gives every entry again.
  const auto symbols = symbols_of(*model);
  for (unsigned seed = 1; seed <= 2; ++seed) {
    GiNaC::exmap point = random_point(symbols, seed);
    for (const auto& i : named.intermediates) point[i.name] = value_at(i.value, point);
    for (std::size_t k = 0; k < raw.entries().size(); ++k) {
      const double a = value_at(raw.entries()[k], point), b = value_at(named.roots[k], point);
      EXPECT_NEAR(a, b, 1e-9 * std::max(1.0, std::abs(a)));
    }
  }
  // No definition longer than a line or two (IntermediateOptions::max_operations per node).
  for (const auto& i : named.intermediates) EXPECT_LE(sym::operation_count(i.value), 80u);
}

// A square root of a sum keeps the sum's sign: of a - b and b - a (one node up to sign) one is
// the negative variant, and its root was named sqrt(z) with z the other, sqrt(b - a) for
// sqrt(a - b). The Whipple bicycle's printed minimal form had sqrt(kn^2 - 1) for the
// sqrt(1 - kn^2) of its front wheel's contact.
TEST(ReadableCompact, NamedIntermediatesKeepTheSignUnderARoot) {
  const GiNaC::symbol a("a"), b("b"), c("c");
  const ex plus = GiNaC::sqrt(a - b), minus = GiNaC::sqrt(b - a);
  // Both variants used twice, so that both roots are named.
  const GiNaC::exvector roots{plus * c, plus * c * c, minus * c, minus * c * c,
                              GiNaC::pow(a - b, GiNaC::numeric(3, 2))};
  const auto named = sym::named_intermediates(roots);
  ASSERT_EQ(named.roots.size(), roots.size());
  for (const auto& [x, y] : {std::pair{2.0, 1.0}, std::pair{1.0, 3.0}}) {
    GiNaC::exmap point{{a, x}, {b, y}, {c, 0.7}};
    for (const auto& i : named.intermediates)
      point[i.name] = GiNaC::evalf(i.value.subs(point, GiNaC::subs_options::no_pattern));
    for (std::size_t k = 0; k < roots.size(); ++k) {
      const ex want = GiNaC::evalf(roots[k].subs(point, GiNaC::subs_options::no_pattern));
      const ex got = GiNaC::evalf(named.roots[k].subs(point, GiNaC::subs_options::no_pattern));
      ASSERT_TRUE(GiNaC::is_a<GiNaC::numeric>(want) && GiNaC::is_a<GiNaC::numeric>(got))
          << roots[k] << " -> " << named.roots[k];
      EXPECT_LT(GiNaC::abs(GiNaC::ex_to<GiNaC::numeric>(want - got)).to_double(), 1e-12)
          << roots[k] << " is " << want << " but its named form " << named.roots[k] << " is "
          << got;
    }
  }
}

TEST(ReadableCompact, LargeChainSwitchesToIntermediatesByItself) {
  const auto model = io::parse_model(chain_yaml(10), "chain.yaml");
  const auto d = principles::derive(model, principles::DerivationRequest{});
  ASSERT_TRUE(d.named.has_value());
  EXPECT_TRUE(d.named->automatic);
  const std::string text = io::write_text(d);
  EXPECT_NE(text.find("named quantities of the recursions"), std::string::npos);
  EXPECT_LT(text.size(), 400000u);  // a few pages, not the 370 kB of the whole trees
}

TEST(ReadableCompact, OperationCountCountsTheTreesOperations) {
  const GiNaC::symbol a("a"), b("b"), c("c");
  EXPECT_EQ(sym::operation_count(a + b + c), 2u);
  EXPECT_EQ(sym::operation_count(a * b), 1u);
  EXPECT_EQ(sym::operation_count(-a), 0u);  // signs are not counted
  EXPECT_EQ(sym::operation_count(-a * (b - c)), sym::operation_count(a * (c - b)));
  EXPECT_EQ(sym::operation_count(a / b), 1u);
  EXPECT_EQ(sym::operation_count(GiNaC::sin(a)), 1u);
  EXPECT_EQ(sym::operation_count(GiNaC::pow(a, 2)), 1u);
  EXPECT_EQ(sym::operation_count(a / 2), 2u);  // a product and the fraction 1/2
}

}  // namespace
