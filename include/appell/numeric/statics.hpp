// Statics by virtual work (seed 000 §2.1–2.3, eqs. 14–17, 29–32, 54–55): the generalized forces
// Q_j(q) = Σ F·∂r/∂q_j + Σ M·∂ω/∂q̇_j − ∂V/∂q_j at rest (q̇ = 0), their zeros (the equilibria,
// solved with SUNDIALS KINSOL: Newton with line search on the compiled Q and its Jacobian) and
// the stability of each: stable when the stiffness K = −∂Q/∂q (the Hessian of V when the forces
// have a potential) is positive definite.
//
// With holonomic constraints φ(q, t) = 0 the equilibria solve Q + Φ_qᵀλ = 0, φ = 0 for q and the
// multipliers λ together (Lagrange's statics with multipliers), and stability is judged on the
// motions the constraints allow: the stiffness −∂(Q + Φ_qᵀλ)/∂q restricted to the null space of
// Φ_q (positive definite there: stable). Nonholonomic constraints, linear in q̇, do not restrict
// positions and play no part at rest.
#pragma once

#include <ginac/ginac.h>

#include <Eigen/Dense>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/model/values.hpp"

namespace appell::num {

struct StaticsOptions {
  /// Parameters, inputs and unspecified prescribed functions as for CompiledEquations
  /// (model::bind); a driven function takes its expression's value at `t`.
  model::Values values;
  double t = 0.0;
  /// Starting points of the Newton iterations; the model's initial values are always tried
  /// first, then these, then `random_starts` points with every coordinate in [−π, π].
  std::vector<Eigen::VectorXd> guesses;
  int random_starts = 8;
  double tolerance = 1e-10;  // on max |Q_j|
};

struct Equilibrium {
  Eigen::VectorXd q;
  /// The multipliers of the holonomic constraints, in the model's order (empty without).
  Eigen::VectorXd lambda;
  bool stable = false;
  /// Of the symmetric part of K = −∂Q/∂q, ascending; with constraints, of K restricted to the
  /// motions they allow (an orthonormal basis of the null space of Φ_q).
  Eigen::VectorXd stiffness_eigenvalues;
  double residual = 0.0;  // max |Q_j + (Φ_qᵀλ)_j| and |φ_i| at q
};

struct StaticsResult {
  GiNaC::matrix generalized_forces;  // n×1, Q(q) at rest, unsimplified
  std::vector<Equilibrium> equilibria;
  double best_residual = 0.0;  // smallest max |Q_j| reached, also when nothing converged
};

/// Throws model::ComputationError when no start converges (with the smallest residual reached),
/// model::ModelError for bad values (what model::bind throws: an unknown name, a non-finite
/// number, ...).
StaticsResult solve_statics(std::shared_ptr<const model::Model> model,
                            const StaticsOptions& options);

}  // namespace appell::num
