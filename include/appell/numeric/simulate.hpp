// Forward dynamics: M(q, t) q̈ = f(q, q̇, t) integrated in time with SUNDIALS CVODE.
//
// The state is y = (q, q̇) and ẏ = (q̇, M⁻¹f), with M and f evaluated by the compiled tape of
// CompiledEquations. Inputs given as expressions of t are substituted into the equations once,
// before compiling, so the right-hand side never touches a GiNaC tree. At every output time the
// kinetic energy T, the potential energy V (principles::potential_energy) and E = T + V are
// evaluated by a second tape and handed to the caller with the state.
#pragma once

#include <ginac/ginac.h>

#include <Eigen/Dense>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "appell/model/source_location.hpp"
#include "appell/model/values.hpp"
#include "appell/numeric/constraint_manifold.hpp"
#include "appell/numeric/dynamics.hpp"
#include "appell/principles/equations.hpp"

namespace appell::num {

/// CVODE's two method families: BDF with Newton iterations and a dense linear solver (robust,
/// also for stiff models), or Adams–Moulton with fixed-point iterations (cheaper per step on
/// smooth non-stiff motion).
enum class Integrator { Bdf, Adams };

/// "bdf", "adams".
std::string integrator_name(Integrator integrator);
/// Parses an integrator name; nullopt if unknown.
std::optional<Integrator> parse_integrator(const std::string& name);

/// What simulate() integrates and how (times in s). Each field is checked by simulate() and a bad
/// one is a model::ModelError located at the field's name.
struct SimulationOptions {
  double t_start = 0.0;
  double t_end = 1.0;         // > t_start, finite
  double output_step = 0.01;  // H > 0: rows at t_start, t_start + H, ..., and always at t_end
  double rtol = 1e-8;         // CVODE's relative tolerance, > 0
  double atol = 1e-8;         // CVODE's absolute tolerance (every component of q and q̇), > 0
  Integrator integrator = Integrator::Bdf;  // with constraints, Bdf only
  std::vector<double> q0, qd0;              // n values each; empty: the model's initial values
  /// Equations in the speeds (principles::Form::Speeds) only: the initial speeds, one per speed in
  /// the model's order; empty: those of the velocities qd0 (or the model's initial ones). Not
  /// together with qd0 (model::ModelError at "u0").
  std::vector<double> u0;
  /// As for CompiledEquations (model::bind): parameter overrides, constant values of inputs
  /// and unspecified prescribed functions (and of their derivatives, e.g. "dot(u)"), and those
  /// driven by an expression of t and parameters (Values::drive, see parse_time_function).
  model::Values values;
  /// Also driven functions, by name: the same as values.drive(name, expression).
  std::map<std::string, GiNaC::ex> inputs;
  /// CVODE's limit on internal steps between two output rows.
  long max_steps_per_output = 500000;
  /// The most output rows (t_end − t_start)/output_step + 1 a run may ask for: more is refused
  /// with a ModelError before anything is integrated (a step of 1e-10 over a second would write
  /// gigabytes).
  long max_rows = 10'000'000;
  /// What evaluates q̈ (and with constraints A, b, λ and the projection): a Dynamics of the same
  /// model bound to the same values as `values` and `inputs` (the caller's duty), typically the
  /// JIT's (jit::compile_dynamics); null: the recursions interpreted, or for equations their
  /// tape (CompiledEquations). With equations only in the coordinates and without constraints
  /// (std::invalid_argument otherwise: the constrained solver there needs the equations' A and b).
  std::shared_ptr<const Dynamics> dynamics;
};

/// One output row: the state, the energies, the accelerations and (with constraints) the
/// Lagrange multipliers at time t. q, qd and qdd have n entries in coordinate order; v and vdot
/// are the velocities of the equations' form and their rates (q̇ and q̈ in the coordinates, the
/// speeds u and u̇ in the speeds). They refer to the integrator's buffers and are valid only
/// during the callback (copy what you keep).
struct SimulationRow {
  double t = 0.0;
  const Eigen::VectorXd& q;
  const Eigen::VectorXd& qd;
  double kinetic = 0.0;    // T (J)
  double potential = 0.0;  // V of gravity, springs and potentials (J)
  double total = 0.0;      // E = T + V
  /// q̈ at the row; NaN (with λ) at a row where M is singular, the last before SimulationError.
  const Eigen::VectorXd& qdd;
  const Eigen::VectorXd& lambda;  // one per constraint, in the model's order; empty without
  const Eigen::VectorXd& v;       // the velocities the equations are in (u in the speeds)
  const Eigen::VectorXd& vdot;    // their rates (NaN where qdd is)
};
/// Receives each row; what it throws propagates out of simulate().
using RowCallback = std::function<void(const SimulationRow&)>;

/// What an integration did.
struct SimulationResult {
  double t_reached = 0.0;    // time of the last row delivered
  std::size_t rows = 0;      // rows delivered
  long steps = 0;            // internal integrator steps
  long rhs_evaluations = 0;  // right-hand side evaluations, finite-difference Jacobians included
  double initial_energy = 0.0;
  double energy_drift = 0.0;  // max |E − E(t_start)| over the rows
  /// E = T + V must stay constant: no force, torque, damper or generalized load that the values
  /// leave nonzero (an input left at 0 or a damper of coefficient 0 does no work), and, with
  /// every value bound, neither the equations nor the energies depend on t or on an input or
  /// unspecified prescribed function (one given a constant number does not vary).
  bool conservative = false;
  std::string not_conservative_because;  // empty when conservative
  /// With constraints: the state is projected back onto them after every step (and the initial
  /// state before the first), so these stay at the level of the tolerances.
  std::size_t constraints = 0;
  ConstraintViolation max_violation;  // over the rows
  ConstraintViolation
      initial_correction;  // max |Δq|, max |Δq̇| that made the initial state consistent
  /// Constraints that are combinations of the others at the initial state (over-constrained
  /// mechanisms): integrated all the same, their multipliers the minimum-norm ones.
  std::vector<std::string> redundant_constraints;
};

/// The integration stopped before t_end (integrator failure, singular mass matrix, ...). The rows
/// up to time_reached() were delivered; partial() holds the statistics up to there. what() is
/// "integration stopped at t = T: REASON".
///
/// Also how a run stops on SIGINT or SIGTERM (num::interruption_signal(), polled between output
/// rows and in the right-hand side): then signal() is the signal, time_reached() the time of the
/// last row delivered, and what() is num::interrupted_at(that time), "interrupted at t = T", so a
/// caller that marks its output with what() marks it the same way for both.
class SimulationError : public model::ComputationError {
 public:
  SimulationError(double time_reached, std::string reason, SimulationResult partial);
  /// The run stopped for `signal` after the row at partial.t_reached.
  static SimulationError interrupted(int signal, SimulationResult partial);
  double time_reached() const { return time_reached_; }
  const std::string& reason() const { return reason_; }
  const SimulationResult& partial() const { return partial_; }
  /// SIGINT or SIGTERM when a signal stopped the run; 0 when it failed.
  int signal() const { return signal_; }

