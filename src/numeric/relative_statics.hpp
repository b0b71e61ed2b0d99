// The moving part of statics (statics.hpp's file comment): whether a model's frames move with a
// prescribed motion, and whether its relative problem is steady. Internal to solve_statics().
#pragma once

#include <ginac/ginac.h>

#include <Eigen/Dense>
#include <optional>
#include <string>
#include <vector>

#include "appell/kinematics/kinematics.hpp"
#include "appell/numeric/statics.hpp"

namespace appell::num::detail {

/// The prescribed motion of the kinematics' model (RelativeStatics without inertial_forces and
/// steady_by), or nullopt when no frame's origin or rotation and no mass point's position holds
/// t or an unspecified prescribed function: then nothing moves but the coordinates.
std::optional<RelativeStatics> prescribed_motion(kin::Kinematics& kinematics);

/// Shows that the residuals at rest — `forces` (f at q̇ = 0, one per coordinate) and
/// `constraints` (the holonomic φ, named by `constraint_names`) — do not change with t:
/// symbolically when d/dt of each, made readable within a budget, is 0 ("symbolically"); else
/// numerically with the values of `options` at the coordinates `points` and five times from
/// options.t ("numerically at 5 times"), an input or unspecified prescribed function given
/// numbers moving with them as p + ṗ τ + ½ p̈ τ² (τ = t − options.t). Throws
/// model::ComputationError naming the first residual that changes, where and by how much.
std::string steady_relative_problem(const model::Model& model, sym::Differentiator& differentiator,
                                    const GiNaC::exvector& forces,
                                    const GiNaC::exvector& constraints,
                                    const std::vector<std::string>& constraint_names,
                                    const StaticsOptions& options,
                                    const std::vector<Eigen::VectorXd>& points);

}  // namespace appell::num::detail
