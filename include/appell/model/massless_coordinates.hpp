// Coordinates that move no mass: no body or particle moves when they change, so their row of the
// mass matrix is 0 and their equation of motion reads 0 = f_j (often `0 = 0`), which says nothing
// about how they accelerate (a forgotten body, a frame hung on the wrong parent). A fact of the
// model, for the command line to warn about.
#pragma once

#include <cstddef>
#include <vector>

#include "appell/model/model.hpp"

namespace appell::model {

/// Indices into Model::coordinates (ascending) of the coordinates written in none of the
/// expressions that place a mass: the translations and rotations of the frames from a body's or
/// particle's frame up to world, and the body's centre of mass or the particle's position. A
/// body counts when its mass or inertia is not 0, a particle when its mass is not 0. The test is
/// by the symbols written, so it never names a coordinate that does move mass; it may miss one
/// whose motion cancels (a frame turning about a point mass at its origin). Empty for a model
/// with flexible bodies (their coordinates are not all in Model::coordinates).
std::vector<std::size_t> coordinates_moving_no_mass(const Model& model);

}  // namespace appell::model
