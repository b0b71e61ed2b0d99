#include "inertia_check.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <sstream>

namespace appell::model::detail {

namespace {

Eigen::Vector3d moments_of(const Eigen::Matrix3d& inertia) {
  return Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(inertia, Eigen::EigenvaluesOnly)
      .eigenvalues();  // ascending
}

// Relative to the largest moment: a tolerance in absolute terms would refuse the rounding of a
// 1e-6 inertia's entries (-1.3e-22) or accept anything for a 1e-12 one.
double tolerance_of(const Eigen::Matrix3d& inertia, const Eigen::Vector3d& moments) {
  const double scale =
      std::max({moments.cwiseAbs().maxCoeff(), inertia.diagonal().cwiseAbs().maxCoeff(), 1e-300});
  return 1e-9 * scale;
}

}  // namespace

InertiaFault inertia_fault(const Eigen::Matrix3d& inertia) {
  const Eigen::Vector3d moments = moments_of(inertia);
  const double tolerance = tolerance_of(inertia, moments);
  if (moments[0] < -tolerance) return InertiaFault::NotSemidefinite;
  if (moments[2] > moments[0] + moments[1] + tolerance) return InertiaFault::Triangle;
  return InertiaFault::None;
}

bool decoupled_axis(const Eigen::Matrix3d& inertia, int k) {
  const double tolerance = tolerance_of(inertia, moments_of(inertia));
  for (int j = 0; j < 3; ++j)
    if (j != k && (std::abs(inertia(k, j)) > tolerance || std::abs(inertia(j, k)) > tolerance))
      return false;
  return true;
}

std::string principal_moments(const Eigen::Matrix3d& inertia) {
  const Eigen::Vector3d moments = moments_of(inertia);
  std::ostringstream text;
  text << moments[0] << ", " << moments[1] << ", " << moments[2];
  return text.str();
}

std::optional<std::string> inertia_defect(const Eigen::Matrix3d& inertia,
                                          std::optional<int> planar_axis) {
  switch (inertia_fault(inertia)) {
    case InertiaFault::None:
      return std::nullopt;
    case InertiaFault::NotSemidefinite:
      return "inertia is not positive semi-definite (principal moments " +
             principal_moments(inertia) +
             "): a moment of inertia is never negative; check the signs of the products of "
             "inertia (ixy, iyz, ixz are the tensor's entries, minus the products of the mass's "
             "coordinates) and that the inertia is about the centre of mass";
    case InertiaFault::Triangle:
      if (planar_axis && (*planar_axis == 3 || decoupled_axis(inertia, *planar_axis)))
        return std::nullopt;
      return "inertia breaks the triangle inequality: the largest principal moment exceeds the "
             "sum of the other two (principal moments " +
             principal_moments(inertia) +
             "); a body moving in 3-D needs a physical inertia (a thin plate in the x-y plane: "
             "[Izz/2, Izz/2, Izz]); a planar inertia ([0, 0, Izz]) is accepted only for a body "
             "whose angular velocity stays along that axis";
  }
  return std::nullopt;
}

}  // namespace appell::model::detail
