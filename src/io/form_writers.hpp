// The writers of the equations in speeds and of the minimal form (internal): io::write_text,
// write_latex and write_json of principles::Equations choose them by the equations' form.
#pragma once

#include <string>

#include "appell/io/write_options.hpp"
#include "appell/principles/equations.hpp"

namespace appell::io::detail {

/// M̃ u̇ = f̃ in a model's speeds (principles::Form::Speeds), with q̇ = W u and the constraints.
std::string speeds_text(const principles::Equations& equations, const WriteOptions& options);
std::string speeds_latex(const principles::Equations& equations);
std::string speeds_json(const principles::Equations& equations, const WriteOptions& options);

/// The minimal form (principles::Form::Minimal), with the dependent speeds q̇ = B u + β.
std::string minimal_text(const principles::Equations& equations, const WriteOptions& options);
std::string minimal_latex(const principles::Equations& equations);
std::string minimal_json(const principles::Equations& equations, const WriteOptions& options);

}  // namespace appell::io::detail
