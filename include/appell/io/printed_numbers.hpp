// Computed numbers as they are printed: without the rounding noise of the arithmetic that made
// them, by the rule `appell linearize` prints A and its eigenvalues with
// (num::without_rounding_noise, num::kRoundingNoise): within one quantity, an entry below 1e-12
// times its largest magnitude is exactly 0. A reader should see the 0 the physics has, not the
// -2.15e-15 that products with M⁻¹ or a sum of moments left, and text and JSON should agree.
//
// Each function returns a copy with every computed quantity cleaned as one group (a matrix, a
// vector, or what is printed side by side as one table: every frame's reaction force); what
// the caller gave (the state q, q̇, u, t) is left as it is. A negative zero is written 0.
// Numbers that are not finite are left as they are.
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/dynamics_derivatives.hpp"
#include "appell/numeric/reactions.hpp"
#include "appell/numeric/split_evaluation.hpp"
#include "appell/numeric/state_evaluation.hpp"

namespace appell::io {

/// `m` without rounding noise (num::without_rounding_noise, a negative zero as 0), its non-finite
/// entries kept: the one rule every printed quantity below goes through.
Eigen::MatrixXd without_rounding_noise(const Eigen::MatrixXd& m);
/// The same for a vector.
Eigen::VectorXd without_rounding_noise(const Eigen::VectorXd& v);

/// M, f, A, b, q̈ and λ of `state` (`appell eval`), each alone.
num::StateEvaluation without_rounding_noise(const num::StateEvaluation& state);

/// M, f, q̇, v̇, q̈, A, b, the velocity residual and λ of a solve in the speeds or of the minimal
/// form (`appell eval` of a model with speeds, `eval --minimal`), each alone.
num::CompiledEquations::State without_rounding_noise(const num::CompiledEquations::State& state);

/// M, C, g, Q, ∂M/∂t, G and p of a split (`appell eval --split`), each alone.
num::SplitEvaluation without_rounding_noise(const num::SplitEvaluation& split);

/// q̈ and the derivatives of the dynamics (`appell eval --derivatives`), each alone.
num::ForwardDynamicsDerivatives without_rounding_noise(const num::ForwardDynamicsDerivatives& d);
num::InverseDynamicsDerivatives without_rounding_noise(const num::InverseDynamicsDerivatives& d);

/// The reactions of every frame (`appell eval --reactions`) as one group, forces and moments
/// together: a moment is made of forces times lever arms (r × F), so its rounding is of the
/// forces' size (in SI units, arms of order 1 m); where every moment ought to be 0 (pins, point
/// masses) the moments alone are all noise (-2.2e-16 N m beside 7 N) and have no scale of their
/// own. A moment of 3.7e-16 N m beside a shoulder's 96.7 N reads 0.
std::vector<num::Reaction> without_rounding_noise(const std::vector<num::Reaction>& reactions);

/// The generalized constraint forces of every constraint (num::generalized_constraint_forces)
/// as one group.
std::vector<Eigen::VectorXd> without_rounding_noise(const std::vector<Eigen::VectorXd>& forces);

}  // namespace appell::io
