// The Gibbs–Appell equations (seed 000 eqs. 89–96): ∂S/∂q̈_j = Q_j with the acceleration energy
//   S = Σ ½ m a_C·a_C + ½ εᵀ I ε + εᵀ(ω × I ω)    (ω, ε, I in body components),
// terms free of q̈ being irrelevant to ∂/∂q̈. Written as M q̈ = f with M_jk = ∂G_j/∂q̈_k and
// f_j = Q_j − G_j|q̈=0 for G_j = ∂S/∂q̈_j.
#pragma once

#include "appell/kinematics/kinematics.hpp"
#include "appell/principles/equations.hpp"

namespace appell::principles {

/// The first-order acceleration energy S of every body and particle (the formula above, a_C the
/// world acceleration of each centre of mass and particle), S⁽¹⁾ of
/// higher_order_gibbs_appell.hpp.
GiNaC::ex acceleration_energy(kin::Kinematics& kinematics);

/// M q̈ = f (n×n, n×1; with constraints also A, b), Method::GibbsAppell, order 1: the same as
/// gibbs_appell_of_order(model, 1). Use derive(), which also rejects a model without coordinates.
Equations gibbs_appell(std::shared_ptr<const model::Model> model);

}  // namespace appell::principles
