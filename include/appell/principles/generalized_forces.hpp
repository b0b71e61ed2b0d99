// Generalized forces by virtual work (seed 000 eqs. 55/60), one implementation for every
// principle:
//   Q_j = Σ_points F·∂r/∂q_j + Σ_bodies M·∂ω/∂q̇_j − ∂V/∂q_j + (generalized loads)_j,
// with ∂r/∂q_j = ∂v/∂q̇_j (the partial velocities) and gravity m·g acting at each centre of mass.
#pragma once

#include <ginac/ginac.h>

#include "appell/kinematics/kinematics.hpp"

namespace appell::principles {

enum class Gravity { Included, Excluded };

/// Q (n×1) of every load and, unless excluded, of gravity.
GiNaC::matrix generalized_forces(kin::Kinematics& kinematics, Gravity gravity = Gravity::Included);

}  // namespace appell::principles
