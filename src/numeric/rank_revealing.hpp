// A complete orthogonal decomposition whose rank is decided relative to the matrix's size:
// pivots of the column-pivoted QR at most `rank_tolerance` times the largest count as zero
// (ConstraintTolerances::rank). Its solve() is then the minimum-norm least-squares solution with
// the null directions left out. Internal to numeric (not installed).
#pragma once

#include <Eigen/Dense>

#include "appell/model/source_location.hpp"

namespace appell::num::detail {

inline Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> rank_revealing(
    const Eigen::MatrixXd& J, double rank_tolerance) {
  // Eigen's column pivoting indexes out of bounds on a NaN (no pivot compares greater): a
  // Jacobian that is not finite is a failed computation, not a crash.
  if (!J.allFinite())
    throw model::ComputationError("the constraints' Jacobian is not finite at this state");
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod;
  cod.setThreshold(rank_tolerance);
  cod.compute(J);
  return cod;
}

}  // namespace appell::num::detail
