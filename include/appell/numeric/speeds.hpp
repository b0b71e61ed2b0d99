// The speeds of a state: a model's generalized speeds from its velocities, its quaternions kept
// of length 1, and the independent speeds of the minimal form (what num::CompiledEquations
// evaluates equations in speeds at: principles::Form::Speeds and Form::Minimal).
#pragma once

#include <Eigen/Dense>
#include <array>
#include <string>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/model/values.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/dynamics.hpp"

namespace appell::num {

/// The speeds u = Y(q, t) q̇ of the coordinates' velocities (each Speed's value: a declared
/// speed's expression, 2 Eᵀ(e) ė / |e|² for a quaternion frame's, dot(q) for a coordinate's
/// own), at t with the values bound as for CompiledEquations.
Eigen::VectorXd speeds_from_velocities(const model::Model& model, const model::Values& values,
                                       double t, const Eigen::VectorXd& q,
                                       const Eigen::VectorXd& qd);

/// The same by the kinematic equations of `dynamics` (built for a model with speeds) with its
/// run-time `parameters` (empty: those it was built with): u of W(q, t) u = q̇ in least squares,
/// nothing symbolic (callable from any thread). That is Y q̇ whenever q̇ = W u for some u, and
/// also for a quaternion's ė with a radial part (W's block ½ E(e) has orthogonal columns of
/// length |e|/2: its pseudo-inverse is 2 Eᵀ(e)/|e|², Y's block) where no declared speed mentions
/// a quaternion's coordinates. Throws model::ComputationError where W is not finite or not of
/// full column rank.
Eigen::VectorXd speeds_from_velocities(const Dynamics& dynamics,
                                       const std::vector<double>& parameters, double t,
                                       const Eigen::VectorXd& q, const Eigen::VectorXd& qd);

/// The speeds u and their rates u̇ of a motion given in the coordinates (q, q̇, q̈) by the
/// kinematic equations of `dynamics` (built for a model with speeds), in `work` (its parameters
/// the run-time parameters' numbers): W u = q̇ and W u̇ = q̈ − γ(q, u), in least squares as
/// speeds_from_velocities(dynamics, ...), which this extends (inverse dynamics in the speeds).
/// Throws as that.
void speeds_of_motion(const Dynamics& dynamics, DynamicsWorkspace& work, double t,
                      const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                      const Eigen::VectorXd& qdd, Eigen::VectorXd& u, Eigen::VectorXd& udot);

/// Each quaternion of `q` (the coordinates of every rot_quat, in frame order) divided by its
/// length. Throws model::ModelError located at `option` naming the frame when one is zero.
void normalize_quaternions(const model::Model& model, Eigen::VectorXd& q,
                           const std::string& option = "q0");

/// The coordinate indices of each quaternion (e0..e3), in frame order.
std::vector<std::array<Eigen::Index, 4>> quaternion_coordinates(const model::Model& model);

/// The independent speeds u of `model` (one per entry of Model::independent, in that order) out
/// of `speeds`, which holds either u itself (p = independent.size() values) or every speed, one
/// per coordinate (n = dof() values), of which those of the independent coordinates are taken
/// (the dependent ones follow from the constraints and are not used). Empty `speeds`: the
/// model's initial velocities of the independent coordinates. When p = n, `speeds` is u itself.
/// Throws model::ModelError located at {"speeds", 0, 0} when `speeds` has neither p nor n values
/// ("expected p independent speeds or n speeds (one per coordinate), got k", naming the values).
Eigen::VectorXd independent_speeds(const model::Model& model, const std::vector<double>& speeds);

/// Everything at (t, q, u) of a model in generalized speeds by its recursions (`dynamics` built
/// for a model with speeds), as CompiledEquations::solve gives it for the formed equations in
/// the speeds: M̃, f̃, W, γ, q̇ = W u, u̇ and q̈ = W u̇ + γ; with constraints Ã, b̃, the velocity
/// residuals Ã u + ã0 and λ (solve_constrained_accelerations with the default tolerances). Throws
/// model::ComputationError when M̃ is singular or not positive definite, an entry is not finite,
/// or as solve_constrained_accelerations().
CompiledEquations::State solve_in_speeds(const Dynamics& dynamics, double t,
                                         const Eigen::VectorXd& q, const Eigen::VectorXd& u);

}  // namespace appell::num
