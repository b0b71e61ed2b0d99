// sym::DagEvaluator (numbers of expressions at a few points, each shared node once), sym::NodeIndex
// (the memos of DAG walks) and what dag_size counts for the terms of a sum, which it reads from
// GiNaC's pairs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "appell/sym/dag.hpp"
#include "appell/sym/node_index.hpp"
#include "appell/sym/tape.hpp"

using namespace appell;
using GiNaC::ex;

namespace {

// Every kind the Tape evaluates: sums and products with coefficients, integer, negative, ½ and
// other rational powers, a symbolic exponent, the functions, a constant.
GiNaC::exvector every_kind(const GiNaC::symbol& x, const GiNaC::symbol& y, const GiNaC::symbol& z) {
  const ex shared = x * y - 2 * z / 3;
  return {3 * shared * shared - 5 * x + 7,
          GiNaC::pow(shared, -3) + GiNaC::pow(x, -1) * y,
          GiNaC::sqrt(x + y) - GiNaC::pow(z, GiNaC::numeric(3, 2)) +
              GiNaC::pow(y, GiNaC::numeric(1, 3)),
          GiNaC::pow(x, y),
          GiNaC::sin(x) * GiNaC::cos(y) - GiNaC::tan(z) + GiNaC::exp(-x) * GiNaC::log(y),
          GiNaC::asin(x / 2) + GiNaC::acos(z / 3) - GiNaC::atan(y),
          GiNaC::atan2(y - 1, -x),
          GiNaC::sinh(x) + GiNaC::cosh(y) * GiNaC::tanh(z) - GiNaC::abs(x - y),
          GiNaC::Pi * x - 2 * GiNaC::Euler};
}

TEST(DagEvaluator, GivesTheTapesNumbersAtEveryPoint) {
  const GiNaC::symbol x("x"), y("y"), z("z");
  const GiNaC::exvector roots = every_kind(x, y, z);
  const std::vector<std::vector<double>> points = {
      {0.7, 1.3, 0.45}, {-0.8, 2.1, 1.1}, {1.5, 0.2, -0.6}};
  sym::DagEvaluator evaluator(points.size(), [&](const GiNaC::symbol& s, double* out) {
    const std::size_t k = s.get_name() == "x" ? 0 : s.get_name() == "y" ? 1 : 2;
    for (std::size_t p = 0; p < points.size(); ++p) out[p] = points[p][k];
  });
  const sym::Tape tape(roots, {x, y, z});
  std::vector<double> want(roots.size()), work, got(points.size());
  for (std::size_t p = 0; p < points.size(); ++p) {
    tape.evaluate(points[p].data(), want.data(), work);
    for (std::size_t r = 0; r < roots.size(); ++r) {
      evaluator(roots[r], got.data());
      if (std::isnan(want[r])) {
        EXPECT_TRUE(std::isnan(got[p])) << roots[r] << " at point " << p;  // y^(1/3) of y < 0
      } else {
        EXPECT_NEAR(got[p], want[r], 1e-12 * std::max(1.0, std::abs(want[r])))
            << roots[r] << " at point " << p;
      }
    }
  }
}

// a_{k+1} = x·a_k + sin(a_k) - 1/2: 80 levels are 2^80 nodes as a tree and a few hundred as a
// DAG; only evaluating each shared node once finishes.
TEST(DagEvaluator, VisitsEachSharedNodeOnce) {
  const ex x = GiNaC::symbol("x");  // one node wherever it is used
  ex a = x;
  double want = 0.3;
  for (int k = 0; k < 80; ++k) {
    a = x * a + GiNaC::sin(a) - GiNaC::numeric(1, 2);
    want = 0.3 * want + std::sin(want) - 0.5;
  }
  int symbol_visits = 0;
  sym::DagEvaluator evaluator(1, [&](const GiNaC::symbol&, double* out) {
    ++symbol_visits;
    out[0] = 0.3;
  });
  double got = 0.0;
  evaluator(a, &got);
  EXPECT_NEAR(got, want, 1e-12);
  EXPECT_EQ(symbol_visits, 1);
}

TEST(DagEvaluator, RefusesWhatTheTapeCannotEvaluate) {
  const GiNaC::symbol x("x"), unknown("w");
  const auto given = [&](const GiNaC::symbol& s, double* out) {
    if (s.get_name() != "x")
      throw sym::DagEvaluator::Unsupported("no value for symbol " + s.get_name());
    out[0] = 0.5;
  };
  for (const ex& e : {ex(x + GiNaC::I), ex(GiNaC::lgamma(x)), ex(x * unknown)}) {
    sym::DagEvaluator evaluator(1, given);
    double out = 0.0;
    EXPECT_THROW(evaluator(e, &out), sym::DagEvaluator::Unsupported) << e;
    EXPECT_THROW(sym::Tape({e}, {x}), std::invalid_argument) << e;
  }
}

TEST(NodeIndex, NumbersNodesInTheOrderTheyCameAndKeepsThemAlive) {
  sym::NodeIndex index;
  const GiNaC::symbol x("x");
  EXPECT_EQ(index.find(x), sym::NodeIndex::none);
  GiNaC::exvector nodes;
  for (int k = 0; k < 5000; ++k) nodes.push_back(GiNaC::pow(x, k + 2));  // through many growths
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const auto [number, inserted] = index.insert(nodes[k]);
    EXPECT_EQ(number, k);
    EXPECT_TRUE(inserted);
  }
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    EXPECT_EQ(index.find(nodes[k]), k);
    EXPECT_FALSE(index.insert(nodes[k]).second);
  }
  EXPECT_EQ(index.size(), nodes.size());
  // op() of a sum builds the term 2·x·y anew each call; the index holds the first one, so the
  // second cannot take its address and is a node of its own.
  const GiNaC::symbol y("y");
  const ex sum = 2 * x * y + GiNaC::pow(x, 7);
  std::size_t term = 0;
  while (!GiNaC::is_a<GiNaC::mul>(sum.op(term))) ++term;
  EXPECT_TRUE(index.insert(sum.op(term)).second);
  EXPECT_TRUE(index.insert(sum.op(term)).second);
  EXPECT_EQ(index.size(), nodes.size() + 2);
}

// What dag_size counts of a term rest·coeff: the term, the factors of rest and the coefficient (a
// product of ±1 counts as no node: that is where GiNaC left a sign), each structure once.
TEST(DagSize, CountsTermsAsTheNodesOpBuildsByStructure) {
  const GiNaC::symbol x("x"), y("y"), z("z");
  // 2xy + 3z: the sum, 2xy, x, y, 2, 3z, z, 3.
  EXPECT_EQ(sym::dag_size(2 * x * y + 3 * z), 8u);
  // 2xy - 2xyz: the sum, 2xy, x, y, 2, 2xyz (its sign is no node), z.
  EXPECT_EQ(sym::dag_size(2 * x * y - 2 * x * y * z), 7u);
  // The same structures with the signs elsewhere.
  EXPECT_EQ(sym::dag_size(-(2 * x * y + 3 * z)), 8u);
  EXPECT_EQ(sym::dag_size(GiNaC::exvector{2 * x * y + 3 * z, -3 * z - 2 * x * y}), 8u);
  // 3z - 2xy is another sum (9), but none of its terms is new.
  EXPECT_EQ(sym::dag_size(GiNaC::exvector{2 * x * y + 3 * z, 3 * z - 2 * x * y}), 9u);
  // x + y: the sum, x, y; squared: the power and 2 more.
  EXPECT_EQ(sym::dag_size(GiNaC::pow(x + y, 2)), 5u);
}

}  // namespace
