// A complete orthogonal decomposition whose rank is decided relative to the matrix's size:
// pivots of the column-pivoted QR at most `rank_tolerance` times the largest count as zero
// (ConstraintTolerances::rank). Its solve() is then the minimum-norm least-squares solution with
// the null directions left out. Internal to numeric (not installed).
#pragma once

#include <Eigen/Dense>

namespace appell::num::detail {

inline Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> rank_revealing(
    const Eigen::MatrixXd& J, double rank_tolerance) {
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod;
  cod.setThreshold(rank_tolerance);
  cod.compute(J);
  return cod;
}

}  // namespace appell::num::detail
