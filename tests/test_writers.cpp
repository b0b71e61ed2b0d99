// io::write_text / write_latex / write_json and the expression printer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <set>
#include <stdexcept>

#include "appell/io/equation_writer.hpp"
#include "appell/sym/dag.hpp"

namespace {

using namespace appell;
using GiNaC::cos;
using GiNaC::ex;
using GiNaC::numeric;
using GiNaC::pow;
using GiNaC::sin;

class WritersTest : public ::testing::Test {
 protected:
  WritersTest() {
    auto& m = *model;
    m.name = "planar-2r";
    m.parameters = {{"M", M, 1, {}},
                    {"l", l, ex(1) / 2, {}},
                    {"M_S", M_S, ex(1) / 5, {}},
                    {"g", g, ex(981) / 100, {}}};
    m.coordinates = {{"q1", 0.0, 0.0, {}, {}}, {"q2", 0.0, 0.0, {}, {}}};
    m.time_functions->declare("q1", sym::TimeFunctionKind::Coordinate);
    m.time_functions->declare("q2", sym::TimeFunctionKind::Coordinate);
    q1 = m.coordinate_symbol(0);
    q2 = m.coordinate_symbol(1);
    dq1 = m.coordinate_symbol(0, 1);
    dq2 = m.coordinate_symbol(1, 1);
    ddq1 = m.coordinate_symbol(0, 2);
    ddq2 = m.coordinate_symbol(1, 2);
    context = io::readable_context(m);
  }

  /// Seed 000's robot (eqs. 117/121 with gravity and the point force at P), already readable.
  principles::Equations robot() const {
    principles::Equations eq;
    eq.model = model;
    eq.method = principles::Method::GibbsAppell;
    const ex ml2 = M * pow(l, 2);
    eq.mass_matrix =
        GiNaC::matrix{{ml2 * (numeric(5, 3) + cos(q2)), ml2 * (numeric(1, 3) + cos(q2) / 2)},
                      {ml2 * (numeric(1, 3) + cos(q2) / 2), ml2 / 3}};
    eq.forcing = GiNaC::matrix{{ml2 * sin(q2) * dq1 * dq2 + ml2 * sin(q2) * pow(dq2, 2) / 2 -
                                M * g * l * (numeric(3, 2) * cos(q1) + cos(q1 + q2) / 2) -
                                M_S * g * l * (cos(q1) + cos(q1 + q2))},
                               {-ml2 * sin(q2) * pow(dq1, 2) / 2 - M * g * l * cos(q1 + q2) / 2 -
                                M_S * g * l * cos(q1 + q2)}};
    eq.simplified = true;
    eq.cost.differentiations = 6;
    eq.cost.derivative_nodes = 40;
    eq.cost.size_before = 120;
    eq.cost.size_after = 30;
    eq.cost.seconds = 0.01;
    eq.cost.simplify_seconds = 0.02;
    return eq;
  }

  /// The same kind of equations as formed: products of sums, shared nodes, no simplification.
  principles::Equations raw() const {
    principles::Equations eq = robot();
    const ex x2 = 2 * cos(q1) + cos(q1 + q2), y2 = 2 * sin(q1) + sin(q1 + q2);
    eq.mass_matrix(0, 0) =
        M * pow(l, 2) / 3 + M * pow(l, 2) / 12 + (M * pow(l, 2) / 4) * (pow(x2, 2) + pow(y2, 2));
    eq.forcing(1, 0) = -(M * g * l / 2 + M_S * g * l) * (cos(q1) * cos(q2) - sin(q1) * sin(q2)) -
                       M * l * l * sin(q2) * dq1 * dq1 / 2 / (pow(sin(q1), 2) + pow(cos(q1), 2));
    eq.simplified = false;
    return eq;
  }

  /// Parses a string of the model expression language with GiNaC's parser, dot(x)/ddot(x)
  /// renamed to identifiers first.
  ex parse(const std::string& text) const {
    const std::string renamed =
        std::regex_replace(text, std::regex(R"((d?dot)\((\w+)\))"), "$1_$2");
    GiNaC::symtab table{{"q1", q1},        {"q2", q2},        {"dot_q1", dq1},  {"dot_q2", dq2},
                        {"ddot_q1", ddq1}, {"ddot_q2", ddq2}, {"M", M},         {"l", l},
                        {"M_S", M_S},      {"g", g},          {"pi", GiNaC::Pi}};
    GiNaC::parser reader(table, true);
    return reader(renamed);
  }

