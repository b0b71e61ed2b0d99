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

#include "appell/principles/dynamics_derivatives.hpp"
#include "appell/principles/recursive_dynamics.hpp"
#include "appell/sym/scalar_program.hpp"
#include "plan.hpp"

namespace appell::codegen::detail {

using sym::add;
using sym::congruence;
using sym::cross;
using sym::dot;
using sym::identity3;
using sym::Instruction;
using sym::Mat3;
using sym::mul;
using sym::mul_transposed;
using sym::Node;
using sym::Op;
using sym::ScalarProgram;
using sym::scale;
using sym::sub;
using sym::Vec3;
using sym::zero3;

/// Program variables: plan.variables (t, q, qd, parameters, inputs), then q̈ (n), then the
/// extra generalized forces of forward dynamics (n); in generalized speeds (Plan::in_speeds) the
/// rates are u and there are p of u̇ and of the forces, and n is p. The outputs
/// (principles::RecursiveDynamics) by the recursions, or from the tape of M and f where they do
/// not apply.
struct DynamicsProgram : principles::RecursiveDynamics {
  std::size_t first_qdd = 0, first_extra = 0;
  bool recursive = false;
  std::string fallback_reason;  // why not recursive (empty when recursive)
};

/// The program of `eq` (whose plan `plan` is, references claimed). The recursive construction
/// is checked against the tape at two states before it is used; should they disagree the
/// program falls back to the tape (fallback_reason says so).
DynamicsProgram build_dynamics(const principles::Equations& eq, const Plan& plan);

/// The program of a model the recursions cover (principles::recursions_do_not_cover() empty),
/// from `builder` (constructed before `plan`, so that the derivatives it reads exist), with no
/// equations formed and nothing to check it against.
DynamicsProgram build_recursive_dynamics(const Plan& plan, principles::RecursionBuilder& builder);

/// ∂τ/∂q, ∂τ/∂q̇ (at the q̈ variables) and ∂q̈/∂q, ∂q̈/∂q̇, M⁻¹ (at q̈ = forward) of a recursive
/// program, as nodes of it (principles::differentiate_dynamics).
principles::DynamicsDerivatives differentiate(DynamicsProgram& d, const Plan& plan);

/// Which of the first `count` variables the live part of `targets` reads.
std::vector<bool> variables_read(const ScalarProgram& program, const std::vector<Node>& targets,
                                 std::size_t count);

/// The operations (nodes that are neither constants nor variables) `targets` need.
inline std::size_t operation_count(const ScalarProgram& program, const std::vector<Node>& targets) {
  return program.operation_count(targets);
}

/// Values of the program's variables at a state: the plan's parameter and input defaults.
std::vector<double> program_variables(const Plan& plan, double t, const double* q, const double* qd,
                                      const double* qdd, const double* extra);

}  // namespace appell::codegen::detail
