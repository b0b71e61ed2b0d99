// The groups of named intermediates as JSON, one writer for `derive` and `regressor` (internal):
// [{"section": ..., "part": ..., "names": [...]}, ...], a section only where one starts.
#pragma once

#include <nlohmann/json.hpp>

#include "appell/principles/derivation.hpp"

namespace appell::io::detail {

inline nlohmann::ordered_json intermediate_groups_json(const principles::IntermediateForm& named) {
  nlohmann::ordered_json groups = nlohmann::ordered_json::array();
  for (const auto& g : named.groups) {
    nlohmann::ordered_json names = nlohmann::ordered_json::array();
    for (std::size_t k = g.first; k < g.first + g.count; ++k)
      names.push_back(named.intermediates[k].name.get_name());
    nlohmann::ordered_json group;
    if (!g.section.empty()) group["section"] = g.section;
    group["part"] = g.part;
    group["names"] = names;
    groups.push_back(group);
  }
  return groups;
}

}  // namespace appell::io::detail
