// The first derivatives of inverse and forward dynamics, by differentiating the recursions.
//
// Inverse dynamics τ(q, q̇, q̈) (Newton–Euler over the frame tree, principles/recursive_dynamics)
// is differentiated in forward mode through its own program (sym/program_derivatives): ∂τ/∂q,
// ∂τ/∂q̇ at q̈ fixed, one vector pass of 2n directions whose zeros fold away. Forward dynamics
// q̈ = M⁻¹ (f + τ) satisfies τ(q, q̇, q̈(q, q̇, τ)) = τ, so (Carpentier & Mansard, "Analytical
// derivatives of rigid body dynamics algorithms", RSS 2018)
//   ∂q̈/∂τ = M⁻¹,   ∂q̈/∂q = −M⁻¹ ∂τ/∂q,   ∂q̈/∂q̇ = −M⁻¹ ∂τ/∂q̇   at q̈ = forward(q, q̇, τ),
// M⁻¹ the tangent of the forward solve (articulated bodies or M = Lᵀ D L) in the directions of τ:
// the same solve on unit forces, sharing its factorization. Where it needs fewer operations the
// forward recursion is differentiated directly instead (the same numbers, a different program).
// No finite differences anywhere; the derivatives are nodes of the program they differentiate, so
// everything the values and the derivatives share is computed once.
#pragma once

#include <string>
#include <vector>

#include "appell/principles/recursive_dynamics.hpp"

namespace appell::principles {

/// The variable nodes of the program that the derivatives are taken along.
struct DerivativeVariables {
  std::vector<sym::Node> q, qd;  // n each
  std::vector<sym::Node> qdd;    // n: the accelerations inverse dynamics reads
  std::vector<sym::Node> extra;  // n: the generalized forces forward dynamics adds to f
  /// Further variables (inputs, parameters) to differentiate along, after q and q̇.
  std::vector<sym::Node> others;
};

/// Nodes of the program, each matrix row-major with n rows (∂y_i/∂x_j at i·cols + j).
struct DynamicsDerivatives {
  std::vector<sym::Node> dtau_dq, dtau_dqd, dtau_dothers;  // at the q̈ variables
  /// At q̈ = forward (empty when RecursiveDynamics::forward is).
  std::vector<sym::Node> dqdd_dq, dqdd_dqd, dqdd_dothers, minv;
  /// How ∂q̈/∂(q, q̇) was formed: "-M^-1 dtau" or "through the forward recursion".
  std::string forward_method;
};

/// The derivatives of `d`'s inverse (and forward, when built) dynamics along `v`, as nodes of
/// `d.program`. M⁻¹ is symmetric by construction (its upper triangle mirrored).
DynamicsDerivatives differentiate_dynamics(RecursiveDynamics& d, const DerivativeVariables& v);

}  // namespace appell::principles
