// The constraints at acceleration level, A(q, t) q̈ = b(q, q̇, t) (MODEL_FORMAT.md, "Constraints"),
// and at position and velocity level, what a projection onto them needs.
//
// A holonomic constraint φ(q, t) = 0 is differentiated twice, a nonholonomic one
// g = a(q, t)·q̇ + a₀(q, t) = 0 once: both are then linear in q̈ with the velocities' coefficients
// of φ̇ or g, the rows of A, and b = −(the rest), e.g. b = −(∂g/∂q) q̇ − ∂g/∂t for g. One
// derivation for every consumer: the formed equations (Equations::constraint_matrix and
// constraint_rhs) and num::Dynamics, whose constraint rows are these expressions compiled.
//
// A simulation stays on the constraints by projecting onto φ(q, t) = 0 and, at velocity level,
// onto φ̇ = Φ_q q̇ + φ_t = 0 and g = 0 (num::ConstraintManifold): ConstraintLevels are those
// residuals with their Jacobians, formed once and compiled with the rows (num::Dynamics, the
// generated code) or per set of values (ConstraintManifold's own tape).
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

/// The same rows in a model's generalized speeds u (q̇ = W u, Model::speed_kinematics; a
/// coordinate's own rate stays dot(q)): each constraint at velocity level in the speeds (φ̇ of a
/// holonomic one, g of a nonholonomic one, with q̇ = W u), linear in u, Ã u + ã0, then once more in
/// time, linear in u̇ with the same coefficients, Ã u̇ = b̃ (Ã = A W and b̃ = b − A γ of the
/// coordinates' rows, so that λ is the same). `matrix` is Ã (m×p), `rhs` b̃, and
/// `velocity_offset` gets ã0 (m×1). Empty without constraints.
ConstraintRows constraint_rows_in_speeds(const model::Model& model, sym::Differentiator& d,
                                         GiNaC::matrix& velocity_offset);

/// The constraints at position and velocity level: the holonomic φ (h of the m constraints, in
/// the model's order) with Φ_q = ∂φ/∂q, then every constraint's velocity-level residual (φ̇ of a
/// holonomic one, g itself of a nonholonomic one) with its coefficients of q̇ (it is linear in q̇).
struct ConstraintLevels {
  std::size_t holonomic = 0;          // h
  GiNaC::exvector positions;          // φ, h
  GiNaC::exvector position_jacobian;  // Φ_q, h×n row by row
  GiNaC::exvector velocities;         // φ̇ or g, m
  GiNaC::exvector velocity_jacobian;  // their coefficients of q̇, m×n row by row

  /// φ, Φ_q row by row, the velocity-level residuals, their coefficients row by row: the order
  /// in which num::ConstraintManifold reads an evaluation (h + h n + m + m n values).
  GiNaC::exvector outputs() const;
};

/// The ConstraintLevels of `model`'s constraints with `d` (as constraint_rows), each constraint's
/// expression substituted with `values` first (none when empty: derivative symbols of inputs
/// then stand in the result, dot(u) for u). Empty without constraints.
ConstraintLevels constraint_levels(const model::Model& model, sym::Differentiator& d,
                                   const GiNaC::exmap& values = {});

}  // namespace appell::principles
