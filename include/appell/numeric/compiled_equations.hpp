// M(q, t) and f(q, q̇, t) of a set of Equations compiled to a Tape, and q̈ = M⁻¹ f.
#pragma once

#include <Eigen/Dense>
#include <map>
#include <string>
#include <vector>

#include "appell/model/values.hpp"
#include "appell/numeric/constraint_tolerances.hpp"
#include "appell/numeric/tape.hpp"
#include "appell/principles/equations.hpp"

namespace appell::num {

/// The constraints (row indices of A, ascending) that are linear combinations of the others at
/// this state: those a column-pivoted QR of Aᵀ leaves after its rank (pivots at most
/// rank_tolerance times the largest count as zero). Empty when A has full row rank or no rows. A
/// is m×n, as from CompiledEquations::constraints.
std::vector<std::size_t> redundant_constraints(const Eigen::MatrixXd& A,
                                               double rank_tolerance = 1e-10);

/// The equations M q̈ = f (and A q̈ = b) of one model compiled for evaluation at numeric states:
/// t in s, q and q̇ in the model's coordinate order (n values each), SI units as the model's
/// parameters are. evaluate() and the solvers are const but reuse internal buffers: one object
/// must not be evaluated from two threads at once (make one per thread).
class CompiledEquations {
 public:
  /// Compiles M, f and (with constraints) A, b of `equations` into one tape. `values`
  /// (model/values.hpp, bound by model::bind) overrides parameters and gives inputs and
  /// unspecified prescribed functions numbers (and their derivatives, by their printed names
  /// such as "dot(theta)") or expressions of t; those not given are 0, parameters not given
  /// their model defaults. M, f, A and b all see the same values. Any other symbol left in the
  /// equations (the coordinates' higher derivatives in Gibbs–Appell equations of order m > 1) is
  /// evaluated as 0. Throws model::ModelError for an unknown name, a non-finite number or a name
  /// given both a number and an expression (what model::bind throws), and std::invalid_argument
  /// when an expression cannot be evaluated numerically (sym::Tape).
  explicit CompiledEquations(const principles::Equations& equations,
                             const model::Values& values = {});

  /// n, the number of coordinates.
  std::size_t dof() const { return n_; }
  /// Evaluates M (resized to n×n) and f (resized to n) at time t and the state q, q̇. q and qd
  /// must have n entries each: other sizes throw std::invalid_argument.
  void evaluate(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, Eigen::MatrixXd& M,
                Eigen::VectorXd& f) const;
  /// Solves M q̈ = f (M n×n, f n) by Cholesky; returns q̈ (n). Throws model::ComputationError
  /// when M or f is not finite, or M is singular or not positive definite (the message prints M).
  Eigen::VectorXd accelerations(const Eigen::MatrixXd& M, const Eigen::VectorXd& f) const;

  /// Number of constraints m (0 without).
  std::size_t constraint_count() const { return m_; }
  /// A (resized to m×n) and b (m) of the constraints at acceleration level, A q̈ = b (rows in the
  /// model's order of constraints), from the last evaluate() (whose state they belong to; zeros
  /// before the first). 0×n and empty without constraints.
  void constraints(Eigen::MatrixXd& A, Eigen::VectorXd& b) const;
  /// Solves M q̈ = f + Aᵀλ with A q̈ = b ((A M⁻¹ Aᵀ) λ = b − A M⁻¹ f); qdd gets n values, lambda
  /// m (the model's order of constraints; empty when A has no rows, q̈ = M⁻¹ f). With redundant
  /// constraints (A of rank r < m, decided with `tolerances.rank` relative to A M^-1/2's largest
  /// singular value) q̈ is the least-squares one, unique, and λ the minimum-norm one: with
  /// M = L Lᵀ and Ã = A L⁻ᵀ, Lᵀ q̈ moves from its unconstrained value by Ã⁺(b − A M⁻¹ f) (Gauss's
  /// least compulsion) and λ = (ÃÃᵀ)⁺(b − A M⁻¹ f), from a complete orthogonal decomposition of
  /// Ã. Throws model::ComputationError as accelerations() does, when A or b is not finite, or
  /// when redundant constraints are inconsistent: A q̈ = b is then missed by more than
  /// `tolerances.consistency` times ‖b‖ + ‖A M⁻¹ f‖ (they ask for different q̈). The default
  /// tolerances are for a state on the constraints (eval); a simulation passes
  /// constraint_tolerances_for(rtol, atol), which accepts the drift its tolerances allow.
  void accelerations_and_multipliers(const Eigen::MatrixXd& M, const Eigen::VectorXd& f,
                                     const Eigen::MatrixXd& A, const Eigen::VectorXd& b,
                                     Eigen::VectorXd& qdd, Eigen::VectorXd& lambda,
                                     const ConstraintTolerances& tolerances = {}) const;

  /// The tape: variables t, q, q̇, then the bound values; outputs M row by row, f, A row by
  /// row, b.
  const Tape& tape() const { return tape_; }

 private:
  std::size_t n_ = 0;
  std::size_t m_ = 0;
  std::vector<double> fixed_;  // variable slots after t, q, q̇: parameters and other symbols
  Tape tape_;
  mutable std::vector<double> variables_, outputs_, workspace_;
};

}  // namespace appell::num
