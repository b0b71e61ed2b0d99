// Shared last steps of every principle: from residuals E_j(q, q̇, q̈, t) = 0 that are linear in q̈,
// M_jk = ∂E_j/∂q̈_k and f_j = −E_j|q̈=0.
#pragma once

#include <ginac/ginac.h>

#include <chrono>

#include "appell/model/model.hpp"
#include "appell/principles/equations.hpp"
#include "appell/sym/differentiator.hpp"

namespace appell::principles::detail {

void split_linear_in_accelerations(const GiNaC::exvector& residuals, const model::Model& model,
                                   sym::Differentiator& d, GiNaC::matrix& mass_matrix,
                                   GiNaC::matrix& forcing);

/// Fills the cost record: the differentiator's counts, the DAG size of M and f, the time since
/// `start`.
void finish(Equations& equations, const sym::Differentiator& d,
            std::chrono::steady_clock::time_point start);

}  // namespace appell::principles::detail
