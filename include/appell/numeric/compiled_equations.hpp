// A set of Equations (M v̇ = f in the coordinates, the speeds or the minimal form) compiled to a
// Tape, with the accelerations and the speed map q̇ = B v + β, q̈ = B v̇ + γ they imply.
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

/// A set of Equations of one model, of any form (principles::Form), compiled for evaluation at
/// numeric states: M v̇ = f (+ Aᵀλ, A v̇ = b) with q̇ = B v + β and q̈ = B v̇ + γ, where the
/// velocities v are q̇ in the coordinates (B = I), the speeds u in the speeds and the independent
/// speeds in the minimal form. t in s, q in the model's coordinate order (n values), v in the
/// equations' order (p values: n in the coordinates), SI units as the model's parameters are.
/// evaluate() and the solvers are const but reuse internal buffers: one object must not be
/// evaluated from two threads at once (make one per thread, or use num::Dynamics).
class CompiledEquations {
 public:
  /// Compiles every entry (M, f, the speed map and the constraint rows: Equations::entries())
  /// into one tape. `values` (model/values.hpp, bound by model::bind) overrides parameters and
  /// gives inputs and unspecified prescribed functions numbers (and their derivatives, by their
  /// printed names such as "dot(theta)") or expressions of t; those not given are 0, parameters
  /// not given their model defaults. Every entry sees the same values. Any other symbol left in
  /// the equations (the coordinates' higher derivatives in Gibbs–Appell equations of order m > 1)
  /// is evaluated as 0. Throws model::ModelError for an unknown name, a non-finite number or a
  /// name given both a number and an expression (what model::bind throws), and
  /// std::invalid_argument when an expression cannot be evaluated numerically (sym::Tape).
  explicit CompiledEquations(const principles::Equations& equations,
                             const model::Values& values = {});

  /// The form of the equations compiled.
  principles::Form form() const { return form_; }
  /// n, the number of coordinates.
  std::size_t dof() const { return n_; }
  /// p, the number of velocities v (rows of M): n in the coordinates.
  std::size_t size() const { return p_; }
  /// Evaluates M (resized to p×p) and f (resized to p) at time t and the state q, v. q must have
  /// n entries and v p: other sizes throw std::invalid_argument.
  void evaluate(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::MatrixXd& M,
                Eigen::VectorXd& f) const;
  /// Solves M v̇ = f (M p×p, f p) by Cholesky; returns v̇ (p). Throws model::ComputationError
  /// when M or f is not finite, or M is singular or not positive definite (the message prints M).
  Eigen::VectorXd accelerations(const Eigen::MatrixXd& M, const Eigen::VectorXd& f) const;

  /// Number of constraints m (0 without).
  std::size_t constraint_count() const { return m_; }
  /// A (resized to m×p) and b (m) of the constraints at acceleration level, A v̇ = b (rows in the
  /// model's order of constraints), from the last evaluate() (whose state they belong to; zeros
  /// before the first). 0×p and empty without constraints.
  void constraints(Eigen::MatrixXd& A, Eigen::VectorXd& b) const;
  /// Solves M v̇ = f + Aᵀλ with A v̇ = b ((A M⁻¹ Aᵀ) λ = b − A M⁻¹ f); qdd gets p values, lambda
  /// m (the model's order of constraints; empty when A has no rows, v̇ = M⁻¹ f). With redundant
  /// constraints (A of rank r < m, decided with `tolerances.rank` relative to A M^-1/2's largest
  /// singular value) v̇ is the least-squares one, unique, and λ the minimum-norm one: with
  /// M = L Lᵀ and Ã = A L⁻ᵀ, Lᵀ v̇ moves from its unconstrained value by Ã⁺(b − A M⁻¹ f) (Gauss's
  /// least compulsion) and λ = (ÃÃᵀ)⁺(b − A M⁻¹ f), from a complete orthogonal decomposition of
  /// Ã. Throws model::ComputationError as accelerations() does, when A or b is not finite, or
  /// when redundant constraints are inconsistent: A v̇ = b is then missed by more than
  /// `tolerances.consistency` times ‖b‖ + ‖A M⁻¹ f‖ (they ask for different v̇). The default
  /// tolerances are for a state on the constraints (eval); a simulation passes
  /// constraint_tolerances_for(rtol, atol), which accepts the drift its tolerances allow.
  void accelerations_and_multipliers(const Eigen::MatrixXd& M, const Eigen::VectorXd& f,
                                     const Eigen::MatrixXd& A, const Eigen::VectorXd& b,
                                     Eigen::VectorXd& qdd, Eigen::VectorXd& lambda,
                                     const ConstraintTolerances& tolerances = {}) const;

  /// Everything at one state.
  struct State {
    Eigen::MatrixXd mass_matrix;          // M, p×p
    Eigen::VectorXd forcing;              // f, p
    Eigen::MatrixXd speed_matrix;         // B, n×p (the identity in the coordinates)
    Eigen::VectorXd acceleration_offset;  // γ, n (0 in the coordinates)
    Eigen::VectorXd qd;                   // q̇ = B v + β
    Eigen::VectorXd vdot;                 // v̇: M v̇ = f (+ Aᵀλ with A v̇ = b)
    Eigen::VectorXd qdd;                  // q̈ = B v̇ + γ
    // With constraints (m rows; empty without): A, b, the velocity-level residuals (in the
    // speeds A u + a0; empty in the coordinates) and the multipliers
    // (solve_constrained_accelerations: minimum-norm when redundant).
    Eigen::MatrixXd constraint_matrix;
    Eigen::VectorXd constraint_rhs;
    Eigen::VectorXd velocity_residual;
    Eigen::VectorXd lambda;
  };
  /// Everything at (t, q, v). Throws model::ComputationError when an entry is not finite there
  /// (in the minimal form: the constraints do not determine the dependent speeds), M is singular,
  /// or (with constraints) as accelerations_and_multipliers() does with `tolerances`.
  State solve(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
              const ConstraintTolerances& tolerances = {}) const;
  /// q̇ = B v + β alone, as solve() gives it: also where M is singular, since a state's
  /// velocities do not need its accelerations (a simulation's row where it stops still has its
  /// momenta). Throws model::ComputationError when B or β is not finite there.
  Eigen::VectorXd velocities(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v) const;
  /// In the speeds, A and the velocity-level residuals A u + a0 alone (m rows; none without
  /// constraints), what a simulation's velocity projection needs. Throws
  /// model::ComputationError when they are not finite there; std::logic_error in another form.
  void velocity_constraints(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                            Eigen::MatrixXd& A, Eigen::VectorXd& residual) const;

  /// The tape: variables t, q, q̇, then the bound values, then any other symbol (the speeds);
  /// outputs Equations::entries() in order.
  const Tape& tape() const { return tape_; }

 private:
  // std::invalid_argument naming `caller` unless q has n entries and v p.
  void check_sizes(const Eigen::VectorXd& q, const Eigen::VectorXd& v, const char* caller) const;
  // Sets the tape's variables for (t, q, v) (sizes checked) and evaluates it into outputs_.
  void run(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v, const char* caller) const;

  principles::Form form_ = principles::Form::Coordinates;
  std::size_t n_ = 0, p_ = 0, m_ = 0;
  // Filled while the tape is built, so declared (and constructed) before it.
  std::vector<std::size_t> velocity_slots_;  // the tape variable of each v_k
  mutable std::vector<double> variables_;
  Tape tape_;
  mutable std::vector<double> outputs_, workspace_;
};

}  // namespace appell::num
