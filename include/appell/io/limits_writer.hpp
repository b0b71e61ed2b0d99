// The coordinates' limits (model::CoordinateLimits, a URDF's <limit>) as text, for `appell
// verify`: they are reported with the results and never enforced.
#pragma once

#include <string>

#include "appell/model/model.hpp"

namespace appell::io {

/// "limits (reported, not enforced):\n" then one line per coordinate that has limits,
/// "  elbow: -2 <= elbow <= 2, |dot(elbow)| <= 5, |Q_elbow| <= 10\n" (each bound only when
/// given, numbers to 12 significant digits); "" when no coordinate has limits.
std::string write_limits_text(const model::Model& model);

}  // namespace appell::io
