// The numbers of a model's dynamics without forming its equations (DESIGN.md, "Numbers").
//
// num::Dynamics is built from the recursions over the model's frame tree
// (principles/recursive_dynamics.hpp) with the values bound and folded into the program: time
// and memory about linear in the bodies, no symbolic M or f. Once built it is immutable: every
// call takes a DynamicsWorkspace its caller owns (Pinocchio's Model/Data), so one Dynamics is
// shared by any number of threads, each with its own workspace, and gives them the same bits.
//
//   accelerations      q̈ by the articulated-body recursion (O(n)), or by Cholesky of M where the
//                      model's joints do not suit it;
//   inverse_dynamics   τ = M q̈ − f by Newton–Euler (O(n));
//   mass_matrix        M column by column from Newton–Euler at q̇ = 0 without gravity or loads
//                      (n passes of O(n): exactly M q̈, nothing cancels);
//   forcing            f, nonlinear_effects −f = C(q, q̇) q̇ + g(q) − Q_loads, gravity g(q);
//   energies           T and V, from the same recursions.
//
// Constraints enter as their own rows: M and f stay the tree's (the recursions), and A(q, t) q̈ =
// b(q, q̇, t) is formed symbolically from the constraints alone (principles::constraint_rows, the
// derivation the formed equations use; small, whatever the number of bodies) and compiled beside
// them. accelerations() then solves M q̈ = f + Aᵀλ, A q̈ = b (solve_constrained_accelerations:
// redundant rows, tolerances and errors as CompiledEquations).
//
// Generalized speeds (MODEL_FORMAT.md "Speeds": declared speeds, quaternion frames, URDF floating
// bases) run in the speeds: the recursions are formed in u (principles/recursive_dynamics.hpp),
// so that M̃(q, t) u̇ = f̃(q, u, t), the numbers principles::speed_form's equations give, with the
// kinematic equations q̇ = W(q, t) u (coordinate_velocities) and q̈ = W u̇ + γ
// (coordinate_accelerations) compiled beside them. Then dof() stays n, the coordinates, and
// speed_count() is p, the speeds: q has n entries; every vector of rates (the argument named qd,
// which is u), accelerations (qdd: u̇), forces (f, τ, g, Q) has p, and M is p×p. Without speeds
// p = n and the rates are q̇.
//
// It covers what the recursions cover: frames with bodies and particles, springs, dampers,
// forces, torques, generalized loads, potentials, inputs, prescribed motion, constraints and
// generalized speeds. A carrier frame or flexible bodies are refused (std::invalid_argument naming
// why; principles::recursions_do_not_cover() says it beforehand): their numbers come from the
// formed equations (CompiledEquations).
//
// The programs run interpreted (kind() "recursions": a tape, O(n) to build, best for a few
// calls), or as their generated C compiled and cached (kind() "jit": jit::compile_dynamics, best
// for simulations and sweeps). Either is this one type: the same calls, the same workspace, the
// same sharing between threads; compilation() says which and why. A compiled Dynamics runs M, f,
// q̈, τ and the constraints in the compiled code, and what that code does not have (the energies,
// g) by the interpreted programs built with it.
#pragma once

#include <Eigen/Dense>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/model/values.hpp"
#include "appell/numeric/acceleration_solve.hpp"
#include "appell/numeric/constraint_manifold.hpp"
#include "appell/numeric/constraint_tolerances.hpp"

namespace appell::num {

/// Scratch space of Dynamics calls: one per thread, reused between calls (no allocation once
/// sized). Its contents between calls mean nothing.
struct DynamicsWorkspace {
  /// The values of the Dynamics' run-time parameters (Dynamics::runtime_parameters(), in that
  /// order: Dynamics::runtime_parameter_values() makes them), set by the caller; empty: the
  /// numbers the Dynamics was built with.
  std::vector<double> parameters;
  std::vector<double> variables, outputs, slots;
  Eigen::MatrixXd M;
  Eigen::VectorXd f;
  Eigen::MatrixXd A;  // the constraint rows (constrained accelerations)
  Eigen::VectorXd b;
  Eigen::VectorXd lambda;  // λ of the last constrained accelerations() without one asked for
};

/// How a Dynamics is built.
struct DynamicsOptions {
  /// Parameters read at run time (DynamicsWorkspace::parameters) instead of folded into the
  /// programs: what a sweep varies from case to case, one Dynamics built for all. A parameter
  /// whose default is computed from one of these (and that the values give no number) follows it
  /// and is read at run time too; so does every function driven by an expression using one. The
  /// rest stays folded: each run-time parameter costs the folding it prevents.
  std::vector<std::string> runtime_parameters;
};

/// How a Dynamics evaluates, and why (jit::compile_dynamics fills it; a Dynamics built by its
/// constructor runs interpreted with every field empty).
struct DynamicsCompilation {
  /// Why the programs run interpreted although the JIT was asked for and covers the model (no
  /// compiler, a compile error with the compiler's messages, the cache not writable or not
  /// private): worth telling the user, the run is slower than it could be. Empty otherwise.
  std::string note;
  /// Why they run interpreted in every other case (the JIT turned off, generalized speeds);
  /// empty with the JIT.
  std::string reason;
  /// With the JIT: the shared object, and whether this process compiled it (false: the cache).
  std::string library_path;
  bool compiled_now = false;
};

namespace detail {
struct DynamicsAccess;  // how the JIT makes a compiled Dynamics (src/numeric/native_dynamics.hpp)
struct NativeDynamics;
struct LazyPrograms;
}  // namespace detail

class Dynamics final {
 public:
  /// Builds the programs of `model` with `values` bound (model::bind: throws model::ModelError
  /// for an unknown name or a bad number). Throws std::invalid_argument for a model the
  /// recursions do not cover, or an expression that cannot be evaluated numerically.
  explicit Dynamics(std::shared_ptr<const model::Model> model, const model::Values& values = {});
  /// The same with run-time parameters (options.runtime_parameters; std::invalid_argument for a
  /// name that is no parameter).
  Dynamics(std::shared_ptr<const model::Model> model, const model::Values& values,
           const DynamicsOptions& options);
  ~Dynamics();
  Dynamics(const Dynamics&) = default;
  Dynamics(Dynamics&&) noexcept = default;
  Dynamics& operator=(const Dynamics&) = default;
  Dynamics& operator=(Dynamics&&) noexcept = default;

