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

/// A generalized coordinate, or a function of time given at evaluation (an unspecified
/// prescribed function or an input: both are Prescribed here, Model::inputs tells them apart), or
/// a generalized speed u(t) declared by the model (Model::speeds), whose rate dot(u) is a
/// quasi-acceleration.
enum class TimeFunctionKind { Coordinate, Prescribed, Speed };

/// What one symbol of the table stands for: the `order`-th time derivative of `function`.
struct TimeFunctionOrder {
  std::string function;  // e.g. "q1"
  int order = 0;         // 0 = value, 1 = dot, 2 = ddot, ...
};

/// The table of a model's time functions and their derivative symbols (shared by the model, its
/// Differentiator and its printers). Symbols are created once and then always returned again, so
/// two calls for the same function and order give the same GiNaC symbol.
class TimeFunctions {
 public:
  /// An empty table with its symbol t (named "t").
  TimeFunctions();

  /// The symbol of time t.
  const GiNaC::symbol& time() const { return time_; }

  /// Declares a time function and creates its symbols of orders 0, 1 and 2 (idempotent for the
  /// same kind). Throws std::logic_error when `name` was declared with the other kind.
  void declare(const std::string& name, TimeFunctionKind kind);
  /// Whether `name` was declared.
  bool is_declared(const std::string& name) const { return functions_.count(name) != 0; }
  /// The kind `name` was declared with. Throws std::logic_error for an undeclared name.
  TimeFunctionKind kind(const std::string& name) const;

  /// Symbol of the `order`-th time derivative of `name` (order ≥ 0; order 0 is the function
  /// itself), created with every missing lower order if new. Throws std::logic_error for an
  /// undeclared name.
  GiNaC::symbol derivative(const std::string& name, int order);
  /// Same, without creating: nullopt if that order was never made (or `name` is undeclared).
  std::optional<GiNaC::symbol> find_derivative(const std::string& name, int order) const;

  /// If `s` is one of this table's symbols, the function and order it stands for.
  std::optional<TimeFunctionOrder> lookup(const GiNaC::symbol& s) const;

  /// The LaTeX spelling of the `order`-th derivative of `base`: (q1, 0) -> q_{1}, (theta, 0) ->
  /// \theta, (q1, 1) -> \dot{q}_{1}, up to \dddot at order 3, then q^{(4)}_{1}.
  static std::string latex_name(const std::string& base, int order);
  /// The text spelling, which is also the symbol's name: q1, dot(q1), ddot(q1), dddot(q1),
  /// d4(q1), d5(q1) ...
  static std::string text_name(const std::string& base, int order);

 private:
  GiNaC::symbol time_;
  std::map<std::string, TimeFunctionKind> functions_;
  std::map<std::string, std::vector<GiNaC::symbol>> orders_;
  std::map<GiNaC::ex, TimeFunctionOrder, GiNaC::ex_is_less> reverse_;
};

/// Splits a name like "q12" or "theta_1" into LaTeX with subscript; Greek names get a backslash,
/// other names longer than one letter \mathrm: q12 -> q_{12}, theta_1 -> \theta_{1}, M_S -> M_{S}.
/// A name with a part of two letters or more after an underscore is one word:
/// shoulder_lift_joint -> \mathrm{shoulder\_lift\_joint}, m_base -> \mathrm{m\_base}.
std::string latex_identifier(const std::string& name);

}  // namespace appell::sym
