// What an expression of a model may depend on, field by field (docs/model-format.md, "What each
// field may use").
//
// Every symbol of a model's expressions is of one kind: a parameter, t, a coordinate q, its
// velocity dot(q), an acceleration ddot(q) (or a higher derivative), a prescribed function of time
// or an input (with their derivatives, functions of time known at evaluation), or a generalized
// speed's name. Each field allows some kinds, because each is used by the equations in one way:
// a mass or an inertia enters M, so parameters only; a position is differentiated to give the
// velocities, so it may not itself hold one (its partial velocities ∂v/∂q̇ would be wrong); a load
// enters f, so velocities but never an acceleration (M q̈ = f is then no longer the equation, and
// every form would solve a different one). The rule is written once here: the expression parser
// applies it at the character where a name is written, the builder to expressions built in code.
#pragma once

#include <ginac/ginac.h>

#include <optional>
#include <string>
#include <vector>

#include "appell/model/model.hpp"

namespace appell::model {

/// Which field an expression is written in, hence what it may depend on.
enum class Dependence {
  Parameters,         // numbers, pi, parameters: parameter values, masses, inertias, sizes, axes
  TimeAndParameters,  // also t: prescribed functions, gravity, flexible bodies' loads
  Positions,          // also coordinates, prescribed functions and inputs: translations, rotations,
                      // centres of mass, particles' positions, the points where loads act
  Potentials,  // the same as positions: a potential V(q, t), a spring's stiffness and rest length
  Damping,     // also velocities dot(q): a damper's coefficient
  Loads,       // also the names of generalized speeds: a force, a torque, a generalized load
  Anything,    // anything but a speed's name, accelerations too (claims, ModelBuilder::parse)
};

/// What a symbol of a model's expressions stands for.
enum class SymbolKind {
  Parameter,
  Time,
  Coordinate,    // q
  Velocity,      // dot(q)
  Acceleration,  // ddot(q), a higher derivative of q, or a derivative of a generalized speed
  Prescribed,    // an unspecified prescribed function or one of its derivatives
  Input,         // an input or one of its derivatives
  Speed,         // a generalized speed's name
  Unknown,       // not a symbol of the model
};

/// Whether an expression written in `field` may use a symbol of `kind` (never Unknown).
bool allows(Dependence field, SymbolKind kind);

/// The message of an error at `name`, a symbol of `kind` that `field` does not allow ("ddot(phi)
/// in a load: loads may depend on ..., never on accelerations").
std::string not_allowed_message(Dependence field, SymbolKind kind, const std::string& name);

/// What a field allows, in words ("only numbers and parameters are allowed here").
std::string not_allowed_message(Dependence field);

/// One symbol an expression uses: its name as written (dot(q) for a velocity) and its kind.
struct SymbolUse {
  std::string name;
  SymbolKind kind = SymbolKind::Unknown;
};

/// The symbols of `e` with their kinds in `model` (its parameters, inputs and time functions),
/// ordered by name (a symbol that is not the model's, even if named like one, is Unknown); each
/// shared node of `e` is visited once.
std::vector<SymbolUse> symbol_uses(const GiNaC::ex& e, const Model& model);

/// The first symbol of `e` (by name) that `field` does not allow, or nullopt; an Unknown symbol
/// is always returned.
std::optional<SymbolUse> first_not_allowed(const GiNaC::ex& e, const Model& model,
                                           Dependence field);

}  // namespace appell::model
