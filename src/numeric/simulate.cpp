#include "appell/numeric/simulate.hpp"

#include <cvode/cvode.h>
#include <cvode/cvode_proj.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include <cmath>
#include <cstdlib>
#include <exception>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <variant>

#include "appell/kinematics/kinematics.hpp"
#include "appell/model/expression_parser.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/dynamics.hpp"
#include "appell/numeric/interruption.hpp"
#include "appell/numeric/tape.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/lagrange.hpp"
#include "appell/principles/potential_energy.hpp"
#include "appell/principles/recursive_dynamics.hpp"
#include "appell/principles/speed_form.hpp"
#include "appell/sym/cancellation.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/differentiator.hpp"
#include "cvode_support.hpp"
#include "dynamics_evaluator.hpp"
#include "simulate_speeds.hpp"

namespace appell::num {

using namespace detail;

using GiNaC::ex;

std::string integrator_name(Integrator integrator) {
  return integrator == Integrator::Bdf ? "bdf" : "adams";
}

std::optional<Integrator> parse_integrator(const std::string& name) {
  if (name == "bdf") return Integrator::Bdf;
  if (name == "adams") return Integrator::Adams;
  return std::nullopt;
}

namespace {

std::string stopped_message(double t, const std::string& reason) {
  std::ostringstream s;
  s.precision(10);
  s << "integration stopped at t = " << t << ": " << reason;
  return s.str();
}

}  // namespace

SimulationError::SimulationError(double time_reached, std::string reason, SimulationResult partial)
    : SimulationError(stopped_message(time_reached, reason), time_reached, reason,
                      std::move(partial), 0) {}

SimulationError::SimulationError(std::string what, double time_reached, std::string reason,
                                 SimulationResult partial, int signal)
    : model::ComputationError(what),
      time_reached_(time_reached),
      reason_(std::move(reason)),
      partial_(std::move(partial)),
      signal_(signal) {}

SimulationError SimulationError::interrupted(int signal, SimulationResult partial) {
  const double t = partial.t_reached;
  const std::string what = interrupted_at(t);
  return SimulationError(what, t, "interrupted (" + signal_name(signal) + ")", std::move(partial),
                         signal);
}

GiNaC::ex parse_time_function(const model::Model& model, const std::string& text) {
  model::ExpressionScope scope(model.time_functions);
  for (const auto& p : model.parameters) scope.add_parameter(p.name, p.symbol);
  return model::parse_expression(text, scope, model::locate_on_one_line({"input", 0, 1}),
                                 model::Dependence::TimeAndParameters);
}

namespace {

// ---------------------------------------------------------------------------------------------

// The state y = (q, q̇) and ẏ = (q̇, q̈) with M q̈ = f (+ Aᵀλ, A q̈ = b with constraints).
// Exceptions must not unwind through CVODE's C frames: the right-hand side keeps the exception
// and returns a negative value (unrecoverable), and the caller inspects it once CVode() has
// returned.
struct RightHandSide {
  const CompiledEquations* equations;  // null when `dynamics` evaluates
  // Null: the tape of `equations`. With constraints it has their rows (q̈ and λ with
  // `tolerances`: DynamicsEvaluator::constrained_accelerations).
  const DynamicsEvaluator* dynamics;
  const ConstraintManifold* manifold;  // null without constraints
  double projection_tolerance;
  ConstraintTolerances tolerances;  // of redundant constraints, scaled to rtol and atol
  Eigen::Index n;
  Eigen::VectorXd q, qd, f, b, qdd, lambda;
  Eigen::MatrixXd M, A;
  Eigen::VectorXd position_error, velocity_error;
  std::exception_ptr failure;

