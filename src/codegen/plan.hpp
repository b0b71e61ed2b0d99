// What the generated code reads and how it spells it (internal to codegen): the variables of
// the equations (t, q, qd, parameters, inputs), the members of the generated structs, valid
// identifiers and exact number literals.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "appell/codegen/cpp_generator.hpp"
#include "appell/model/values.hpp"
#include "appell/principles/equations.hpp"
#include "appell/sym/tape.hpp"

namespace appell::codegen::detail {

/// An identifier the generated code may declare: not reserved by C or C++ (no "__", no leading
/// underscore, no keyword), and no macro of the compilers' default (gnu) dialects (linux, unix,
/// i386) nor of the headers the code includes (M_PI, M_PIl, HUGE_VAL, errno, ..).
bool is_free_identifier(const std::string& s);
/// Whether the headers the generated code includes (<math.h>, <string.h> and, in C++, the
/// <stdlib.h> of glibc's <cmath>) declare `s` at global scope, or C or POSIX reserve it there
/// (sin, sinf, j0, strlen, memfoo, size_t): no name for the generated namespace, which would
/// clash with it (`namespace sin {` is an error next to ::sin).
bool is_global_library_name(const std::string& s);
/// `wanted` made a free identifier not yet in `taken` (and then taken): "int" -> "int_",
/// a second "dot_u" -> "dot_u_2".
std::string claim_identifier(std::string wanted, std::set<std::string>& taken);
/// The spelling of the order-th derivative of a time function: u, dot_u, ddot_u, d3_u.
std::string derivative_identifier(const std::string& base, int order);

/// The shortest text that reads back as exactly `v`, as a double literal ("2.0", "9.81").
std::string plain_literal(double v);
/// A literal usable as an operand anywhere: negative values in parentheses.
std::string operand_literal(double v);

/// Which argument of a generated function a variable is read from: the state, the parameters,
/// the inputs, the accelerations (inverse dynamics) or the extra generalized forces (forward
/// dynamics).
enum class Argument { Time, Q, Qd, Parameters, Inputs, Qdd, Extra };

struct Variable {
  GiNaC::symbol symbol;
  Argument argument;
  std::string reference;  // the C++ that reads it: "t", "q[0]", "p.M", "in.dot_alpha"
  int input_field = -1;   // Argument::Inputs: index into Plan::input_candidates
};

struct InputCandidate {
  GeneratedField field;
  int order = 0;
};

/// The tape of M and f and what its variables are in the generated code.
struct Plan {
  std::size_t n = 0;
  /// The rates: p generalized speeds u (in_speeds), or the n velocities q̇. The rates'
  /// variables, the accelerations, the forces and M's rows and columns have p entries.
  std::size_t p = 0;
  bool in_speeds = false;
  /// How the generated functions name the rates' argument and the accelerations': qd and qdd,
  /// or in the speeds u and udot.
  std::string rates() const { return in_speeds ? "u" : "qd"; }
  std::string accelerations() const { return in_speeds ? "udot" : "qdd"; }
  std::vector<Variable> variables;  // t, q, the rates, parameters, then inputs: the tape's order
  std::vector<GeneratedField> parameters;
  std::vector<InputCandidate> input_candidates;  // every known derivative order of every input
  std::vector<std::string> parameter_notes;      // per parameter: how the model defines it
  model::BoundValues bound;                      // the values bound (driven functions)
  std::optional<sym::Tape> tape;                 // M row by row, then f (from equations)
};

/// The variables of `model` with `values` bound (model::bind's errors), without a tape: what the
/// recursions read (principles::RecursionBuilder first, so that the derivatives they use exist).
/// `in_speeds` (a model with generalized speeds): the rates are the speeds u, not q̇.
Plan make_plan(const model::Model& model, const model::Values& values, bool in_speeds = false);
/// The variables and the tape of `eq` with `values` bound (model::bind's errors).
Plan make_plan(const principles::Equations& eq, const model::Values& values);
/// The input members: candidates the tape reads, and order 0 of every function. Sets the
/// references of the input variables.
std::vector<GeneratedField> claim_input_fields(Plan& plan);
/// The same with the variables read given (`read[k]`: plan.variables[k] is read).
std::vector<GeneratedField> claim_input_fields(Plan& plan, const std::vector<bool>& read);
/// Whether M evaluates symmetric at two fixed, unremarkable states.
bool mass_matrix_is_symmetric(const Plan& plan);

}  // namespace appell::codegen::detail
