// Generalized forces by virtual work (seed 000 eqs. 55/60), one implementation for every
// principle:
//   Q_j = Σ_points F·∂r/∂q_j + Σ_bodies M·∂ω/∂q̇_j − ∂V/∂q_j + (generalized loads)_j,
// with ∂r/∂q_j = ∂v/∂q̇_j (the partial velocities) and gravity m·g acting at each centre of mass.
#pragma once

#include <ginac/ginac.h>

#include "appell/kinematics/kinematics.hpp"

namespace appell::principles {

/// Whether generalized_forces() includes gravity (Gauss's compulsion holds it in |a − g|²).
enum class Gravity { Included, Excluded };

/// Q (n×1, coordinate order) of every load of the model and, unless excluded, of gravity: forces
/// F·∂v_P/∂q̇_j, torques M·∂ω/∂q̇_j, springs k (d − L0) and dampers c ḋ along the line of their
/// points, generalized loads on their coordinate, potentials −∂V/∂q_j.
GiNaC::matrix generalized_forces(kin::Kinematics& kinematics, Gravity gravity = Gravity::Included);

}  // namespace appell::principles