  void load(const double* state) {
    for (Eigen::Index j = 0; j < n; ++j) {
      q[j] = state[j];
      qd[j] = state[n + j];
    }
  }
  // q̈ (and λ) at (t, q, q̇).
  void accelerations(double t) {
    if (dynamics && manifold) {
      dynamics->constrained_accelerations(t, q, qd, qdd, lambda, tolerances);
      return;
    }
    if (dynamics) {
      dynamics->accelerations(t, q, qd, qdd);
      return;
    }
    equations->evaluate(t, q, qd, M, f);
    if (manifold) {
      equations->constraints(A, b);
      equations->accelerations_and_multipliers(M, f, A, b, qdd, lambda, tolerances);
    } else {
      qdd = equations->accelerations(M, f);
    }
  }
};

int right_hand_side(sunrealtype t, N_Vector y, N_Vector ydot, void* data) {
  auto& rhs = *static_cast<RightHandSide*>(data);
  // A signal ends CVode() at once rather than at the next output time (output_rows says why).
  if (interruption_signal() != 0) return -1;
  try {
    sym::poll_cancellation();  // a Cancelled is kept and rethrown as it is, like bad_alloc
    rhs.load(N_VGetArrayPointer(y));
    double* rate = N_VGetArrayPointer(ydot);
    rhs.accelerations(t);
    for (Eigen::Index j = 0; j < rhs.n; ++j) {
      rate[j] = rhs.qd[j];
      rate[rhs.n + j] = rhs.qdd[j];
    }
    return 0;
  } catch (...) {
    rhs.failure = std::current_exception();
    return -1;
  }
}

// CVODE's projection after every step: the correction that puts (q, q̇) back on the constraints,
// and the error estimate's tangential part. A projection that does not converge is recoverable:
// CVODE retries with a smaller step.
int project_onto_constraints(sunrealtype t, N_Vector y, N_Vector correction,
                             sunrealtype /*epsilon*/, N_Vector error, void* data) {
  auto& rhs = *static_cast<RightHandSide*>(data);
  try {
    const double* state = N_VGetArrayPointer(y);
    rhs.load(state);
    if (!rhs.manifold->project_positions(t, rhs.q, rhs.projection_tolerance)) return 1;
    rhs.manifold->project_velocities(t, rhs.q, rhs.qd);
    double* c = N_VGetArrayPointer(correction);
    for (Eigen::Index j = 0; j < rhs.n; ++j) {
      c[j] = rhs.q[j] - state[j];
      c[rhs.n + j] = rhs.qd[j] - state[rhs.n + j];
    }
    if (error != nullptr) {
      double* e = N_VGetArrayPointer(error);
      for (Eigen::Index j = 0; j < rhs.n; ++j) {
        rhs.position_error[j] = e[j];
        rhs.velocity_error[j] = e[rhs.n + j];
      }
      rhs.manifold->project_error(t, rhs.q, rhs.position_error, rhs.velocity_error);
      for (Eigen::Index j = 0; j < rhs.n; ++j) {
        e[j] = rhs.position_error[j];
        e[rhs.n + j] = rhs.velocity_error[j];
      }
    }
    return 0;
  } catch (...) {
    rhs.failure = std::current_exception();
    return -1;
  }
}

// CVODE prints its errors on stderr unless given a handler; appell reports them itself.

// ---------------------------------------------------------------------------------------------

// options.values with options.inputs driven as well: the one set of values bound below.
model::Values all_values(const SimulationOptions& options) {
  model::Values values = options.values;
  for (const auto& [name, expression] : options.inputs) values.drive(name, expression);
  return values;
}

Eigen::VectorXd initial_values(const model::Model& m, const std::vector<double>& given,
                               const char* option, bool velocities) {
  const auto n = m.dof();
  Eigen::VectorXd v(static_cast<Eigen::Index>(n));
  if (!given.empty() && given.size() != n)
    throw model::ModelError({option, 0, 0}, "expected " + std::to_string(n) +
                                                " values (one per coordinate), got " +
                                                std::to_string(given.size()));
  for (std::size_t j = 0; j < n; ++j) {
    const double model_value = velocities ? m.coordinates[j].velocity : m.coordinates[j].initial;
    v[static_cast<Eigen::Index>(j)] = given.empty() ? model_value : given[j];
  }
  return v;
}

// The right-hand side at the initial state, its buffers sized.
RightHandSide right_hand_side_of(const CompiledEquations* equations,
                                 const DynamicsEvaluator* dynamics,
                                 const ConstraintManifold* manifold, double projection_tolerance,
                                 const ConstraintTolerances& tolerances, const Eigen::VectorXd& q0,
                                 const Eigen::VectorXd& qd0) {
  const Eigen::Index size = q0.size();
  return RightHandSide{equations,
                       dynamics,
                       manifold,
                       projection_tolerance,
                       tolerances,
                       size,
                       q0,
                       qd0,
                       Eigen::VectorXd(size),
                       Eigen::VectorXd(),
                       Eigen::VectorXd(size),
                       Eigen::VectorXd(),
                       Eigen::MatrixXd(size, size),
                       Eigen::MatrixXd(),
                       Eigen::VectorXd(size),
                       Eigen::VectorXd(size),
                       nullptr};
}

// The initial state moved onto the constraints (positions by Gauss–Newton, then velocities), the
// corrections recorded; `rows` gives A at a state, whose redundant rows are named in `result`.
void make_consistent(
    const model::Model& m, const ConstraintManifold& manifold, const SimulationOptions& options,
    double projection_tolerance, double rank_tolerance,
    const std::function<Eigen::MatrixXd(const Eigen::VectorXd& q, const Eigen::VectorXd& qd)>& rows,
    Eigen::VectorXd& q0, Eigen::VectorXd& qd0, SimulationResult& result) {
  const Eigen::VectorXd given_q = q0, given_qd = qd0;
  if (!manifold.project_positions(options.t_start, q0, projection_tolerance)) {
    std::ostringstream s;
    s << "the initial coordinates cannot be brought onto the constraints (max |phi| = "
      << manifold.violation(options.t_start, q0, qd0).position << " after Gauss-Newton)";
    throw model::ComputationError(s.str());
  }
  manifold.project_velocities(options.t_start, q0, qd0);
  result.initial_correction = {(q0 - given_q).cwiseAbs().maxCoeff(),
                               (qd0 - given_qd).cwiseAbs().maxCoeff()};
  // Redundant constraints are integrated with minimum-norm multipliers; say which they are.
  for (std::size_t i : redundant_constraints(rows(q0, qd0), rank_tolerance))
    result.redundant_constraints.push_back(m.constraints[i].name);
}

void refuse_adams_with_constraints(const model::Model& m, const SimulationOptions& options) {
  if (!m.constraints.empty() && options.integrator != Integrator::Bdf)
    throw model::ModelError({"integrator", 0, 0},
                            "a model with constraints is integrated with bdf: CVODE projects the "
                            "state back onto the constraints only with BDF",
                            integrator_name(options.integrator));
}

// CVODE over the rows: the part every route shares, once the right-hand side and the energies
// are set up (and, with constraints, the initial state made consistent).
using EnergyFunction =
    std::function<void(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                       double& kinetic, double& potential)>;

void integrate(const model::Model& m, RightHandSide& rhs, const EnergyFunction& energy,
               const SimulationOptions& options, const Eigen::VectorXd& q0,
               const Eigen::VectorXd& qd0, const RowCallback& on_row, SimulationResult& result) {
  const Eigen::Index size = rhs.n;
  Eigen::VectorXd q = q0, qd = qd0;
  auto emit_row = [&](double t) {
    rhs.q = q;
    rhs.qd = qd;
    try {
      rhs.accelerations(t);
    } catch (const model::ComputationError&) {
      // A singular M at this row: the row is still delivered, with q̈ and λ unknown (NaN), and
      // the integrator stops on it with the reason right after.
      rhs.qdd.setConstant(size, std::numeric_limits<double>::quiet_NaN());
      rhs.lambda.setConstant(static_cast<Eigen::Index>(m.constraints.size()),
                             std::numeric_limits<double>::quiet_NaN());
    }
    if (rhs.manifold) {
      const ConstraintViolation v = rhs.manifold->violation(t, q, qd);
      result.max_violation.position = std::max(result.max_violation.position, v.position);
      result.max_violation.velocity = std::max(result.max_violation.velocity, v.velocity);
    }
    double kinetic = 0.0, potential = 0.0;
    energy(t, q, qd, kinetic, potential);
    const double total = kinetic + potential;
    if (result.rows == 0) result.initial_energy = total;
    result.energy_drift = std::max(result.energy_drift, std::abs(total - result.initial_energy));
    result.t_reached = t;
    ++result.rows;
    on_row(SimulationRow{t, q, qd, kinetic, potential, total, rhs.qdd, rhs.lambda, qd, rhs.qdd});
  };

  // CVODE.
  Eigen::VectorXd y0(2 * size);
  y0 << q0, qd0;
  const CvodeSolver solver(y0, right_hand_side, &rhs, options);
  const double* state = solver.state();

  if (rhs.manifold) {
    expect_success(CVodeSetProjFn(solver.cvode(), project_onto_constraints), "CVodeSetProjFn");
    expect_success(CVodeSetProjErrEst(solver.cvode(), SUNTRUE), "CVodeSetProjErrEst");
  }

  emit_row(options.t_start);
  solver.output_rows(options, result, rhs.failure, [&](double reached) {
    for (Eigen::Index j = 0; j < size; ++j) {
      q[j] = state[j];
      qd[j] = state[size + j];
    }
    if (rhs.manifold) {
      // CVODE interpolates the rows between its (projected) steps; the interpolant leaves the
      // manifold by the interpolation error, all of it normal when the constraints leave no
      // freedom (a driven mechanism). The row is projected like a step.
      rhs.manifold->project_positions(reached, q, rhs.projection_tolerance);
      rhs.manifold->project_velocities(reached, q, qd);
    }
    emit_row(reached);
  });
}

}  // namespace

SimulationResult simulate(const principles::Equations& equations, const SimulationOptions& options,
                          const RowCallback& on_row) {
  if (equations.form == principles::Form::Minimal)
    throw std::invalid_argument(
        "simulate: the minimal form is not integrated; simulate the equations in the coordinates "
        "(M q'' = f + A^T lambda), which keep the constraints' positions");
  if (equations.form == principles::Form::Speeds) {
    if (options.dynamics)
      throw std::invalid_argument(
          "simulate: SimulationOptions::dynamics is for equations in the coordinates");
    return simulate_speeds(equations, options, on_row);
  }
  refuse_initial_speeds(options);
  const model::Model& m = *equations.model;
  const std::size_t n = m.dof();

  check_span_and_tolerances(options);
  Eigen::VectorXd q0 = initial_values(m, options.q0, "q0", false);
  Eigen::VectorXd qd0 = initial_values(m, options.qd0, "qd0", true);
  const bool constrained = !m.constraints.empty();
  refuse_adams_with_constraints(m, options);

  // Everything symbolic happens here, once: values bound, energies formed, tapes built. M, f,
  // the constraints and the energies see the same values (driven functions substituted).
  const model::Values values = all_values(options);
  const model::BoundValues bound = model::bind(m, values);
  if (options.dynamics && (constrained || options.dynamics->dof() != n))
    throw std::invalid_argument(
        constrained ? "simulate: SimulationOptions::dynamics is for models without constraints"
                    : "simulate: SimulationOptions::dynamics has the wrong number of coordinates");
  // The tape of M and f only when no Dynamics was given (building it is most of the setup).
  std::optional<CompiledEquations> compiled;
  std::optional<DynamicsOnWorkspace> given;
  if (options.dynamics)
    given.emplace(*options.dynamics);
  else
    compiled.emplace(equations, values);

  sym::Differentiator differentiator(m.time_functions);
  kin::Kinematics kinematics(equations.model, differentiator);
  const GiNaC::exmap numbers = bound.substitution();
  // The numbers enter the energy tape as variables, not substituted: GiNaC would multiply the
  // floating-point numbers of a term in its address-seeded order, and the last digit of T and V
  // would change from run to run.
  GiNaC::exmap symbolic = bound.unset;
  symbolic.insert(bound.driven.begin(), bound.driven.end());
  const GiNaC::exvector energies{
      sym::substitute(principles::kinetic_energy(kinematics), symbolic),
      sym::substitute(principles::potential_energy(kinematics), symbolic)};
  // What E may depend on once every value is bound: an input left at 0 or set to a constant is
  // no dependence on time.
  GiNaC::exvector everything{sym::substitute(energies[0], numbers),
                             sym::substitute(energies[1], numbers)};
  for (const auto& e : equations.entries()) everything.push_back(sym::substitute(e, numbers));
  const SymbolSet symbols = sym::symbols_in(everything);

  std::vector<GiNaC::symbol> state_symbols{m.time_functions->time()};
  for (int order = 0; order <= 1; ++order)
    for (std::size_t j = 0; j < n; ++j) state_symbols.push_back(m.coordinate_symbol(j, order));
  std::vector<double> energy_inputs(state_symbols.size(), 0.0);
  for (const auto& [symbol, number] : bound.numbers) {
    state_symbols.push_back(GiNaC::ex_to<GiNaC::symbol>(symbol));
    energy_inputs.push_back(GiNaC::ex_to<GiNaC::numeric>(number).to_double());
  }
  const Tape energy_tape({energies[0], energies[1]}, state_symbols);

  SimulationResult result;
  result.not_conservative_because = non_conservative_reason(m, symbols, numbers);
  result.conservative = result.not_conservative_because.empty();
  result.constraints = m.constraints.size();

  // The constraints at position and velocity level, with the driven functions' expressions and
  // every other symbol's number, and the initial state made consistent with them.
  std::optional<ConstraintManifold> manifold;
  const double projection_tolerance = std::max(1e-3 * options.atol, 1e-14);
  // Over-constrained mechanisms: the redundant constraints' rank deficiency and disagreement are
  // told from independence and inconsistency at the size of the integrator's error.
  const ConstraintTolerances tolerances = constraint_tolerances_for(options.rtol, options.atol);
  if (constrained) {
    manifold.emplace(m, numbers, tolerances.rank);
    make_consistent(
        m, *manifold, options, projection_tolerance, tolerances.rank,
        [&](const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
          Eigen::MatrixXd M0, A0;
          Eigen::VectorXd f0, b0;
          compiled->evaluate(options.t_start, q, qd, M0, f0);
          compiled->constraints(A0, b0);
          return A0;
        },
        q0, qd0, result);
  }

  RightHandSide rhs = right_hand_side_of(compiled ? &*compiled : nullptr, given ? &*given : nullptr,
                                         manifold ? &*manifold : nullptr, projection_tolerance,
                                         tolerances, q0, qd0);
  std::vector<double> energy_values(2), workspace;
  const EnergyFunction energy = [&](double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                    double& kinetic, double& potential) {
    energy_inputs[0] = t;
    for (std::size_t j = 0; j < n; ++j) {
      energy_inputs[1 + j] = q[static_cast<Eigen::Index>(j)];
      energy_inputs[1 + n + j] = qd[static_cast<Eigen::Index>(j)];
    }
    energy_tape.evaluate(energy_inputs.data(), energy_values.data(), workspace);
    kinetic = energy_values[0];
    potential = energy_values[1];
  };
  integrate(m, rhs, energy, options, q0, qd0, on_row, result);
  return result;
}

SimulationResult simulate(std::shared_ptr<const model::Model> model,
                          const SimulationOptions& options, const RowCallback& on_row) {
  if (!model) throw std::invalid_argument("simulate: no model");
  // In the speeds: the recursions in them where they cover the model, its equations otherwise.
  if (model->has_speeds()) return simulate_speeds(model, options, on_row);
  // What the recursions do not cover is integrated in its formed equations.
  if (!principles::recursions_do_not_cover(*model).empty())
    return simulate(principles::derive(model, principles::Method::GibbsAppell), options, on_row);
  check_span_and_tolerances(options);
  // No equations formed: q̈, T and V from the Dynamics given (the JIT's) or the recursions'.
  if (options.dynamics && &options.dynamics->model() != model.get())
    throw std::invalid_argument("simulate: SimulationOptions::dynamics is of another model");
  const Dynamics dynamics =
      options.dynamics ? *options.dynamics : Dynamics(model, all_values(options));
  SimulationOptions rest = options;
  rest.values = {};
  rest.inputs.clear();
  rest.dynamics = nullptr;
  return simulate(dynamics, {}, rest, on_row);
}

SimulationResult simulate(const Dynamics& dynamics, const std::vector<double>& parameters,
                          const SimulationOptions& options, const RowCallback& on_row) {
  // In the speeds: (q, u) by the loop simulate_speeds.cpp shares with the model's route.
  if (dynamics.model().has_speeds()) return simulate_speeds(dynamics, parameters, options, on_row);
  if (!options.values.empty() || !options.inputs.empty())
    throw std::invalid_argument(
        "simulate: the values of a Dynamics are given when it is built (SimulationOptions::values "
        "and inputs must be empty)");
  const model::Model& m = dynamics.model();
  const std::size_t n = m.dof();
  check_span_and_tolerances(options);
  refuse_initial_speeds(options);
  Eigen::VectorXd q0 = initial_values(m, options.q0, "q0", false);
  Eigen::VectorXd qd0 = initial_values(m, options.qd0, "qd0", true);
  const bool constrained = dynamics.constraint_count() > 0;
  refuse_adams_with_constraints(m, options);
  if (options.dynamics && (options.dynamics->dof() != n ||
                           options.dynamics->constraint_count() != dynamics.constraint_count()))
    throw std::invalid_argument(
        options.dynamics->dof() != n
            ? "simulate: SimulationOptions::dynamics has the wrong number of coordinates"
            : "simulate: SimulationOptions::dynamics has not the Dynamics' constraint rows");
  // q̈ (and with constraints A, b, λ and the projection) from the Dynamics given (the JIT's) or
  // from `dynamics` itself with this case's parameters; T and V from `dynamics`.
  const DynamicsOnWorkspace evaluator = options.dynamics
                                            ? DynamicsOnWorkspace(*options.dynamics)
                                            : DynamicsOnWorkspace(dynamics, parameters);
  SimulationResult result;
  result.not_conservative_because = dynamics.energy_not_conserved_because();
  result.conservative = result.not_conservative_because.empty();
  result.constraints = dynamics.constraint_count();
  DynamicsWorkspace work;
  work.parameters = parameters;
  // With constraints: projection onto them after every step and at the start, as the formed
  // equations' route does, with the same tolerances.
  const ConstraintTolerances tolerances = constraint_tolerances_for(options.rtol, options.atol);
  const double projection_tolerance = std::max(1e-3 * options.atol, 1e-14);
  std::optional<ConstraintManifold> manifold;
  if (constrained) {
    manifold.emplace(evaluator.constraint_manifold(tolerances.rank));
    make_consistent(
        m, *manifold, options, projection_tolerance, tolerances.rank,
        [&](const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
          Eigen::MatrixXd A0;
          Eigen::VectorXd b0;
          evaluator.constraints(options.t_start, q, qd, A0, b0);
          return A0;
        },
        q0, qd0, result);
  }
  RightHandSide rhs = right_hand_side_of(nullptr, &evaluator, manifold ? &*manifold : nullptr,
                                         projection_tolerance, tolerances, q0, qd0);
  const EnergyFunction energy = [&](double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                    double& kinetic, double& potential) {
    dynamics.energies(t, q, qd, kinetic, potential, work);
  };
  integrate(m, rhs, energy, options, q0, qd0, on_row, result);
  return result;
}

}  // namespace appell::num
