// The equations of a flexible body in its moving floating frame (seed 002 §4, condensed form):
//
//   m δ̈ + (C_R + c) δ̇ + (k + k(ε) + k(ω) + k_G) δ = q + q* − q_i(ε) − q_i(ω) − m_Oi a_O
//
// with c = 2∫ρNᵀ[ω]N, k(ε) = ∫ρNᵀ[ε]N, k(ω) = ∫ρNᵀ[ω][ω]N, q_i(ε) = ∫ρNᵀ[ε]x,
// q_i(ω) = ∫ρNᵀ[ω][ω]x, m_Oi = ∫ρNᵀ, q* = m_Oi g (gravity in frame components) + body forces,
// q the nodal loads, C_R = αm + βk (Rayleigh damping, optional). All of them are combinations
// of the constant integrals of AssembledBody with the numbers ω, ε, a_O, g of the instant.
//
// Beyond the seed: k_G, the geometric stiffness of the pre-stress that the steady inertial
// load of the rotating frame, −q_i(ω) − m_Oi a_O, causes in the supported body. The linear
// floating-frame model lacks it and so misses the stiffening of rotating structures (a spun
// cantilever's flapwise frequency stays at its standing value instead of rising by the
// Southwell coefficient). The pre-stress displacement is linear in the nine numbers
// ([ω][ω])_kl and a_O,k; its nine unit solutions are computed once (one factorization of k).
#pragma once

#include <Eigen/Core>
#include <array>
#include <memory>

#include "appell/fem/assembly.hpp"
#include "appell/fem/flexible_body.hpp"
#include "appell/fem/frame_motion.hpp"

namespace appell::fem {

/// The body's matrices at one instant, all dofs (fixed ones included; free_block() selects).
struct InstantMatrices {
  SparseMatrix damping;    // C_R + c
  SparseMatrix stiffness;  // k + k(ε) + k(ω) + k_G
  Eigen::VectorXd force;   // q + q* − q_i(ε) − q_i(ω) − m_Oi a_O
};

/// The pre-stress of the steady inertial load and its geometric stiffness k_G, for one body.
/// Keeps a reference to `body`, which must outlive it.
class CentrifugalPrestress {
 public:
  /// Factorizes k on the free dofs and solves for the nine unit loads. Throws
  /// model::ComputationError when k is singular there (the body needs supports that stop its
  /// rigid motion).
  explicit CentrifugalPrestress(const FlexibleBodyInstance& body);
  ~CentrifugalPrestress();
  /// The pre-stress displacement (all dofs, 0 on fixed ones) of the steady inertial load
  /// −q_i(ω) − m_Oi a_O at `frame` (gravity and the loads are not part of it).
  Eigen::VectorXd displacement(const FrameState& frame) const;
  /// Its geometric stiffness (all dofs).
  SparseMatrix geometric_stiffness(const FrameState& frame) const;

 private:
  const FlexibleBodyInstance& body_;
  std::array<Eigen::VectorXd, 9> unit_;  // ([ω][ω])_kl for k ≤ l (6), then a_O,k (3)
};

/// The matrices and the force at an instant t (s) for the frame's state there (k_G only when
/// `prestress` is given; C_R only when the body has Rayleigh damping).
InstantMatrices instant_matrices(const FlexibleBodyInstance& body, const FrameState& frame,
                                 double t, const CentrifugalPrestress* prestress);
/// Only the force q + q* − q_i(ε) − q_i(ω) − m_Oi a_O (cheap: no matrix is formed).
Eigen::VectorXd instant_force(const FlexibleBodyInstance& body, const FrameState& frame, double t);

/// The rows and columns of the free dofs of a matrix (all dofs), in FlexibleBodyInstance::
/// free_dofs order.
SparseMatrix free_block(const FlexibleBodyInstance& body, const SparseMatrix& full);
/// The free-by-prescribed block (rows free, columns the prescribed dofs, in their order).
SparseMatrix free_prescribed_block(const FlexibleBodyInstance& body, const SparseMatrix& full);

}  // namespace appell::fem
