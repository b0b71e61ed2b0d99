// The equations of motion split the way controllers use them (passivity-based, adaptive,
// computed-torque control; Drake #14315, Pinocchio #1494):
//
//   M(q) q̈ + C(q, q̇) q̇ + g(q) = Q(q, q̇, t)  (+ Aᵀλ with constraints),
//
//   C_ij = Σ_k c_ijk q̇_k,  c_ijk = ½ (∂M_ij/∂q_k + ∂M_ik/∂q_j − ∂M_jk/∂q_i)
//          (the Christoffel symbols of the first kind, so that Σ_k ∂M/∂q_k q̇_k − 2C is
//          skew-symmetric),
//   g = ∂V/∂q of gravity, springs and potential loads (potential_energy.hpp),
//   Q  the generalized forces of every other load (forces, torques, dampers, generalized loads,
//      inputs) by virtual work (generalized_forces.hpp).
//
// With prescribed motion or a carrier frame (seed 003) the kinetic energy is
// T = ½ q̇ᵀM(q, t)q̇ + bᵀ(q, t) q̇ + T₀(q, t), and Lagrange's equations have three more terms,
// named here rather than hidden in C:
//
//   M q̈ + C q̇ + (∂M/∂t + G) q̇ + p + g = Q,
//   ∂M/∂t      M's rate at fixed q (mass_rate; through t and the prescribed functions),
//   G_ik = ∂b_i/∂q_k − ∂b_k/∂q_i    gyroscopic, skew-symmetric (Coriolis forces of a turning
//                                   carrier: 2m ω × v_r),
//   p = ∂b/∂t − ∂T₀/∂q              free of q̇: the inertial forces of the prescribed motion
//                                   (transport, centrifugal and Euler forces).
// (d/dt(M q̇ + b) − ∂T/∂q expanded: the part quadratic in q̇ is C q̇, the linear part
// ∂M/∂t q̇ + G q̇, the rest p.) Each is zero for a model whose kinetic energy does not depend on
// t or a prescribed function; `moving` says which case holds.
#pragma once

#include <ginac/ginac.h>

#include <memory>

#include "appell/model/model.hpp"
#include "appell/principles/equations.hpp"

namespace appell::principles {

/// M q̈ + C q̇ + (∂M/∂t + G) q̇ + p + g = Q (+ Aᵀλ): n = model->dof(), rows and columns in the
/// model's coordinate order, expressions of the model's symbols like Equations' entries.
struct CoriolisSplit {
  std::shared_ptr<const model::Model> model;
  GiNaC::matrix mass_matrix;  // M, n×n (the equations')
  GiNaC::matrix coriolis;     // C(q, q̇), n×n
  GiNaC::matrix gravity;      // g = ∂V/∂q, n×1
  GiNaC::matrix loads;        // Q, n×1
  /// Whether the kinetic energy depends on t or a prescribed function (prescribed motion, a
  /// carrier frame): then the three terms below may be non-zero; without, they are zero.
  bool moving = false;
  GiNaC::matrix mass_rate;          // ∂M/∂t at fixed q, n×n
  GiNaC::matrix gyroscopic;         // G(q, t), n×n, skew-symmetric
  GiNaC::matrix prescribed_motion;  // p(q, t), n×1, free of q̇

  std::size_t dof() const { return mass_matrix.rows(); }
  /// M row by row, C row by row, g, Q, then ∂M/∂t, G (row by row) and p: every expression.
  GiNaC::exvector entries() const;
  /// Replaces every expression, in the order of entries(); std::out_of_range when `all` has
  /// fewer.
  void set_entries(const GiNaC::exvector& all);
};

/// The split of `equations` (M q̈ = f of order 1 in the coordinates, any principle: they all give
/// the same M and f), formed from M and from the model's kinematics (its kinetic and potential
/// energy and its loads). With constraints it is the split of the unconstrained part: Aᵀλ stays
/// on the right, A q̈ = b as in `equations`. Throws model::ModelError, located at {"split"}, for
/// equations of order m > 1 (they have no such split) and for a model with generalized speeds
/// (its equations are formed in the speeds, where the Christoffel form does not hold).
CoriolisSplit coriolis_split(const Equations& equations);

/// C q̇ + g − Q + (∂M/∂t + G) q̇ + p + f, n×1: zero (after simplification, sym::readable) when
/// the split reproduces the equations, which holds by Lagrange's equations for every model in
/// coordinates.
GiNaC::matrix split_residual(const CoriolisSplit& split, const Equations& equations);

/// Σ_k ∂M/∂q_k q̇_k, n×n: the rate of M along the motion at fixed t (M's chain rule through
/// q), of which minus 2C is skew-symmetric.
GiNaC::matrix mass_matrix_rate_along_q(const model::Model& model, const GiNaC::matrix& mass);

}  // namespace appell::principles
