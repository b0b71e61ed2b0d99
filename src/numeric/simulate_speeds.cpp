#include "simulate_speeds.hpp"

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include <cmath>
#include <cstdlib>
#include <exception>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <type_traits>
#include <unordered_set>
#include <variant>

#include "appell/kinematics/kinematics.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/constraint_manifold.hpp"
#include "appell/numeric/dynamics.hpp"
#include "appell/numeric/interruption.hpp"
#include "appell/numeric/speeds.hpp"
#include "appell/principles/lagrange.hpp"
#include "appell/principles/potential_energy.hpp"
#include "appell/principles/recursive_dynamics.hpp"
#include "appell/principles/speed_form.hpp"
#include "appell/sym/cancellation.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/differentiator.hpp"
#include "cvode_support.hpp"
#include "rank_revealing.hpp"
#include "speed_tape.hpp"

namespace appell::num {

using namespace detail;

using GiNaC::ex;

namespace {

Eigen::VectorXd given_or(const std::vector<double>& given, const Eigen::VectorXd& otherwise,
                         const char* option, const std::string& what) {
  if (given.empty()) return otherwise;
  if (given.size() != static_cast<std::size_t>(otherwise.size()))
    throw model::ModelError({option, 0, 0}, "expected " + std::to_string(otherwise.size()) + " " +
                                                what + ", got " + std::to_string(given.size()));
  return Eigen::Map<const Eigen::VectorXd>(given.data(), otherwise.size());
}

// The rate (1/s) at which a quaternion's length returns to 1 (see right_hand_side).
constexpr double kNormalizationRate = 1.0;

// What the integration evaluates at (t, q, u): the formed equations, or the recursions in the
// speeds. One per simulation, used from its thread only.
class SpeedEvaluator {
 public:
  virtual ~SpeedEvaluator() = default;
  // q̇, u̇, q̈ (and with constraints λ), as CompiledSpeedForm::solve.
  virtual CompiledEquations::State solve(double t, const Eigen::VectorXd& q,
                                         const Eigen::VectorXd& u,
                                         const ConstraintTolerances& tolerances) const = 0;
  virtual Eigen::VectorXd velocities(double t, const Eigen::VectorXd& q,
                                     const Eigen::VectorXd& u) const = 0;
  // q̇ and u̇ alone, what the integrator asks at every evaluation (solve()'s by default).
  virtual void rates(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& u,
                     const ConstraintTolerances& tolerances, Eigen::VectorXd& qd,
                     Eigen::VectorXd& udot) const {
    CompiledEquations::State s = solve(t, q, u, tolerances);
    qd = std::move(s.qd);
    udot = std::move(s.vdot);
  }
  virtual void velocity_constraints(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& u,
                                    Eigen::MatrixXd& A, Eigen::VectorXd& residual) const = 0;
  // T and V.
  virtual void energies(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& u,
                        double& kinetic, double& potential) const = 0;
};

// The equations in the speeds, formed (principles::speed_form) and compiled, with T and V from
// the kinematics in the speeds.
class FormedSpeedEquations final : public SpeedEvaluator {
 public:
  // `energies`: T and V (energies_of).
  FormedSpeedEquations(const principles::Equations& equations, const GiNaC::exvector& energies,
                       const model::Values& values)
      : compiled_(equations, values), energy_tape_(*equations.model, energies, values) {}
  CompiledEquations::State solve(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& u,
                                 const ConstraintTolerances& tolerances) const override {
    return compiled_.solve(t, q, u, tolerances);
  }
  Eigen::VectorXd velocities(double t, const Eigen::VectorXd& q,
                             const Eigen::VectorXd& u) const override {
    return compiled_.velocities(t, q, u);
  }
  void velocity_constraints(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& u,
                            Eigen::MatrixXd& A, Eigen::VectorXd& residual) const override {
    compiled_.velocity_constraints(t, q, u, A, residual);
  }
  void energies(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& u, double& kinetic,
                double& potential) const override {
    energy_tape_.evaluate(t, q, u, values_);
    kinetic = values_[0];
    potential = values_[1];
  }
  // T(q, u) and V(q) from the kinematics in the speeds.
  static GiNaC::exvector energies_of(const principles::Equations& equations) {
    sym::Differentiator differentiator(equations.model->time_functions);
    kin::Kinematics kinematics(equations.model, differentiator, kin::Rates::Speeds);
    return {principles::kinetic_energy(kinematics), principles::potential_energy(kinematics)};
  }

