// Potential energy V(q, t) of the conservative loads of a model:
//   gravity   V = −Σ m g·r_C over bodies (at the centre of mass) and particles,
//   springs   V = ½ k (d − L0)²,  d = |r_to − r_from|  (½ k Δ·Δ when L0 = 0, which avoids |Δ|),
//   potential loads as written.
// Its negative gradient is exactly the part of principles::generalized_forces that these loads
// contribute (for stiffness and rest length free of q), so E = T + V is a first integral of a
// model that has no other loads and no explicit time dependence.
#pragma once

#include <ginac/ginac.h>

#include "appell/kinematics/kinematics.hpp"

namespace appell::principles {

/// V of gravity, springs and `potential` loads (J, an expression of q, t and parameters);
/// forces, torques, dampers and generalized loads have no potential and are left out.
GiNaC::ex potential_energy(kin::Kinematics& kinematics);

}  // namespace appell::principles
