// The constraints at acceleration level, A(q, t) q̈ = b(q, q̇, t) (MODEL_FORMAT.md, "Constraints").
//
// A holonomic constraint φ(q, t) = 0 is differentiated twice, a nonholonomic one
// g = a(q, t)·q̇ + a₀(q, t) = 0 once: both are then linear in q̈ with the velocities' coefficients
// of φ̇ or g, the rows of A, and b = −(the rest), e.g. b = −(∂g/∂q) q̇ − ∂g/∂t for g. One
// derivation for every consumer: the formed equations (Equations::constraint_matrix and
// constraint_rhs) and num::Dynamics, whose constraint rows are these expressions compiled.
#pragma once

#include <ginac/ginac.h>

#include <string>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/sym/differentiator.hpp"

namespace appell::principles {

/// The constraints of a model as rows of its accelerations, in the model's order.
struct ConstraintRows {
  std::vector<std::string> multipliers;  // lambda_NAME, one per constraint
  GiNaC::matrix matrix;                  // A, m×n
  GiNaC::matrix rhs;                     // b, m×1
};

/// A and b of `model`'s constraints with `d` (on the model's time functions: the derivatives it
/// takes may add symbols to their table), linear in q⁽ᵒʳᵈᵉʳ⁺¹⁾ (q̈ for order 1). Empty (0×0)
/// without constraints.
ConstraintRows constraint_rows(const model::Model& model, sym::Differentiator& d, int order = 1);

}  // namespace appell::principles
