#include "appell/model/closest_name.hpp"

#include <algorithm>
#include <cstddef>

namespace appell::model {

namespace {

// Optimal string alignment distance: insertions, deletions, substitutions and transpositions of
// neighbours each cost one ("derve" -> "derive" 1, "dervie" -> "derive" 1).
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

// ASCII letters in lower case; other bytes (UTF-8 sequences among them) as they are.
std::string lower_case(std::string text) {
  for (char& c : text)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return text;
}

}  // namespace

std::string closest_name(const std::string& given, const std::vector<std::string>& names) {
  if (given.empty()) return "";
  // Letters' case is the likeliest slip and the one edit distance judges worst: "L" is one edit
  // from every one-letter name, "m" and "M" alike, so a name that differs from `given` only in
  // case wins outright (of several, the one with the fewest letters changed).
  const std::string lowered = lower_case(given);
  std::size_t best = std::string::npos;
  std::string closest;
  for (const auto& name : names) {
    if (name == given || lower_case(name) != lowered) continue;
    const std::size_t distance = edit_distance(given, name);
    if (distance < best) {
      best = distance;
      closest = name;
    }
  }
  if (!closest.empty()) return closest;
  // Then spelling, blind to case: the one name `given` begins, else the nearest.
  std::vector<std::string> prefixed;
  for (const auto& name : names)
    if (name != given && lower_case(name).rfind(lowered, 0) == 0) prefixed.push_back(name);
  if (prefixed.size() == 1) return prefixed.front();
  for (const auto& name : names) {
    const std::size_t distance = edit_distance(lowered, lower_case(name));
    if (distance == 0 || distance > std::max<std::size_t>(1, name.size() / 3)) continue;
    // A name every character of which was replaced shares nothing with what was written ("x"
    // for "m"): no evidence that it was meant.
    if (distance >= name.size()) continue;
    if (distance < best) {
      best = distance;
      closest = name;
    }
  }
  return closest;
}

std::string did_you_mean(const std::string& given, const std::vector<std::string>& names) {
  const std::string closest = closest_name(given, names);
  return closest.empty() ? "" : "; did you mean '" + closest + "'?";
}

}  // namespace appell::model
