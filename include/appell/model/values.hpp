// The numbers a model's equations leave open, and the one function that binds them.
//
// Equations refer to the model's parameters (which have defaults), to its inputs and to its
// unspecified prescribed functions of time (which have none), and to the derivatives of those
// ("dot(u)", "ddot(u)"). Whoever evaluates the equations — compiled equations, the minimal form,
// simulation, inverse dynamics, statics, code generation, finite elements, the command line —
// gives their values as one `Values` and resolves them against the model with `bind()`:
//
//   model::Values values;
//   values.set("m", 2.0).set("u", 0.5).drive("alpha", parse_time_function(model, "sin(t)"));
//   const model::BoundValues bound = model::bind(model, values);
//
// Every name must be one the model has: an unknown name is an error naming it, never a silent 0.
#pragma once

#include <ginac/ginac.h>

#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/model/source_location.hpp"

namespace appell::model {

/// Values for the names a model's equations leave open, by name:
/// - numbers: parameter overrides ("m"), constant values of inputs and unspecified prescribed
///   functions ("u") and of their time derivatives by their printed names ("dot(u)", "ddot(u)");
/// - expressions of t (and the model's parameters) driving an input or an unspecified prescribed
///   function ("u" = sin(2 t)); its derivatives follow from the expression.
/// Each value remembers where it was given (a SourceLocation, by default {"values"}), and bind()
/// reports a bad value there: the command line passes its option ("--set", "--input"), so that
/// its errors name the option while the library never does.
///
/// A Values is a plain value: nothing is checked until bind() sees the model.
class Values {
 public:
  Values() = default;
  /// Every entry a number, located at default_location(). Implicit, so that a map of numbers
  /// (e.g. `{{"m", 2.0}}` or a parsed `--set` list) is accepted wherever Values is expected.
  Values(const std::map<std::string, double>& numbers);  // NOLINT(google-explicit-constructor)
  /// The same from a braced list: `Values{{"m", 2.0}, {"u", 0.5}}`.
  Values(std::initializer_list<std::pair<const std::string, double>> numbers);

  /// Where a value is located when the caller gives no place: {"values", 0, 0}.
  static SourceLocation default_location();

  /// Gives `name` the number `value` (replacing a number given before). `where` locates errors
  /// about this value. Returns *this. Never throws; bind() checks the name and the number.
  Values& set(const std::string& name, double value, SourceLocation where = default_location());
  /// Drives input or unspecified prescribed function `name` by `expression_of_t`, an expression
  /// of the model's time symbol t and its parameters' symbols (e.g. from
  /// num::parse_time_function), replacing an expression given before. Returns *this. Never
  /// throws; bind() checks the name and the expression.
  Values& drive(const std::string& name, GiNaC::ex expression_of_t,
                SourceLocation where = default_location());
  /// The number of `name`, created as 0 (at default_location()) if it has none yet, as
  /// std::map::operator[] does: `values["m"] = 2.0`.
  double& operator[](const std::string& name);

  /// Adds every value of `other` with its location, each replacing one of the same name and
  /// kind here (a number replaces a number, an expression an expression; a name that ends up
  /// with both is what bind() rejects). Returns *this.
  Values& merge(const Values& other);

  /// The numbers given, by name.
  const std::map<std::string, double>& numbers() const { return numbers_; }
  /// The expressions of t given, by name.
  const std::map<std::string, GiNaC::ex>& driven() const { return driven_; }
  /// Where the value of `name` was given (default_location() for a name never given).
  SourceLocation where(const std::string& name) const;
  /// 1 if `name` was given a number or an expression, 0 otherwise (as std::map::count).
  std::size_t count(const std::string& name) const;
  /// No value at all.
  bool empty() const { return numbers_.empty() && driven_.empty(); }

 private:
  std::map<std::string, double> numbers_;
  std::map<std::string, GiNaC::ex> driven_;
  std::map<std::string, SourceLocation> where_;
};

/// Values resolved against one model: what every consumer substitutes or loads into its tape.
/// Symbols are the model's own (Parameter::symbol and model.time_functions' derivative symbols).
struct BoundValues {
  /// Every parameter's number by name: its override, or else its default evaluated with the
  /// numbers of the parameters before it (so a default `2*a` follows an overridden `a`).
  std::map<std::string, double> parameters;
  /// Symbol -> number: every parameter symbol, and each symbol (value or derivative, of every
  /// order the model's time table has) of an input or unspecified prescribed function that was
  /// given a number.
  GiNaC::exmap numbers;
  /// Symbol -> 0 for each symbol of an input or unspecified prescribed function given neither a
  /// number nor an expression: a constant input of 0 (the default of a model's inputs). Kept
  /// apart from `numbers` so that a consumer that needs every such function given (the moving
  /// frame of a flexible body) or prints equations can leave them symbolic.
  GiNaC::exmap unset;
  /// Symbol -> expression of t alone (parameters replaced by their numbers) for each derivative
  /// order the time table has of every driven function: the expression differentiated in t.
  GiNaC::exmap driven;
  /// Symbol -> number of exactly the numbers given (parameter overrides and constant values of
  /// functions), nothing defaulted: what printed equations substitute for `--set`.
  GiNaC::exmap given;

  /// numbers, unset and driven together: substituted into an expression of the model, it leaves
  /// t and the coordinates (with their derivatives) only.
  GiNaC::exmap substitution() const;
};

/// Resolves every name of `values` against `model`: a parameter; an input or unspecified
/// prescribed function; or a time derivative of one of those, by its printed name ("dot(u)",
/// "ddot(u)", "dddot(u)", "d4(u)"). Parameter defaults are evaluated in the model's order with
/// the overrides taking precedence.
///
/// Throws ModelError, located where the value was given (Values::where) and naming it, for:
/// an unknown name (nothing of the model, or a coordinate, or a prescribed function the model
/// gives an expression); a number that is not finite (nan, inf); an expression for a parameter
/// or a derivative name; an expression with a symbol other than t and the parameters; a function
/// given both a number (for itself or a derivative) and an expression. Throws ModelError at the
/// parameter's place in the model when its default is not a real number. A number for a
/// derivative order the model's time table does not have (e.g. "d7(u)") is accepted and unused.
///
/// `symbolic_parameters` names parameters that stay symbols in the expressions of driven
/// functions (their numbers are still in `parameters` and `numbers`): for code and programs that
/// take those parameters at run time (generated code; num::Dynamics's run-time parameters), so
/// that a driven `u = A*sin(w*t)` follows the A and w of each call. Names that are not parameters
/// are ignored.
BoundValues bind(const Model& model, const Values& values,
                 const std::set<std::string>& symbolic_parameters = {});

}  // namespace appell::model
