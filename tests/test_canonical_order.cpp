// sym::CanonicalOrder and its users see an expression's structure, never GiNaC's term order:
// GiNaC orders the terms of a sum by hashes of its symbols' serial numbers, so the same
// expression built from symbols made in another order is stored in another order, with its signs
// elsewhere. Tapes, DAG sizes and hashes must not see the difference (tests/test_determinism.sh
// checks the same across processes).
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "appell/sym/canonical_order.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/tape.hpp"

using namespace appell;
using GiNaC::ex;

namespace {

// One expression of a few symbols, written as a planar chain's kinematics would make it: shared
// subexpressions, sums with numeric coefficients, powers of sums, differences in both signs.
ex chain_like(const std::map<std::string, GiNaC::symbol>& s) {
  const ex q1 = s.at("q1"), q2 = s.at("q2"), l = s.at("l"), m = s.at("m"), u = s.at("u");
  const ex c12 = GiNaC::cos(q1) * GiNaC::cos(q2) - GiNaC::sin(q1) * GiNaC::sin(q2);
  const ex s12 = GiNaC::sin(q1) * GiNaC::cos(q2) + GiNaC::cos(q1) * GiNaC::sin(q2);
  const ex x = l * GiNaC::cos(q1) + l * c12 / 2, y = l * GiNaC::sin(q1) + l * s12 / 2;
  return m * (GiNaC::pow(x * u - 3 * y, 2) + 2 * (y - x) * (x - y) * u) - 5 * m * l * s12 * c12 +
         GiNaC::sqrt(l * l + 2 * u * u) * (c12 - s12) - 7 * u * (x - 2 * y) / 3;
}

std::map<std::string, GiNaC::symbol> symbols_made_in(const std::vector<std::string>& names) {
  std::map<std::string, GiNaC::symbol> s;
  for (const std::string& name : names) s.emplace(name, GiNaC::symbol(name));
  return s;
}

// Symbols made in the given order; the tape's variables by name.
struct Built {
  std::map<std::string, GiNaC::symbol> symbols;
  GiNaC::exvector roots;
  std::vector<GiNaC::symbol> variables;
};

Built build(const std::vector<std::string>& creation_order) {
  Built b;
  b.symbols = symbols_made_in(creation_order);
  const ex e = chain_like(b.symbols);
  b.roots = {e, GiNaC::expand(e * b.symbols.at("u")), e.diff(b.symbols.at("q2"))};
  for (const auto& [name, symbol] : b.symbols) b.variables.push_back(symbol);
  return b;
}

bool same_instructions(const sym::Tape& a, const sym::Tape& b) {
  if (a.instructions().size() != b.instructions().size()) return false;
  for (std::size_t i = 0; i < a.instructions().size(); ++i) {
    const auto& x = a.instructions()[i];
    const auto& y = b.instructions()[i];
    if (x.op != y.op || x.a != y.a || x.b != y.b || x.value != y.value) return false;
  }
  return a.output_slots() == b.output_slots();
}

const std::vector<std::string> kForward = {"q1", "q2", "l", "m", "u"};
const std::vector<std::string> kBackward = {"u", "m", "l", "q2", "q1"};

TEST(CanonicalOrder, TapeIsTheSameWhateverOrderGiNaCStoresTheTermsIn) {
  const Built a = build(kForward), b = build(kBackward);
  // The premise: GiNaC stores the two in different orders (it prints them in that order).
  std::ostringstream pa, pb;
  pa << a.roots[0];
  pb << b.roots[0];
  ASSERT_NE(pa.str(), pb.str());
  const sym::Tape ta(a.roots, a.variables), tb(b.roots, b.variables);
  EXPECT_TRUE(same_instructions(ta, tb));
  // And the same numbers, bit for bit, at a state.
  const std::vector<double> x = {0.7, 1.3, 0.45, -0.8, 2.1};
  std::vector<double> ya(ta.output_count()), yb(tb.output_count()), work;
  ta.evaluate(x.data(), ya.data(), work);
  tb.evaluate(x.data(), yb.data(), work);
  EXPECT_EQ(ya, yb);
}

TEST(CanonicalOrder, HashesSignsAndSizesIgnoreGiNaCsTermOrder) {
  const Built a = build(kForward), b = build(kBackward);
  sym::CanonicalOrder oa, ob;
  for (std::size_t k = 0; k < a.roots.size(); ++k) {
    EXPECT_EQ(oa.hash(a.roots[k]), ob.hash(b.roots[k])) << k;
    EXPECT_EQ(sym::dag_size(a.roots[k]), sym::dag_size(b.roots[k])) << k;
    // The operands in the structural order print alike.
    const GiNaC::exvector xa = oa.operands(a.roots[k]), xb = ob.operands(b.roots[k]);
    ASSERT_EQ(xa.size(), xb.size());
    for (std::size_t i = 0; i < xa.size(); ++i) {
      EXPECT_EQ(oa.hash(xa[i]), ob.hash(xb[i]));
      EXPECT_EQ(oa.sign(xa[i]), ob.sign(xb[i]));
    }
  }
  EXPECT_EQ(sym::dag_size(a.roots), sym::dag_size(b.roots));
  // -e is e with the other sign.
  EXPECT_EQ(oa.hash(-a.roots[0]), oa.hash(a.roots[0]));
  EXPECT_EQ(oa.sign(-a.roots[0]), -oa.sign(a.roots[0]));
}

// Sums and products are ordered from GiNaC's pairs (sym/pairs.hpp), without building the nodes
// op() returns: the order must be the one compare() gives those nodes, and operands() the nodes.
TEST(CanonicalOrder, OperandsReadFromPairsAreOrderedAsTheNodesOpBuilds) {
  const Built a = build(kForward);
  sym::CanonicalOrder order;
  std::size_t with_coefficients = 0;
  sym::for_each_node(a.roots, [&](const ex& e) {
    if (!GiNaC::is_a<GiNaC::add>(e) && !GiNaC::is_a<GiNaC::mul>(e)) return;
    const std::vector<std::size_t> by_index = order.operand_order(e);
    const GiNaC::exvector sorted = order.operands(e);
    ASSERT_EQ(by_index.size(), e.nops());
    ASSERT_EQ(sorted.size(), e.nops());
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      EXPECT_TRUE(sorted[i].is_equal(e.op(by_index[i])));
      // A fresh order (no memo shared) sees the built nodes in the same order.
      if (i > 0) {
        EXPECT_LE(sym::CanonicalOrder().compare(sorted[i - 1], sorted[i]), 0) << e;
      }
      const ex& term = sorted[i];
      if (GiNaC::is_a<GiNaC::add>(e) && GiNaC::is_a<GiNaC::mul>(term) &&
          GiNaC::is_a<GiNaC::numeric>(term.op(term.nops() - 1)))
        ++with_coefficients;
    }
  });
  EXPECT_GT(with_coefficients, 3u);  // terms op() had to build: rest times a coefficient
}

}  // namespace
