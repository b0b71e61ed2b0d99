// What numeric's two CVODE integrations share (simulate.cpp in the coordinates, simulate_speeds.cpp
// in generalized speeds): owners of the SUNDIALS handles, the checks of a setup call and of the
// options, the step statistics, and why the energy of a model need not be conserved. Internal
// to numeric (not installed).
#pragma once

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>
#include <sundials/sundials_nonlinearsolver.h>

#include <Eigen/Dense>
#include <exception>
#include <functional>
#include <optional>
#include <set>
#include <string>

#include "appell/model/model.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/sym/dag.hpp"

namespace appell::num::detail {

/// A SUNDIALS handle with the one owner that frees it. Members of this type are declared (and so
/// destroyed in reverse) in the order CVODE needs: the integrator before the solvers, matrix and
/// vectors it refers to, the context last; an exception thrown after creation frees everything.
template <typename Handle, void (*release)(Handle)>
class Owned {
 public:
  Owned(Handle handle, const char* what) : handle_(handle) {
    if (handle_ == nullptr)
      throw model::ComputationError(std::string("SUNDIALS could not create ") + what);
  }
  ~Owned() { release(handle_); }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  Handle get() const { return handle_; }

 private:
  Handle handle_;
};

void free_context(SUNContext context);
void free_vector(N_Vector v);
void free_matrix(SUNMatrix m);
void free_linear_solver(SUNLinearSolver s);
void free_nonlinear_solver(SUNNonlinearSolver s);
void free_cvode(void* memory);

/// A new SUNDIALS context, or nullptr (Owned reports it).
SUNContext new_context();

/// CVODE set up as both integrations use it: the state y from `y0`, BDF with Newton iterations
/// on a dense Jacobian (CVODE's difference quotients) or Adams with fixed-point iterations (no
/// Jacobian), the options' tolerances, step limit per output and stop time t_end (never step past
/// it: the model may not be defined there), CVODE's error messages kept. Members are declared in
/// the reverse of the order CVODE needs them freed: the integrator first, the context last.
class CvodeSolver {
 public:
  CvodeSolver(const Eigen::VectorXd& y0, CVRhsFn right_hand_side, void* user_data,
              const SimulationOptions& options);
  CvodeSolver(const CvodeSolver&) = delete;
  CvodeSolver& operator=(const CvodeSolver&) = delete;

  void* cvode() const { return cvode_.get(); }
  N_Vector y() const { return y_.get(); }
  /// The state's values (y's array).
  double* state() const { return N_VGetArrayPointer(y_.get()); }
  bool bdf() const { return bdf_; }
  /// CVODE's last error message, "" when none.
  const std::string& message() const { return message_; }

  /// Integrates to every output time t_start + k·output_step (not by accumulating the step, so
  /// no rounding drift; the last at t_end exactly) and calls `at_row(t)` with the state there;
  /// records the statistics in `result`. A failed step throws SimulationError at the time
  /// reached, with the reason: `failure` (the right-hand side's ComputationError), else CVODE's
  /// message, else its flag's name. A signal (num::interruption_signal()) seen before a step or
  /// making it fail throws SimulationError::interrupted at the last row delivered.
  void output_rows(const SimulationOptions& options, SimulationResult& result,
                   const std::exception_ptr& failure,
                   const std::function<void(double)>& at_row) const;

 private:
  bool bdf_;
  std::string message_;
  Owned<SUNContext, free_context> context_;
  Owned<N_Vector, free_vector> y_;
  std::optional<Owned<SUNMatrix, free_matrix>> jacobian_;
  std::optional<Owned<SUNLinearSolver, free_linear_solver>> linear_solver_;
  std::optional<Owned<SUNNonlinearSolver, free_nonlinear_solver>> fixed_point_;
  Owned<void*, free_cvode> cvode_;
};

/// A SUNDIALS call that returns a flag: anything negative is a failure (model::ComputationError
/// naming the call).
void expect_success(int flag, const char* call);

/// CVODE's error handler: keeps the message of an error (code < 0) in the std::string `data`.
void keep_error_message(int code, const char* module, const char* function, char* message,
                        void* data);

/// `value` as printed with the stream's defaults (for messages).
std::string shortest(double value);

/// Throws model::ModelError located at `option` unless `value` is positive and finite.
void check_positive(double value, const char* option, const char* what);

/// The k-th output time after t_start (k ≥ 1): t_start + k·H, or t_end when that is within 1e-9
/// of a step of it or past it (`last` then true). output_times() and the CVODE loop agree on it.
double output_time(double t_start, double t_end, double output_step, long k, bool& last);

/// The span, output step and tolerances of `options`, as every integration checks them
/// (model::ModelError at "t_end", "output_step", "rtol", "atol"): t_end a finite number after
/// t_start, a positive step that asks for at most options.max_rows rows, positive tolerances.
void check_span_and_tolerances(const SimulationOptions& options);

/// model::ModelError at "u0" when options.u0 is given to an integration in the coordinates: the
/// initial speeds are for equations in generalized speeds.
void refuse_initial_speeds(const SimulationOptions& options);

/// The steps taken and right-hand sides evaluated so far (with BDF also those of the Jacobian's
/// finite differences) into result.steps and result.rhs_evaluations.
void record_statistics(void* cvode, bool bdf, SimulationResult& result);

using sym::SymbolSet;

/// Why E = T + V need not be constant, or "" when it must be: a load that does work once every
/// value is bound (`numbers`, model::BoundValues::substitution(); a force input left at 0 or a
/// damper of coefficient 0 does none), or `symbols` (those of the energies and equations with
/// the values bound) holding t or a prescribed function or input.
std::string non_conservative_reason(const model::Model& m, const SymbolSet& symbols,
                                    const GiNaC::exmap& numbers);

}  // namespace appell::num::detail
