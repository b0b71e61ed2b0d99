// The one readable-simplification step shared by the equations and the minimal form (internal):
// every entry made readable together (readable_entries), and its cost recorded.
#pragma once

#include <chrono>

#include "appell/principles/derive.hpp"
#include "appell/sym/dag.hpp"

namespace appell::principles::detail {

/// `Formed` has model, entries(), set_entries(), simplified and cost (Equations,
/// MinimalEquations).
template <typename Formed>
Formed made_readable(const Formed& equations) {
  const auto start = std::chrono::steady_clock::now();
  Formed result = equations;
  result.set_entries(readable_entries(*equations.model, equations.entries()));
  result.simplified = true;
  result.cost.size_after = sym::dag_size(result.entries());
  result.cost.simplify_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace appell::principles::detail