  const model::Model& model() const;
  /// The model shared.
  const std::shared_ptr<const model::Model>& model_pointer() const { return model_; }
  /// n, the number of coordinates (q's entries).
  std::size_t dof() const;
  /// p, the number of rates: the model's generalized speeds, or n without speeds. Velocities
  /// (u), accelerations (u̇), forces and M's rows and columns have p entries.
  std::size_t speed_count() const;
  /// "jit" (the generated code compiled) or "recursions" (the programs interpreted).
  const char* kind() const;
  /// Which, and why (DynamicsCompilation).
  const DynamicsCompilation& compilation() const { return *compilation_; }
  /// The same Dynamics with the numbers of other `values` (model::bind: model::ModelError for
  /// bad ones): a compiled one rebinds its numbers without generating or compiling anything (so
  /// `values` must drive the same functions by the same expressions: those are code), and builds
  /// its interpreted programs (energies, g) on the first call that needs them: symbolic work, so
  /// that first call must not run beside other symbolic work on another thread. An interpreted
  /// one is built anew with the same options.
  Dynamics with_values(const model::Values& values) const;
  /// "articulated bodies" (Featherstone's recursion) or "Cholesky of M" (a frame moved by two
  /// coordinates, or a coordinate moving two frames).
  const std::string& forward_method() const;
  /// Operations of each program (after folding and sharing): what one call costs.
  std::size_t operations() const;
  /// Why E = T + V may change along a motion (a load that does work, a dependence on t once the
  /// values are bound: SimulationResult::not_conservative_because); empty when it may not.
  const std::string& energy_not_conserved_because() const;
  /// The parameters read at run time, in the model's order: those asked for and those whose
  /// defaults follow them (DynamicsOptions).
  const std::vector<std::string>& runtime_parameters() const;
  /// Their numbers in `bound` (model::bind of the model with a case's values), in that order:
  /// what DynamicsWorkspace::parameters takes.
  std::vector<double> runtime_parameter_values(const model::BoundValues& bound) const;

  /// M(q, t), n×n (M̃, p×p, in generalized speeds). q in coordinate order with n entries, the
  /// rates with speed_count() (other sizes throw std::invalid_argument).
  void mass_matrix(double t, const Eigen::VectorXd& q, Eigen::MatrixXd& M,
                   DynamicsWorkspace& work) const;
  /// f(q, q̇, t) of M q̈ = f.
  void forcing(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, Eigen::VectorXd& f,
               DynamicsWorkspace& work) const;
  void mass_matrix_and_forcing(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                               Eigen::MatrixXd& M, Eigen::VectorXd& f,
                               DynamicsWorkspace& work) const;
  /// q̈ of M q̈ = f + Q (Q empty: none); with constraints, of M q̈ = f + Q + Aᵀλ with A q̈ = b
  /// (the accelerations() below with its default tolerances; λ left in work.lambda). Throws
  /// model::ComputationError when M is singular or not positive definite at the state, or M or f
  /// is not finite (the message prints M), and as solve_constrained_accelerations() with
  /// constraints.
  void accelerations(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                     Eigen::VectorXd& qdd, DynamicsWorkspace& work,
                     const Eigen::VectorXd& Q = Eigen::VectorXd()) const;

