// Gibbs–Appell equations of order m (seed 000 eq. 101, re-derived; its printed form is garbled).
//
// With the energy of the (m+1)-th derivatives
//   S⁽ᵐ⁾ = Σ ½ m |r⁽ᵐ⁺¹⁾|² + Σ_bodies [½ (ε⁽ᵐ⁻¹⁾)ᵀ I ε⁽ᵐ⁻¹⁾ + (ε⁽ᵐ⁻¹⁾)ᵀ (ω × Iω)⁽ᵐ⁻¹⁾]
// (body components, I constant there), ∂r⁽ᵐ⁺¹⁾/∂q⁽ᵐ⁺¹⁾ = ∂r/∂q and ∂ε⁽ᵐ⁻¹⁾/∂q⁽ᵐ⁺¹⁾ = ∂ω/∂q̇, so
//   ∂S⁽ᵐ⁾/∂q_j⁽ᵐ⁺¹⁾ = Σ m r⁽ᵐ⁺¹⁾·∂r/∂q_j + Σ W⁽ᵐ⁻¹⁾·∂ω/∂q̇_j,   W = Iε + ω × Iω.
// Differentiating the first-order equations Σ m r̈·∂r/∂q_j + Σ W·∂ω/∂q̇_j = Q_j m − 1 times
// (Leibniz) gives the consistent right-hand side, the generalized force of order m:
//   Q_j⁽ᵐ⁾ = d^(m−1)Q_j/dt^(m−1) − Σ_{k=1}^{m−1} C(m−1, k) [Σ m r⁽ᵐ⁺¹⁻ᵏ⁾·(∂r/∂q_j)⁽ᵏ⁾
//                                                         + Σ W⁽ᵐ⁻¹⁻ᵏ⁾·(∂ω/∂q̇_j)⁽ᵏ⁾].
// The equations ∂S⁽ᵐ⁾/∂q⁽ᵐ⁺¹⁾ = Q⁽ᵐ⁾ have the ordinary mass matrix: M q⁽ᵐ⁺¹⁾ = f⁽ᵐ⁾(q, .., q⁽ᵐ⁾,
// t). Order 1 is the ordinary Gibbs–Appell form.
#pragma once

#include "appell/kinematics/kinematics.hpp"
#include "appell/principles/equations.hpp"

namespace appell::principles {

/// S⁽ᵐ⁾ of every body and particle (m ≥ 1; m = 1 is acceleration_energy()).
GiNaC::ex acceleration_energy_of_order(kin::Kinematics& kinematics, int order);

/// M q⁽ᵐ⁺¹⁾ = f⁽ᵐ⁾ (M n×n, f n×1, coordinate order); Equations::order = m. Throws
/// std::invalid_argument when m < 1 and model::ModelError (at the first constraint) for a
/// constrained model when m > 1. derive_gibbs_appell() also rejects a model without
/// coordinates.
Equations gibbs_appell_of_order(std::shared_ptr<const model::Model> model, int order);

}  // namespace appell::principles
