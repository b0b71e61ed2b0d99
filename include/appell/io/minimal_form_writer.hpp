// Writers of the minimal form M̃(q, t) u̇ = f̃(q, u, t) (principles/minimal_form.hpp): the
// equations in the independent accelerations, the dependent speeds q̇_d = (B u + β)_d and
// accelerations q̈_d = (B u̇ + γ)_d, and the cost, as text, LaTeX and JSON.
#pragma once

#include <string>

#include "appell/io/write_options.hpp"
#include "appell/principles/minimal_form.hpp"

namespace appell::io {

/// The equations as text: a header, the dependent speeds and accelerations, one line per
/// independent speed, M̃ and f̃ entry by entry, then the cost (seconds only with options.timing).
std::string write_text(const principles::MinimalEquations& equations,
                       const WriteOptions& options = {});
/// The same as a LaTeX align block (no preamble). Both throw std::length_error when an
/// expression is too large to print (io::expression_text).
std::string write_latex(const principles::MinimalEquations& equations);
/// A JSON object (indented by 2): model, method, form ("minimal"), coordinates, independent,
/// dependent, dependent_speeds and dependent_accelerations (name → expression), mass_matrix and
/// forcing (rows of the independent accelerations), simplified, cost (as write_json of Equations).
std::string write_json(const principles::MinimalEquations& equations,
                       const WriteOptions& options = {});

}  // namespace appell::io
