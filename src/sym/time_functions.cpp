#include "appell/sym/time_functions.hpp"

#include <cctype>
#include <set>
#include <stdexcept>

namespace appell::sym {

TimeFunctions::TimeFunctions() : time_("t", "t") {}

void TimeFunctions::declare(const std::string& name, TimeFunctionKind kind) {
  auto it = functions_.find(name);
  if (it != functions_.end()) {
    if (it->second != kind) throw std::logic_error("time function declared twice: " + name);
    return;
  }
  functions_[name] = kind;
  derivative(name, 0);
  derivative(name, 1);
  derivative(name, 2);
}

TimeFunctionKind TimeFunctions::kind(const std::string& name) const {
  auto it = functions_.find(name);
  if (it == functions_.end()) throw std::logic_error("unknown time function: " + name);
  return it->second;
}

GiNaC::symbol TimeFunctions::derivative(const std::string& name, int order) {
  if (!functions_.count(name)) throw std::logic_error("unknown time function: " + name);
  auto& list = orders_[name];
  while (static_cast<int>(list.size()) <= order) {
    const int k = static_cast<int>(list.size());
    GiNaC::symbol s(text_name(name, k), latex_name(name, k));
    list.push_back(s);
    reverse_[s] = TimeFunctionOrder{name, k};
  }
  return list[static_cast<std::size_t>(order)];
}

std::optional<GiNaC::symbol> TimeFunctions::find_derivative(const std::string& name,
                                                            int order) const {
  auto it = orders_.find(name);
  if (it == orders_.end() || order < 0 || order >= static_cast<int>(it->second.size()))
    return std::nullopt;
  return it->second[static_cast<std::size_t>(order)];
}

std::optional<TimeFunctionOrder> TimeFunctions::lookup(const GiNaC::symbol& s) const {
  auto it = reverse_.find(s);
  if (it == reverse_.end()) return std::nullopt;
  return it->second;
}

std::string TimeFunctions::text_name(const std::string& base, int order) {
  if (order == 0) return base;
  // Built by appending: GCC 12 warns (-Wrestrict, a false positive) on "literal" + string.
  std::string prefix;
  switch (order) {
    case 1:
      prefix = "dot";
      break;
    case 2:
      prefix = "ddot";
      break;
    case 3:
      prefix = "dddot";
      break;
    default:
      prefix = "d";
      prefix += std::to_string(order);
  }
  prefix.append("(").append(base).append(")");
  return prefix;
}

std::string TimeFunctions::latex_name(const std::string& base, int order) {
  const std::string id = latex_identifier(base);
  // Put the accent on the stem only, so that q_{1} becomes \dot{q}_{1} (a name typeset as one
  // word, \mathrm{shoulder\_lift}, has no subscript: its \_ is no "_{").
  std::string stem = id, sub;
  if (auto pos = id.find("_{"); pos != std::string::npos) {
    stem = id.substr(0, pos);
    sub = id.substr(pos);
  }
  switch (order) {
    case 0:
      return id;
    case 1:
      return "\\dot{" + stem + "}" + sub;
    case 2:
      return "\\ddot{" + stem + "}" + sub;
    case 3:
      return "\\dddot{" + stem + "}" + sub;
    default:
      return stem + "^{(" + std::to_string(order) + ")}" + sub;
  }
}

std::string latex_identifier(const std::string& name) {
  static const std::set<std::string> greek = {
      "alpha", "beta",   "gamma", "delta", "epsilon", "zeta",   "eta",     "theta",  "iota",
      "kappa", "lambda", "mu",    "nu",    "xi",      "rho",    "sigma",   "tau",    "upsilon",
      "phi",   "chi",    "psi",   "omega", "Gamma",   "Delta",  "Theta",   "Lambda", "Xi",
      "Pi",    "Sigma",  "Phi",   "Psi",   "Omega",   "varphi", "vartheta"};
  auto wrap = [&](const std::string& s) {
    if (greek.count(s)) return "\\" + s;
    if (s.size() == 1) return s;
    return "\\mathrm{" + s + "}";
  };
  // theta_1 -> \theta_{1};  q12 -> q_{12};  M_S -> M_{S};  R_3_11 -> R_{3,11}
  if (auto pos = name.find('_'); pos != std::string::npos && pos > 0 && pos + 1 < name.size()) {
    std::string rest = name.substr(pos + 1);
    // A part after an underscore with two letters or more is a word (shoulder_lift_joint, m_base):
    // the name is one word, not a symbol with a subscript "lift,joint".
    bool words = false;
    std::size_t letters = 0;
    std::string part;
    for (std::size_t i = 0; i <= rest.size(); ++i) {
      if (i == rest.size() || rest[i] == '_') {
        if (letters >= 2 && !greek.count(part)) words = true;
        letters = 0;
        part.clear();
      } else {
        part += rest[i];
        if (std::isalpha(static_cast<unsigned char>(rest[i]))) ++letters;
      }
    }
    if (words) {
      std::string escaped;
      for (char c : name) escaped += (c == '_') ? std::string("\\_") : std::string(1, c);
      return "\\mathrm{" + escaped + "}";
    }
    std::string sub;
    for (char c : rest) sub += (c == '_') ? ',' : c;
    return wrap(name.substr(0, pos)) + "_{" + sub + "}";
  }
  std::size_t digits = name.size();
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(name[digits - 1]))) --digits;
  if (digits > 0 && digits < name.size())
    return wrap(name.substr(0, digits)) + "_{" + name.substr(digits) + "}";
  return wrap(name);
}

}  // namespace appell::sym
