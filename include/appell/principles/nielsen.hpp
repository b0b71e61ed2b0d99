// Nielsen's form of the equations of motion (seed 003 eq. 57):
//   ∂Ṫ/∂q̇_j − 2 ∂T/∂q_j = Q_j,
// Ṫ the total time derivative of the kinetic energy. It needs one d/dt of T instead of one per
// coordinate (Lagrange), at the price of differentiating a larger expression.
#pragma once

#include "appell/principles/equations.hpp"

namespace appell::principles {

Equations nielsen(std::shared_ptr<const model::Model> model);

}  // namespace appell::principles
