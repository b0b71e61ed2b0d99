// The functions `appell codegen` writes, as one straight-line program (internal to codegen).
//
// For a model of frames, bodies and loads (no carrier frame, no flexible body, equations of
// order 1) the program is built by recursions over the frame tree, never from M and f:
//   inverse dynamics  Newton–Euler: the transpose of the virtual power's linear map,
//                     τ_j = ∂P/∂u_j with P = Σ (m a − F)·v(u) + (Iε + ω×Iω − M)·ω(u) (DESIGN.md);
//   mass matrix       composite rigid bodies: M_ij = S_iᵀ X I^c_G S_j;
//   forward dynamics  M = Lᵀ D L, eliminating leaves first, with the tree's zeros folded away;
//   bias, gravity     Newton–Euler at q̈ = 0, and at rest with gravity alone.
// Otherwise it is built from the tape of M and f (inverse dynamics as M q̈ − f).
#pragma once

#include <string>
#include <vector>

#include "plan.hpp"
#include "scalar_program.hpp"

namespace appell::codegen::detail {

/// Program variables: plan.variables (t, q, qd, parameters, inputs), then q̈ (n), then the
/// extra generalized forces of forward dynamics (n).
struct DynamicsProgram {
  ScalarProgram program;
  std::size_t n = 0;
  std::size_t first_qdd = 0, first_extra = 0;
  bool recursive = false;
  std::string fallback_reason;  // why not recursive (empty when recursive)
  std::vector<Node> mass;       // n×n row-major; symmetric
  std::vector<Node> bias;       // nonlinear effects C(q, q̇) q̇ + g(q) − Q_loads = −f
  std::vector<Node> forcing;    // f = −bias
  std::vector<Node> gravity;    // generalized gravity g(q) (M q̈ + b = τ's gravity part)
  std::vector<Node> inverse;    // τ = M q̈ − f
  std::vector<Node> forward;    // q̈ = M⁻¹ (f + Q_extra)
  std::string forward_method;   // "articulated bodies" or "M = L^T D L"
  std::vector<Node> pivots;     // D of M = Lᵀ D L (of the articulated bodies: the same)
  std::vector<Node> diagonal;   // M's diagonal (the scale of the pivot test)
};

/// The program of `eq` (whose plan `plan` is, references claimed). The recursive construction
/// is checked against the tape at two states before it is used; should they disagree the
/// program falls back to the tape (fallback_reason says so).
DynamicsProgram build_dynamics(const principles::Equations& eq, const Plan& plan);

/// The operations (nodes that are neither constants nor variables) `targets` need.
std::size_t operation_count(const ScalarProgram& program, const std::vector<Node>& targets);

/// Values of the program's variables at a state: the plan's parameter and input defaults.
std::vector<double> program_variables(const Plan& plan, double t, const double* q, const double* qd,
                                      const double* qdd, const double* extra);

}  // namespace appell::codegen::detail
