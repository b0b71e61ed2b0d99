// The equations of motion in generalized speeds (MODEL_FORMAT.md, "Speeds"; docs/theory.md):
// Gibbs–Appell with quasi-accelerations, or Kane's equations.
//
// A model with speeds u (Model::speeds: declared u = Y(q, t) q̇, a quaternion frame's angular
// velocity w in its own axes, the own rate dot(q) of every other coordinate) has the kinematic
// equations q̇ = W(q, t) u (Model::speed_kinematics). The kinematics is formed in q, u and u̇
// directly (kin::Rates::Speeds: every d/dt followed by q̇ = W u, a quaternion frame's angular
// velocity is w itself), so that, with S(q, u, u̇, t) the acceleration energy and Q*_k the
// virtual work of the loads per δu_k (F·∂v/∂u_k + M·∂ω/∂u_k, and W_jk Q_j of a coordinate's
// force),
//   Gibbs–Appell:  ∂S/∂u̇_k = Q*_k,
//   Kane:          Σ m a·∂v/∂u_k + (I ε + ω × I ω)·∂ω/∂u_k = Q*_k,
// both M̃(q, t) u̇ = f̃(q, u, t), p equations for p speeds. A free rigid body turned by a
// quaternion gives Euler's equations I ẇ + w × I w = M directly. With q̈ = W u̇ + γ (γ = Ẇ u).
#pragma once

#include <ginac/ginac.h>

#include <memory>

#include "appell/model/model.hpp"
#include "appell/principles/equations.hpp"

namespace appell::principles {

/// The equations in the speeds of a model with speeds (Model::has_speeds()), by Gibbs–Appell
/// (Method::GibbsAppell) or Kane (Method::Dalembert), unsimplified. Throws model::ModelError
/// located at the model's speeds (Model::speeds_where), naming "speeds", for a model without
/// speeds, and, naming the method, for any other method. The model's constraints, if any, are
/// formed in the speeds (Ã, b̃, ã0 above). The result has form Form::Speeds: M̃, f̃, W as the speed
/// matrix, γ; with constraints Ã, b̃ and ã0 (Equations); simplify() (derive.hpp) makes it readable.
Equations speed_form(std::shared_ptr<const model::Model> model,
                     Method method = Method::GibbsAppell);

}  // namespace appell::principles
