// Expressions compared by their structure alone, the same in every run.
//
// GiNaC orders the terms of a sum and the factors of a product by hash values seeded with the
// addresses of its type names, so that order changes from run to run with address-space layout
// randomisation, and with it where GiNaC leaves a sign: the same position may come out as
// -l2*(s1*s2 - c1*c2) in one run and l2*(c1*c2 - s1*s2) in the next. Wherever that could reach an
// output (the evaluation order of a tape, which decides the last digits of a number; which nodes
// of a DAG are counted; which name an error message picks first) appell uses this structural
// view instead: a hash and an order that ignore GiNaC's term order and where it put a sign, so the
// same input gives the same bytes in every run, process and build.
#pragma once

#include <ginac/ginac.h>

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "appell/sym/node_index.hpp"

namespace appell::sym {

/// Structural hashes, signs and a total order, memoised by node: build one per traversal of a
/// large (shared) expression; every node it has seen is kept alive until it is destroyed.
///
/// Every expression e is read as sign(e) · |e|, where |e| is a sign-normalised form: numbers by
/// their magnitude, a product with its numeric coefficient's sign taken out together with the
/// signs of its factors, a sum scaled so that its first term (in this order) is positive, an odd
/// power carrying its base's sign. hash(e) is the hash of |e|, so e and -e (however GiNaC
/// distributed the sign) hash alike.
class CanonicalOrder {
 public:
  /// A 64-bit hash of |e|, computed from symbol names, numeric values, function names and the
  /// structure alone (the operands of a sum or a product as a multiset).
  std::uint64_t hash(const GiNaC::ex& e);
  /// +1 or -1: e = sign(e) · |e|.
  int sign(const GiNaC::ex& e);
  /// True when |e| is a number, a constant or a symbol (-x is x·(-1) to GiNaC, a node of its
  /// own that some runs make and others do not): counts of nodes leave these out.
  bool is_leaf(const GiNaC::ex& e);
  /// The node's number in this memo, 0, 1, 2, ... in the order nodes were first hashed (e is
  /// hashed if it is new): a walk keeps what it knows of each node in a vector by this number
  /// instead of a second table keyed by node (sym::dag_size).
  std::uint32_t number(const GiNaC::ex& e);
  /// < 0, 0 or > 0 as `a` comes before, is equal to or comes after `b`, by hash first; 0 exactly
  /// when a.is_equal(b). Independent of memory addresses (but for two different expressions with
  /// one hash and one structure, which no model makes).
  int compare(const GiNaC::ex& a, const GiNaC::ex& b);
  bool less(const GiNaC::ex& a, const GiNaC::ex& b) { return compare(a, b) < 0; }
  /// A product (or a power with a numeric exponent) read as |coefficient| · sign · Π base^exponent,
  /// the exponents of sign variants of one base added up (GiNaC writes A·(-A) where it keeps two
  /// variants of a sum A apart, and -A^2 where it does not), bases in this order. The hash of a
  /// product and the tape's instructions for it both come from this one reading.
  struct Factors {
    struct Power {
      // One of the variants of the base; its |base| is what is raised to an integer power (the
      // sign is in Factors::sign), the base itself, sign and all, to a fractional one.
      GiNaC::ex base;
      GiNaC::numeric exponent;
    };
    GiNaC::numeric coefficient = 1;  // the magnitude of the numeric coefficient
    int sign = 1;
    bool real = true;                                     // every numeric factor real
    std::vector<std::pair<std::uint64_t, Power>> powers;  // by key, keys distinct
  };
  Factors factors(const GiNaC::ex& e);
  /// hash() of the node op() builds for a pair of a sum (rest·coeff) or of a product
  /// (rest^coeff), without building it (sym/pairs.hpp).
  std::uint64_t hash_of_term(const GiNaC::expair& term) { return term_summary(term).hash; }
  std::uint64_t hash_of_power(const GiNaC::expair& factor) { return power_summary(factor).hash; }
  /// factors() of the node op() builds for a pair of a sum (rest·coeff), without building it.
  Factors term_factors(const GiNaC::expair& term);
  /// The operands of `e` (e.op(i)), those of a sum or a product sorted by this order.
  GiNaC::exvector operands(const GiNaC::ex& e);
  /// The indices i of e.op(i) in the order of operands(e); for a sum or a product, i below the
  /// number of GiNaC's pairs names pair i, and the last index its numeric coefficient (when
  /// op() lists one). Nothing is built but to tell apart two operands of one hash and sign.
  std::vector<std::size_t> operand_order(const GiNaC::ex& e);

 private:
  struct Summary {
    std::uint64_t hash;
    int sign;
    bool leaf;
  };
  Summary entry(const GiNaC::ex& e);
  /// hash, sign and leaf of the product that `f` reads.
  Summary product_summary(const Factors& f);
  /// hash, sign and leaf of a sum's term rest·coeff, without building it.
  Summary term_summary(const GiNaC::expair& term);
  /// hash, sign and leaf of a product's factor rest^coeff, without building it.
  Summary power_summary(const GiNaC::expair& factor);
  static bool is_one_coefficient(const GiNaC::expair& term);
  void add_factor(Factors& f, const GiNaC::ex& factor);
  void add_power(Factors& f, const GiNaC::ex& base, const GiNaC::numeric& exponent);
  std::uint64_t number_hash(const GiNaC::numeric& n);
  int compare_structure(const GiNaC::ex& a, const GiNaC::ex& b);
  NodeIndex seen_;                  // every node hashed (kept alive), numbered
  std::vector<Summary> summaries_;  // by the node's number in seen_
  std::unordered_map<GiNaC::ex, std::uint64_t, std::hash<GiNaC::ex>, GiNaC::ex_is_equal> numbers_;
};

/// The structural order as a comparator for std::map and std::set keyed by small expressions
/// (symbols, factors): use it instead of GiNaC::ex_is_less wherever the map is iterated into an
/// output. Each comparison hashes both sides afresh.
struct canonical_less {
  bool operator()(const GiNaC::ex& a, const GiNaC::ex& b) const {
    CanonicalOrder order;
    return order.less(a, b);
  }
};

}  // namespace appell::sym
