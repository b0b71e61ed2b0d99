// Writers of the equations in generalized speeds M̃(q, t) u̇ = f̃(q, u, t)
// (principles/speed_form.hpp): the kinematic equations q̇ = W(q) u, one equation per speed, M̃
// and f̃ entry by entry, and the cost, as text, LaTeX and JSON.
#pragma once

#include <string>

#include "appell/io/write_options.hpp"
#include "appell/principles/speed_form.hpp"

namespace appell::io {

/// The equations as text: a header naming the speeds, the kinematic equations, one line per
/// speed, M̃ and f̃ entry by entry, then the cost (seconds only with options.timing).
std::string write_text(const principles::SpeedEquations& equations,
                       const WriteOptions& options = {});
/// The same as a LaTeX align block (no preamble). Both throw std::length_error when an
/// expression is too large to print (io::expression_text).
std::string write_latex(const principles::SpeedEquations& equations);
/// A JSON object (indented by 2): model, method, form ("speeds"), coordinates, speeds (names),
/// kinematic_equations (coordinate → its rate in the speeds), mass_matrix and forcing (rows of
/// the speeds' rates), simplified, cost (as write_json of Equations).
std::string write_json(const principles::SpeedEquations& equations,
                       const WriteOptions& options = {});

}  // namespace appell::io
