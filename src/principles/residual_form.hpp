// What every principle shares: a differentiator and the kinematics of the model, residuals
// E_j(q, q̇, q̈, t) = 0 linear in q̈ formed by the principle, then M_jk = ∂E_j/∂q̈_k and
// f_j = −E_j|q̈=0, with the cost of all of it recorded.
#pragma once

#include <ginac/ginac.h>

#include <functional>
#include <memory>

#include "appell/kinematics/kinematics.hpp"
#include "appell/principles/equations.hpp"

namespace appell::principles::detail {

using ResidualBuilder = std::function<GiNaC::exvector(kin::Kinematics&)>;

/// Runs `residuals` on fresh kinematics and returns the equations with their cost record. The
/// residuals are linear in q⁽ᵒʳᵈᵉʳ⁺¹⁾ (q̈ for the ordinary equations, order 1).
Equations form_equations(std::shared_ptr<const model::Model> model, Method method,
                         const ResidualBuilder& residuals, int order = 1);

}  // namespace appell::principles::detail
