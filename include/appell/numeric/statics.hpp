// Statics by virtual work (seed 000 §2.1–2.3, eqs. 14–17, 29–32, 54–55): the generalized forces
// Q_j(q) = Σ F·∂r/∂q_j + Σ M·∂ω/∂q̇_j − ∂V/∂q_j at rest (q̇ = 0), their zeros (the equilibria,
// solved by Newton's method with minimum-norm steps and a line search on Q and its Jacobian) and
// the stability of each: stable when the stiffness K = −∂Q/∂q (the Hessian of V when
// the forces have a potential) is positive definite, neutral when it is only semi-definite (a free
// coordinate, a family of equilibria, or a degenerate point flat to second order), unstable
// otherwise. Convergence and the zero of the stiffness are judged relative to the sizes of Q and
// K over the search, so that a system's equilibria and verdicts do not depend on its units.
//
// Where the tree's recursions alone cover the model (principles::recursions_alone_do_not_cover()
// empty: no constraints, no carrier frame) and its frames do not move, the numbers come from them
// without forming Q: M q̈ = f at rest leaves Q(q) = f(q, 0, t) (num::Dynamics::forcing), and inverse
// dynamics τ = M q̈ − f has ∂τ/∂q = −∂f/∂q = K there (num::DynamicsDerivativesEvaluator, the
// differentiated recursions). Every other model solves on Q (and φ) formed symbolically,
// differentiated and compiled.
//
// With holonomic constraints φ(q, t) = 0 the equilibria solve Q + Φ_qᵀλ = 0, φ = 0 for q and the
// multipliers λ together (Lagrange's statics with multipliers), and stability is judged on the
// motions the constraints allow: the stiffness −∂(Q + Φ_qᵀλ)/∂q restricted to the null space of
// Φ_q (positive definite there: stable). Nonholonomic constraints, linear in q̇, do not restrict
// positions and play no part at rest.
//
// A moving model (frames or mass points that move with t or prescribed functions: a spinning
// hoop, a turntable, a carrier frame `relative_to`, seed 003) has no equilibria in the inertial
// frame, but it may have relative ones: q̇ = 0, q̈ = 0 solve M q̈ = f, i.e. f(q, 0, t) = 0, where
// f at rest is Q plus the inertial forces of the prescribed motion (seed 003's −∂(Π_o + Π_ω)/∂q
// and Q^ω̇; the gyroscopic Γ vanishes at rest). Such a point stays put only when the relative
// problem is steady: f at rest (and φ) must not change with t, as when a turntable spins at a
// constant rate (ω t enters only through its derivative, and the turntable's angle is cyclic).
// That is shown symbolically (d/dt of f at rest made readable is 0) or else numerically at a few
// times; an accelerating turntable or an oscillating support has no steady relative problem, and
// solve_statics says so. Stability is then that of the linearized relative motion: the stiffness
// K = −∂f/∂q at rest and, since gyroscopic forces can stabilise an indefinite K (and other
// velocity forces destabilise a definite one), the eigenvalues of the linear model.
#pragma once

#include <ginac/ginac.h>

#include <Eigen/Dense>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/model/values.hpp"
#include "appell/numeric/linearization.hpp"
#include "appell/principles/equations.hpp"

