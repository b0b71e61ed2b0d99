// JSON of the equations at one state (what `appell eval --json` prints, docs/model-format.md):
// one object on one line, keys in alphabetical order, numbers in coordinate order, matrices as
// arrays of rows.
#pragma once

#include <Eigen/Dense>
#include <string>

#include "appell/model/model.hpp"
#include "appell/numeric/compiled_minimal_form.hpp"
#include "appell/numeric/state_evaluation.hpp"

namespace appell::io {

/// {"forcing": f, "lambda": λ, "mass_matrix": M, "q": q, "qd": q̇, "qdd": q̈, "t": t}, "lambda"
/// only with constraints (λ not empty); A and b are not written. A non-finite number is written
/// as null. No trailing newline.
std::string write_state_json(const num::StateEvaluation& state);

/// The minimal form at (t, q) of `model` (which lists independent speeds):
/// {"forcing": f̃, "independent": [names of the independent coordinates, as listed],
///  "mass_matrix": M̃, "q": q, "qd": q̇ = B u + β (every coordinate), "qdd": q̈ = B u̇ + γ, "t": t}.
/// `state` from num::CompiledMinimalForm::solve at (t, q). No trailing newline.
std::string write_minimal_state_json(const model::Model& model, double t, const Eigen::VectorXd& q,
                                     const num::CompiledMinimalForm::State& state);

}  // namespace appell::io
