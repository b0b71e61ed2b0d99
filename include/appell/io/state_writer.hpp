// JSON of the equations at one state (what `appell eval --json` prints, docs/model-format.md):
// one object on one line, keys in alphabetical order, numbers in coordinate order, matrices as
// arrays of rows.
#pragma once

#include <Eigen/Dense>
#include <string>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/dynamics_derivatives.hpp"
#include "appell/numeric/reactions.hpp"
#include "appell/numeric/split_evaluation.hpp"
#include "appell/numeric/state_evaluation.hpp"

namespace appell::io {

/// {"coordinates": [names of `model`'s coordinates, in order], "forcing": f, "lambda": λ,
///  "limits": {NAME: {"lower", "upper", "velocity", "effort"}}, "mass_matrix": M, "q": q,
///  "qd": q̇, "qdd": q̈, "t": t} of `state`, an evaluation of `model`'s equations: "lambda" only
/// with constraints (λ not empty), "limits" only for coordinates that have them (each bound only
/// when given; model::CoordinateLimits); A and b are not written. A non-finite number is written
/// as null. No trailing newline.
std::string write_state_json(const model::Model& model, const num::StateEvaluation& state);
/// The same with "reactions": {FRAME: {"force": [x, y, z], "moment": [x, y, z]}} (what
/// `appell eval --reactions --json` prints): the force and moment each frame's parent exerts on
/// it and everything below it, at its origin, world axes (num::CompiledReactions); with
/// constraints also "constraint_forces": {CONSTRAINT: [Q_1, .., Q_n]}, each constraint's
/// generalized force λ_c A_c (num::generalized_constraint_forces).
std::string write_state_json(const model::Model& model, const num::StateEvaluation& state,
                             const std::vector<num::Reaction>& reactions);

/// The split M q̈ + C q̇ + g = Q at a state (what `appell eval --split --json` prints):
/// {"coordinates", "coriolis": C, "gravity": g, "limits" (as write_state_json), "loads": Q,
///  "mass_matrix": M, "nonlinear_effects": C q̇ + g − Q (+ the prescribed motion's terms) = −f,
///  "q", "qd", "t"} and, for a model with prescribed or carrier motion (SplitEvaluation::moving),
/// "gyroscopic": G, "mass_rate": ∂M/∂t, "prescribed_motion": p. No trailing newline.
std::string write_split_state_json(const model::Model& model, const num::SplitEvaluation& state);

/// The minimal form at (t, q) of `model` (which lists independent speeds):
/// {"coordinates": [every coordinate's name], "forcing": f̃, "independent": [names of the
/// independent coordinates, as listed],
///  "limits": as write_state_json, "mass_matrix": M̃, "q": q, "qd": q̇ = B u + β (every
///  coordinate), "qdd": q̈ = B u̇ + γ, "t": t}.
/// `state` from num::CompiledEquations::solve of the minimal form at (t, q, u). No trailing
/// newline.
std::string write_minimal_state_json(const model::Model& model, double t, const Eigen::VectorXd& q,
                                     const num::CompiledEquations::State& state);

/// The equations in the speeds at (t, q, u) of a model with generalized speeds:
/// {"coordinates": [every coordinate's name], "forcing": f̃, "limits": as write_state_json,
///  "mass_matrix": M̃ (p×p), "q": q, "qd": q̇ = W u, "qdd": q̈ = W u̇ + γ, "speeds": [the speeds'
///  names], "t": t, "u": u, "udot": u̇}, with constraints also "lambda": the multipliers (as
///  write_state_json). `state` from num::CompiledEquations::solve of the equations in the speeds.
/// No trailing newline.
std::string write_speed_state_json(const model::Model& model, double t, const Eigen::VectorXd& q,
                                   const Eigen::VectorXd& u,
                                   const num::CompiledEquations::State& state);

/// The derivatives of the dynamics at (t, q, q̇) (what `appell eval --derivatives --json`
/// prints): {"coordinates", "limits" (as write_state_json), "t", "q", "qd", "qdd": q̈ of
/// M q̈ = f, "dtau_dq", "dtau_dqd": ∂τ/∂q, ∂τ/∂q̇ of τ = M q̈ − f at that q̈, "dqdd_dq", "dqdd_dqd":
/// ∂q̈/∂q, ∂q̈/∂q̇, "minv": M⁻¹ = ∂q̈/∂τ}, matrices as arrays of rows, entry [i][j] = ∂y_i/∂x_j. No
/// trailing newline.
std::string write_derivatives_json(const model::Model& model, double t, const Eigen::VectorXd& q,
                                   const Eigen::VectorXd& qd,
                                   const num::ForwardDynamicsDerivatives& forward,
                                   const num::InverseDynamicsDerivatives& inverse);

}  // namespace appell::io
