// The one place where appell differentiates.
//
// partial(e, x) is ∂e/∂x for a symbol x; time_derivative(e) is the total derivative
//   d/dt e = ∂e/∂t + Σ_k ∂e/∂(f_k^(r)) · f_k^(r+1)
// over every time function f_k (coordinates, unspecified prescribed functions, inputs) and every
// derivative order r present in e: q -> dot(q) -> ddot(q) -> dddot(q) ...
// Both are memoised on the shared nodes of the expression DAG and the caches live as long as the
// Differentiator, so a subexpression shared by many bodies of a chain is differentiated once.
#pragma once

#include <ginac/ginac.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "appell/sym/canonical_order.hpp"
#include "appell/sym/time_functions.hpp"

namespace appell::sym {

/// Differentiates expressions of a model's symbols (the file comment gives the rules). Not
/// thread-safe: its caches and counters change with every call.
class Differentiator {
 public:
  /// `functions` is the model's table (Model::time_functions): it decides which symbols are time
  /// functions and receives the higher derivative symbols d/dt creates.
  explicit Differentiator(std::shared_ptr<TimeFunctions> functions);

  /// ∂e/∂x, x any symbol (t, a coordinate or one of its derivatives, a parameter); every other
  /// symbol is held constant. Counts one differentiation.
  GiNaC::ex partial(const GiNaC::ex& e, const GiNaC::symbol& x);
  /// ∂m/∂x entry by entry (same size as `m`; one differentiation per entry).
  GiNaC::matrix partial(const GiNaC::matrix& m, const GiNaC::symbol& x);
  /// de/dt, the total derivative: t gives 1, the symbol of order r of a time function gives that
  /// of order r + 1 (created in the table if new), parameters give 0. Throws std::logic_error
  /// for an expression kind no model makes (a matrix or a relation inside `e`).
  GiNaC::ex time_derivative(const GiNaC::ex& e);
  /// dm/dt entry by entry (same size as `m`).
  GiNaC::matrix time_derivative(const GiNaC::matrix& m);

  /// For expressions e_j linear in the symbols v_k (the accelerations of a principle's residuals):
  /// coefficients(j, k) = ∂e_j/∂v_k and remainders[j] = e_j|v=0, in one memoised pass over the
  /// shared DAG for all k at once (counted as rows × columns differentiations). `coefficients`
  /// is resized to e.size() × v.size() and `remainders` to e.size(). For e_j not linear in v the
  /// coefficients are still ∂e_j/∂v_k (then depending on v); a v_k in an exponent throws
  /// std::logic_error.
  void split_linear(const GiNaC::exvector& e, const std::vector<GiNaC::symbol>& v,
                    GiNaC::matrix& coefficients, GiNaC::exvector& remainders);

  /// Scalar differentiations requested (one per expression and variable, or per d/dt).
  std::size_t differentiations() const { return differentiations_; }
  /// Node-level derivative rules applied: the actual work, shared nodes counted once. Nodes are
  /// counted by structure (two equal subexpressions at different addresses count once), so the
  /// count is the same in every run.
  std::size_t derivative_nodes() const { return derivative_nodes_; }

  /// The table of time functions this differentiator extends.
  TimeFunctions& functions() { return *functions_; }

 private:
  struct Entry {
    GiNaC::ex original;  // keeps the node alive while it is a key
    GiNaC::ex result;
  };
  struct Cache {
    std::unordered_map<const void*, Entry> nodes;
    std::unordered_set<std::uint64_t> counted;  // structural hashes of the nodes derived
  };

  /// d(node)/d(var) where var is a symbol, or time when var is empty (derivative of leaves
  /// given by leaf_derivative).
  GiNaC::ex derive(const GiNaC::ex& e, Cache& cache, const GiNaC::symbol* var);
  GiNaC::ex leaf_derivative(const GiNaC::ex& e, const GiNaC::symbol* var);
  /// ∂f(a_1..a_k)/∂a_i as an expression of the a's (GiNaC keeps the rule, we only ask for it).
  GiNaC::ex function_partial(const GiNaC::function& f, std::size_t i);

  std::shared_ptr<TimeFunctions> functions_;
  Cache time_cache_;
  std::map<GiNaC::ex, Cache, GiNaC::ex_is_less> partial_caches_;
  std::size_t differentiations_ = 0;
  std::size_t derivative_nodes_ = 0;
  CanonicalOrder order_;
};

}  // namespace appell::sym