 private:
  SimulationError(std::string what, double time_reached, std::string reason,
                  SimulationResult partial, int signal);
  double time_reached_;
  std::string reason_;
  SimulationResult partial_;
  int signal_ = 0;
};

/// Parses an expression of t and the model's parameters (what drives an input: Values::drive).
/// Throws model::ModelError located at "input" for an unknown name (coordinates, inputs and
/// prescribed functions included), a syntax error or an undefined value; the location has line
/// 0 and column 1 + the offset within `text`, so what() shows only "input: ..." (the CLI
/// relocates it at its option).
GiNaC::ex parse_time_function(const model::Model& model, const std::string& text);

/// Integrates from options.t_start to options.t_end, calling `on_row` at every output time (the
/// first row is the initial state). With constraints, M q̈ = f + Aᵀλ, A q̈ = b is integrated with
/// BDF and projection onto the constraint manifold (ConstraintManifold); the initial state is
/// projected first. Adams is refused there: CVODE projects only with BDF. Bad options (wrong number
/// of initial values, non-positive step or tolerances, Adams with constraints; located at the
/// option's name in SimulationOptions: "t_end", "output_step", "rtol", "atol", "q0", "qd0",
/// "integrator") and bad values (what model::bind throws:
/// an unknown name, a non-finite number, a name given both a number and an expression) throw
/// model::ModelError before anything is integrated; so does a constraint that still has a symbol
/// without a value. Initial coordinates that cannot be brought onto the constraints throw
/// model::ComputationError before the first row. A failed integration throws SimulationError
/// after the rows reached so far were delivered. M, f, the constraints and the energies all see
/// the same values. Returns the statistics of the whole run.
///
/// Equations in the speeds (principles::Form::Speeds) are integrated in y = (q, u) with q̇ = W u,
/// their quaternions kept of length 1 (simulate_speeds.cpp says how), the initial speeds from
/// options.u0 or the velocities; options.dynamics must be null there. The minimal form is not
/// integrated (std::invalid_argument): its dependent speeds need the constraints' positions, which
/// the equations in the coordinates keep.
SimulationResult simulate(const principles::Equations& equations, const SimulationOptions& options,
                          const RowCallback& on_row);

/// The same for a model, without forming its equations where the recursions cover it
/// (principles::recursions_do_not_cover() empty): q̈, T and V from num::Dynamics (options.dynamics,
/// e.g. the JIT's, when given: then it serves alone); setting up costs milliseconds for a robot.
/// With constraints q̈ and λ come from the Dynamics' constraint rows, and the state is projected
/// onto the constraints as in the other overload.
/// Other models are integrated in their Gibbs–Appell equations (derived here). Throws as the
/// other overload.
SimulationResult simulate(std::shared_ptr<const model::Model> model,
                          const SimulationOptions& options, const RowCallback& on_row);

/// One of many simulations with the same Dynamics (a sweep: built once, run per case):
/// `dynamics` holds the values every case shares, `parameters` this case's values of its
/// run-time parameters (Dynamics::runtime_parameter_values; empty: those it was built with), and
/// `options` this case's initial state and the integration. options.values and options.inputs
/// must be empty (std::invalid_argument: they are folded into `dynamics`); options.dynamics, when
/// given, must evaluate the same values (the JIT's, Dynamics::with_values) and have the same
/// constraint rows (std::invalid_argument otherwise). Distinct calls may run on distinct threads
/// at once, constrained or not: the projection is compiled with the Dynamics (or the JIT's
/// code), nothing symbolic happens per call. Throws as the other overloads.
SimulationResult simulate(const Dynamics& dynamics, const std::vector<double>& parameters,
                          const SimulationOptions& options, const RowCallback& on_row);

/// The output times of a run: t_start, t_start + H, ... and t_end last (a row closer to t_end
/// than 1e-9 of a step is t_end's row): the rows simulate() delivers.
std::vector<double> output_times(double t_start, double t_end, double output_step);

}  // namespace appell::num
