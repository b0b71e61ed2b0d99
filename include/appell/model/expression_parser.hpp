// The expression language of model files (MODEL_FORMAT.md, "Expressions") and frame rotations.
//
// A hand-written recursive-descent parser rather than GiNaC's own reader, for two reasons: an
// unknown name or a syntax error must be reported at the exact line and column where it was
// written in the model file, and numbers must stay exact ("0.5" is 1/2, "2e-3" is 1/500) so that
// the derived equations keep rational coefficients.
//
// Grammar (^ is right-associative and binds tighter than a unary sign, so -x^2 = -(x^2)):
//   sum     := product (('+' | '-') product)*
//   product := signed (('*' | '/') signed)*
//   signed  := ('-' | '+') signed | power
//   power   := primary ('^' signed)?
//   primary := NUMBER | NAME | NAME '(' sum (',' sum)* ')' | '(' sum ')'
//   rotation := factor ('*' factor)*,  factor := rot_x(a) | rot_y(a) | rot_z(a) | rot(ax,ay,az,a)
#pragma once

#include <ginac/ginac.h>

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "appell/model/dependence.hpp"
#include "appell/model/model.hpp"
#include "appell/model/source_location.hpp"
#include "appell/sym/differentiator.hpp"
#include "appell/sym/time_functions.hpp"

namespace appell::model {

/// The names an expression can refer to. The model reader fills it while reading, so that a
/// parameter's value can only use the parameters defined before it.
class ExpressionScope {
 public:
  enum class Category { Parameter, Coordinate, Prescribed, Input, Speed };

  struct Name {
    Category category = Category::Parameter;
    GiNaC::ex value;              // what the name stands for in an expression
    bool has_expression = false;  // a prescribed function given by an expression of t
  };

  /// An empty scope over the model's time functions (Model::time_functions).
  explicit ExpressionScope(std::shared_ptr<sym::TimeFunctions> functions);

  /// Adds (or replaces) a parameter standing for `symbol`. The add_ calls never check the name:
  /// the builder does.
  void add_parameter(const std::string& name, const GiNaC::symbol& symbol);
  /// Declares q(t) in the time functions (TimeFunctionKind::Coordinate); std::logic_error if the
  /// name is already a time function of the other kind.
  void add_coordinate(const std::string& name);
  /// A prescribed function given by an expression of t (substituted wherever the name is used)
  /// or, without one, an unspecified function of time (TimeFunctionKind::Prescribed).
  void add_prescribed(const std::string& name, const std::optional<GiNaC::ex>& expression);
  /// A control supplied at run time. It is declared as TimeFunctionKind::Prescribed, an
  /// unspecified function of time, so that dot(u) is representable.
  void add_input(const std::string& name);
  /// A generalized speed (Model::speeds): its name stands for the speed u, allowed only where
  /// Dependence::Loads is.
  void add_speed(const std::string& name);

  /// nullptr if the name is not (yet) known.
  const Name* find(const std::string& name) const;
  /// d^order/dt^order of a coordinate, prescribed function or input (order ≥ 0): its derivative
  /// symbol, or for a prescribed expression that expression differentiated `order` times.
  /// Throws std::out_of_range for a name not in the scope.
  GiNaC::ex derivative(const std::string& name, int order);
  /// The symbol of t.
  const GiNaC::symbol& time() const { return functions_->time(); }

 private:
  std::shared_ptr<sym::TimeFunctions> functions_;
  sym::Differentiator differentiator_;  // for dot() of a prescribed expression
  std::map<std::string, Name> names_;
};

/// Maps an offset inside an expression's text to the place in the file where that character was
/// written (the reader knows how YAML quoting and line folding moved it).
using TextLocator = std::function<SourceLocation(std::size_t offset)>;

/// The locator of a text written on one line, its first character at `start`: offset k is
/// column start.column + k of the same line.
TextLocator locate_on_one_line(SourceLocation start);

/// Parses one expression of the language (the grammar above; numbers exact, names looked up in
/// `scope`, dot(x)/ddot(x) of a coordinate, prescribed function or input). Throws ModelError at
/// the offending character (located by `locate`): an unknown name, a name not allowed by
/// `allowed` (model::allows: dot(q) in a position, ddot(q) in a load ...), a syntax error, a
/// function with the wrong number of arguments, a number a double cannot hold (a literal not 0
/// whose magnitude is below 2.2e-308 or above 1.8e308, such as 1e-400 or 1e400, which would
/// become 0 or inf), nesting deeper than 500 levels, or an undefined value such as 1/0.
GiNaC::ex parse_expression(const std::string& text, ExpressionScope& scope,
                           const TextLocator& locate, Dependence allowed = Dependence::Anything);

/// Parses a frame rotation `rot_z(a)*rot_x(b)*...` into its factors, in order (R_parent_child is
/// their product in that order). Angles may use what `allowed` allows (a frame's: coordinates,
/// prescribed functions, inputs, parameters and t); axes of rot(...) only numbers and
/// parameters; they are normalised, and a zero axis is an error. Throws ModelError as
/// parse_expression does.
std::vector<RotationFactor> parse_rotation(const std::string& text, ExpressionScope& scope,
                                           const TextLocator& locate,
                                           Dependence allowed = Dependence::Positions);
/// The same, also accepting rot_quat(e0, e1, e2, e3) (four distinct coordinates; the last
/// factor only), whose coordinates' symbols it puts in `quaternion` (left empty without one).
std::vector<RotationFactor> parse_rotation(const std::string& text, ExpressionScope& scope,
                                           const TextLocator& locate,
                                           std::vector<GiNaC::ex>& quaternion,
                                           Dependence allowed = Dependence::Positions);

/// Whether a number of a model fits a double: 0, or a magnitude from the smallest normal double
/// (2^-1022, about 2.2e-308) up to what rounds to the largest (about 1.8e308). The parser refuses a
/// literal that does not (1e-400 would be 0 in every evaluation, 1e400 inf), and so does the
/// builder for a number in an expression built in code.
bool fits_double(const GiNaC::numeric& value);

/// A rotation axis divided by its length (kept as written when that is 1); nullopt for a zero axis.
std::optional<Vector3> normalized_axis(const Vector3& axis);

/// Whether `name` is [A-Za-z][A-Za-z0-9_]*.
bool is_valid_name(const std::string& name);
/// t, pi, world, the functions of the language, dot, ddot and the rotations.
bool is_reserved_name(const std::string& name);

}  // namespace appell::model