namespace appell::num {

/// How an equilibrium behaves under a small displacement, from the eigenvalues μ of its
/// stiffness (see Equilibrium): an eigenvalue counts as zero when |μ| ≤ tol · S, S the larger of
/// max |K_ij| there and the largest |K_ij| met over the search (its starts and equilibria;
/// StaticsOptions::stability_tolerance), so that a stiffness vanishing at the point (an
/// inflection of V) is not judged by its own rounding.
enum class Stability {
  Stable,    // every eigenvalue positive (also: the constraints leave no motion at all)
  Unstable,  // some eigenvalue negative
  /// None negative, some zero: a free coordinate, a family (Equilibrium::neutral_directions), or
  /// a degenerate equilibrium, flat to second order (Equilibrium::degenerate_directions)
  Neutral,
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
  /// seed: reruns agree) except the free coordinates, which keep their initial values. The
  /// random starts are then run once more with the equilibria found deflated (Farrell et al.,
  /// 2015), which finds those whose basin of attraction no start lies in. Multipliers start at 0.
  std::vector<Eigen::VectorXd> guesses;
  int random_starts = 8;
  /// On the residuals, at the scale of Q: converged when every |Q_j + (Φ_qᵀλ)_j| ≤ T(S_Q) and
  /// |φ_i| ≤ T(S_φ), T(S) = max(tolerance · min(S, 1), 1000 ε S), S_Q the largest |Q_j| and S_φ
  /// the largest |φ_i| met at the initial values and 8 fixed pseudo-random points (not the
  /// guesses: the tolerance is the model's), tolerance itself where S = 0. So relative for forces
  /// below 1, never tighter than their rounding for large ones, and absolute in between. And
  /// Newton's step has become negligible (below 1e-9 of max(1, |z_k|) in every unknown), or no
  /// longer halves the residual (rounding): beside a root of high multiplicity the residual is
  /// below any tolerance over a wide interval, and the root is reached, not that interval's edge.
  double tolerance = 1e-10;
  /// Relative: a stiffness eigenvalue μ with |μ| ≤ stability_tolerance · S is zero (a neutral or
  /// degenerate direction), S the larger of max |K_ij| at the equilibrium and over the search
  /// (Stability). Finite and ≥ 0, else model::ModelError located at "stability_tolerance".
  double stability_tolerance = 1e-9;
  /// Q and ∂Q/∂q formed symbolically and compiled even where the recursions cover the model (the
  /// route of the models they do not): a cross-check, which finds the same equilibria.
  bool from_formed_forces = false;
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
  /// Of the symmetric part of K = −∂Q/∂q (a moving model: −∂f/∂q at rest, Q and the inertial
  /// forces), ascending; with constraints, of K restricted to the motions they allow (an
  /// orthonormal basis of the null space of Φ_q). Rounding noise (below num::kRoundingNoise of
  /// the scale S of Stability) is exactly 0, as are q's beside the coordinates the search met
  /// and λ's beside the multipliers of every equilibrium (num::without_rounding_noise, what
  /// linearize prints by), where the point stays an equilibrium within tolerance.
  Eigen::VectorXd stiffness_eigenvalues;
  /// n×k: the displacements δq of zero stiffness (eigenvalues within the tolerance) along which
  /// the equilibrium is one of a family (a free coordinate, any x1 = x2 of two particles joined
  /// by a spring: Q stays 0 along it), a canonical basis of their span (reduced row echelon
  /// form, each column of unit length, its leading entry positive): a free coordinate's column
  /// is its unit vector. Empty unless neutral.
  Eigen::MatrixXd neutral_directions;
  /// n×k: the displacements of zero stiffness along which the equilibrium is isolated
  /// (degenerate: Q vanishes to second order but not along it, as V = ψ^19 or ψ^4 at ψ = 0, or
  /// a stiffness so much smaller than the largest that the tolerance counts it as zero), a
  /// canonical basis as neutral_directions': the quadratic test cannot decide along them, higher
  /// orders do. Empty unless neutral.
  Eigen::MatrixXd degenerate_directions;
  double residual = 0.0;  // max |Q_j + (Φ_qᵀλ)_j| and |φ_i| at q (absolute)
  /// A relative equilibrium of a moving model whose stiffness alone says unstable but whose
  /// linear model has no growing mode, with velocity forces (gyroscopic) at rest: stable to
  /// linear order by gyroscopic stabilisation (Thomson–Tait); `stability` is then Stable.
  bool gyroscopic_stabilization = false;
};

/// How the motion of a moving model entered solve_statics() (see the file comment).
struct RelativeStatics {
  /// The prescribed functions the frames and mass points may move with, in model order: every
  /// driven one whose expression holds t, and the unspecified ones they depend on.
  std::vector<std::string> prescribed;
  bool explicit_time = false;  // t written directly in a frame or a position
  std::string carrier;         // Model::relative_to, "" without
  /// n×1: f(q, q̇ = 0, t) − Q(q, t), the inertial forces of the prescribed motion at rest
  /// (unsimplified, values not substituted); Q + these = 0 at a relative equilibrium.
  GiNaC::matrix inertial_forces;
  /// How the relative problem was shown steady: "symbolically" (for every value of the
  /// parameters) or "numerically at N times" (with the values bound).
  std::string steady_by;
};

struct StaticsResult {
  GiNaC::matrix generalized_forces;  // n×1, Q(q) at rest, unsimplified, values not substituted
  /// The free (cyclic) coordinates, ascending indices: neither Q nor φ depends on them (with
  /// the values bound), so each equilibrium is a family in which they take any value. The
  /// solver never moves them: they keep the values of the start that found the equilibrium.
  std::vector<std::size_t> free_coordinates;
  std::vector<Equilibrium> equilibria;  // in the order of the starts that found them
  double best_residual =
      0.0;  // smallest max residual reached (absolute), also when nothing converged
  /// Set for a moving model: the equilibria are relative ones, with the inertial forces of the
  /// prescribed motion included (and generalized_forces still Q alone). Unset for a model whose
  /// frames do not move: then Q alone, at `t`, as always.
  std::optional<RelativeStatics> relative;
  /// Q and K came from num::Dynamics and the differentiated recursions (file comment); false:
  /// from Q formed symbolically and compiled.
  bool by_recursions = false;
};

/// The generalized forces at rest (q̇ = q̈ = 0) and every equilibrium found from the starts of
/// `options`, each with its stability; for a moving model the relative equilibria (file
/// comment), with StaticsResult::relative set. The equilibria are solved by Newton's method with
/// minimum-norm steps (a rank-revealing complete orthogonal decomposition of the Jacobian) and
/// a backtracking line search: a direction in which the residual does not change — a free
/// coordinate, a family of equilibria, a redundant constraint — is never moved, so a singular
/// stiffness does not stop the solver; at a root of high multiplicity the step is extrapolated
/// by the multiplicity its linear convergence shows, so that the root is reached rather than
/// the edge of the region where Q is below the tolerance. Throws model::ComputationError when no
/// start converges (with the smallest residual reached) and, for a moving model, when the relative
/// problem is not steady (naming a force that changes with t, where and by how much);
/// model::ModelError for bad values (what model::bind throws: an unknown name, a non-finite number,
/// ...; a guess of the wrong size or a bad tolerance); std::invalid_argument when Q or φ holds a
/// symbol no value reaches (sym::Tape).
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
/// equilibrium_dynamics() of each of `statics`' equilibria (solve_statics() of `model` with
/// `options`), in their order: from the differentiated recursions without forming the equations
/// where they cover the model (linearize(model, ...)), else from its Gibbs–Appell equations,
/// formed once. What `appell statics --modes` prints.
std::vector<EquilibriumDynamics> equilibria_dynamics(std::shared_ptr<const model::Model> model,
                                                     const StaticsResult& statics,
                                                     const StaticsOptions& options);

}  // namespace appell::num
