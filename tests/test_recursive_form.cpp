// Issue 17: a tree's equations written through its own recursions, each quantity named after its
// frame (ω, α, the origin's acceleration, the force and moment of each subtree, composite bodies
// and the mass matrix's columns): equal to the equations as formed, and a 10-link chain in a few
// pages.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <sstream>

#include "appell/io/derivation_writer.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/principles/derivation.hpp"
#include "appell/principles/derive.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/operation_count.hpp"
#include "appell/sym/readable.hpp"
#include "support/test_models.hpp"

namespace {

using namespace appell;
using GiNaC::ex;

std::string chain_yaml(int n) { return test_support::spatial_chain_yaml(n); }

// The codegen tests' branching tree (branches, a prismatic joint, a joint of two rotation
// factors, a fixed offset, particles, every kind of load), with a mount that moves with time, a
// spring to a point of the world and a force in world axes: coordinates named c1 and c2 take
// the names of frame 1's cosine and sine.
std::string branching_tree() {
  std::string yaml = test_support::tree_yaml;
  auto replace = [&](const std::string& from, const std::string& to) {
    const auto at = yaml.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    yaml.replace(at, from.size(), to);
  };
  replace("c: 0.7}", "c: 0.7, w: 0.9}");
  replace("translation: [0, 0.3, 0]", "translation: [0, 0.3, 0.05*sin(w*t)]");
  yaml +=
      "  - {spring: {from: [world, [1, 0, 0]], to: [arm1b, [l, 0, 0]], stiffness: k}}\n"
      "  - {force: [0.4, u, -1], on: arm1b, at: [l, 0, 0], in: world}\n";
  return yaml;
}

std::shared_ptr<const model::Model> example(const std::string& name) {
  return io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/" + name);
}

principles::Derivation through_names(std::shared_ptr<const model::Model> model,
                                     principles::Method method = principles::Method::GibbsAppell,
                                     bool readable = true) {
  principles::DerivationRequest request;
  request.method = method;
  request.intermediates = true;
  request.readable = readable;
  return principles::derive(model, request);
}

/// The entries of `d` with every name put back, in order of definition.
GiNaC::exvector entries_with_names_put_back(const principles::Derivation& d) {
  GiNaC::exmap back;
  for (const auto& i : d.named->intermediates) back[i.name] = sym::substitute(i.value, back);
  GiNaC::exvector out;
  for (const ex& e : d.equations->entries()) out.push_back(sym::substitute(e, back));
  return out;
}

/// Every symbol of the expressions at a random value (named symbols by name, so that the same
/// seed gives the same point).
GiNaC::exmap random_point(const GiNaC::exvector& expressions, unsigned seed) {
  const auto symbols = sym::symbols_by_name(expressions);
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> value(0.3, 1.3);
  GiNaC::exmap point;
  for (const auto& [name, s] : symbols) point[s] = value(generator);
  return point;
}

double value_at(const ex& e, const GiNaC::exmap& point) {
  const ex v = GiNaC::evalf(sym::substitute(e, point));
  EXPECT_TRUE(GiNaC::is_a<GiNaC::numeric>(v)) << v;
  return GiNaC::is_a<GiNaC::numeric>(v) ? GiNaC::ex_to<GiNaC::numeric>(v).to_double() : 0.0;
}

/// The recursions' M and f equal `expected` (the equations as formed) at three random states.
void expect_equal_at_random_states(const GiNaC::exvector& expected, const GiNaC::exvector& got,
                                   const std::string& what) {
  ASSERT_EQ(expected.size(), got.size());
  GiNaC::exvector all = expected;
  all.insert(all.end(), got.begin(), got.end());
  for (unsigned seed = 1; seed <= 3; ++seed) {
    const GiNaC::exmap point = random_point(all, seed);
    for (std::size_t k = 0; k < expected.size(); ++k) {
      const double a = value_at(expected[k], point), b = value_at(got[k], point);
      EXPECT_NEAR(a, b, 1e-9 * std::max(1.0, std::abs(a))) << what << " entry " << k;
    }
  }
}

void expect_recursions_equal_formed(std::shared_ptr<const model::Model> model,
                                    principles::Method method) {
  const std::string what = model->name + " by " + principles::method_name(method);
  const principles::Derivation d = through_names(model, method);
  ASSERT_TRUE(d.named.has_value()) << what;
  ASSERT_EQ(d.named->construction, principles::IntermediateConstruction::Recursions) << what;
  // Every intermediate belongs to exactly one group, in order.
  std::size_t next = 0;
  for (const auto& g : d.named->groups) {
    EXPECT_EQ(g.first, next) << what;
    EXPECT_GT(g.count, 0u) << what;
    next = g.first + g.count;
  }
  EXPECT_EQ(next, d.named->intermediates.size()) << what;
  expect_equal_at_random_states(principles::derive(model, method).entries(),
                                entries_with_names_put_back(d), what);
}

TEST(RecursiveForm, EqualsTheFormedEquationsOfEveryTree) {
  std::vector<std::shared_ptr<const model::Model>> models;
  for (const char* name : {"three_link_arm.yaml", "heavy_top.yaml", "double_pendulum.yaml",
                           "planar_2r.yaml", "spinning_disk.yaml", "spring_damper_cart.yaml",
                           "thread_pendulum.yaml", "bead_on_hoop.yaml"})
    models.push_back(example(name));
  models.push_back(io::parse_model(branching_tree(), "branching.yaml"));
  models.push_back(io::parse_model(chain_yaml(5), "chain.yaml"));
  for (const auto& model : models)
    for (const auto method : {principles::Method::GibbsAppell, principles::Method::Dalembert})
      expect_recursions_equal_formed(model, method);
}

// The names put back and the difference simplified: exactly zero, not only at random states.
TEST(RecursiveForm, DifferenceFromTheFormedEquationsSimplifiesToZero) {
  for (const char* name : {"double_pendulum.yaml", "planar_2r.yaml", "spring_damper_cart.yaml"}) {
    const auto model = example(name);
    const auto d = through_names(model);
    ASSERT_EQ(d.named->construction, principles::IntermediateConstruction::Recursions) << name;
    const GiNaC::exvector formed =
                              principles::derive(model, principles::Method::GibbsAppell).entries(),
                          got = entries_with_names_put_back(d);
    const auto context = principles::readable_context(*model);
    for (std::size_t k = 0; k < formed.size(); ++k)
      EXPECT_TRUE(sym::readable(formed[k] - got[k], context).is_zero())
          << name << " entry " << k << ": " << sym::readable(formed[k] - got[k], context);
  }
}

TEST(RecursiveForm, TenLinkChainFitsInAFewPages) {
  const auto model = io::parse_model(chain_yaml(10), "chain.yaml");
  const principles::Derivation d = principles::derive(model, principles::DerivationRequest{});
  ASSERT_TRUE(d.named.has_value());
  EXPECT_TRUE(d.named->automatic);
  EXPECT_EQ(d.named->construction, principles::IntermediateConstruction::Recursions);
  const std::string text = io::write_text(d);
  std::size_t lines = 0, longest = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line); ++lines) longest = std::max(longest, line.size());
  // 755 lines of up to 1,700 characters through common subexpressions; 370 kB as whole trees.
  EXPECT_LT(lines, 400u);
  EXPECT_LT(text.size(), 30000u);
  EXPECT_LT(longest, 400u);
  // Named after the frames: link7's angular velocity, the force link4's subtree needs, the
  // composite inertia of link2's subtree.
  for (const char* name : {"omega_7x =", "F_4x =", "J_2yy ="})
    EXPECT_NE(text.find(name), std::string::npos) << name;
  EXPECT_NE(text.find("# link7 (frame 7)"), std::string::npos);
  // Each entry of M and f is a short expression of the names.
  for (const ex& e : d.equations->entries()) EXPECT_LE(sym::operation_count(e), 4u) << e;
  expect_equal_at_random_states(
      principles::derive(model, principles::Method::GibbsAppell).entries(),
      entries_with_names_put_back(d), "chain-10");
}