  double value_at_random_point(const ex& e, unsigned seed) const {
    std::mt19937 generator(seed);
    std::uniform_real_distribution<double> value(0.3, 1.7);
    GiNaC::exmap point;
    for (const GiNaC::symbol& s : {q1, q2, dq1, dq2, ddq1, ddq2, M, l, M_S, g})
      point[s] = value(generator);
    return GiNaC::ex_to<numeric>(GiNaC::evalf(sym::substitute(e, point))).to_double();
  }

  void expect_round_trip(const std::string& text, const ex& original) const {
    const ex parsed = parse(text);
    for (unsigned seed = 1; seed <= 3; ++seed) {
      const double expected = value_at_random_point(original, seed);
      EXPECT_NEAR(value_at_random_point(parsed, seed), expected, 1e-9 * (1 + std::abs(expected)))
          << text;
    }
  }

  std::string text(const ex& e) const { return io::expression_text(e, context); }

  std::shared_ptr<model::Model> model = std::make_shared<model::Model>();
  GiNaC::symbol M{"M"}, l{"l"}, M_S{"M_S"}, g{"g"};
  GiNaC::symbol q1, q2, dq1, dq2, ddq1, ddq2;
  sym::ReadableContext context;
};

TEST_F(WritersTest, ProductsListCoefficientParametersOthersThenMotion) {
  EXPECT_EQ(text(numeric(1, 2) * cos(q1) * l * g * M), "1/2*M*l*g*cos(q1)");
  EXPECT_EQ(text(ddq1 * (numeric(5, 3) + cos(q2)) * pow(l, 2) * M),
            "M*l^2*(5/3 + cos(q2))*ddot(q1)");
  EXPECT_EQ(text(-M * g * l * cos(q1) - M_S * g * l * cos(q1)), "-M*l*g*cos(q1) - l*M_S*g*cos(q1)");
  EXPECT_EQ(text(dq2 * dq1 * sin(q2) * M), "M*sin(q2)*dot(q1)*dot(q2)");
  EXPECT_EQ(text(g * sin(q1) / l), "g*sin(q1)/l");
  EXPECT_EQ(text(-g * sin(q1) / (2 * l * M)), "-g*sin(q1)/(2*M*l)");
  EXPECT_EQ(text(1 / l), "1/l");
  EXPECT_EQ(text(GiNaC::sqrt(l) + pow(M, numeric(3, 2)) + GiNaC::Pi), "M^(3/2) + sqrt(l) + pi");
  EXPECT_EQ(text(pow(cos(q1) + 1, 2)), "(1 + cos(q1))^2");
  EXPECT_EQ(text(cos(q1 - q2)), "cos(q1 - q2)");
  EXPECT_EQ(text(0.5 * M), "0.5*M");
}

TEST_F(WritersTest, SumsListAccelerationsThenVelocitiesThenTheRest) {
  const ex e = g * cos(q1) + M * pow(dq2, 2) + M * dq1 * dq2 + 3 * ddq2 + l * ddq1 + 2;
  EXPECT_EQ(text(e), "l*ddot(q1) + 3*ddot(q2) + M*dot(q1)*dot(q2) + M*dot(q2)^2 + 2 + g*cos(q1)");
}

TEST_F(WritersTest, TextHasOneEquationPerCoordinate) {
  const std::string out = io::write_text(robot());
  EXPECT_NE(out.find("# planar-2r: equations of motion by gibbs-appell"), std::string::npos);
  EXPECT_NE(out.find("eq 1 (q1): M*l^2*(5/3 + cos(q2))*ddot(q1) + "
                     "M*l^2*(1/3 + 1/2*cos(q2))*ddot(q2) = "),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("eq 2 (q2): "), std::string::npos);
  EXPECT_NE(out.find("M[2,2] = 1/3*M*l^2"), std::string::npos) << out;
  EXPECT_NE(out.find("f[2] = "), std::string::npos);
  EXPECT_LT(out.find("M*l^2*"), out.find("ddot(q1)"));
  EXPECT_EQ(out.find("+ -"), std::string::npos) << out;
}

TEST_F(WritersTest, TextOfRawEquationsSaysSo) {
  const std::string out = io::write_text(raw());
  EXPECT_NE(out.find("as formed, not simplified"), std::string::npos) << out;
  EXPECT_NE(out.find("eq 1 (q1): "), std::string::npos);
  EXPECT_EQ(out.find("+ -"), std::string::npos) << out;
  EXPECT_EQ(out.find("size after"), std::string::npos);
}

TEST_F(WritersTest, LatexIsBalancedAndUsesTexNames) {
  for (const auto& eq : {robot(), raw()}) {
    const std::string out = io::write_latex(eq);
    EXPECT_NE(out.find("\\begin{align}"), std::string::npos);
    EXPECT_NE(out.find("\\end{align}"), std::string::npos);
    EXPECT_NE(out.find("\\ddot{q}_{1}"), std::string::npos) << out;
    EXPECT_NE(out.find("\\dot{q}_{1}"), std::string::npos) << out;
    EXPECT_NE(out.find("\\cos\\left(q_{1}"), std::string::npos) << out;
    EXPECT_NE(out.find("M_{S}"), std::string::npos) << out;
    EXPECT_EQ(out.find("ddot("), std::string::npos) << out;
    EXPECT_EQ(out.find("+ -"), std::string::npos) << out;
    long depth = 0;
    for (char c : out) {
      depth += c == '{' ? 1 : c == '}' ? -1 : 0;
      ASSERT_GE(depth, 0) << out;
    }
    EXPECT_EQ(depth, 0) << out;
    auto count = [&](const std::string& word) {
      std::size_t n = 0;
      for (auto at = out.find(word); at != std::string::npos; at = out.find(word, at + 1)) ++n;
      return n;
    };
    EXPECT_EQ(count("\\left"), count("\\right")) << out;
  }
  const std::string fraction = io::expression_latex(numeric(1, 2) * M * g * l * cos(q1), context);
  EXPECT_EQ(fraction, "\\frac{1}{2} M l g \\cos\\left(q_{1}\\right)");
  EXPECT_EQ(io::expression_latex(g * sin(q1) / (2 * l), context),
            "\\frac{g \\sin\\left(q_{1}\\right)}{2 l}");
}

TEST_F(WritersTest, JsonHasExactlyTheDocumentedKeys) {
  const auto json = nlohmann::json::parse(io::write_json(robot()));
  std::set<std::string> keys;
  for (const auto& [key, value] : json.items()) keys.insert(key);
  EXPECT_EQ(keys, (std::set<std::string>{"model", "method", "coordinates", "parameters",
                                         "mass_matrix", "forcing", "simplified", "cost"}));
  EXPECT_EQ(json["model"], "planar-2r");
  EXPECT_EQ(json["method"], "gibbs-appell");
  EXPECT_EQ(json["coordinates"], nlohmann::json::array({"q1", "q2"}));
  EXPECT_DOUBLE_EQ(json["parameters"]["M"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(json["parameters"]["g"].get<double>(), 9.81);
  EXPECT_EQ(json["parameters"].size(), 4u);
  ASSERT_EQ(json["mass_matrix"].size(), 2u);
  EXPECT_EQ(json["mass_matrix"][0].size(), 2u);
  EXPECT_EQ(json["mass_matrix"][0][0], "M*l^2*(5/3 + cos(q2))");
  EXPECT_EQ(json["forcing"].size(), 2u);
  EXPECT_EQ(json["simplified"], true);
  // Without WriteOptions::timing the output holds nothing that changes from run to run.
  std::set<std::string> cost_keys;
  for (const auto& [key, value] : json["cost"].items()) cost_keys.insert(key);
  EXPECT_EQ(cost_keys, (std::set<std::string>{"differentiations", "derivative_nodes", "size_before",
                                              "size_after"}));
  EXPECT_EQ(json["cost"]["differentiations"], 6);
  EXPECT_EQ(io::write_text(robot()).find(" s forming"), std::string::npos);

  io::WriteOptions timing;
  timing.timing = true;
  const auto timed = nlohmann::json::parse(io::write_json(robot(), timing));
  EXPECT_DOUBLE_EQ(timed["cost"]["seconds"].get<double>(), 0.01);
  EXPECT_DOUBLE_EQ(timed["cost"]["simplify_seconds"].get<double>(), 0.02);
  EXPECT_NE(io::write_text(robot(), timing).find("0.01 s forming, 0.02 s simplifying"),
            std::string::npos);
}

TEST_F(WritersTest, JsonExpressionsParseBackToTheSameValues) {
  for (const auto& eq : {robot(), raw()}) {
    const auto json = nlohmann::json::parse(io::write_json(eq));
    EXPECT_EQ(json["simplified"], eq.simplified);
    for (unsigned i = 0; i < 2; ++i) {
      for (unsigned k = 0; k < 2; ++k)
        expect_round_trip(json["mass_matrix"][i][k].get<std::string>(), eq.mass_matrix(i, k));
      expect_round_trip(json["forcing"][i].get<std::string>(), eq.forcing(i, 0));
    }
  }
  const ex odd = pow(l, numeric(-3, 2)) * GiNaC::atan2(q1, l) - pow(2, q2) +
                 GiNaC::abs(dq1) * GiNaC::exp(-q1) / (1 + pow(M, 2)) + 0.25 * GiNaC::Pi * g;
  expect_round_trip(text(odd), odd);
}

TEST_F(WritersTest, WhereGiNaCLeavesASignDoesNotChangeTheText) {
  // GiNaC keeps -(A·B) and (-A)·B apart, and which of them a derivation makes depends on its
  // address-seeded term order, so the same equations came out in two spellings from run to run
  // (issue 12). Each pair below is one value built both ways: one text, and it reads back.
  const ex a = cos(q1) * cos(q2), b = sin(q1) * sin(q2), c = l * cos(q1), d = M * sin(q2);
  const ex x = l * sin(q1), y = g * cos(q2);
  const std::vector<std::pair<ex, ex>> pairs = {
      {-(a - b) * (c + d), (b - a) * (c + d)},
      {(a - b) * (c - d), (b - a) * (d - c)},
      {-pow(a - b, 3) * x, pow(b - a, 3) * x},
      {pow(a - b, 2) * y, pow(b - a, 2) * y},
      {x / (a - b), -x / (b - a)},
      {(a - b) * (b - a) * y, -pow(a - b, 2) * y},
      // A sum of products of sums, negated term by term inside a product with another sum.
      {(c + x) * (cos(q1) * (b - a) + sin(q1) * (c + d)),
       -(c + x) * (cos(q1) * (a - b) - sin(q1) * (c + d))},
      {dq1 * dq2 * (x - y) * (a + b) - (c - d) * (b - a) * ddq1,
       (c - d) * (a - b) * ddq1 - dq1 * dq2 * (y - x) * (a + b)}};
  for (const auto& [one, other] : pairs) {
    ASSERT_TRUE((one - other).expand().is_zero());  // one value
    EXPECT_EQ(text(one), text(other));
    EXPECT_EQ(io::expression_latex(one, context), io::expression_latex(other, context));
    expect_round_trip(text(one), one);
    expect_round_trip(text(other), other);
  }
  // A textbook product keeps its reading: a sum factor opens with its positive term.
  EXPECT_EQ(text(-l * (b - a)), "l*(cos(q1)*cos(q2) - sin(q1)*sin(q2))");
}

TEST_F(WritersTest, SharedRawExpressionsPrintOnceAndStop) {
  // e_k+1 = e_k cos² + e_k sin²: a tree of 2^k copies of e_0 on a DAG of 3k nodes.
  ex e = M * cos(q1) + dq1;
  for (int level = 0; level < 10; ++level) e = e * pow(cos(q2), 2) + e * pow(sin(q2), 2);
  expect_round_trip(text(e), e);
  for (int level = 0; level < 90; ++level) e = e * pow(cos(q2), 2) + e * pow(sin(q2), 2);
  EXPECT_THROW(io::expression_text(e, context, 1'000'000), std::length_error);
}

}  // namespace
