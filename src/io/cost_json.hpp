// The "cost" object of the JSON writers (internal): what forming and simplifying cost.
#pragma once

#include <nlohmann/json.hpp>

#include "appell/principles/equations.hpp"

namespace appell::io::detail {

inline nlohmann::ordered_json cost_json(const principles::DerivationCost& cost) {
  return {{"differentiations", cost.differentiations},
          {"derivative_nodes", cost.derivative_nodes},
          {"size_before", cost.size_before},
          {"size_after", cost.size_after},
          {"seconds", cost.seconds},
          {"simplify_seconds", cost.simplify_seconds}};
}

}  // namespace appell::io::detail
