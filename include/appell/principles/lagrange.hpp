// Lagrange's equations of the second kind (seed 000 eq. 113, seed 004):
//   d/dt(∂T/∂q̇_j) − ∂T/∂q_j = Q_j,   T = Σ ½ m v_C·v_C + ½ ωᵀ I ω   (König),
// written as M q̈ = f with M_jk = ∂E_j/∂q̈_k and f_j = −E_j|q̈=0 for E_j = lhs_j − Q_j.
#pragma once

#include "appell/kinematics/kinematics.hpp"
#include "appell/principles/equations.hpp"

namespace appell::principles {

/// Kinetic energy T of every body and particle.
GiNaC::ex kinetic_energy(kin::Kinematics& kinematics);

/// Forms the equations by Lagrange II; the cost record counts kinematics and energy derivatives.
Equations lagrange(std::shared_ptr<const model::Model> model);

}  // namespace appell::principles
