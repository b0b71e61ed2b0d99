// Writers of a principles::Derivation (principles/derivation.hpp): the equations (equation_writer
// or minimal_form_writer), then what was asked beside them — Gauss's compulsion Z and the
// inertial forces of the carrier frame with the form of the relative-motion equations they enter
// (seed 003 eqs. 55–57) — as text, LaTeX and JSON. What `appell derive` prints.
#pragma once

#include <string>

#include "appell/io/write_options.hpp"
#include "appell/principles/derivation.hpp"

namespace appell::io {

/// The equations as write_text() of Equations prints them (in their form); then, when
/// formed, a blank line and "compulsion Z = EXPR"; then, when formed, a blank line,
/// "inertial forces of the carrier C (relative motion in FORM form: LHS = RHS):" and one line
/// "  NAME = EXPR" per term (InertialForceTerms order). Seconds only with options.timing.
std::string write_text(const principles::Derivation& derivation, const WriteOptions& options = {});

/// The equations' LaTeX; then an equation environment "Z = ..."; then a comment naming the form,
/// the form's equation, and an align block of the terms (\mathrm{NAME} &= ...).
std::string write_latex(const principles::Derivation& derivation);

/// The equations' JSON object (indented by 2, no final line break) with, when formed, "compulsion":
/// EXPR and "inertial_forces": {"carrier", "form", "equation", then NAME: EXPR per term}.
std::string write_json(const principles::Derivation& derivation, const WriteOptions& options = {});

}  // namespace appell::io
