// The variables of a tape over a model's expressions, shared by the compiled forms of the
// equations (compiled_equations.cpp, compiled_minimal_form.cpp) so that both read t, q, q̇,
// parameters, inputs and unspecified functions the same way.
#pragma once

#include <ginac/ginac.h>

#include <map>
#include <string>
#include <vector>

#include "appell/model/model.hpp"

namespace appell::num {

struct Layout {
  std::vector<GiNaC::symbol> variables;  // t, q, q̇, then the fixed ones
  std::vector<double> fixed;             // values of the fixed ones
};

/// t, q, q̇, the parameters (defaults, overridden by `values`), then every other symbol of
/// `entries` (inputs and unspecified prescribed functions with their derivatives, 0 unless in
/// `values`). An unknown name in `values` throws model::ModelError located at "--set".
Layout layout_of(const model::Model& model, const GiNaC::exvector& entries,
                 const std::map<std::string, double>& values);

}  // namespace appell::num
