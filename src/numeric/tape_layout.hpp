// The variables of a tape over a model's expressions, shared by the compiled forms of the
// equations (compiled_equations.cpp, compiled_minimal_form.cpp) so that both read t, q, q̇,
// parameters, inputs and unspecified functions the same way, bound by model::bind.
#pragma once

#include <ginac/ginac.h>

#include <vector>

#include "appell/model/model.hpp"
#include "appell/model/values.hpp"

namespace appell::num {

struct Layout {
  GiNaC::exvector entries;               // the expressions, driven functions substituted
  std::vector<GiNaC::symbol> variables;  // t, q, q̇, then the fixed ones
  std::vector<double> fixed;             // values of the fixed ones
};

/// `entries` with the driven functions of `values` substituted (model::bind), and the tape's
/// variables: t, q, q̇, every bound symbol (parameters, then inputs and unspecified prescribed
/// functions with their derivatives: a given number or 0) with its number, then any other symbol
/// the entries still have (higher derivatives of the coordinates in equations of higher order)
/// at 0. Throws what model::bind throws.
Layout layout_of(const model::Model& model, const GiNaC::exvector& entries,
                 const model::Values& values);

}  // namespace appell::num