 private:
  CompiledEquations compiled_;
  SpeedTape energy_tape_;
  mutable std::vector<double> values_;
};

// The recursions in the speeds (num::Dynamics): no equations formed; the constraints' rows in the
// speeds beside them. `dynamics` evaluates with `parameters` (its run-time parameters' numbers;
// empty: those it was built with), T and V come from `energies` with `energy_parameters` (the
// same Dynamics, or the one a JIT's code was made from: the code has no energies).
class RecursionsInSpeeds final : public SpeedEvaluator {
 public:
  RecursionsInSpeeds(const Dynamics& dynamics, const std::vector<double>& parameters,
                     const Dynamics& energies, const std::vector<double>& energy_parameters)
      : dynamics_(dynamics), energies_(energies) {
    work_.parameters = parameters;
    energy_work_.parameters = energy_parameters;
  }
  CompiledEquations::State solve(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& u,
                                 const ConstraintTolerances& tolerances) const override {
    CompiledEquations::State s;
    rates(t, q, u, tolerances, s.qd, s.vdot);
    s.lambda = lambda_;
    dynamics_.coordinate_accelerations(t, q, u, s.vdot, s.qdd, work_);
    if (!s.qdd.allFinite())
      throw model::ComputationError("the kinematic equations are not finite at this state");
    return s;
  }
  // Without q̈ = W u̇ + γ, which only the rows need: a third of the programs per evaluation. With
  // constraints M̃ u̇ = f̃ + Ãᵀλ, Ã u̇ = b̃ (the Dynamics' rows in the speeds).
  void rates(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& u,
             const ConstraintTolerances& tolerances, Eigen::VectorXd& qd,
             Eigen::VectorXd& udot) const override {
    dynamics_.accelerations(t, q, u, udot, lambda_, work_, tolerances);
    dynamics_.coordinate_velocities(t, q, u, qd, work_);
    if (!qd.allFinite())
      throw model::ComputationError("the kinematic equations are not finite at this state");
  }
  Eigen::VectorXd velocities(double t, const Eigen::VectorXd& q,
                             const Eigen::VectorXd& u) const override {
    Eigen::VectorXd qd;
    dynamics_.coordinate_velocities(t, q, u, qd, work_);
    if (!qd.allFinite())
      throw model::ComputationError("the kinematic equations are not finite at this state");
    return qd;
  }
  void velocity_constraints(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& u,
                            Eigen::MatrixXd& A, Eigen::VectorXd& residual) const override {
    dynamics_.velocity_constraints(t, q, u, A, residual, work_);
    if (!A.allFinite() || !residual.allFinite())
      throw model::ComputationError("the constraints in the speeds are not finite at this state");
  }
  void energies(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& u, double& kinetic,
                double& potential) const override {
    energies_.energies(t, q, u, kinetic, potential, energy_work_);
  }

 private:
  const Dynamics& dynamics_;
  const Dynamics& energies_;
  mutable DynamicsWorkspace work_, energy_work_;
  mutable Eigen::VectorXd lambda_;
};

// y = (q, u), ẏ = (W u, M̃⁻¹ f̃). Exceptions are kept, never unwound through CVODE's C frames.
struct RightHandSide {
  const SpeedEvaluator& equations;
  const std::vector<std::array<Eigen::Index, 4>>& quaternions;
  Eigen::Index n, p;
  Eigen::VectorXd q, u;
  Eigen::VectorXd qd, udot;  // the rates at (q, u)
  std::exception_ptr failure;
  // With constraints: the holonomic ones in q (positions), the rest through Ã u + ã0 = 0.
  const ConstraintManifold* manifold = nullptr;
  double projection_tolerance = 0.0;
  ConstraintTolerances tolerances;

