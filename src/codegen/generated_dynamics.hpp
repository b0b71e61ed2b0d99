// The functions `appell codegen` generates, evaluated in-process (internal: the codegen tests
// check them and count their operations; programs evaluate a model through num::Dynamics).
//
// For a model of frames, bodies, particles and loads the functions are built by recursions over
// the frame tree, with the model's zeros and ones folded away and shared terms computed once:
//   inverse_dynamics   τ = M(q) q̈ − f(q, q̇) by Newton–Euler: τ_j = ∂P/∂u_j of the virtual power
//                      P = Σ (m a − F)·v(u) + (Iε + ω×Iω − M)·ω(u), v and ω linear in the speeds
//                      u (DESIGN.md, "Generated code"); reverse mode through the frame recursion
//                      is the backward force sweep: O(n) operations, M never formed;
//   mass_matrix        composite rigid bodies, M_ij = S_iᵀ X_ij I^c_j S_j (O(n·depth));
//   forward_dynamics   M q̈ = f + Q by M = Lᵀ D L, leaves first (no fill-in along a tree);
//   nonlinear_effects  C(q, q̇) q̇ + g(q) − Q_loads = −f, Newton–Euler at q̈ = 0;
//   gravity            g(q), the generalized gravity: Newton–Euler at rest, gravity alone.
// Models these recursions do not cover (relative motion in a carrier frame, Gibbs–Appell of
// higher order) get the same functions from the tape of M and f (recursive() is false).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "appell/model/values.hpp"
#include "appell/principles/equations.hpp"

namespace appell::codegen {

/// The functions of the generated code.
enum class GeneratedFunction {
  MassMatrix,
  Forcing,
  MassMatrixAndForcing,
  NonlinearEffects,
  Gravity,
  ForwardDynamics,
  InverseDynamics
};

/// Arithmetic of one generated function after folding and sharing (what its code executes).
struct OperationCounts {
  std::size_t adds = 0;        // additions and subtractions
  std::size_t multiplies = 0;  // multiplications
  std::size_t divides = 0;
  std::size_t negations = 0;
  std::size_t calls = 0;  // sin, cos, sqrt, pow ...
  std::size_t total() const { return adds + multiplies + divides + negations + calls; }
};

/// The generated functions of `equations` with `values` bound (model::bind; the generated
/// structs' defaults), as straight-line programs evaluated by an interpreter. Vectors in the
/// model's coordinate order; matrices row-major.
class GeneratedDynamics {
 public:
  /// Throws what generate_cpp_header() throws for bad values or symbols, and
  /// std::invalid_argument for equations with constraints.
  explicit GeneratedDynamics(const principles::Equations& equations,
                             const model::Values& values = {});

  std::size_t dof() const;
  /// True when built by the recursions; false when from the tape of M and f (then
  /// fallback_reason() says why).
  bool recursive() const;
  const std::string& fallback_reason() const;
  /// How forward_dynamics solves: "articulated bodies" (Featherstone's recursion, customized) or
  /// "M = L^T D L" (composite-inertia M factored along the tree), whichever needs fewer
  /// operations for this model.
  const std::string& forward_method() const;

  std::vector<double> mass_matrix(double t, const std::vector<double>& q,
                                  const std::vector<double>& qd) const;
  std::vector<double> forcing(double t, const std::vector<double>& q,
                              const std::vector<double>& qd) const;
  std::vector<double> nonlinear_effects(double t, const std::vector<double>& q,
                                        const std::vector<double>& qd) const;
  std::vector<double> gravity(double t, const std::vector<double>& q) const;
  std::vector<double> inverse_dynamics(double t, const std::vector<double>& q,
                                       const std::vector<double>& qd,
                                       const std::vector<double>& qdd) const;
  /// q̈ of M q̈ = f + Q (Q empty: none); nullopt when M is not positive definite at the state.
  std::optional<std::vector<double>> forward_dynamics(double t, const std::vector<double>& q,
                                                      const std::vector<double>& qd,
                                                      const std::vector<double>& Q = {}) const;

  /// What the generated code of `function` computes, counted on its statements.
  OperationCounts operation_counts(GeneratedFunction function) const;

 private:
  struct Data;
  std::shared_ptr<const Data> data_;
};

}  // namespace appell::codegen
