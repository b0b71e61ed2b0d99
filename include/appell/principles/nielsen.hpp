// Nielsen's form of the equations of motion (seed 003 eq. 57):
//   ∂Ṫ/∂q̇_j − 2 ∂T/∂q_j = Q_j,
// Ṫ the total time derivative of the kinetic energy. It needs one d/dt of T instead of one per
// coordinate (Lagrange), at the price of differentiating a larger expression.
#pragma once

#include "appell/principles/equations.hpp"

namespace appell::principles {

/// M q̈ = f (n×n, n×1; with constraints also A, b) by Nielsen's form, residuals
/// E_j = ∂Ṫ/∂q̇_j − 2 ∂T/∂q_j − Q_j split as M_jk = ∂E_j/∂q̈_k, f_j = −E_j|q̈=0. Method::Nielsen;
/// use derive(), which also rejects a model without coordinates.
Equations nielsen(std::shared_ptr<const model::Model> model);

}  // namespace appell::principles
