// The one readable-simplification step shared by the equations and the minimal form (internal):
// every entry made readable together within the default budget (readable_entries_within), each
// entry never larger than formed, and its cost recorded.
#pragma once

#include <chrono>
#include <regex>
#include <string>
#include <vector>

#include "appell/principles/derive.hpp"
#include "appell/principles/readable_form.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/intermediates.hpp"

namespace appell::principles::detail {

/// The entries of `m`, row by row, appended to `all` (the entries() of a formed set of equations).
inline void append_entries(GiNaC::exvector& all, const GiNaC::matrix& m) {
  for (std::size_t i = 0; i < m.nops(); ++i) all.push_back(m.op(i));
}

/// `m` row by row from all[k], all[k + 1], ... (set_entries()); k is left past the last.
inline void assign_entries(GiNaC::matrix& m, const GiNaC::exvector& all, std::size_t& k) {
  for (unsigned i = 0; i < m.rows(); ++i)
    for (unsigned j = 0; j < m.cols(); ++j) m(i, j) = all.at(k++);
}

/// `Formed` has model, entries(), set_entries(), simplified and cost (Equations,
/// MinimalEquations).
template <typename Formed>
Formed made_readable(const Formed& equations) {
  const auto start = std::chrono::steady_clock::now();
  Formed result = equations;
  const sym::BoundedReadable readable =
      readable_entries_within(*equations.model, equations.entries());
  result.set_entries(readable.entries);
  result.simplified = true;
  result.cost.size_after = sym::dag_size(result.entries());
  result.cost.kept_smaller = readable.count(sym::EntryForm::Smaller);
  result.cost.kept_over_budget = readable.count(sym::EntryForm::OverBudget);
  result.cost.simplify_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

/// A prefix for intermediate names that no name of the model has: z (z1, z2, ...), or zz, zzz ...
/// when the model has a name of that shape.
inline std::string intermediate_prefix(const model::Model& model) {
  std::vector<std::string> names;
  for (const auto& p : model.parameters) names.push_back(p.name);
  for (const auto& c : model.coordinates) names.push_back(c.name);
  for (const auto& p : model.prescribed) names.push_back(p.name);
  for (const auto& i : model.inputs) names.push_back(i.name);
  std::string prefix = "z";
  for (;;) {
    const std::regex shape(prefix + "[0-9]+");
    bool taken = false;
    for (const auto& name : names) taken = taken || std::regex_match(name, shape);
    if (!taken) return prefix;
    prefix += "z";
  }
}

/// The equations' entries written through named intermediates (sym::named_intermediates), which
/// are stored in `intermediates`; when `readable`, each definition and entry is then made
/// readable where that is shorter, within the default budget. simplified stays false: the
/// equations are as formed, written with names.
template <typename Formed>
Formed through_intermediates(const Formed& equations, std::vector<sym::Intermediate>& intermediates,
                             bool readable) {
  const auto start = std::chrono::steady_clock::now();
  sym::IntermediateOptions options;
  options.prefix = intermediate_prefix(*equations.model);
  sym::NamedIntermediates named = sym::named_intermediates(equations.entries(), options);
  if (readable) {
    GiNaC::exvector all;
    for (const auto& i : named.intermediates) all.push_back(i.value);
    all.insert(all.end(), named.roots.begin(), named.roots.end());
    const sym::BoundedReadable shown = readable_entries_within(*equations.model, all);
    for (std::size_t k = 0; k < named.intermediates.size(); ++k)
      named.intermediates[k].value = shown.entries[k];
    for (std::size_t k = 0; k < named.roots.size(); ++k)
      named.roots[k] = shown.entries[named.intermediates.size() + k];
  }
  intermediates = std::move(named.intermediates);
  Formed result = equations;
  result.set_entries(named.roots);
  result.simplified = false;
  result.cost.simplify_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace appell::principles::detail
