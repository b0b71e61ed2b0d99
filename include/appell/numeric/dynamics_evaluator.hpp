// The equations of an unconstrained model, M(q, t) q̈ = f(q, q̇, t), behind one interface that
// simulate(), InverseDynamics and evaluate_state() accept: evaluated by the tape (TapeDynamics,
// here) or by the generated code compiled into a shared object (jit::compile_dynamics, which
// falls back to TapeDynamics). Both evaluate the same equations with the same values; they agree
// to rounding, not bit for bit (the compiled code forms M by composite rigid bodies and q̈ by an
// articulated-body recursion or M = Lᵀ D L, the tape M and f as derived).
//
// An evaluator may also have the constraint rows A(q, t) q̈ = b(q, q̇, t) of a constrained model
// (num::Dynamics, the JIT of one: constraint_count() > 0), and then its constraints at position
// and velocity level for the projection (constraint_manifold()); constrained_accelerations()
// solves M q̈ = f + Aᵀλ, A q̈ = b with solve_constrained_accelerations().
#pragma once

#include <Eigen/Dense>
#include <cstddef>
#include <memory>
#include <string>

#include "appell/model/values.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/constraint_manifold.hpp"
#include "appell/numeric/constraint_tolerances.hpp"
#include "appell/principles/equations.hpp"

namespace appell::num {

/// M, f, q̈ and the driving forces of one model with its values bound; vectors in coordinate
/// order with dof() entries (callers check sizes), M n×n. Implementations may reuse buffers:
/// one object is not for concurrent use from several threads unless it says so.
class DynamicsEvaluator {
 public:
  virtual ~DynamicsEvaluator() = default;
  /// n, the number of coordinates.
  virtual std::size_t dof() const = 0;
  /// "jit" (compiled generated code) or "tape".
  virtual const char* kind() const = 0;
  /// M (resized to n×n) and f (n) at (t, q, q̇).
  virtual void mass_matrix_and_forcing(double t, const Eigen::VectorXd& q,
                                       const Eigen::VectorXd& qd, Eigen::MatrixXd& M,
                                       Eigen::VectorXd& f) const = 0;
  /// q̈ (resized to n) of M q̈ = f. Throws model::ComputationError when M or f is not finite or
  /// M is not positive definite (the message prints M), as CompiledEquations::accelerations.
  virtual void accelerations(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                             Eigen::VectorXd& qdd) const = 0;
  /// Q = M q̈ − f (resized to n): the generalized forces the motion needs.
  virtual void driving_forces(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                              const Eigen::VectorXd& qdd, Eigen::VectorXd& Q) const = 0;

  /// m, the constraint rows this evaluator has (0: none; the default).
  virtual std::size_t constraint_count() const { return 0; }
  /// A (m×n) and b (m) of A q̈ = b at (t, q, q̇); 0×n and empty without rows (the default).
  virtual void constraints(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                           Eigen::MatrixXd& A, Eigen::VectorXd& b) const;
  /// q̈ (n) and λ (m) of M q̈ = f + Aᵀλ, A q̈ = b by solve_constrained_accelerations() with
  /// `tolerances` (throws what it throws); without rows accelerations() and λ empty. The
  /// default forms M, f, A and b by the calls above.
  virtual void constrained_accelerations(double t, const Eigen::VectorXd& q,
                                         const Eigen::VectorXd& qd, Eigen::VectorXd& qdd,
                                         Eigen::VectorXd& lambda,
                                         const ConstraintTolerances& tolerances) const;
  /// The constraints at position and velocity level with this evaluator's values, for the
  /// projection of a simulation (`rank_tolerance` as ConstraintManifold's); an object of its
  /// own for the caller's thread. Throws std::logic_error without rows (the default).
  virtual ConstraintManifold constraint_manifold(double rank_tolerance) const;
};

/// The tape of CompiledEquations behind DynamicsEvaluator: q̈ by Cholesky of M, Q = M q̈ − f.
class TapeDynamics : public DynamicsEvaluator {
 public:
  /// As CompiledEquations (throws what it throws). With constraints, M, f and the driving forces
  /// (the constraints' reactions included) are evaluated, but accelerations() throws
  /// std::logic_error: M q̈ = f alone would drop the constraint forces.
  explicit TapeDynamics(const principles::Equations& equations, const model::Values& values = {});

  std::size_t dof() const override { return compiled_.dof(); }
  const char* kind() const override { return "tape"; }
  void mass_matrix_and_forcing(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                               Eigen::MatrixXd& M, Eigen::VectorXd& f) const override;
  void accelerations(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                     Eigen::VectorXd& qdd) const override;
  void driving_forces(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                      const Eigen::VectorXd& qdd, Eigen::VectorXd& Q) const override;

  const CompiledEquations& compiled() const { return compiled_; }

 private:
  CompiledEquations compiled_;
  mutable Eigen::MatrixXd M_;
  mutable Eigen::VectorXd f_;
};

/// The Cholesky factor L Lᵀ of a mass matrix, which must be positive definite: throws
/// model::ComputationError "<singular> at this state (M = [..])" when the factorisation fails or
/// a pivot L_ii² is not above both 1e-12 M_ii (a coordinate whose inertia the others account for,
/// to rounding: M singular) and 1e-24 max |M_ij| (a coordinate that moves next to no mass).
Eigen::LLT<Eigen::MatrixXd> factor_mass_matrix(const Eigen::MatrixXd& M,
                                               const std::string& singular);

/// q̈ = M⁻¹ f by Cholesky (M n×n, f n), what every evaluator's accelerations() ends in when the
/// generated solver refuses a state. Throws model::ComputationError when M or f is not finite, or
/// M is singular or not positive definite (factor_mass_matrix(); the message prints M).
Eigen::VectorXd solve_accelerations(const Eigen::MatrixXd& M, const Eigen::VectorXd& f);

/// M ẍ = f + Aᵀλ together with A ẍ = b (ẍ the accelerations: q̈, or u̇ in the speeds): the
/// least-squares ẍ and the minimum-norm λ, the rank of A decided on A L⁻ᵀ (M = L Lᵀ) with
/// `tolerances.rank`. Without rows (A.rows() == 0) ẍ = M⁻¹f and λ is empty. Throws
/// model::ComputationError as solve_accelerations() does, when A or b is not finite, and when
/// redundant rows ask for different accelerations (A ẍ = b missed by more than
/// `tolerances.consistency` times ‖b‖ + ‖A M⁻¹ f‖).
void solve_constrained_accelerations(const Eigen::MatrixXd& M, const Eigen::VectorXd& f,
                                     const Eigen::MatrixXd& A, const Eigen::VectorXd& b,
                                     Eigen::VectorXd& accelerations, Eigen::VectorXd& lambda,
                                     const ConstraintTolerances& tolerances = {});

}  // namespace appell::num
