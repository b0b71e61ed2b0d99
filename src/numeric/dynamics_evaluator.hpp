// Internal to numeric: the one interface simulate()'s right-hand side and InverseDynamics call,
// over the two things that give M, f and q̈ (the public API has no evaluator types of its own):
// the tape of formed equations (TapeDynamics, here) and a num::Dynamics with one workspace
// (DynamicsOnWorkspace, here; interpreted recursions or their JIT). They agree to rounding, not
// bit for bit (the recursions form M by inertial passes or composite rigid bodies and q̈ by
// articulated bodies or M = Lᵀ D L, the tape M and f as derived).
//
// An evaluator may also have the constraint rows A(q, t) q̈ = b(q, q̇, t) of a constrained model
// (constraint_count() > 0), and then its constraints at position and velocity level for the
// projection (constraint_manifold()); constrained_accelerations() solves M q̈ = f + Aᵀλ, A q̈ = b
// with solve_constrained_accelerations().
#pragma once

#include <Eigen/Dense>
#include <cstddef>
#include <memory>
#include <string>

#include "appell/model/values.hpp"
#include "appell/numeric/acceleration_solve.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/constraint_manifold.hpp"
#include "appell/numeric/constraint_tolerances.hpp"
#include "appell/numeric/dynamics.hpp"
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
  /// "jit" (compiled generated code), "recursions" (interpreted) or "tape".
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

/// A num::Dynamics behind the evaluator interface, with a workspace of its own holding `parameters`
/// (the Dynamics' run-time parameters' numbers; empty: those it was built with): one per
/// simulation or per thread.
class DynamicsOnWorkspace final : public DynamicsEvaluator {
 public:
  explicit DynamicsOnWorkspace(const Dynamics& dynamics, std::vector<double> parameters = {})
      : dynamics_(dynamics) {
    work_.parameters = std::move(parameters);
  }
  std::size_t dof() const override { return dynamics_.dof(); }
  const char* kind() const override { return dynamics_.kind(); }
  void mass_matrix_and_forcing(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                               Eigen::MatrixXd& M, Eigen::VectorXd& f) const override {
    dynamics_.mass_matrix_and_forcing(t, q, qd, M, f, work_);
  }
  void accelerations(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                     Eigen::VectorXd& qdd) const override {
    dynamics_.accelerations(t, q, qd, qdd, work_);
  }
  void driving_forces(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                      const Eigen::VectorXd& qdd, Eigen::VectorXd& Q) const override {
    dynamics_.inverse_dynamics(t, q, qd, qdd, Q, work_);
  }
  std::size_t constraint_count() const override { return dynamics_.constraint_count(); }
  void constraints(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                   Eigen::MatrixXd& A, Eigen::VectorXd& b) const override {
    dynamics_.constraints(t, q, qd, A, b, work_);
  }
  void constrained_accelerations(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                 Eigen::VectorXd& qdd, Eigen::VectorXd& lambda,
                                 const ConstraintTolerances& tolerances) const override {
    dynamics_.accelerations(t, q, qd, qdd, lambda, work_, tolerances);
  }
  ConstraintManifold constraint_manifold(double rank_tolerance) const override {
    return dynamics_.constraint_manifold(work_.parameters, rank_tolerance);
  }

 private:
  const Dynamics& dynamics_;
  mutable DynamicsWorkspace work_;
};

}  // namespace appell::num
