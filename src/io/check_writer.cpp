#include "appell/io/check_writer.hpp"

#include <nlohmann/json.hpp>
#include <sstream>

#include "appell/io/equation_writer.hpp"

namespace appell::io {

namespace {

std::string number(double x) {
  std::ostringstream out;
  out.precision(10);
  out << (x == 0.0 ? 0.0 : x);
  return out.str();
}

}  // namespace

std::string write_check_text(const model::Model& model,
                             const std::vector<num::ClaimResult>& results) {
  const auto context = readable_context(model);
  std::ostringstream out;
  std::size_t holds = 0, factor = 0, differs = 0;
  for (const auto& r : results) {
    out << r.name << ": " << num::verdict_name(r.verdict);
    if (r.verdict == num::Verdict::HoldsUpToFactor && r.factor)
      out << " (factor " << expression_text(*r.factor, context) << ")";
    out << "\n";
    if (r.verdict == num::Verdict::Holds) ++holds;
    if (r.verdict == num::Verdict::HoldsUpToFactor) ++factor;
    if (r.verdict != num::Verdict::Differs) continue;
    ++differs;
    if (!r.difference.empty()) {
      out << "  claim - appell";
      if (r.factor && !r.factor->is_equal(1))
        out << " * (" << expression_text(*r.factor, context) << ")";
      out << ", term by term:\n";
      for (const auto& term : r.difference) out << "    " << expression_text(term, context) << "\n";
    }
    if (r.witness) {
      out << "  shows at";
      bool first = true;
      for (const auto& [name, value] : r.witness->state) {
        out << (first ? " " : ", ") << name << " = " << number(value);
        first = false;
      }
      out << ": claim " << number(r.witness->claimed) << ", appell " << number(r.witness->appell)
          << "\n";
    }
  }
  out << "\n" << holds << " hold, " << factor << " hold up to a factor, " << differs << " differ\n";
  return out.str();
}

std::string write_check_json(const model::Model& model,
                             const std::vector<num::ClaimResult>& results) {
  const auto context = readable_context(model);
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& r : results) {
    nlohmann::ordered_json item;
    item["name"] = r.name;
    item["verdict"] = num::verdict_name(r.verdict);
    item["factor"] = r.factor ? nlohmann::ordered_json(expression_text(*r.factor, context))
                              : nlohmann::ordered_json(nullptr);
    nlohmann::ordered_json difference = nlohmann::ordered_json::array();
    for (const auto& term : r.difference) difference.push_back(expression_text(term, context));
    item["difference"] = difference;
    if (r.witness) {
      nlohmann::ordered_json state = nlohmann::ordered_json::object();
      for (const auto& [name, value] : r.witness->state) state[name] = value == 0.0 ? 0.0 : value;
      item["witness"] = {
          {"state", state}, {"claimed", r.witness->claimed}, {"appell", r.witness->appell}};
    } else {
      item["witness"] = nullptr;
    }
    list.push_back(item);
  }
  nlohmann::ordered_json json;
  json["claims"] = list;
  return json.dump(2);
}

}  // namespace appell::io
