// The symbols of a model and the time functions among them.
//
// A coordinate q(t) or an unspecified prescribed function p(t) is represented by one GiNaC symbol
// per derivative order: q, dot(q), ddot(q), dddot(q), ... (created on demand). The table knows,
// for every such symbol, which function and order it stands for, so that d/dt can map order k to
// order k + 1 (sym::Differentiator) and printers can write \dot{q}.
#pragma once

#include <ginac/ginac.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace appell::sym {

enum class TimeFunctionKind { Coordinate, Prescribed };

struct TimeFunctionOrder {
  std::string function;  // e.g. "q1"
  int order = 0;         // 0 = value, 1 = dot, 2 = ddot, ...
};

class TimeFunctions {
 public:
  TimeFunctions();

  /// The symbol of time t.
  const GiNaC::symbol& time() const { return time_; }

  /// Declares a time function (idempotent for the same kind).
  void declare(const std::string& name, TimeFunctionKind kind);
  bool is_declared(const std::string& name) const { return functions_.count(name) != 0; }
  TimeFunctionKind kind(const std::string& name) const;

  /// Symbol of the `order`-th time derivative of `name` (order 0 is the function itself).
  GiNaC::symbol derivative(const std::string& name, int order);
  /// Same, without creating: nullopt if that order was never made.
  std::optional<GiNaC::symbol> find_derivative(const std::string& name, int order) const;

  /// If `s` is one of this table's symbols, the function and order it stands for.
  std::optional<TimeFunctionOrder> lookup(const GiNaC::symbol& s) const;

  /// The LaTeX spelling of a symbol name: q1 -> q_{1}, theta -> \theta, dot(q1) -> \dot{q}_{1}.
  static std::string latex_name(const std::string& base, int order);
  /// The text spelling: q1, dot(q1), ddot(q1), d3(q1) ...
  static std::string text_name(const std::string& base, int order);

 private:
  GiNaC::symbol time_;
  std::map<std::string, TimeFunctionKind> functions_;
  std::map<std::string, std::vector<GiNaC::symbol>> orders_;
  std::map<GiNaC::ex, TimeFunctionOrder, GiNaC::ex_is_less> reverse_;
};

/// Splits a name like "q12" or "theta_1" into LaTeX with subscript; Greek names get a backslash.
std::string latex_identifier(const std::string& name);

}  // namespace appell::sym
