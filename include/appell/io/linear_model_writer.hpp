// The linear model ẋ = A x + B u of num::linearize as text and as JSON (what `appell linearize`
// prints).
#pragma once

#include <string>

#include "appell/model/model.hpp"
#include "appell/numeric/linearization.hpp"

namespace appell::io {

/// {"states": [names], "inputs": [names], "A": [[..]], "B": [[..]], "eigenvalues": [[re, im], ..]}
/// in this key order, matrices as arrays of rows; with `with_modes` also "modes": [{"eigenvalue":
/// [re, im], "natural_frequency": ω_n, "damping_ratio": ζ, "unstable": bool}, ..] (ζ null for a
/// zero eigenvalue; num::Mode).
/// No trailing newline.
std::string write_linear_model_json(const num::LinearModel& linear, bool with_modes);

/// A readable account: the operating point, which coordinates and speeds are the states (and
/// which the constraints made dependent), A, B, the eigenvalues and, with `with_modes`, a table of
/// natural frequencies (rad/s and Hz) and damping ratios. 12 significant digits; ends with a
/// newline.
std::string write_linear_model_text(const model::Model& model, const num::LinearModel& linear,
                                    double t, bool with_modes);

}  // namespace appell::io
