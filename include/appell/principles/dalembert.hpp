// The D'Alembert–Lagrange principle projected on the partial velocities (seed 001's multibody
// form; Kane's equations), with no energy function at all:
//   Σ_bodies [m a_C·∂v_C/∂q̇_j + (I ε + ω × I ω)·∂ω/∂q̇_j] + Σ_particles m a·∂v/∂q̇_j = Q_j,
// ω, ε and I in body components, Q_j the generalized forces by virtual work.
#pragma once

#include "appell/principles/equations.hpp"

namespace appell::principles {

/// M q̈ = f (n×n, n×1; with constraints also A, b) by D'Alembert–Lagrange, residuals
/// E_j = (left side − Q_j) split as M_jk = ∂E_j/∂q̈_k, f_j = −E_j|q̈=0. Method::Dalembert; use
/// derive(), which also rejects a model without coordinates.
Equations dalembert(std::shared_ptr<const model::Model> model);

}  // namespace appell::principles
