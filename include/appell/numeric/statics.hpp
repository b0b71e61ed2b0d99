// Statics by virtual work (seed 000 §2.1–2.3, eqs. 14–17, 29–32, 54–55): the generalized forces
// Q_j(q) = Σ F·∂r/∂q_j + Σ M·∂ω/∂q̇_j − ∂V/∂q_j at rest (q̇ = 0), their zeros (the equilibria,
// solved by Newton's method with minimum-norm steps and a line search on the compiled Q and its
// Jacobian) and the stability of each: stable when the stiffness K = −∂Q/∂q (the Hessian of V when
// the forces have a potential) is positive definite, neutral when it is only semi-definite (a free
// coordinate, a family of equilibria), unstable otherwise.
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
#include "appell/numeric/linearization.hpp"
#include "appell/principles/equations.hpp"

namespace appell::num {

/// How an equilibrium behaves under a small displacement, from the eigenvalues μ of its
/// stiffness (see Equilibrium): an eigenvalue counts as zero when |μ| ≤ tol · max |K_ij|
/// (StaticsOptions::stability_tolerance).
enum class Stability {
  Stable,    // every eigenvalue positive (also: the constraints leave no motion at all)
  Unstable,  // some eigenvalue negative
  Neutral,   // none negative, some zero: a free coordinate, a family, a flat direction
};
/// "stable", "unstable", "neutral".
const char* stability_name(Stability stability);

/// What solve_statics() evaluates and where it starts.
struct StaticsOptions {
  /// Parameters, inputs and unspecified prescribed functions as for CompiledEquations
  /// (model::bind); a driven function takes its expression's value at `t`.
  model::Values values;
  double t = 0.0;  // the time at which Q (and φ) are evaluated, s
  /// Starting points of the Newton iterations, n finite values each in coordinate order (else
  /// model::ModelError located at "guesses"); the model's initial values are always tried
  /// first, then these, then `random_starts` points with every coordinate in [−π, π] (a fixed
  /// seed: reruns agree) except the free coordinates, which keep their initial values.
  /// Multipliers start at 0.
  std::vector<Eigen::VectorXd> guesses;
  int random_starts = 8;
  double tolerance = 1e-10;  // on max |Q_j + (Φ_qᵀλ)_j| and |φ_i|: what counts as converged
  /// Relative: a stiffness eigenvalue μ with |μ| ≤ stability_tolerance · max |K_ij| is zero
  /// (a neutral direction). Finite and ≥ 0, else model::ModelError located at
  /// "stability_tolerance".
  double stability_tolerance = 1e-9;
};

/// One equilibrium. Coordinates on which Q and φ are 2π-periodic (angles) are reported in
/// [−π, π); two starts that reach the same point (within 1e-6, free coordinates not compared)
/// give one equilibrium.
struct Equilibrium {
  Eigen::VectorXd q;  // n values, coordinate order (free coordinates: the start's values)
  /// The multipliers of the holonomic constraints, in the model's order (empty without); with
  /// redundant constraints the minimum-norm ones.
  Eigen::VectorXd lambda;
  /// The holonomic constraints (names) that are combinations of the others at q
  /// (num::redundant_constraints of Φ_q): the multipliers are then not unique.
  std::vector<std::string> redundant_constraints;
  Stability stability = Stability::Unstable;
  bool stable = false;  // stability == Stability::Stable
  /// Of the symmetric part of K = −∂Q/∂q, ascending; with constraints, of K restricted to the
  /// motions they allow (an orthonormal basis of the null space of Φ_q).
  Eigen::VectorXd stiffness_eigenvalues;
  /// n×k: the displacements δq of zero stiffness (eigenvalues within the tolerance), a
  /// canonical basis of their span (reduced row echelon form, each column of unit length, its
  /// leading entry positive): a free coordinate's column is its unit vector. Empty unless
  /// neutral.
  Eigen::MatrixXd neutral_directions;
  double residual = 0.0;  // max |Q_j + (Φ_qᵀλ)_j| and |φ_i| at q
};

struct StaticsResult {
  GiNaC::matrix generalized_forces;  // n×1, Q(q) at rest, unsimplified, values not substituted
  /// The free (cyclic) coordinates, ascending indices: neither Q nor φ depends on them (with
  /// the values bound), so each equilibrium is a family in which they take any value. The
  /// solver never moves them: they keep the values of the start that found the equilibrium.
  std::vector<std::size_t> free_coordinates;
  std::vector<Equilibrium> equilibria;  // in the order of the starts that found them
  double best_residual = 0.0;  // smallest max residual reached, also when nothing converged
};

/// The generalized forces at rest (q̇ = q̈ = 0) and every equilibrium found from the starts of
/// `options`, each with its stability. The equilibria are solved by Newton's method with
/// minimum-norm steps (a rank-revealing complete orthogonal decomposition of the Jacobian) and
/// a backtracking line search: a direction in which the residual does not change — a free
/// coordinate, a family of equilibria, a redundant constraint — is never moved, so a singular
/// stiffness does not stop the solver. Throws model::ComputationError when no start converges
/// (with the smallest residual reached), model::ModelError for bad values (what model::bind
/// throws: an unknown name, a non-finite number, ...; a guess of the wrong size or a bad
/// tolerance), std::invalid_argument when Q or φ holds a symbol no value reaches (sym::Tape).
StaticsResult solve_statics(std::shared_ptr<const model::Model> model,
                            const StaticsOptions& options);

/// The small oscillations about an equilibrium (the linear model at q, q̇ = 0) and the verdict of
/// stiffness and dynamics together.
struct EquilibriumDynamics {
  std::vector<Mode> modes;  // of the linear model's A (num::linearize, no inputs), num::modes order
  /// Unstable when the stiffness says so or the linear model has a growing mode (Lyapunov's
  /// indirect method: negative damping, circulatory loads); otherwise the stiffness's verdict.
  /// For forces with a potential and positive damping the two agree: at rest A's lower-left
  /// block is −M⁻¹K.
  Stability stability = Stability::Unstable;
  /// Why there are no modes (M singular at q, derivatives not finite there), "" when there are;
  /// the stiffness's verdict stands then.
  std::string unavailable;
};

/// The modes of `equations` (the model's equations of motion) about `equilibrium` at the values
/// and time of `options`; `equilibrium` one of solve_statics()'s with the same options.
EquilibriumDynamics equilibrium_dynamics(const principles::Equations& equations,
                                         const Equilibrium& equilibrium,
                                         const StaticsOptions& options);

}  // namespace appell::num
