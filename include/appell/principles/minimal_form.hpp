// The minimal form of a constrained model: Gibbs–Appell with quasi-accelerations (seed 003 §5;
// docs/theory.md, "Minimal form").
//
// With `independent:` speeds u (the speeds of the listed coordinates) and every constraint at
// velocity level A(q, t) q̇ + a0(q, t) = 0 (a holonomic one differentiated once), the dependent
// speeds follow as q̇_d = −A_d⁻¹ (A_i u + a0), so that
//   q̇ = B u + β   and   q̈ = B u̇ + γ,   γ = Ḃ u + β̇.
// The acceleration energy expressed in the quasi-accelerations u̇, S*(q, u, u̇, t), gives the
// n − m equations ∂S*/∂u̇_k = Q*_k with Q* = Bᵀ Q (the virtual work of the loads on δq = B δu;
// the ideal constraints' reactions do no work there, so no multiplier appears):
//   M̃ u̇ = f̃,   M̃ = BᵀMB,   f̃ = Bᵀ(f − M γ),
// the projection of the multiplier form on the null space of A, formed without it.
#pragma once

#include <ginac/ginac.h>

#include <memory>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/principles/equations.hpp"

namespace appell::principles {

/// The minimal form of a model with `independent:` speeds (Model::independent not empty), by
/// Gibbs–Appell with quasi-accelerations, unsimplified. Throws model::ModelError located at the
/// model's file (Model::source, no line; "" when built in code), naming "independent", when the
/// model lists no independent speeds (or not n − m of them), and at the `independent:` list when
/// the dependent block A_d of the constraint Jacobian is singular everywhere (not invertible
/// symbolically). Without constraints B only reorders the coordinates as listed, β = γ = 0. The
/// result has form Form::Minimal: M̃, f̃ (free of the dependent speeds), B, β, γ, `independent`
/// and `dependent` (Equations); simplify() (derive.hpp) makes it readable.
Equations minimal_form(std::shared_ptr<const model::Model> model);

}  // namespace appell::principles
