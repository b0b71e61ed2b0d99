// What makes a rigid body's inertia physical, shared by the builder (at the parameters' defaults),
// by model::bind (at the values a user gives) and by the URDF reader: one rule, one message.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string>

#include "appell/model/model.hpp"

namespace appell::model::detail {

/// What is wrong with an inertia, the worst first.
enum class InertiaFault { None, NotSemidefinite, Triangle };

/// The fault of `inertia` (about the centre of mass, symmetric): a principal moment below zero, or
/// one above the sum of the other two (the triangle inequality: a body's mass lies at real
/// distances from the axes), both within 1e-9 of the largest moment, so that the rounding of a
/// tiny inertia's entries (a URDF's 1e-6 dummy) is no fault.
InertiaFault inertia_fault(const Eigen::Matrix3d& inertia);

/// Whether only the moment about body axis k (0, 1, 2) can enter the dynamics of a body whose
/// angular velocity stays along that axis: the products of inertia coupling k to the other axes
/// are zero (within the same tolerance), so I ω stays along k too.
bool decoupled_axis(const Eigen::Matrix3d& inertia, int k);

/// Why `inertia` cannot be a rigid body's, or nothing when it can, with the fix in the message.
std::optional<std::string> inertia_defect(const Eigen::Matrix3d& inertia);

/// For an inertia that breaks the triangle inequality (a planar body's [0, 0, Izz]) on a body
/// fixed in `frame`: nothing when only one moment can ever enter its equations — the frame's
/// angular velocity, in its own axes, stays along the axis k of the largest moment for every q
/// and q̇ (the other components shown to be 0 symbolically) and no product of inertia couples k
/// to the others (then ω·Iω = I_kk ω_k² and ω × Iω = 0), or the frame never turns; else the
/// refusal, naming the component of ω that is not zero. `model.frames` must hold the frame and
/// every frame above it, parents first.
std::optional<std::string> planar_defect(const Model& model, const std::string& frame,
                                         const Eigen::Matrix3d& inertia);

/// The principal moments, ascending, as text ("a, b, c").
std::string principal_moments(const Eigen::Matrix3d& inertia);

}  // namespace appell::model::detail
