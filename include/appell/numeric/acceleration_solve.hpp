// Solving the equations of motion at one state for the accelerations: M ẍ = f by Cholesky, and
// with constraint rows M ẍ = f + Aᵀλ, A ẍ = b (ẍ: q̈, or u̇ in generalized speeds). What every
// evaluation of appell ends in (num::Dynamics, CompiledEquations), with one set of messages for a
// singular M and inconsistent constraints.
#pragma once

#include <Eigen/Dense>
#include <string>

#include "appell/numeric/constraint_tolerances.hpp"

namespace appell::num {

/// The Cholesky factor L Lᵀ of a mass matrix, which must be positive definite: throws
/// model::ComputationError "<singular> at this state (M = [..])" when the factorisation fails or
/// a pivot L_ii² is not above both 1e-12 M_ii (a coordinate whose inertia the others account for,
/// to rounding: M singular) and 1e-24 max |M_ij| (a coordinate that moves next to no mass).
Eigen::LLT<Eigen::MatrixXd> factor_mass_matrix(const Eigen::MatrixXd& M,
                                               const std::string& singular);

/// q̈ = M⁻¹ f by Cholesky (M n×n, f n), what every evaluator's accelerations() ends in when the
/// generated solver refuses a state. Throws model::ComputationError when M or f is not finite, or
/// M is singular or not positive definite (factor_mass_matrix(); the message prints M).
Eigen::VectorXd solve_accelerations(const Eigen::MatrixXd& M, const Eigen::VectorXd& f);

/// M ẍ = f + Aᵀλ together with A ẍ = b (ẍ the accelerations: q̈, or u̇ in the speeds): the
/// least-squares ẍ and the minimum-norm λ, the rank of A decided on A L⁻ᵀ (M = L Lᵀ) with
/// `tolerances.rank`. Without rows (A.rows() == 0) ẍ = M⁻¹f and λ is empty. Throws
/// model::ComputationError as solve_accelerations() does, when A or b is not finite, and when
/// redundant rows ask for different accelerations (A ẍ = b missed by more than
/// `tolerances.consistency` times ‖b‖ + ‖A M⁻¹ f‖).
void solve_constrained_accelerations(const Eigen::MatrixXd& M, const Eigen::VectorXd& f,
                                     const Eigen::MatrixXd& A, const Eigen::VectorXd& b,
                                     Eigen::VectorXd& accelerations, Eigen::VectorXd& lambda,
                                     const ConstraintTolerances& tolerances = {});

}  // namespace appell::num
