// First derivatives of inverse and forward dynamics at a state, from the differentiated
// recursions (principles/dynamics_derivatives.hpp): exact to rounding, no finite differences.
//
//   inverse   τ = M(q) q̈ − f(q, q̇) and ∂τ/∂q, ∂τ/∂q̇ at q̈ fixed (Pinocchio's
//             computeRNEADerivatives);
//   forward   q̈ = M⁻¹ (f + τ), ∂q̈/∂q, ∂q̈/∂q̇ and ∂q̈/∂τ = M⁻¹ (computeABADerivatives).
// Optionally along named inputs u too (∂τ/∂u, ∂q̈/∂u: the B of a linearization).
#pragma once

#include <Eigen/Dense>
#include <memory>
#include <string>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/model/values.hpp"

namespace appell::num {

/// τ and its derivatives at (t, q, q̇, q̈). Matrices n × n (n × inputs for dtau_du).
struct InverseDynamicsDerivatives {
  Eigen::VectorXd tau;
  Eigen::MatrixXd dtau_dq, dtau_dqd, dtau_du;
};

/// q̈ and its derivatives at (t, q, q̇, τ).
struct ForwardDynamicsDerivatives {
  Eigen::VectorXd qdd;
  Eigen::MatrixXd dqdd_dq, dqdd_dqd, dqdd_du;
  Eigen::MatrixXd minv;  // ∂q̈/∂τ = M⁻¹, symmetric
};

/// Scratch space of one caller (one per thread).
struct DerivativesWorkspace {
  std::vector<double> variables, outputs, slots;
};

/// The differentiated recursions of one model with its values bound, as tapes. Immutable once
/// built; evaluate from any number of threads, each with its own workspace.
class DynamicsDerivativesEvaluator {
 public:
  /// Builds the derivatives of `model` with `values` bound (model::bind: throws
  /// model::ModelError for an unknown name or a bad number), along q, q̇ and the inputs named in
  /// `inputs` (each an input of the model given a number or nothing, not an expression of t).
  /// Throws std::invalid_argument for a model the recursions do not cover (the reason in the
  /// message), an unknown or driven input, or an expression that cannot be evaluated.
  /// `forward` false builds inverse dynamics alone (what statics needs: ∂τ/∂q at rest), without
  /// the mass matrix, the forward solve and its derivatives; forward() then throws
  /// std::logic_error.
  DynamicsDerivativesEvaluator(std::shared_ptr<const model::Model> model,
                               const model::Values& values,
                               const std::vector<std::string>& inputs = {}, bool forward = true);
  ~DynamicsDerivativesEvaluator();

  std::size_t dof() const;
  /// The inputs differentiated along (the columns of dtau_du, dqdd_du).
  const std::vector<std::string>& inputs() const;
  /// How forward dynamics is solved ("articulated bodies", "M = L^T D L") and how its
  /// derivatives were formed ("-M^-1 dtau", "through the forward recursion").
  const std::string& forward_method() const;
  const std::string& forward_derivatives_method() const;
  /// Operations of the tapes of inverse and of forward dynamics with their derivatives (0 for
  /// forward dynamics not built).
  std::size_t inverse_operations() const;
  std::size_t forward_operations() const;

  /// τ and its derivatives at (t, q, q̇, q̈). Throws std::invalid_argument for a size other
  /// than n.
  void inverse(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
               const Eigen::VectorXd& qdd, InverseDynamicsDerivatives& out,
               DerivativesWorkspace& work) const;

  /// q̈ and its derivatives at (t, q, q̇) with the generalized forces `tau` added to the
  /// model's own (tau empty: none). Throws model::ComputationError ("singular mass matrix: ...")
  /// when M is not positive definite there (a pivot of the solve not above 1e-12 of M_ii, the
  /// test of forward dynamics), or when a result is not finite.
  void forward(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
               const Eigen::VectorXd& tau, ForwardDynamicsDerivatives& out,
               DerivativesWorkspace& work) const;

 private:
  struct Programs;
  std::shared_ptr<const Programs> programs_;
};

}  // namespace appell::num
