// The D'Alembert–Lagrange principle projected on the partial velocities (seed 001's multibody
// form; Kane's equations), with no energy function at all:
//   Σ_bodies [m a_C·∂v_C/∂q̇_j + (I ε + ω × I ω)·∂ω/∂q̇_j] + Σ_particles m a·∂v/∂q̇_j = Q_j,
// ω, ε and I in body components, Q_j the generalized forces by virtual work.
#pragma once

#include "appell/principles/equations.hpp"

namespace appell::principles {

Equations dalembert(std::shared_ptr<const model::Model> model);

}  // namespace appell::principles
