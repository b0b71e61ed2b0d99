#include "inertia_check.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <sstream>

namespace appell::model::detail {

std::optional<std::string> inertia_defect(const Eigen::Matrix3d& inertia) {
  const Eigen::Vector3d moments =
      Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(inertia, Eigen::EigenvaluesOnly)
          .eigenvalues();  // ascending
  const double scale =
      std::max({std::abs(inertia(0, 0)), std::abs(inertia(1, 1)), std::abs(inertia(2, 2)), 1e-300});
  const double tolerance = 1e-9 * scale;
  std::ostringstream principal;
  principal << moments[0] << ", " << moments[1] << ", " << moments[2];
  if (moments[0] < -tolerance)
    return "inertia is not positive semi-definite (principal moments " + principal.str() + ")";
  if (moments[2] > moments[0] + moments[1] + tolerance)
    return "inertia breaks the triangle inequality: the largest principal moment exceeds the sum "
           "of the other two (principal moments " +
           principal.str() + ")";
  return std::nullopt;
}

}  // namespace appell::model::detail
