#include "appell/model/values.hpp"

#include <cctype>
#include <cmath>
#include <optional>
#include <set>
#include <sstream>

#include "appell/model/closest_name.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/differentiator.hpp"
#include "appell/sym/finite_number.hpp"
#include "appell/sym/time_functions.hpp"
#include "inertia_check.hpp"

namespace appell::model {

Values::Values(const std::map<std::string, double>& numbers) {
  for (const auto& [name, value] : numbers) set(name, value);
}

Values::Values(std::initializer_list<std::pair<const std::string, double>> numbers) {
  for (const auto& [name, value] : numbers) set(name, value);
}

SourceLocation Values::default_location() { return SourceLocation{"values", 0, 0}; }

Values& Values::set(const std::string& name, double value, SourceLocation where) {
  numbers_[name] = value;
  where_[name] = std::move(where);
  return *this;
}

Values& Values::drive(const std::string& name, GiNaC::ex expression_of_t, SourceLocation where) {
  driven_[name] = std::move(expression_of_t);
  where_[name] = std::move(where);
  return *this;
}

double& Values::operator[](const std::string& name) {
  if (!where_.count(name)) where_[name] = default_location();
  return numbers_[name];
}

Values& Values::merge(const Values& other) {
  for (const auto& [name, value] : other.numbers_) set(name, value, other.where(name));
  for (const auto& [name, expression] : other.driven_) drive(name, expression, other.where(name));
  return *this;
}

SourceLocation Values::where(const std::string& name) const {
  const auto it = where_.find(name);
  return it == where_.end() ? default_location() : it->second;
}

std::size_t Values::count(const std::string& name) const {
  return numbers_.count(name) + driven_.count(name) > 0 ? 1 : 0;
}

GiNaC::exmap BoundValues::substitution() const {
  GiNaC::exmap all = numbers;
  all.insert(unset.begin(), unset.end());
  all.insert(driven.begin(), driven.end());
  return all;
}

namespace {

struct FunctionOrder {
  std::string function;
  int order = 0;
};

// "u" -> (u, 0), "dot(u)" -> (u, 1), "ddot(u)" -> (u, 2), "dddot(u)" -> (u, 3), "d7(u)" -> (u, 7):
// the spellings of sym::TimeFunctions::text_name.
FunctionOrder split_derivative(const std::string& name) {
  const auto open = name.find('(');
  if (open == std::string::npos || open == 0 || name.back() != ')' || open + 2 > name.size() - 1)
    return {name, 0};
  const std::string prefix = name.substr(0, open);
  const std::string function = name.substr(open + 1, name.size() - open - 2);
  int order = 0;
  if (prefix == "dot") {
    order = 1;
  } else if (prefix == "ddot") {
    order = 2;
  } else if (prefix == "dddot") {
    order = 3;
  } else if (prefix.size() > 1 && prefix[0] == 'd' && prefix.size() <= 4) {
    for (std::size_t i = 1; i < prefix.size(); ++i) {
      if (!std::isdigit(static_cast<unsigned char>(prefix[i]))) return {name, 0};
      order = 10 * order + (prefix[i] - '0');
    }
    if (order < 4) return {name, 0};  // d1(u) .. d3(u) are spelled dot, ddot, dddot
  } else {
    return {name, 0};
  }
  if (sym::TimeFunctions::text_name(function, order) != name) return {name, 0};
  return {function, order};
}

// Inputs and prescribed functions left unspecified: the functions whose values are given.
bool is_open_function(const Model& model, const std::string& name) {
  for (const auto& input : model.inputs)
    if (input.name == name) return true;
  for (const auto& p : model.prescribed)
    if (p.name == name && !p.expression) return true;
  return false;
}

bool is_coordinate(const Model& model, const std::string& name) {
  for (const auto& c : model.coordinates)
    if (c.name == name) return true;
  return false;
}

bool is_specified_function(const Model& model, const std::string& name) {
  for (const auto& p : model.prescribed)
    if (p.name == name && p.expression) return true;
  return false;
}

// Why `name` (a function or a derivative of one) is not a name values are given to.
[[noreturn]] void reject_unknown(const Model& model, const Values& values, const std::string& name,
                                 const std::string& function) {
  std::string why = "unknown name: not a parameter, input or unspecified prescribed function";
  if (is_coordinate(model, function))
    why = "a coordinate takes no value: it is the state (its initial value is in the model)";
  else if (is_specified_function(model, function))
    why = "the model gives this prescribed function an expression of t";
  else if (function != name && model.find_parameter(function))
    why = "a parameter has no time derivatives";
  else {
    std::vector<std::string> names;  // what values may be given to
    for (const auto& p : model.parameters) names.push_back(p.name);
    for (const auto& u : model.inputs) names.push_back(u.name);
    for (const auto& p : model.prescribed)
      if (!p.expression) names.push_back(p.name);
    why += did_you_mean(function, names);
  }
  throw ModelError(values.where(name), why, name);
}

// Every symbol of an expression (a driven function's expression is small: no sharing to mind).
void collect_symbols(const GiNaC::ex& e, std::set<GiNaC::ex, GiNaC::ex_is_less>& symbols) {
  if (GiNaC::is_a<GiNaC::symbol>(e)) symbols.insert(e);
  for (std::size_t i = 0; i < e.nops(); ++i) collect_symbols(e.op(i), symbols);
}

// The parameters' numbers in the model's order: overrides, else defaults evaluated with the
// numbers of the parameters before.
std::map<std::string, double> parameter_numbers(const Model& model,
                                                const std::map<std::string, double>& overrides) {
  std::map<std::string, double> numbers;
  GiNaC::exmap known;
  for (const auto& p : model.parameters) {
    double v = 0.0;
    if (auto it = overrides.find(p.name); it != overrides.end()) {
      v = it->second;
    } else {
      // Checked step by step (sym/finite_number.hpp): a default of earlier parameters that the
      // given values take out of the doubles' range (exp(exp(l)) with l=1000) is refused here.
      try {
        v = sym::finite_double(p.default_value, known);
      } catch (const sym::NotAFiniteDouble& e) {
        throw ModelError(p.where, std::string("parameter value is not a real number: ") + e.what(),
                         p.name);
      }
    }
    numbers[p.name] = v;
    known[p.symbol] = v;
  }
  return numbers;
}

// Every derivative symbol of `function` the model's time table has, by order.
std::vector<GiNaC::symbol> derivative_symbols(const Model& model, const std::string& function) {
  std::vector<GiNaC::symbol> symbols;
  for (int order = 0;; ++order) {
    const auto s = model.time_functions->find_derivative(function, order);
    if (!s) break;
    symbols.push_back(*s);
  }
  return symbols;
}

}  // namespace

namespace {

// The parameters of `overrides` that `e` uses, as "m=-1, l=2", for a message that says which
// given values made a mass or an inertia impossible.
std::string given_in(const GiNaC::ex& e, const Model& model,
                     const std::map<std::string, double>& overrides) {
  std::ostringstream text;
  for (const auto& [name, value] : overrides)
    if (const auto* p = model.find_parameter(name); p && e.has(p->symbol))
      text << (text.tellp() > 0 ? ", " : "") << name << "=" << value;
  return text.str();
}

// The builder checked every mass and inertia at the parameters' defaults; values given at run
// time (--set m=-1, C=3 for a body whose moments were A, A, C) are checked here the same way, so
// that an impossible body is bad input at its place, not a singular mass matrix later.
void check_mass_properties(const Model& model, const GiNaC::exmap& numbers,
                           const std::map<std::string, double>& overrides, const Values& values) {
  if (overrides.empty()) return;  // the defaults: checked when the model was built
  const auto number = [&](const GiNaC::ex& e) -> std::optional<double> {
    const GiNaC::ex value = GiNaC::evalf(sym::substitute(e, numbers));
    if (!GiNaC::is_a<GiNaC::numeric>(value) || !GiNaC::ex_to<GiNaC::numeric>(value).is_real())
      return std::nullopt;
    return GiNaC::ex_to<GiNaC::numeric>(value).to_double();
  };
  const auto fail = [&](const GiNaC::ex& uses, const std::string& defect,
                        const std::string& owner) {
    // Located at the last given value it uses (its --set, or its keyword in code), named.
    std::string culprit;
    for (const auto& [name, value] : overrides)
      if (const auto* p = model.find_parameter(name); p && uses.has(p->symbol)) culprit = name;
    throw ModelError(values.where(culprit),
                     "with " + given_in(uses, model, overrides) + ", " + owner + "'s " + defect,
                     culprit);
  };
  for (const auto& p : model.particles) {
    if (given_in(p.mass, model, overrides).empty()) continue;
    if (const auto m = number(p.mass); m && !(*m > 0))
      fail(p.mass, "mass must be positive", p.name);
  }
  for (const auto& b : model.bodies) {
    GiNaC::lst uses{b.mass};
    for (unsigned k = 0; k < 9; ++k) uses.append(b.inertia(k / 3, k % 3));
    if (given_in(uses, model, overrides).empty()) continue;
    if (const auto m = number(b.mass); m && !(*m > 0))
      fail(b.mass, "mass must be positive", b.name);
    Eigen::Matrix3d tensor;
    bool known = true;
    for (int i = 0; i < 3 && known; ++i)
      for (int j = 0; j < 3 && known; ++j) {
        const auto v = number(b.inertia(unsigned(i), unsigned(j)));
        if (!v)
          known = false;
        else
          tensor(i, j) = *v;
      }
    if (!known) continue;
    if (const auto defect = detail::inertia_fault(tensor) == detail::InertiaFault::Triangle
                                ? detail::planar_defect(model, b.frame, tensor)
                                : detail::inertia_defect(tensor))
      fail(uses, *defect, b.name);
  }
}

}  // namespace

BoundValues bind(const Model& model, const Values& values,
                 const std::set<std::string>& symbolic_parameters) {
  // Classify every number: a parameter override, or a value of an open function (by order).
  std::map<std::string, double> overrides;
  std::map<std::string, std::map<int, double>> function_numbers;  // function -> order -> value
  for (const auto& [name, value] : values.numbers()) {
    if (!std::isfinite(value)) {
      std::ostringstream text;
      text << "not a finite number (" << value << ")";
      throw ModelError(values.where(name), text.str(), name);
    }
    if (model.find_parameter(name)) {
      overrides[name] = value;
      continue;
    }
    const FunctionOrder f = split_derivative(name);
    if (!is_open_function(model, f.function)) reject_unknown(model, values, name, f.function);
    function_numbers[f.function][f.order] = value;
  }
  for (const auto& [name, expression] : values.driven()) {
    (void)expression;
    if (model.find_parameter(name))
      throw ModelError(values.where(name),
                       "a parameter is a constant: give it a number, not an expression of t", name);
    const FunctionOrder f = split_derivative(name);
    if (!is_open_function(model, f.function)) reject_unknown(model, values, name, f.function);
    if (f.order != 0)
      throw ModelError(values.where(name),
                       "drive the function itself: its derivatives follow from the expression",
                       name);
    if (function_numbers.count(name))
      throw ModelError(values.where(name),
                       "given both a number and an expression of t (one value for a function "
                       "and its derivatives)",
                       name);
  }

  BoundValues bound;
  bound.parameters = parameter_numbers(model, overrides);
  for (const auto& p : model.parameters) {
    const double number = bound.parameters.at(p.name);
    bound.numbers[p.symbol] = number;
    if (overrides.count(p.name)) bound.given[p.symbol] = number;
  }

  check_mass_properties(model, bound.numbers, overrides, values);

  // Inputs, then unspecified prescribed functions: a number, an expression or 0 for each
  // derivative symbol the time table has.
  std::vector<std::string> functions;
  for (const auto& input : model.inputs) functions.push_back(input.name);
  for (const auto& p : model.prescribed)
    if (!p.expression) functions.push_back(p.name);
  const GiNaC::symbol& t = model.time_functions->time();
  // What driven expressions substitute: every parameter's number but those kept symbolic.
  GiNaC::exmap folded = bound.numbers;
  std::set<GiNaC::ex, GiNaC::ex_is_less> kept;
  for (const auto& name : symbolic_parameters)
    if (const auto* p = model.find_parameter(name)) {
      folded.erase(p->symbol);
      kept.insert(p->symbol);
    }
  for (const auto& function : functions) {
    const std::vector<GiNaC::symbol> symbols = derivative_symbols(model, function);
    if (const auto it = values.driven().find(function); it != values.driven().end()) {
      GiNaC::ex expression = sym::substitute(it->second, folded);
      std::set<GiNaC::ex, GiNaC::ex_is_less> symbols_in;
      collect_symbols(expression, symbols_in);
      for (const auto& s : symbols_in)
        if (!s.is_equal(t) && !kept.count(s))
          throw ModelError(values.where(function),
                           "the expression of t driving this function has another symbol, " +
                               GiNaC::ex_to<GiNaC::symbol>(s).get_name() +
                               " (t and the parameters only)",
                           function);
      sym::Differentiator d(model.time_functions);
      for (std::size_t order = 0; order < symbols.size(); ++order) {
        if (order > 0) expression = d.time_derivative(expression);
        bound.driven[symbols[order]] = expression;
      }
      continue;
    }
    const auto given = function_numbers.find(function);
    for (std::size_t order = 0; order < symbols.size(); ++order) {
      if (given != function_numbers.end()) {
        if (const auto v = given->second.find(static_cast<int>(order)); v != given->second.end()) {
          bound.numbers[symbols[order]] = v->second;
          bound.given[symbols[order]] = v->second;
          continue;
        }
      }
      bound.unset[symbols[order]] = 0;
    }
  }
  return bound;
}

}  // namespace appell::model
