// The report as ONE self-contained HTML page that works offline: every script, style sheet and
// font inlined (KaTeX with its fonts as data: URLs, uPlot, three.js; embedded in the library at
// build time from npm, web/package-lock.json), no request to any network address.
//
// The page shows the model (coordinates, parameters and their values, frames, bodies, particles,
// loads, constraints), the equations of motion typeset by KaTeX from io's LaTeX writer, the
// verification table, interactive plots of q, q̇, T, V, E, the constraint violation and the
// multipliers, and a 3-D animation of the motion (report/scene.hpp) with play/pause, speed and a
// time slider that also moves the plots' cursor. An incomplete report says so at the top, with
// the reasons. The same report gives the same bytes.
#pragma once

#include <string>

#include "appell/report/report.hpp"

namespace appell::report {

/// The page. Throws model::ModelError for values model::bind rejects.
std::string write_html(const Report& report);

}  // namespace appell::report
