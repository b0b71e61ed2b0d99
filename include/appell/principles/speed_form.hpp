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

/// M̃ u̇ = f̃ with q̇ = W u and q̈ = W u̇ + γ; n coordinates, p speeds. Expressions of q, u (the
/// speeds' symbols, Model::speed_symbol), t, parameters, inputs and prescribed functions.
struct SpeedEquations {
  std::shared_ptr<const model::Model> model;
  Method method = Method::GibbsAppell;  // GibbsAppell or Dalembert (Kane's form)
  GiNaC::matrix mass_matrix;            // M̃, p×p, coefficients of dot(u_k)
  GiNaC::matrix forcing;                // f̃, p×1
  GiNaC::matrix kinematics;             // W, n×p: q̇ = W u (Model::speed_kinematics)
  GiNaC::matrix acceleration_offset;    // γ, n×1: q̈ = W u̇ + γ
  // With constraints, as in Equations: M̃ u̇ = f̃ + Ãᵀλ together with Ã u̇ = b̃, each constraint
  // at velocity level in the speeds (φ̇ = Φ_q W u + φ_t, or g with q̇ = W u) differentiated once
  // more. Ã = A W and b̃ = b − A γ for the coordinates' A, b, so the multipliers λ are the same
  // as in the coordinates' equations: the reactions' virtual work on δq = W δu is λᵀ A W δu.
  std::vector<std::string> multipliers;  // lambda_NAME, one per constraint; empty without
  GiNaC::matrix constraint_matrix;       // Ã, m×p
  GiNaC::matrix constraint_rhs;          // b̃, m×1
  // The constraints at velocity level in the speeds, Ã u + ã0 (what a simulation keeps at 0,
  // with the holonomic ones themselves): ã0 = φ_t, or g's terms free of the velocities.
  GiNaC::matrix constraint_velocity_offset;  // ã0, m×1
  bool simplified = false;
  DerivationCost cost;

  /// p, the number of speeds.
  std::size_t size() const { return mass_matrix.rows(); }
  /// m, the number of constraints (0 without).
  std::size_t constraint_count() const { return multipliers.size(); }
  /// M̃ row by row, f̃, W row by row, γ, then (with constraints) Ã row by row, b̃ and ã0: every
  /// expression.
  GiNaC::exvector entries() const;
  /// Replaces every expression, in the order of entries().
  void set_entries(const GiNaC::exvector& all);
};

/// The equations in the speeds of a model with speeds (Model::has_speeds()), by Gibbs–Appell
/// (Method::GibbsAppell) or Kane (Method::Dalembert), unsimplified. Throws model::ModelError
/// located at the model's speeds (Model::speeds_where), naming "speeds", for a model without
/// speeds, and, naming the method, for any other method. The model's constraints, if any, are
/// formed in the speeds (Ã, b̃, ã0 above).
SpeedEquations speed_form(std::shared_ptr<const model::Model> model,
                          Method method = Method::GibbsAppell);

/// The same made readable (sym::readable), with simplified = true and its cost recorded.
SpeedEquations simplify(const SpeedEquations& equations);

}  // namespace appell::principles
