// Expressions as shared DAGs.
//
// Kinematic chains build expressions whose tree form is exponential in the number of links while
// the number of distinct nodes stays small (DESIGN.md, "Scale"). GiNaC's own diff(), subs() and
// expand() walk the tree, so every traversal appell does goes through these memoised helpers,
// which visit each shared node once.
#pragma once

#include <ginac/ginac.h>

#include <cstddef>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "appell/sym/node_index.hpp"

namespace appell::sym {

/// Identity of a GiNaC node (two ex that share a node have the same key). Keep the node alive
/// while its key is in use: op(i) of a product may return a temporary whose address is reused.
inline const void* node_key(const GiNaC::ex& e) { return &GiNaC::ex_to<GiNaC::basic>(e); }

/// Number of distinct nodes of the DAGs of all given expressions together (a node shared by
/// several roots counts once): the "size" every cost record reports. Never throws.
std::size_t dag_size(const GiNaC::exvector& roots);
/// The same for one expression.
inline std::size_t dag_size(const GiNaC::ex& e) { return dag_size(GiNaC::exvector{e}); }

/// Calls `visit` once for each distinct node of the expressions' DAGs (a shared node once),
/// depth first from the roots in order: the same order on every run. `visit` may throw to stop.
void for_each_node(const GiNaC::exvector& roots,
                   const std::function<void(const GiNaC::ex&)>& visit);

/// Symbols ordered by GiNaC's ex_is_less (for symbols: the order they were created in).
using SymbolSet = std::set<GiNaC::ex, GiNaC::ex_is_less>;
/// Every symbol of the expressions, each shared node visited once: a chain's trees are
/// exponentially larger than their DAGs, so GiNaC's own has() would walk far too much.
SymbolSet symbols_in(const GiNaC::exvector& roots);
/// The same by name (for numbers drawn in an order that does not depend on creation order).
std::map<std::string, GiNaC::symbol> symbols_by_name(const GiNaC::exvector& roots);

/// Rebuilds `e` bottom-up, visiting each shared node once. `rule` is applied to every node first:
/// if it returns true, the `replacement` it wrote replaces the node (and its children are not
/// visited); otherwise a leaf is kept and an inner node is rebuilt from its mapped children.
/// Results are cached by node for the life of the MemoisedMap, so one map applied to several
/// expressions shares the work on their common nodes.
class MemoisedMap {
 public:
  using Rule = std::function<bool(const GiNaC::ex& node, GiNaC::ex& replacement)>;
  explicit MemoisedMap(Rule rule) : rule_(std::move(rule)) {}
  /// `e` with the rule applied; rethrows whatever the rule throws.
  GiNaC::ex operator()(const GiNaC::ex& e);

 private:
  struct Entry {
    GiNaC::ex original;  // keeps the key's node alive
    GiNaC::ex result;
  };
  Rule rule_;
  std::unordered_map<const void*, Entry> cache_;
};

/// The numbers of expressions at a few points (numbers for their symbols), each shared node
/// computed once and GiNaC's pairs read as they are stored (sym/pairs.hpp). For a check at a
/// state or two: it costs about one visit of each node, where a Tape would first put every sum and
/// product in the structural order (CanonicalOrder) to evaluate them the same way in every run.
/// Here terms are added in GiNaC's order, which changes from run to run: the last digits may
/// differ between runs, so compare what it gives within a tolerance, never print it. IEEE
/// arithmetic as the Tape's (a division by zero gives inf, never an exception).
class DagEvaluator {
 public:
  /// Thrown for what the evaluator cannot compute.
  struct Unsupported : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
  };
  /// `symbol_values(s, out)` writes the number of s at each of the `points` points to out[0],
  /// ..., out[points - 1]; it throws Unsupported for a symbol without one.
  DagEvaluator(std::size_t points,
               std::function<void(const GiNaC::symbol&, double*)> symbol_values);
  /// Writes the number of `e` at each point to out[0], ..., out[points - 1]: numbers, constants,
  /// symbols, +, ×, powers and the functions the Tape evaluates (sin, cos, tan, exp, log, asin,
  /// acos, atan, atan2, sinh, cosh, tanh, abs). Throws Unsupported for a complex number or any
  /// other function or kind of expression.
  void operator()(const GiNaC::ex& e, double* out);

 private:
  std::size_t slot(const GiNaC::ex& e);  // where e's numbers are in values_
  std::size_t new_slot(const GiNaC::ex& e);
  std::size_t points_;
  std::function<void(const GiNaC::symbol&, double*)> symbol_values_;
  NodeIndex slots_;             // a node's number is its slot
  std::vector<double> values_;  // points_ numbers a slot
};

/// The most decimal digits an exact number raised to a power may get (numerator or denominator):
/// 2^(10^9) would take minutes and a gigabyte, 10^10000 takes microseconds.
inline constexpr double kLargestExactPowerDigits = 10000;

/// An upper estimate of the decimal digits of the exact numbers GiNaC computes to form
/// base^exponent: a rational base r (or a product's rational coefficient, or a number under a
/// power) raised to a rational exponent e gets about |e| log10 max(|numerator|, |denominator|)
/// digits. 0 when the exponent is not a number.
double exact_power_digits(const GiNaC::ex& base, const GiNaC::ex& exponent);

/// Substitutes symbols without walking shared nodes twice: every symbol that is a key of `map`
/// is replaced by its value (not substituted again). Keys that are not symbols never match. The
/// result is not re-simplified beyond GiNaC's automatic evaluation. Throws what GiNaC throws for a
/// pole (GiNaC::pole_error: 1/0, log(0)) and std::range_error for a power of exact numbers larger
/// than kLargestExactPowerDigits (exact_power_digits).
GiNaC::ex substitute(const GiNaC::ex& e, const GiNaC::exmap& map);
/// The same for every entry of `m` (same size), sharing the work across entries.
GiNaC::matrix substitute(const GiNaC::matrix& m, const GiNaC::exmap& map);

}  // namespace appell::sym
