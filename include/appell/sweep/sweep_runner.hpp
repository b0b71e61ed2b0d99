// The cases of a sweep run: the model prepared once (its Dynamics built from the recursions with
// the cases' parameters read at run time, its generated code compiled once), then any number of
// cases, each a simulation on the common output grid, on any number of threads.
//
// What a case varies decides what is shared:
//   - parameters (columns NAME): run-time parameters of one num::Dynamics and numbers passed to
//     one compiled library: nothing is built per case;
//   - initial coordinates and rates (q0.NAME, qd0.NAME): the initial state only;
//   - inputs (input.NAME): code. Cases that give the same input cells share one Dynamics and one
//     library; each distinct set of input cells builds its own (once). To sweep an input's
//     amplitude or frequency, write it with parameters (--input u='A*sin(w*t)') and sweep those.
// Models with generalized speeds (speeds:, rot_quat, a URDF's floating base) run the same way,
// (q, u) integrated through the Dynamics in the speeds; their u0.NAME columns set initial speeds
// (the others follow from the velocities, by the Dynamics' W). A model the recursions do not
// cover (a carrier frame, flexible bodies), and one in generalized speeds with constraints (its
// projection is set up with GiNaC per case), is integrated in its Gibbs–Appell equations, derived
// once; its cases then run one at a time per process (GiNaC is not thread-safe): spread them over
// MPI ranks instead.
//
// A case never throws: what goes wrong with it (a bad value such as a negative mass, a singular
// mass matrix, an integrator failure) is its status, "failed: REASON", and the other cases go on.
// Results depend on the case alone: the same bits whatever the thread, the number of threads or
// ranks, or the order cases run in.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "appell/jit/compiled_dynamics.hpp"
#include "appell/model/model.hpp"
#include "appell/model/values.hpp"
#include "appell/sweep/case_result.hpp"
#include "appell/sweep/case_table.hpp"
#include "appell/sweep/sweep_settings.hpp"

namespace appell::sweep {

struct RunnerOptions {
  SweepSettings settings;  // t_end, output_step, rtol, atol, integrator, save
  /// The values every case shares (--set, --input); a case's own columns replace them.
  model::Values common;
  jit::JitOptions jit;  // the compiled generated code (enabled by default), else interpreted
};

class SweepRunner {
 public:
  /// Prepares `model` for the cases of `table` (columns checked against the model: case_column).
  /// Throws model::ModelError for bad settings (t_end, output_step, rtol, atol, integrator) or
  /// bad common values, model::ComputationError when the model cannot be prepared.
  SweepRunner(std::shared_ptr<const model::Model> model, CaseTable table, RunnerOptions options);
  ~SweepRunner();
  SweepRunner(const SweepRunner&) = delete;
  SweepRunner& operator=(const SweepRunner&) = delete;

  const model::Model& model() const;
  const CaseTable& cases() const;
  const RunnerOptions& options() const;
  /// The common output grid (output_times(settings)).
  const std::vector<double>& times() const;
  /// What evaluates q̈: "jit" (compiled generated code), "recursions" (interpreted) or
  /// "equations" (the formed Gibbs–Appell equations' tape), and why not the JIT when it was
  /// asked for (a note worth showing: the sweep is slower than it could be); empty otherwise.
  std::string evaluator() const;
  std::string note() const;
  /// Whether cases may run on several threads at once (false for the formed equations).
  bool parallel() const;

  /// Runs case `index` (< cases().size()); safe from any thread. Status "failed: REASON" for a
  /// case that cannot be run or fails; "not run" when a signal (num::interruption_signal())
  /// stopped it, so that a resumed sweep runs it again.
  CaseResult run(std::size_t index) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Runs the cases `indices` of `runner` on `jobs` threads (at least 1; 1 when the runner is not
/// parallel): each thread takes the next case not yet taken when it is done with one, so that
/// cases of different cost balance. `on_result` receives every result, one call at a time, in
/// the order the cases finish; what it throws stops the sweep (no new case is taken) and is
/// rethrown here after the running cases end. No new case is taken once a signal was recorded
/// (num::interruption_signal()); the cases not taken are not reported.
void run_cases(const SweepRunner& runner, const std::vector<std::size_t>& indices, std::size_t jobs,
               const std::function<void(CaseResult&&)>& on_result);

/// The same with the cases from `next_case`, called from any of the threads, one index at a
/// time (-1: no more): the cases another rank hands out (src/sweep/mpi).
void run_cases(const SweepRunner& runner, const std::function<long()>& next_case, std::size_t jobs,
               const std::function<void(CaseResult&&)>& on_result);

}  // namespace appell::sweep
