// The equations at one state: M, f, q̈ and (with constraints) A, b and λ — what `appell eval`
// reports.
//
// Without constraints q̈ = M⁻¹ f. With constraints M q̈ = f + Aᵀλ and A q̈ = b are solved together
// (CompiledEquations::accelerations_and_multipliers, by the Schur complement A M⁻¹ Aᵀ).
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/dynamics.hpp"

namespace appell::num {

/// The equations at one state, every vector in coordinate order (n coordinates, m constraints).
struct StateEvaluation {
  double t = 0.0;
  Eigen::VectorXd q, qd;              // the state, n each
  Eigen::MatrixXd mass_matrix;        // M, n×n
  Eigen::VectorXd forcing;            // f, n
  Eigen::MatrixXd constraint_matrix;  // A, m×n (0×n without constraints)
  Eigen::VectorXd constraint_rhs;     // b, m
  Eigen::VectorXd qdd;                // q̈, n
  Eigen::VectorXd lambda;             // λ, m (the model's order of constraints); empty without
  /// Constraints that are combinations of the others at this state (indices into the model's
  /// constraints): λ is then the minimum-norm one.
  std::vector<std::size_t> redundant;
};

/// M, f, A, b, q̈ and λ of `compiled` at time t and the state q, q̇ (n values each, coordinate
/// order; other sizes throw std::invalid_argument). Throws model::ComputationError when M, f, A
/// or b is not finite at the state, M is singular (not positive definite) there, or redundant
/// constraints are inconsistent there.
StateEvaluation evaluate_state(const CompiledEquations& compiled, double t,
                               const Eigen::VectorXd& q, const Eigen::VectorXd& qd);

/// The same by a model's num::Dynamics (its recursions, interpreted or compiled, the constraints
/// as their own rows): M, f, A, b, q̈ and λ as the formed equations give them. Throws as the
/// other overload.
StateEvaluation evaluate_state(const Dynamics& dynamics, double t, const Eigen::VectorXd& q,
                               const Eigen::VectorXd& qd);

}  // namespace appell::num
