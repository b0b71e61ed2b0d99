// Forward dynamics in generalized speeds (internal: num::simulate of equations in the speeds): M̃(q,
// t) u̇ = f̃(q, u, t) with q̇ = W(q, t) u (principles/speed_form.hpp), integrated with SUNDIALS CVODE.
// The state is y = (q, u).
//
// A quaternion's length never enters the dynamics (its rotation is R(e)/|e|²), and ė = ½ E(e) w
// keeps |e| constant (eᵀE(e) = 0): only truncation errors change it. The integrated kinematic
// equations add a radial pull κ(1 − |e|²)e (κ = 1/s), invisible to the motion, so that |e| stays
// at 1 to the tolerances' order (5e-8 over 1000 s of a tumbling box at rtol 1e-8, 5e-10 at
// 1e-11) instead of drifting; the initial quaternions are normalized, and so is every row.
// (CVODE's projection after every step kept |e| = 1 to rounding but took up to 17 times the
// steps on a spinning box, so it is not used.)
#pragma once

#include <Eigen/Dense>
#include <functional>
#include <vector>

#include "appell/numeric/simulate.hpp"
#include "appell/principles/equations.hpp"

namespace appell::num {

/// Integrates the equations in the speeds from options.t_start to options.t_end, calling `on_row`
/// at every output time (the first row is the initial state; its v and vdot are u and u̇). The
/// initial speeds are options.u0 (one per speed, in the model's order) or, when it is empty, those
/// of the velocities options.qd0 (or the model's) by speeds_from_velocities. Options are checked as
/// simulate() checks them (model::ModelError at "t_end", "output_step", "rtol", "atol", "q0",
/// "qd0"), and: `u0` of the wrong length, or given together with options.qd0, at "u0"; a zero
/// quaternion at "q0". A failed integration throws SimulationError after the rows so far were
/// delivered. Returns the statistics as simulate() does.
///
/// With constraints (Equations::constraint_count() > 0), M̃ u̇ = f̃ + Ãᵀλ, Ã u̇ = b̃ is
/// integrated with BDF (Adams is refused at "integrator", as by simulate()) and the state is
/// projected back after every step and at every row, as simulate() does in the coordinates: the
/// quaternions to length 1, q onto the holonomic constraints (ConstraintManifold), u onto
/// Ã u + ã0 = 0 by the smallest change; the initial state first (initial_correction holds max
/// |Δq| and max |Δu|). The rows carry the multipliers λ, the same as the coordinates' (see
/// principles::Equations).
SimulationResult simulate_speeds(const principles::Equations& equations,
                                 const SimulationOptions& options, const RowCallback& on_row);

/// The same for a model with generalized speeds, choosing how: where the recursions cover it
/// (principles::recursions_do_not_cover() empty: no constraints) through num::Dynamics in the
/// speeds, no equations formed (u̇ by the recursions, q̇ = W u and q̈ = W u̇ + γ compiled beside
/// them, T and V from the recursions); otherwise in its Gibbs–Appell equations in the speeds
/// (principles::speed_form). The two agree to rounding. Throws std::invalid_argument for a null
/// model, and as above.
SimulationResult simulate_speeds(std::shared_ptr<const model::Model> model,
                                 const SimulationOptions& options, const RowCallback& on_row);

/// The same through `dynamics`, built for a model with generalized speeds, with `parameters` its
/// run-time parameters' numbers (simulate(const Dynamics&, ...) in the speeds: a sweep's case).
/// The loop above; nothing symbolic, so distinct calls run on distinct threads: the initial
/// speeds without options.u0 are those of the velocities by the Dynamics' W
/// (speeds_from_velocities(dynamics, ...)), not by Y's tape. options.dynamics, when given (the
/// JIT's, Dynamics::with_values), evaluates u̇, q̇ and q̈ (the same values; its speed_count() the
/// same), `dynamics` T, V and the initial speeds. std::invalid_argument: options.values or
/// options.inputs given, a wrong number of parameters, and a model with constraints, whose
/// projection of q onto the holonomic constraints needs them in q with the values bound
/// (ConstraintManifold of the model), which a Dynamics does not carry in the speeds
/// (Dynamics::constraint_manifold refuses it there).
SimulationResult simulate_speeds(const Dynamics& dynamics, const std::vector<double>& parameters,
                                 const SimulationOptions& options, const RowCallback& on_row);

}  // namespace appell::num
