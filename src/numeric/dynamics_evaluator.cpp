#include "dynamics_evaluator.hpp"

#include <stdexcept>

namespace appell::num {

void DynamicsEvaluator::constraints(double, const Eigen::VectorXd&, const Eigen::VectorXd&,
                                    Eigen::MatrixXd& A, Eigen::VectorXd& b) const {
  A.resize(0, static_cast<Eigen::Index>(dof()));
  b.resize(0);
}

void DynamicsEvaluator::constrained_accelerations(double t, const Eigen::VectorXd& q,
                                                  const Eigen::VectorXd& qd, Eigen::VectorXd& qdd,
                                                  Eigen::VectorXd& lambda,
                                                  const ConstraintTolerances& tolerances) const {
  if (constraint_count() == 0) {
    accelerations(t, q, qd, qdd);
    lambda.resize(0);
    return;
  }
  Eigen::MatrixXd M, A;
  Eigen::VectorXd f, b;
  mass_matrix_and_forcing(t, q, qd, M, f);
  constraints(t, q, qd, A, b);
  solve_constrained_accelerations(M, f, A, b, qdd, lambda, tolerances);
}

ConstraintManifold DynamicsEvaluator::constraint_manifold(double) const {
  throw std::logic_error(std::string("DynamicsEvaluator::constraint_manifold: the ") + kind() +
                         " evaluator has no constraint rows");
}

TapeDynamics::TapeDynamics(const principles::Equations& equations, const model::Values& values)
    : compiled_(equations, values) {}

void TapeDynamics::mass_matrix_and_forcing(double t, const Eigen::VectorXd& q,
                                           const Eigen::VectorXd& qd, Eigen::MatrixXd& M,
                                           Eigen::VectorXd& f) const {
  compiled_.evaluate(t, q, qd, M, f);
}

void TapeDynamics::accelerations(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                 Eigen::VectorXd& qdd) const {
  if (compiled_.constraint_count() > 0)
    throw std::logic_error(
        "TapeDynamics::accelerations: the equations have constraints (M qdd = f alone would "
        "drop the constraint forces; simulate() solves them with A and b)");
  compiled_.evaluate(t, q, qd, M_, f_);
  qdd = solve_accelerations(M_, f_);
}

void TapeDynamics::driving_forces(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                  const Eigen::VectorXd& qdd, Eigen::VectorXd& Q) const {
  compiled_.evaluate(t, q, qd, M_, f_);
  Q = M_ * qdd - f_;
}

}  // namespace appell::num