  void load(const double* y) {
    for (Eigen::Index j = 0; j < n; ++j) q[j] = y[j];
    for (Eigen::Index k = 0; k < p; ++k) u[k] = y[n + k];
  }
};

int right_hand_side(sunrealtype t, N_Vector y, N_Vector ydot, void* data) {
  auto& rhs = *static_cast<RightHandSide*>(data);
  // A signal ends CVode() at once rather than at the next output time (output_rows says why).
  if (interruption_signal() != 0) return -1;
  try {
    sym::poll_cancellation();
    rhs.load(N_VGetArrayPointer(y));
    rhs.equations.rates(t, rhs.q, rhs.u, rhs.tolerances, rhs.qd, rhs.udot);
    double* rate = N_VGetArrayPointer(ydot);
    for (Eigen::Index j = 0; j < rhs.n; ++j) rate[j] = rhs.qd[j];
    // |e| is an invariant of ė = ½ E(e) w (eᵀE(e) = 0) that only truncation errors change; a
    // radial pull κ (1 − |e|²) e, which the dynamics never see (R(e)/|e|²), keeps it at 1.
    for (const auto& group : rhs.quaternions) {
      double norm2 = 0.0;
      for (Eigen::Index j : group) norm2 += rhs.q[j] * rhs.q[j];
      for (Eigen::Index j : group) rate[j] += kNormalizationRate * (1.0 - norm2) * rhs.q[j];
    }
    for (Eigen::Index k = 0; k < rhs.p; ++k) rate[rhs.n + k] = rhs.udot[k];
    return 0;
  } catch (...) {
    rhs.failure = std::current_exception();
    return -1;
  }
}

// Puts (q, u) back on the constraints: the quaternions to length 1 and q onto φ = 0 (the
// holonomic constraints, by ConstraintManifold's Gauss–Newton), then u onto Ã u + ã0 = 0 by the
// smallest change, Δu = −Ã⁺(Ã u + ã0), redundant rows left out by the rank tolerance. False when
// the positions cannot be brought onto the constraints.
bool project_state(const RightHandSide& rhs, double t, Eigen::VectorXd& q, Eigen::VectorXd& u) {
  // |e| = 1 and φ = 0 by alternating projections: Gauss–Newton's smallest step onto φ = 0 may
  // change |e| (∇φ has a radial part off the constraint), and normalizing may change φ unless φ
  // is homogeneous in e. Each round shrinks both; R(e)'s entries written for |e| = 1 (the usual
  // constraint) are homogeneous, and one round ends it.
  auto normalize = [&] {
    double worst = 0.0;
    for (const auto& group : rhs.quaternions) {
      double norm2 = 0.0;
      for (Eigen::Index j : group) norm2 += q[j] * q[j];
      if (!(norm2 > 0.0)) continue;
      const double norm = std::sqrt(norm2);
      worst = std::max(worst, std::abs(norm - 1.0));
      for (Eigen::Index j : group) q[j] /= norm;
    }
    return worst;
  };
  normalize();
  for (int round = 0; round < 20; ++round) {
    if (!rhs.manifold->project_positions(t, q, rhs.projection_tolerance)) return false;
    if (normalize() <= rhs.projection_tolerance) break;
  }
  Eigen::MatrixXd A;
  Eigen::VectorXd residual;
  rhs.equations.velocity_constraints(t, q, u, A, residual);
  if (A.rows() > 0) u -= detail::rank_revealing(A, rhs.tolerances.rank).solve(residual);
  return true;
}

// CVODE's projection after every step (BDF only). The error estimate is not projected
// (CVodeSetProjErrEst off): the step's error is controlled as without constraints.
int project_onto_constraints(sunrealtype t, N_Vector y, N_Vector correction,
                             sunrealtype /*epsilon*/, N_Vector /*error*/, void* data) {
  auto& rhs = *static_cast<RightHandSide*>(data);
  try {
    const double* state = N_VGetArrayPointer(y);
    rhs.load(state);
    if (!project_state(rhs, t, rhs.q, rhs.u)) return 1;  // recoverable: a smaller step
    double* c = N_VGetArrayPointer(correction);
    for (Eigen::Index j = 0; j < rhs.n; ++j) c[j] = rhs.q[j] - state[j];
    for (Eigen::Index k = 0; k < rhs.p; ++k) c[rhs.n + k] = rhs.u[k] - state[rhs.n + k];
    return 0;
  } catch (...) {
    rhs.failure = std::current_exception();
    return -1;
  }
}

// What a route gives the integration besides its evaluator: the speeds of the initial velocities
// (at t, q), and with constraints the manifold that q is projected onto (its rank tolerance
// given).
using SpeedsOfVelocities =
    std::function<Eigen::VectorXd(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd)>;
using ManifoldOf = std::function<ConstraintManifold(double rank_tolerance)>;

// Integrates (q, u) by `compiled`: the one loop of both routes. `not_conservative_because` as
// SimulationResult's.
SimulationResult integrate(const model::Model& m, const SpeedEvaluator& compiled,
                           const SpeedsOfVelocities& speeds_of, const ManifoldOf& manifold_of,
                           std::string not_conservative_because, const SimulationOptions& options,
                           const RowCallback& on_row) {
  const std::vector<double>& u0 = options.u0;
  const auto n = static_cast<Eigen::Index>(m.dof());
  const auto p = static_cast<Eigen::Index>(m.speeds.size());

  check_span_and_tolerances(options);
  const auto quaternions = quaternion_coordinates(m);
  if (!u0.empty() && !options.qd0.empty())
    throw model::ModelError({"u0", 0, 0},
                            "give the initial speeds or the coordinates' initial velocities, not "
                            "both");

  Eigen::VectorXd model_q(n), model_qd(n);
  for (Eigen::Index j = 0; j < n; ++j) {
    model_q[j] = m.coordinates[static_cast<std::size_t>(j)].initial;
    model_qd[j] = m.coordinates[static_cast<std::size_t>(j)].velocity;
  }
  Eigen::VectorXd q = given_or(options.q0, model_q, "q0", "values (one per coordinate)");
  const Eigen::VectorXd qd0 = given_or(options.qd0, model_qd, "qd0", "values (one per coordinate)");
  normalize_quaternions(m, q, "q0");

  Eigen::VectorXd u(p);
  if (u0.empty()) {
    u = speeds_of(options.t_start, q, qd0);
  } else {
    u = given_or(u0, Eigen::VectorXd::Zero(p), "u0",
                 "speeds (one per speed, in the model's order)");
  }

  SimulationResult result;
  result.not_conservative_because = std::move(not_conservative_because);
  result.conservative = result.not_conservative_because.empty();

  RightHandSide rhs{compiled, quaternions, n, p, q, u, {}, {}, nullptr, nullptr, 0.0, {}};
  // The constraints, as simulate() keeps them (the same tolerances), in the speeds: the initial
  // state made consistent, then projected after every step.
  std::optional<ConstraintManifold> manifold;
  result.constraints = m.constraints.size();
  if (!m.constraints.empty()) {
    if (options.integrator != Integrator::Bdf)
      throw model::ModelError({"integrator", 0, 0},
                              "a model with constraints is integrated with bdf: CVODE projects "
                              "the state back onto the constraints only with BDF",
                              integrator_name(options.integrator));
    rhs.tolerances = constraint_tolerances_for(options.rtol, options.atol);
    rhs.projection_tolerance = std::max(1e-3 * options.atol, 1e-14);
    manifold.emplace(manifold_of(rhs.tolerances.rank));
    rhs.manifold = &*manifold;
    const Eigen::VectorXd given_q = q, given_u = u;
    if (!project_state(rhs, options.t_start, q, u)) {
      std::ostringstream s;
      s << "the initial coordinates cannot be brought onto the constraints (max |phi| = "
        << manifold->violation(options.t_start, q, Eigen::VectorXd::Zero(n)).position
        << " after Gauss-Newton)";
      throw model::ComputationError(s.str());
    }
    result.initial_correction = {(q - given_q).cwiseAbs().maxCoeff(),
                                 (u - given_u).cwiseAbs().maxCoeff()};
    Eigen::MatrixXd A0;
    Eigen::VectorXd residual0;
    compiled.velocity_constraints(options.t_start, q, u, A0, residual0);
    for (std::size_t i : redundant_constraints(A0, rhs.tolerances.rank))
      result.redundant_constraints.push_back(m.constraints[i].name);
    rhs.q = q;
    rhs.u = u;
  }
  double energy_values[2] = {0.0, 0.0};
  auto emit_row = [&](double t) {
    CompiledEquations::State s;
    try {
      s = compiled.solve(t, q, u, rhs.tolerances);
    } catch (const model::ComputationError&) {
      // Not finite or singular at this row: delivered with unknown accelerations (the
      // velocities, and with them the momenta, are known where W is); the integrator stops.
      s.qdd = Eigen::VectorXd::Constant(n, std::numeric_limits<double>::quiet_NaN());
      try {
        s.qd = compiled.velocities(t, q, u);
      } catch (const model::ComputationError&) {
        s.qd = s.qdd;
      }
      s.vdot = Eigen::VectorXd::Constant(p, std::numeric_limits<double>::quiet_NaN());
      s.lambda = Eigen::VectorXd::Constant(static_cast<Eigen::Index>(m.constraints.size()),
                                           std::numeric_limits<double>::quiet_NaN());
    }
    if (manifold) {
      const ConstraintViolation v = manifold->violation(t, q, s.qd);
      result.max_violation.position = std::max(result.max_violation.position, v.position);
      result.max_violation.velocity = std::max(result.max_violation.velocity, v.velocity);
    }
    compiled.energies(t, q, u, energy_values[0], energy_values[1]);
    const double total = energy_values[0] + energy_values[1];
    if (result.rows == 0) result.initial_energy = total;
    result.energy_drift = std::max(result.energy_drift, std::abs(total - result.initial_energy));
    result.t_reached = t;
    ++result.rows;
    on_row(SimulationRow{t, q, s.qd, energy_values[0], energy_values[1], total, s.qdd, s.lambda, u,
                         s.vdot});
  };

  Eigen::VectorXd y0(n + p);
  y0 << q, u;
  const CvodeSolver solver(y0, right_hand_side, &rhs, options);
  const double* state = solver.state();
  if (manifold) {
    expect_success(CVodeSetProjFn(solver.cvode(), project_onto_constraints), "CVodeSetProjFn");
    expect_success(CVodeSetProjErrEst(solver.cvode(), SUNFALSE), "CVodeSetProjErrEst");
  }

  emit_row(options.t_start);
  solver.output_rows(options, result, rhs.failure, [&](double reached) {
    for (Eigen::Index j = 0; j < n; ++j) q[j] = state[j];
    for (Eigen::Index k = 0; k < p; ++k) u[k] = state[n + k];
    // Rows between steps are CVODE's interpolant: normalized (and projected) like a step.
    if (manifold) {
      project_state(rhs, reached, q, u);
    } else {
      for (const auto& group : quaternions) {
        double norm2 = 0.0;
        for (Eigen::Index j : group) norm2 += q[j] * q[j];
        if (norm2 > 0.0)
          for (Eigen::Index j : group) q[j] /= std::sqrt(norm2);
      }
    }
    emit_row(reached);
  });
  return result;
}

model::Values values_with_inputs(const SimulationOptions& options) {
  model::Values values = options.values;
  for (const auto& [name, expression] : options.inputs) values.drive(name, expression);
  return values;
}

// The speeds of the velocities by Y (each speed's value; symbolic) and the manifold of the
// constraints with `values` bound: the routes that bind their values per call.
SpeedsOfVelocities speeds_by_their_values(const model::Model& m, const model::Values& values) {
  return [&m, &values](double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
    return speeds_from_velocities(m, values, t, q, qd);
  };
}

ManifoldOf manifold_with(const model::Model& m, const model::BoundValues& bound) {
  return [&m, &bound](double rank_tolerance) {
    return ConstraintManifold(m, bound.substitution(), rank_tolerance);
  };
}

}  // namespace

SimulationResult simulate_speeds(const principles::Equations& equations,
                                 const SimulationOptions& options, const RowCallback& on_row) {
  const model::Model& m = *equations.model;
  check_span_and_tolerances(options);
  const model::Values values = values_with_inputs(options);
  const model::BoundValues bound = model::bind(m, values);
  const GiNaC::exvector energies = FormedSpeedEquations::energies_of(equations);
  const FormedSpeedEquations compiled(equations, energies, values);
  // Whether E = T + V may change: from what the equations and the energies hold once bound.
  GiNaC::exvector everything = energies;
  for (const auto& e : equations.entries()) everything.push_back(e);
  GiNaC::exvector bound_expressions;
  for (const auto& e : everything)
    bound_expressions.push_back(sym::substitute(e, bound.substitution()));
  return integrate(
      m, compiled, speeds_by_their_values(m, values), manifold_with(m, bound),
      non_conservative_reason(m, sym::symbols_in(bound_expressions), bound.substitution()), options,
      on_row);
}

SimulationResult simulate_speeds(std::shared_ptr<const model::Model> model,
                                 const SimulationOptions& options, const RowCallback& on_row) {
  if (!model) throw std::invalid_argument("simulate_speeds: no model");
  if (!principles::recursions_do_not_cover(*model).empty())
    return simulate_speeds(principles::speed_form(model), options, on_row);
  check_span_and_tolerances(options);
  const model::Values values = values_with_inputs(options);
  // The Dynamics given (the JIT's, built with these values) or the recursions interpreted.
  if (options.dynamics && &options.dynamics->model() != model.get())
    throw std::invalid_argument("simulate: SimulationOptions::dynamics is of another model");
  const Dynamics dynamics = options.dynamics ? *options.dynamics : Dynamics(model, values);
  const RecursionsInSpeeds recursions(dynamics, {}, dynamics, {});
  // The values are at hand: the speeds by Y, as the formed equations' route has them, and the
  // constraints' manifold with the values bound (both symbolic, once per call).
  const model::BoundValues bound =
      model->constraints.empty() ? model::BoundValues{} : model::bind(*model, values);
  return integrate(*model, recursions, speeds_by_their_values(*model, values),
                   manifold_with(*model, bound), dynamics.energy_not_conserved_because(), options,
                   on_row);
}

SimulationResult simulate_speeds(const Dynamics& dynamics, const std::vector<double>& parameters,
                                 const SimulationOptions& options, const RowCallback& on_row) {
  if (!options.values.empty() || !options.inputs.empty())
    throw std::invalid_argument(
        "simulate: the values of a Dynamics are given when it is built (SimulationOptions::values "
        "and inputs must be empty)");
  const model::Model& m = dynamics.model();
  if (!m.constraints.empty())
    throw std::invalid_argument(
        "simulate: a Dynamics in generalized speeds with constraints is simulated from its model "
        "(simulate(model, ...)): projecting q onto the holonomic constraints needs them in q "
        "with the Dynamics' values bound, which a Dynamics does not carry");
  const std::size_t runtime = dynamics.runtime_parameters().size();
  if (!parameters.empty() && parameters.size() != runtime)
    throw std::invalid_argument("simulate: " + std::to_string(parameters.size()) + " values for " +
                                std::to_string(runtime) + " run-time parameters");
  if (options.dynamics && (&options.dynamics->model() != &m ||
                           options.dynamics->speed_count() != dynamics.speed_count()))
    throw std::invalid_argument(
        "simulate: SimulationOptions::dynamics is not of the Dynamics' model in its speeds");
  // Accelerations and kinematics from the Dynamics given (the JIT's) or from `dynamics` with this
  // case's parameters; T and V from `dynamics`. Nothing symbolic: distinct calls, distinct
  // threads.
  const RecursionsInSpeeds recursions =
      options.dynamics ? RecursionsInSpeeds(*options.dynamics, {}, dynamics, parameters)
                       : RecursionsInSpeeds(dynamics, parameters, dynamics, parameters);
  // The initial speeds by `dynamics` too: a compiled Dynamics has no W in its code, and would
  // build its interpreted programs (GiNaC) at the first call that needs it.
  return integrate(
      m, recursions,
      [&](double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
        return speeds_from_velocities(dynamics, parameters, t, q, qd);
      },
      nullptr, dynamics.energy_not_conserved_because(), options, on_row);
}

}  // namespace appell::num
