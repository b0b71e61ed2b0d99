// What `appell statics --json` prints (and appell.statics in Python returns): the generalized
// forces at rest, the equilibria with their stability and, when asked, their small oscillations.
#pragma once

#include <string>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/numeric/statics.hpp"

namespace appell::io {

/// "the prescribed motion psi = omega*t, alpha(t)" (unspecified functions as functions of t), or
/// "the frames' motion in t" when t is written in them directly; " (carrier frame C)" with one.
std::string relative_motion_text(const model::Model& model, const num::RelativeStatics& relative);

/// {"generalized_forces": [text], ("inertial_forces": [text], "relative": {"motion",
/// "prescribed", "carrier", "steady"},) "equilibria": [{"q", "stable", ("lambda",
/// "redundant_constraints",) "stability", ("gyroscopic_stabilization",) "stiffness_eigenvalues",
/// "neutral_directions", "degenerate_directions", ("modes": [{"eigenvalue": [re, im],
/// "natural_frequency", "damping_ratio", "unstable"}], "modes_unavailable")}], "free_coordinates":
/// [names]} in this key order, on one line without a final line break. The keys in parentheses only
/// where they apply: "lambda" and "redundant_constraints" with holonomic constraints,
/// "inertial_forces", "relative" and "gyroscopic_stabilization" for a moving model
/// (StaticsResult::relative), "modes" when `dynamics` is given (one num::equilibrium_dynamics per
/// equilibrium, in order; "stable" and "stability" are then its verdict) and "modes_unavailable"
/// when they could not be formed. Expressions as readable text in the model language; no negative
/// zero.
std::string write_statics_json(const model::Model& model, const num::StaticsResult& result,
                               const std::vector<num::EquilibriumDynamics>* dynamics = nullptr);

}  // namespace appell::io