TEST(RecursiveForm, OtherMethodsAndConstrainedModelsNameCommonSubexpressions) {
  const auto arm = example("three_link_arm.yaml");
  for (const auto method :
       {principles::Method::Lagrange, principles::Method::Gauss, principles::Method::Nielsen}) {
    const auto d = through_names(arm, method);
    ASSERT_TRUE(d.named.has_value());
    EXPECT_EQ(d.named->construction, principles::IntermediateConstruction::CommonSubexpressions);
    EXPECT_TRUE(d.named->groups.empty());
  }
  for (const auto& [name, why] : std::vector<std::pair<std::string, std::string>>{
           {"slider_crank.yaml", "the model has constraints"},
           {"pendulum_on_translating_block.yaml", "the model moves relative to a carrier frame"}}) {
    const auto d = through_names(example(name));
    ASSERT_TRUE(d.named.has_value()) << name;
    EXPECT_EQ(d.named->construction, principles::IntermediateConstruction::CommonSubexpressions)
        << name;
    EXPECT_EQ(d.named->recursions_not_used, why);
    EXPECT_NE(io::write_text(d).find("(common subexpressions of M and f: " + why + ")"),
              std::string::npos);
  }
}

// Same input, same bytes: names, order and groups never depend on addresses or hash order.
TEST(RecursiveForm, SameModelGivesTheSameBytes) {
  const auto model = io::parse_model(branching_tree(), "branching.yaml");
  const std::string first = io::write_text(through_names(model));
  for (int run = 0; run < 2; ++run) EXPECT_EQ(io::write_text(through_names(model)), first);
  EXPECT_EQ(io::write_json(through_names(model)), io::write_json(through_names(model)));
}

