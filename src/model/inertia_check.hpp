// What makes a rigid body's inertia physical, shared by the builder (at the parameters' defaults)
// and by model::bind (at the values a user gives): one rule, one message.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string>

namespace appell::model::detail {

/// Why `inertia` (about the centre of mass, symmetric) cannot be a rigid body's, or nothing when
/// it can: its principal moments must not be negative and must satisfy the triangle inequality
/// (I1 <= I2 + I3, ...: a body's mass lies at real distances from the axes), within a relative
/// tolerance of 1e-9.
std::optional<std::string> inertia_defect(const Eigen::Matrix3d& inertia);

}  // namespace appell::model::detail
