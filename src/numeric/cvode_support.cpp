#include "cvode_support.hpp"

#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <type_traits>
#include <unordered_set>
#include <variant>

#include "appell/numeric/interruption.hpp"
#include "appell/sym/cancellation.hpp"
#include "appell/sym/dag.hpp"

namespace appell::num::detail {

using GiNaC::ex;

void free_context(SUNContext context) { SUNContext_Free(&context); }
void free_vector(N_Vector v) { N_VDestroy(v); }
void free_matrix(SUNMatrix m) { SUNMatDestroy(m); }
void free_linear_solver(SUNLinearSolver s) { SUNLinSolFree(s); }
void free_nonlinear_solver(SUNNonlinearSolver s) { SUNNonlinSolFree(s); }
void free_cvode(void* memory) { CVodeFree(&memory); }

SUNContext new_context() {
  SUNContext context = nullptr;
  return SUNContext_Create(nullptr, &context) == 0 ? context : nullptr;
}

double output_time(double t_start, double t_end, double output_step, long k, bool& last) {
  const double target = t_start + static_cast<double>(k) * output_step;
  last = target >= t_end - 1e-9 * std::min(output_step, t_end - t_start);
  return last ? t_end : target;
}

}  // namespace appell::num::detail

namespace appell::num {

std::vector<double> output_times(double t_start, double t_end, double output_step) {
  std::vector<double> times{t_start};
  for (long k = 1;; ++k) {
    bool last = false;
    times.push_back(detail::output_time(t_start, t_end, output_step, k, last));
    if (last) return times;
  }
}

}  // namespace appell::num