// A model whose names look like the recursions' gets other names for them.
TEST(RecursiveForm, NamesNeverTakeTheModelsNames) {
  std::string yaml = chain_yaml(3);
  yaml.replace(yaml.find("g: 9.81"), 7, "g: 9.81, c2: 1.5, omega_2z: 0.3");
  yaml.replace(yaml.find("mass: m,"), 8, "mass: m*c2 + omega_2z,");
  const auto model = io::parse_model(yaml, "named.yaml");
  const auto d = through_names(model);
  ASSERT_EQ(d.named->construction, principles::IntermediateConstruction::Recursions);
  std::set<std::string> names;
  for (const auto& i : d.named->intermediates) {
    EXPECT_NE(i.name.get_name(), "c2");
    EXPECT_NE(i.name.get_name(), "omega_2z");
    EXPECT_TRUE(names.insert(i.name.get_name()).second) << i.name.get_name();
  }
  expect_equal_at_random_states(
      principles::derive(model, principles::Method::GibbsAppell).entries(),
      entries_with_names_put_back(d), "named");
}

// M and f written through the names are for reading: evaluating them as they stand has no value
// for the names (never a silent 0); with the names put back they are the formed equations.
TEST(RecursiveForm, EvaluatedWithTheNamesPutBack) {
  const auto model = io::parse_model(chain_yaml(6), "chain.yaml");
  const auto d = through_names(model);
  ASSERT_TRUE(d.named.has_value());
  try {
    num::CompiledEquations bad(*d.equations, {});
    FAIL() << "the names were evaluated as unknowns";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no value for symbol"), std::string::npos) << e.what();
  }
  const num::CompiledEquations shown(principles::with_names_put_back(*d.equations, *d.named), {});
  const num::CompiledEquations raw(principles::derive(model, principles::Method::GibbsAppell), {});
  Eigen::VectorXd q(6), qd(6);
  q << 0.3, -0.2, 0.9, 0.1, -0.7, 0.4;
  qd << 0.5, -1.0, 0.2, 0.8, 0.3, -0.6;
  Eigen::MatrixXd M1, M2;
  Eigen::VectorXd f1, f2;
  shown.evaluate(0.0, q, qd, M1, f1);
  raw.evaluate(0.0, q, qd, M2, f2);
  EXPECT_LT((M1 - M2).norm(), 1e-10 * M2.norm());
  EXPECT_LT((f1 - f2).norm(), 1e-10 * f2.norm());
  EXPECT_GT(f2.norm(), 1.0);
}

TEST(RecursiveForm, GivenNumbersAreSubstituted) {
  const auto model = example("three_link_arm.yaml");
  principles::DerivationRequest request;
  request.intermediates = true;
  request.values.set("m3", 2.0).set("l3", 0.5);
  const auto d = principles::derive(model, request);
  ASSERT_EQ(d.named->construction, principles::IntermediateConstruction::Recursions);
  const GiNaC::exvector got = entries_with_names_put_back(d);
  const auto m3 = std::find_if(model->parameters.begin(), model->parameters.end(),
                               [](const auto& p) { return p.name == "m3"; });
  ASSERT_NE(m3, model->parameters.end());
  for (const ex& e : got) EXPECT_FALSE(e.has(m3->symbol)) << e;
  expect_equal_at_random_states(
      principles::with_values(principles::derive(model, principles::Method::GibbsAppell),
                              request.values)
          .entries(),
      got, "three-link arm with m3 and l3 given");
}

TEST(RecursiveForm, WritersShowTheGroups) {
  const auto d = through_names(example("double_pendulum.yaml"));
  const std::string text = io::write_text(d);
  EXPECT_NE(text.find("quantities of the recursions over the frames"), std::string::npos);
  EXPECT_NE(text.find("# composite bodies"), std::string::npos);
  EXPECT_NE(text.find("c2 = cos(q2);  s2 = sin(q2)"), std::string::npos) << text;
  const std::string latex = io::write_latex(d);
  EXPECT_NE(latex.find("\\omega_{2z} &="), std::string::npos) << latex;
  const std::string json = io::write_json(d);
  EXPECT_NE(json.find("\"intermediates_construction\": \"recursions\""), std::string::npos);
  EXPECT_NE(json.find("\"intermediate_groups\""), std::string::npos);
  EXPECT_NE(json.find("\"part\": \"rod2 (frame 2)\""), std::string::npos) << json;
}

}  // namespace
