// The linear model ẋ = A x + B u of num::linearize as text and as JSON (what `appell linearize`
// prints).
#pragma once

#include <string>

#include "appell/model/model.hpp"
#include "appell/numeric/linearization.hpp"
#include "appell/numeric/symbolic_linearization.hpp"

namespace appell::io {

/// {"states": [names], "inputs": [names], "A": [[..]], "B": [[..]], "eigenvalues": [[re, im], ..],
/// "eigenvalue_groups": [{"eigenvalue": [re, im], "conjugate_pair": bool, "count": k}, ..]} in
/// this key order, matrices as arrays of rows, "eigenvalues" one per eigenvalue and the groups as
/// num::eigenvalue_groups (a pair once, with im > 0); with `with_modes` also "modes":
/// [{"eigenvalue": [re, im], "natural_frequency": ω_n, "damping_ratio": ζ, "unstable": bool}, ..]
/// (one per eigenvalue, ζ null for a zero eigenvalue; num::Mode). Every number without rounding
/// noise (num::without_rounding_noise). No trailing newline.
std::string write_linear_model_json(const num::LinearModel& linear, bool with_modes);

/// A readable account: the operating point, which coordinates and speeds are the states (and
/// which the constraints made dependent), A, B, the eigenvalues (num::eigenvalue_groups: a
/// conjugate pair once as "a ± bi", a repeated value once with "(multiplicity k)") and, with
/// `with_modes`, a table of natural frequencies (rad/s and Hz) and damping ratios, one line per
/// group. 12 significant digits, without rounding noise (num::without_rounding_noise); ends with a
/// newline.
std::string write_linear_model_text(const model::Model& model, const num::LinearModel& linear,
                                    double t, bool with_modes);

/// The symbolic A and B entry by entry in the model-file expression language
/// ("A[2,1] = -g*m/M"), zero entries left out, after a line naming the states and inputs; ends
/// with a newline.
std::string write_symbolic_linear_model_text(const model::Model& model,
                                             const num::SymbolicLinearModel& linear);

/// The symbolic A and B as LaTeX: \dot{x} = A x + B u with both matrices in pmatrix
/// environments; ends with a newline.
std::string write_symbolic_linear_model_latex(const model::Model& model,
                                              const num::SymbolicLinearModel& linear);

/// `json` (what write_linear_model_json printed) with "A_symbolic" and "B_symbolic" added: the
/// matrices' entries as expression strings (model-file language), arrays of rows.
std::string add_symbolic_linear_model_json(const std::string& json, const model::Model& model,
                                           const num::SymbolicLinearModel& linear);

/// The numeric A and B as LaTeX pmatrix environments, for when the symbolic model could not be
/// formed (num::symbolic_linear_model threw `reason`): a comment line as
/// write_symbolic_linear_model_latex's, then one giving the operating point and saying that the
/// matrices are numeric and why. 12 significant digits (1.5e-07 as 1.5 \times 10^{-7}); ends with
/// a newline.
std::string write_linear_model_latex(const model::Model& model, const num::LinearModel& linear,
                                     double t, const std::string& reason);

/// `json` (what write_linear_model_json printed) with "A_symbolic" and "B_symbolic" null and
/// "symbolic_absent": `reason`, why the symbolic model was not formed (the numeric A and B hold).
std::string add_symbolic_linear_model_absent_json(const std::string& json,
                                                  const std::string& reason);

}  // namespace appell::io
