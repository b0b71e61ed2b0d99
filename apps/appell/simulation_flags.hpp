// The options of a simulation as the command line gives them (`simulate`, `report`): parsed into
// num::SimulationOptions in one place, and the library's errors about them located at the flags.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/report/simulation_recording.hpp"
#include "cli_support.hpp"

namespace appell::report {
struct Report;
}

namespace appell::cli {

/// The flags' texts, as CLI11 stores them.
struct SimulationFlags {
  std::string t_end, q0, qd0, rtol = "1e-8", atol = "1e-8", output_step = "0.01",
                              integrator = "bdf", max_rows = "10000000";
  std::string u0;  // the initial speeds of a model with generalized speeds (simulate --u0)
  std::vector<std::string> inputs, set;
};

/// --t-end, --q0, --qd0, --rtol, --atol, --output-step, --integrator, --max-rows, --input and
/// --set parsed (usage_error at the flag for a bad one); --input's expressions parsed against
/// `model`.
num::SimulationOptions simulation_options(const model::Model& model, const SimulationFlags& flags);

/// A library error about the simulation options (located at "t_end", "q0", ...) relocated at
/// the flag that gave the value (at_option).
model::ModelError at_simulation_option(const model::ModelError& error);

/// Writes report::write_html(contents) to `path` (write_output: usage_error at `option` when it
/// cannot be opened, ComputationError naming it when a write fails).
void write_report_file(const std::string& path, const report::Report& contents,
                       const std::string& option = "--out");

/// simulate's energy line: E0 and how far E strayed from it, "drift" when E should be constant
/// (relative too), "change" with the reason when it need not be.
void print_energy(const num::SimulationResult& r);

/// simulate's constraint lines (nothing without constraints): the largest violations, the initial
/// state's projection (`velocities` names what was projected: "dq/dt", or "u" in the speeds) and
/// the redundant constraints.
void print_constraints(const num::SimulationResult& r, const std::string& velocities);

/// simulate --report: the page of this run (report::make_report with the rows kept), marked
/// incomplete when the run stopped early, written to `path`.
void write_simulation_report(std::shared_ptr<const model::Model> model,
                             report::SimulationRecording recording, const std::string& path);

}  // namespace appell::cli
