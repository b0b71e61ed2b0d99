#include "appell/numeric/dynamics_evaluator.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace appell::num {

Eigen::LLT<Eigen::MatrixXd> factor_mass_matrix(const Eigen::MatrixXd& M,
                                               const std::string& singular) {
  // M is symmetric positive definite for any physical model; a failed Cholesky factorisation, or
  // a pivot that is rounding, means a singular (or indefinite) mass matrix: a coordinate that
  // moves no mass, or two that move the same mass the same way.
  Eigen::LLT<Eigen::MatrixXd> llt(M);
  const double scale = M.cwiseAbs().maxCoeff();
  bool positive = llt.info() == Eigen::Success && scale > 0.0;
  for (Eigen::Index i = 0; positive && i < M.rows(); ++i) {
    const double pivot = llt.matrixLLT()(i, i) * llt.matrixLLT()(i, i);
    positive = pivot > 1e-12 * M(i, i) && pivot > 1e-24 * scale;
  }
  if (!positive) {
    std::ostringstream s;
    s << singular << " at this state (M = ["
      << M.format(Eigen::IOFormat(Eigen::StreamPrecision, Eigen::DontAlignCols, ", ", "; "))
      << "])";
    throw model::ComputationError(s.str());
  }
  return llt;
}

Eigen::VectorXd solve_accelerations(const Eigen::MatrixXd& M, const Eigen::VectorXd& f) {
  if (!M.allFinite() || !f.allFinite())
    throw model::ComputationError("the mass matrix or the forcing is not finite at this state");
  return factor_mass_matrix(M, "singular mass matrix: M is not positive definite").solve(f);
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
