#include "appell/numeric/acceleration_solve.hpp"

#include <sstream>

#include "appell/model/source_location.hpp"
#include "rank_revealing.hpp"

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

void solve_constrained_accelerations(const Eigen::MatrixXd& M, const Eigen::VectorXd& f,
                                     const Eigen::MatrixXd& A, const Eigen::VectorXd& b,
                                     Eigen::VectorXd& qdd, Eigen::VectorXd& lambda,
                                     const ConstraintTolerances& tolerances) {
  const Eigen::VectorXd free_acceleration = solve_accelerations(M, f);
  if (A.rows() == 0) {
    qdd = free_acceleration;
    lambda.resize(0);
    return;
  }
  if (!A.allFinite() || !b.allFinite())
    throw model::ComputationError("the constraint rows A, b are not finite at this state");
  // M = L Lᵀ and y = Lᵀ q̈: M q̈ = f + Aᵀλ is y = L⁻¹f + Ãᵀλ with Ã = A L⁻ᵀ, and A q̈ = b is
  // Ã y = b. The rank is decided on Ã itself rather than on A M⁻¹ Aᵀ = ÃÃᵀ, whose singular
  // values are the squares: drift of 1e-8 would hide below a threshold of 1e-10 there.
  const Eigen::LLT<Eigen::MatrixXd> llt(M);
  const Eigen::MatrixXd scaled = llt.matrixL().solve(A.transpose()).transpose();
  const Eigen::VectorXd constrained = A * free_acceleration;
  const Eigen::VectorXd rhs = b - constrained;
  // Redundant constraints (real mechanisms are often over-constrained) leave null directions in
  // Ã: the least-squares step is unique, λ is not; take the minimum-norm one.
  const auto cod = detail::rank_revealing(scaled, tolerances.rank);
  const Eigen::VectorXd step = cod.solve(rhs);
  lambda = cod.pseudoInverse().transpose() * step;
  // What the null directions leave of A q̈ = b: drift when it is as small as the state's error,
  // redundant rows asking for different accelerations when it is not.
  const double missed = (rhs - scaled * step).norm();
  if (!step.allFinite() || !lambda.allFinite() ||
      missed > tolerances.consistency * (b.norm() + constrained.norm())) {
    std::ostringstream s;
    s.precision(3);
    s << "the constraints are inconsistent at this state: redundant constraints (A has rank "
      << cod.rank() << " < " << A.rows() << ") ask for different accelerations (A qdd = b is "
      << "missed by " << missed << ", more than " << tolerances.consistency
      << " of |b| + |A M^-1 f| = " << b.norm() + constrained.norm() << ")";
    throw model::ComputationError(s.str());
  }
  qdd = free_acceleration + llt.matrixU().solve(step);
}

}  // namespace appell::num
