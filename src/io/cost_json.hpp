// The cost of forming and simplifying as the writers print it (internal): the "cost" object of
// the JSON writers and the cost line of the text writers.
#pragma once

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "appell/io/write_options.hpp"
#include "appell/principles/equations.hpp"

namespace appell::io::detail {

inline nlohmann::ordered_json cost_json(const principles::DerivationCost& cost,
                                        const WriteOptions& options) {
  nlohmann::ordered_json json = {{"differentiations", cost.differentiations},
                                 {"derivative_nodes", cost.derivative_nodes},
                                 {"size_before", cost.size_before},
                                 {"size_after", cost.size_after}};
  // Only when some entry was kept as formed, so that other outputs stay as they were.
  if (cost.kept_smaller > 0) json["kept_as_formed_smaller"] = cost.kept_smaller;
  if (cost.kept_over_budget > 0) json["kept_as_formed_over_budget"] = cost.kept_over_budget;
  if (options.timing) {
    json["seconds"] = cost.seconds;
    json["simplify_seconds"] = cost.simplify_seconds;
  }
  return json;
}

/// "cost: N differentiations, ..." with a final line break; seconds only with options.timing.
inline std::string cost_text(const principles::DerivationCost& cost, bool simplified,
                             const WriteOptions& options) {
  std::ostringstream out;
  if (simplified && cost.kept_smaller + cost.kept_over_budget > 0) {
    out << "note: " << cost.kept_smaller + cost.kept_over_budget
        << " entries are printed as formed:";
    if (cost.kept_smaller > 0) out << " " << cost.kept_smaller << " were shorter than simplified";
    if (cost.kept_smaller > 0 && cost.kept_over_budget > 0) out << ",";
    if (cost.kept_over_budget > 0)
      out << " " << cost.kept_over_budget
          << " were too large to simplify within the budget (derive --intermediates shows them "
             "through named intermediates)";
    out << "\n";
  }
  out << "cost: " << cost.differentiations << " differentiations, " << cost.derivative_nodes
      << " derivative nodes, " << cost.size_before << " nodes as formed";
  if (simplified) out << ", " << cost.size_after << " simplified";
  if (options.timing) {
    out << ", " << cost.seconds << " s forming";
    if (simplified) out << ", " << cost.simplify_seconds << " s simplifying";
  }
  out << "\n";
  return out.str();
}

}  // namespace appell::io::detail
