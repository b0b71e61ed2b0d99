// The constraints of a model as a manifold in state space, compiled, with the projections that
// keep a simulation on it.
//
// Integrating M q̈ = f + Aᵀλ with A q̈ = b (the constraints at acceleration level) satisfies
// φ(q, t) = 0 and g(q, q̇, t) = 0 only up to the integration error, which grows without bound
// (drift). Instead of Baumgarte's stabilization, whose two gains depend on the model and the
// step, the state is projected back after every step (CVODE's projection, Eich 1993):
// positions onto φ = 0 by Gauss–Newton with the minimum-norm correction, then velocities onto
// φ̇ = 0 and the nonholonomic g = 0, which are linear in q̇. The same projections make a given
// initial state consistent. Redundant constraints (an over-constrained mechanism, Jacobians of
// deficient row rank) are left out of each correction along the null directions of the Jacobian,
// decided with a rank tolerance of the size of the integrator's error (ConstraintTolerances):
// decided at rounding level instead, the drift would make the Jacobian look regular and the
// velocity projection would take away every motion the mechanism has.
//
// The residuals and Jacobians (principles::ConstraintLevels) are evaluated by a tape of their
// expressions with the values substituted (the GiNaC constructor), or by a function given: the
// program num::Dynamics compiled once with its run-time parameters, or the generated code the
// JIT compiled, so that a sweep's case sets up its projection without GiNaC.
#pragma once

#include <ginac/ginac.h>

#include <Eigen/Dense>
#include <functional>
#include <memory>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/numeric/constraint_tolerances.hpp"
#include "appell/numeric/tape.hpp"

namespace appell::num {

/// How far a state is from the manifold: max |φ| over the holonomic constraints, and max |φ̇|
/// and |g| over all constraints at velocity level.
struct ConstraintViolation {
  double position = 0.0;  // max |φ_i| (0 without holonomic constraints)
  double velocity = 0.0;  // max |φ̇_i| and |g_i| (0 without constraints)
};

/// Writes the constraints' levels at (t, q, q̇) (n values each) into `outputs`: φ (h), Φ_q (h×n
/// row by row), the velocity-level residuals (m), their coefficients of q̇ (m×n row by row), as
/// principles::ConstraintLevels::outputs() orders them.
using ConstraintEvaluation =
    std::function<void(double t, const double* q, const double* qd, double* outputs)>;

/// The constraints of one model, compiled. States are t and q, q̇ with n values each in
/// coordinate order (sizes not checked). The methods are const but share internal buffers: one
/// object per thread.
class ConstraintManifold {
 public:
  /// `values` replaces every symbol of the constraints other than t, q and q̇ (parameters by
  /// numbers, inputs by expressions of t: e.g. model::BoundValues::substitution()). A symbol left
  /// over (or an expression the tape cannot evaluate) throws model::ModelError located at the
  /// model's first constraint and naming it, whichever constraint holds the symbol; the message
  /// names the symbol. Directions whose singular value is at most `rank_tolerance` times the
  /// Jacobian's largest count as null (ConstraintTolerances::rank; a simulation passes
  /// constraint_tolerances_for(rtol, atol).rank).
  ConstraintManifold(const model::Model& model, const GiNaC::exmap& values,
                     double rank_tolerance = ConstraintTolerances{}.rank);
  /// The constraints of a model with n coordinates, m constraints of which the first h (in the
  /// order of principles::ConstraintLevels) are holonomic, evaluated by `evaluation` (called
  /// from this object's methods only, one call at a time per object).
  ConstraintManifold(std::size_t n, std::size_t m, std::size_t h, ConstraintEvaluation evaluation,
                     double rank_tolerance = ConstraintTolerances{}.rank);

  /// m, every constraint.
  std::size_t constraint_count() const { return count_; }
  /// The holonomic ones among them (φ(q, t) = 0).
  std::size_t holonomic_count() const { return holonomic_; }

  /// How far (t, q, q̇) is from the manifold; zeros without constraints.
  ConstraintViolation violation(double t, const Eigen::VectorXd& q,
                                const Eigen::VectorXd& qd) const;

  /// Moves q onto φ(q, t) = 0 by the smallest steps (Gauss–Newton with the pseudo-inverse of
  /// Φ_q, its rank decided with the rank tolerance) until max |φ| ≤ tolerance. Returns false when
  /// that is not reached within 25 iterations or φ, Φ_q stop being finite (q then holds the last
  /// iterate); true at once without holonomic constraints.
  bool project_positions(double t, Eigen::VectorXd& q, double tolerance) const;
  /// Moves q̇ onto the velocity-level constraints at (q, t) by the smallest change (exact: they
  /// are linear in q̇; redundant ones, by the rank tolerance, are met through the others).
  void project_velocities(double t, const Eigen::VectorXd& q, Eigen::VectorXd& qd) const;
  /// Removes from an error estimate (positions, velocities) its components normal to the
  /// manifold at (q, t), as CVODE asks of a projection.
  void project_error(double t, const Eigen::VectorXd& q, Eigen::VectorXd& position_error,
                     Eigen::VectorXd& velocity_error) const;

 private:
  // Sizes the buffers.
  void allocate();
  // Evaluates φ, Φ_q, the velocity-level residuals and their q̇-Jacobian at a state.
  void evaluate(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd) const;

  std::size_t n_ = 0, count_ = 0, holonomic_ = 0;
  double rank_tolerance_ = 0.0;
  ConstraintEvaluation evaluation_;
  mutable std::vector<double> outputs_;
  mutable Eigen::VectorXd phi_, rate_;
  mutable Eigen::MatrixXd phi_q_, rate_qd_;
};

}  // namespace appell::num