namespace appell::num::detail {

void CvodeSolver::output_rows(const SimulationOptions& options, SimulationResult& result,
                              const std::exception_ptr& failure,
                              const std::function<void(double)>& at_row) const {
  for (long k = 1;; ++k) {
    // A signal (SIGINT, SIGTERM) ends the run after the last whole row, as a failure would.
    if (const int signal = interruption_signal(); signal != 0) {
      record_statistics(cvode(), bdf(), result);
      throw SimulationError::interrupted(signal, result);
    }
    bool last = false;
    const double target = output_time(options.t_start, options.t_end, options.output_step, k, last);
    sunrealtype reached = options.t_start;
    const int flag = CVode(cvode(), target, y(), &reached, CV_NORMAL);
    if (flag < 0) {
      record_statistics(cvode(), bdf(), result);
      // The right-hand side refuses to go on once a signal came: the run was interrupted after
      // its last row, whatever else CVODE says.
      if (const int signal = interruption_signal(); signal != 0)
        throw SimulationError::interrupted(signal, result);
      sunrealtype current = result.t_reached;
      CVodeGetCurrentTime(cvode(), &current);
      std::string reason;
      if (failure) {
        try {
          std::rethrow_exception(failure);
        } catch (const model::ComputationError& e) {
          reason = e.what();  // anything else (bad_alloc, ...) propagates as it is
        }
      } else if (!message().empty()) {
        reason = message();
      } else {
        char* name = CVodeGetReturnFlagName(flag);
        reason = std::string("CVODE failed with ") + (name ? name : std::to_string(flag));
        std::free(name);
      }
      throw SimulationError(current, reason, result);
    }
    at_row(reached);
    if (last) break;
  }
  record_statistics(cvode(), bdf(), result);
}

void expect_success(int flag, const char* call) {
  if (flag < 0)
    throw model::ComputationError(std::string("CVODE setup failed in ") + call + " (flag " +
                                  std::to_string(flag) + ")");
}

void keep_error_message(int code, const char* /*module*/, const char* /*function*/, char* message,
                        void* data) {
  if (code < 0) *static_cast<std::string*>(data) = message;
}

CvodeSolver::CvodeSolver(const Eigen::VectorXd& y0, CVRhsFn right_hand_side, void* user_data,
                         const SimulationOptions& options)
    : bdf_(options.integrator == Integrator::Bdf),
      context_(new_context(), "a context"),
      y_(N_VNew_Serial(static_cast<sunindextype>(y0.size()), context_.get()), "a state vector"),
      cvode_(CVodeCreate(bdf_ ? CV_BDF : CV_ADAMS, context_.get()), "the integrator") {
  const auto size = static_cast<sunindextype>(y0.size());
  double* values = state();
  for (Eigen::Index k = 0; k < y0.size(); ++k) values[k] = y0[k];
  void* cvode = cvode_.get();
  expect_success(CVodeInit(cvode, right_hand_side, options.t_start, y_.get()), "CVodeInit");
  expect_success(CVodeSetUserData(cvode, user_data), "CVodeSetUserData");
  expect_success(CVodeSetErrHandlerFn(cvode, keep_error_message, &message_),
                 "CVodeSetErrHandlerFn");
  expect_success(CVodeSStolerances(cvode, options.rtol, options.atol), "CVodeSStolerances");
  expect_success(CVodeSetMaxNumSteps(cvode, options.max_steps_per_output), "CVodeSetMaxNumSteps");
  expect_success(CVodeSetStopTime(cvode, options.t_end), "CVodeSetStopTime");
  if (bdf_) {
    jacobian_.emplace(SUNDenseMatrix(size, size, context_.get()), "a dense matrix");
    linear_solver_.emplace(SUNLinSol_Dense(y_.get(), jacobian_->get(), context_.get()),
                           "a dense linear solver");
    expect_success(CVodeSetLinearSolver(cvode, linear_solver_->get(), jacobian_->get()),
                   "CVodeSetLinearSolver");
  } else {
    fixed_point_.emplace(SUNNonlinSol_FixedPoint(y_.get(), 0, context_.get()),
                         "a fixed-point solver");
    expect_success(CVodeSetNonlinearSolver(cvode, fixed_point_->get()), "CVodeSetNonlinearSolver");
  }
}

std::string shortest(double value) {
  std::ostringstream s;
  s << value;
  return s.str();
}

void check_positive(double value, const char* option, const char* what) {
  if (!(value > 0.0) || !std::isfinite(value))
    throw model::ModelError({option, 0, 0}, std::string(what) + " must be a positive number",
                            shortest(value));
}

void refuse_initial_speeds(const SimulationOptions& options) {
  if (!options.u0.empty())
    throw model::ModelError({"u0", 0, 0},
                            "initial speeds are for equations in generalized speeds; give the "
                            "coordinates' initial velocities (qd0)");
}

void check_span_and_tolerances(const SimulationOptions& options) {
  if (!(options.t_end > options.t_start) || !std::isfinite(options.t_end))
    throw model::ModelError({"t_end", 0, 0}, "must be a number greater than the start time",
                            shortest(options.t_end));
  check_positive(options.output_step, "output_step", "the output step");
  // A span and step that ask for more rows than anyone reads (t_end 1e300, a step of 1e-10)
  // would run and write without bound: refuse before integrating.
  if (const double rows = (options.t_end - options.t_start) / options.output_step + 1;
      !(rows <= static_cast<double>(options.max_rows))) {
    // Blame what the caller chose: with the default output step that is the span (t_end 1e5
    // at the default 0.01 s), not the step they never gave. Both are named either way.
    const bool default_step = options.output_step == SimulationOptions{}.output_step;
    const std::string count =
        rows < 1e15 ? std::to_string(static_cast<long long>(std::ceil(rows))) : shortest(rows);
    throw model::ModelError({default_step ? "t_end" : "output_step", 0, 0},
                            "t_end = " + shortest(options.t_end) + " with a row every " +
                                shortest(options.output_step) +
                                (default_step ? " (the default output step)" : "") + " asks for " +
                                count + " output rows, more than the limit of " +
                                std::to_string(options.max_rows) +
                                "; take a shorter span or a larger output step, or raise the limit",
                            shortest(default_step ? options.t_end : options.output_step));
  }
  check_positive(options.rtol, "rtol", "the relative tolerance");
  check_positive(options.atol, "atol", "the absolute tolerance");
}

void record_statistics(void* cvode, bool bdf, SimulationResult& result) {
  long steps = 0, rhs = 0, jacobian_rhs = 0;
  CVodeGetNumSteps(cvode, &steps);
  CVodeGetNumRhsEvals(cvode, &rhs);
  if (bdf) CVodeGetNumLinRhsEvals(cvode, &jacobian_rhs);
  result.steps = steps;
  result.rhs_evaluations = rhs + jacobian_rhs;
}

namespace {

// A load that the bound values make vanish does no work: a force input left at 0, a damper of
// coefficient 0, a generalized force tau - b*dot(q) with tau unset and b = 0.
bool load_vanishes(const model::Load& load, const GiNaC::exmap& numbers) {
  auto zero = [&](const ex& e) {
    const ex value = sym::substitute(e, numbers);
    return value.is_zero() || value.expand().is_zero();
  };
  auto all_zero = [&](const model::Vector3& v) { return zero(v[0]) && zero(v[1]) && zero(v[2]); };
  return std::visit(
      [&](const auto& l) {
        using T = std::decay_t<decltype(l)>;
        if constexpr (std::is_same_v<T, model::ForceLoad>) return all_zero(l.force);
        if constexpr (std::is_same_v<T, model::TorqueLoad>) return all_zero(l.torque);
        if constexpr (std::is_same_v<T, model::DamperLoad>) return zero(l.coefficient);
        if constexpr (std::is_same_v<T, model::GeneralizedLoad>) return zero(l.value);
        return false;
      },
      load.kind);
}

}  // namespace

std::string non_conservative_reason(const model::Model& m, const SymbolSet& symbols,
                                    const GiNaC::exmap& numbers) {
  for (const auto& load : m.loads) {
    if (load_vanishes(load, numbers)) continue;
    const char* kind = std::visit(
        [](const auto& l) -> const char* {
          using T = std::decay_t<decltype(l)>;
          if constexpr (std::is_same_v<T, model::ForceLoad>) return "a force load";
          if constexpr (std::is_same_v<T, model::TorqueLoad>) return "a torque load";
          if constexpr (std::is_same_v<T, model::DamperLoad>) return "a damper";
          if constexpr (std::is_same_v<T, model::GeneralizedLoad>) return "a generalized force";
          return nullptr;
        },
        load.kind);
    if (kind) return std::string("the model has ") + kind;
  }
  for (const auto& s : symbols) {
    const auto& symbol = GiNaC::ex_to<GiNaC::symbol>(s);
    if (symbol == m.time_functions->time()) return "the equations depend on t explicitly";
    // Coordinates and generalized speeds are the state; prescribed functions and inputs are not.
    const auto which = m.time_functions->lookup(symbol);
    if (which && m.time_functions->kind(which->function) == sym::TimeFunctionKind::Prescribed)
      return "the equations depend on " + which->function;
  }
  return "";
}

}  // namespace appell::num::detail
