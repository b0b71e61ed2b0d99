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

/// What solve_statics() evaluates and where it starts.
struct StaticsOptions {
  /// Parameters, inputs and unspecified prescribed functions as for CompiledEquations
  /// (model::bind); a driven function takes its expression's value at `t`.
  model::Values values;
  double t = 0.0;  // the time at which Q (and φ) are evaluated, s
  /// Starting points of the Newton iterations, n values each in coordinate order (the size is
  /// not checked); the model's initial values are always tried first, then these, then
  /// `random_starts` points with every coordinate in [−π, π] (a fixed seed: reruns agree).
  /// Multipliers start at 0.
  std::vector<Eigen::VectorXd> guesses;
  int random_starts = 8;
  double tolerance = 1e-10;  // on max |Q_j + (Φ_qᵀλ)_j| and |φ_i|: what counts as converged
};

/// One equilibrium. Coordinates on which Q and φ are 2π-periodic (angles) are reported in
/// [−π, π); two starts that reach the same point (within 1e-6) give one equilibrium.
struct Equilibrium {
  Eigen::VectorXd q;  // n values, coordinate order
  /// The multipliers of the holonomic constraints, in the model's order (empty without).
  Eigen::VectorXd lambda;
  /// Every stiffness eigenvalue is positive (above 1e-9·max(1, max |K_ij|)); also true when the
  /// constraints leave no motion at all.
  bool stable = false;
  /// Of the symmetric part of K = −∂Q/∂q, ascending; with constraints, of K restricted to the
  /// motions they allow (an orthonormal basis of the null space of Φ_q).
  Eigen::VectorXd stiffness_eigenvalues;
  double residual = 0.0;  // max |Q_j + (Φ_qᵀλ)_j| and |φ_i| at q
};

struct StaticsResult {
  GiNaC::matrix generalized_forces;     // n×1, Q(q) at rest, unsimplified, values not substituted
  std::vector<Equilibrium> equilibria;  // in the order of the starts that found them
  double best_residual = 0.0;  // smallest max residual reached, also when nothing converged
};

/// The generalized forces at rest (q̇ = q̈ = 0) and every equilibrium found from the starts of
/// `options`, each with its stability. Throws model::ComputationError when no start converges
/// (with the smallest residual reached), model::ModelError for bad values (what model::bind
/// throws: an unknown name, a non-finite number, ...), std::invalid_argument when Q or φ holds
/// a symbol no value reaches (sym::Tape).
StaticsResult solve_statics(std::shared_ptr<const model::Model> model,
                            const StaticsOptions& options);

}  // namespace appell::num
