// Gauss's principle of least compulsion (seed 003 eqs. 5/9/11 with the rotational analogue):
// among the accelerations the constraints allow, the true ones minimise
//   Z = Σ ½ m |a − g|² + Σ_bodies [½ εᵀI ε + εᵀ(ω × I ω)] − Σ_j Q'_j q̈_j,
// where g is gravity and Q' the generalized forces of the other loads (for a point force F at P,
// F·a_P and Σ_j Q'_j q̈_j differ only by terms free of q̈, which Z's minimiser ignores).
// Stationarity ∂Z/∂q̈_j = 0 gives the equations.
#pragma once

#include <ginac/ginac.h>

#include "appell/kinematics/kinematics.hpp"
#include "appell/principles/equations.hpp"

namespace appell::principles {

/// The compulsion Z (terms free of q̈ included as far as they come from the accelerations).
GiNaC::ex compulsion(kin::Kinematics& kinematics);

Equations gauss(std::shared_ptr<const model::Model> model);

}  // namespace appell::principles