  /// m, the number of constraints (0 without).
  std::size_t constraint_count() const;
  /// lambda_NAME of each constraint, in the model's order: the names of λ's entries.
  const std::vector<std::string>& multipliers() const;
  /// A (m×n) and b (m) of the constraints at acceleration level, A q̈ = b, at (t, q, q̇): the rows
  /// the formed equations have (Equations::constraint_matrix and constraint_rhs). 0×n and empty
  /// without constraints. In generalized speeds Ã (m×p) and b̃ of Ã u̇ = b̃ at (t, q, u)
  /// (principles::constraint_rows_in_speeds: Ã = A W, b̃ = b − A γ, the same λ).
  void constraints(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                   Eigen::MatrixXd& A, Eigen::VectorXd& b, DynamicsWorkspace& work) const;
  /// In generalized speeds, the constraints at velocity level Ã (m×p) and the residuals
  /// Ã u + ã0 (m) at (t, q, u): what a simulation's velocity projection needs. m = 0: empty.
  /// std::logic_error without generalized speeds.
  void velocity_constraints(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& u,
                            Eigen::MatrixXd& A, Eigen::VectorXd& residual,
                            DynamicsWorkspace& work) const;
  /// q̈ (n) and λ (m) of M q̈ = f + Q + Aᵀλ with A q̈ = b by solve_constrained_accelerations()
  /// with `tolerances` (the least-squares q̈ and minimum-norm λ of redundant constraints; a
  /// simulation passes constraint_tolerances_for(rtol, atol)); without constraints q̈ as above
  /// and λ empty. Throws as solve_constrained_accelerations(), with the same messages as
  /// CompiledEquations::accelerations_and_multipliers.
  void accelerations(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                     Eigen::VectorXd& qdd, Eigen::VectorXd& lambda, DynamicsWorkspace& work,
                     const ConstraintTolerances& tolerances,
                     const Eigen::VectorXd& Q = Eigen::VectorXd()) const;
  /// The constraints at position and velocity level with the values this Dynamics was built
  /// with and `parameters` (its run-time parameters' numbers; empty: those it was built with):
  /// what a simulation projects onto, evaluated by the program compiled with this Dynamics (no
  /// GiNaC: callable from any thread; the object returned is for one thread).
  /// `rank_tolerance` as ConstraintManifold's. Throws std::invalid_argument for a wrong number
  /// of parameters, std::logic_error in generalized speeds with constraints (the projection is in
  /// q and q̇ there: ConstraintManifold of the model, with velocity_constraints()).
  ConstraintManifold constraint_manifold(const std::vector<double>& parameters,
                                         double rank_tolerance) const;
  /// In generalized speeds, the kinematic equations q̇ = W(q, t) u (n entries): what an
  /// integrator of (q, u) needs besides accelerations(). Without speeds q̇ = u.
  void coordinate_velocities(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& u,
                             Eigen::VectorXd& qd, DynamicsWorkspace& work) const;
  /// q̈ = d/dt (W u) = W u̇ + γ(q, u, t) (n entries). Without speeds q̈ = u̇.
  void coordinate_accelerations(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& u,
                                const Eigen::VectorXd& udot, Eigen::VectorXd& qdd,
                                DynamicsWorkspace& work) const;
  /// W(q, t), n×p (Model::speed_kinematics); the identity without speeds.
  void speed_kinematics(double t, const Eigen::VectorXd& q, Eigen::MatrixXd& W,
                        DynamicsWorkspace& work) const;
  /// τ = M q̈ − f: the generalized forces the motion needs.
  void inverse_dynamics(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                        const Eigen::VectorXd& qdd, Eigen::VectorXd& tau,
                        DynamicsWorkspace& work) const;
  /// −f = C(q, q̇) q̇ + g(q) − Q_loads.
  void nonlinear_effects(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                         Eigen::VectorXd& h, DynamicsWorkspace& work) const;
  /// The kinetic energy T and the potential energy V of gravity, springs and potential loads
  /// (as principles::kinetic_energy and principles::potential_energy form them).
  void energies(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double& kinetic,
                double& potential, DynamicsWorkspace& work) const;
  /// g(q): the generalized forces of gravity alone at rest (τ = g holds the model still).
  void gravity(double t, const Eigen::VectorXd& q, Eigen::VectorXd& g,
               DynamicsWorkspace& work) const;

 private:
  struct Programs;
  friend struct detail::DynamicsAccess;
  friend struct detail::LazyPrograms;
  Dynamics() = default;
  /// The interpreted programs: built by the constructor, or for a compiled Dynamics on the first
  /// call that needs them (thread-safe).
  const Programs& programs() const;

  std::shared_ptr<const model::Model> model_;
  std::shared_ptr<const Programs> programs_;              // interpreted: built with the Dynamics
  std::shared_ptr<detail::LazyPrograms> lazy_;            // compiled: the programs when needed
  std::shared_ptr<const detail::NativeDynamics> native_;  // compiled: the loaded functions
  std::shared_ptr<const DynamicsCompilation> compilation_;
};

}  // namespace appell::num
