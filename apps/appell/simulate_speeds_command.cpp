#include "simulate_speeds_command.hpp"

#include <iomanip>
#include <iostream>
#include <optional>

#include "appell/io/csv_writer.hpp"
#include "appell/numeric/momenta.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/principles/recursive_dynamics.hpp"
#include "appell/principles/speed_form.hpp"
#include "cli_support.hpp"
#include "jit_flags.hpp"
#include "simulation_flags.hpp"

namespace appell::cli {

namespace {

void print_summary(const model::Model& model, const num::SimulationOptions& options,
                   const num::SimulationResult& r, const std::string& out, bool complete) {
  std::cout << std::setprecision(6) << "simulated " << model.name << " in its "
            << model.speeds.size() << " speeds with " << num::integrator_name(options.integrator)
            << " (rtol " << options.rtol << ", atol " << options.atol << ") ";
  if (complete)
    std::cout << "to t = " << r.t_reached;
  else
    std::cout << "INCOMPLETE: last row at t = " << r.t_reached << " of " << options.t_end;
  std::cout << ": " << r.rows << " rows in " << out << "\n"
            << "  steps " << r.steps << ", right-hand side evaluations " << r.rhs_evaluations
            << "\n";
  print_energy(r);
  print_constraints(r, "u");
  if (!model.quaternions.empty())
    std::cout << "  quaternions normalized in every row (|e| held at 1 while integrating)\n";
}

}  // namespace

int run_simulate_speeds(std::shared_ptr<const model::Model> model, const SimulationFlags& flags,
                        const std::string& out, bool reactions, const std::string& report,
                        bool no_jit) {
  if (reactions)
    throw usage_error("--reactions", "not computed yet for a model with generalized speeds",
                      model->name);
  num::SimulationOptions options = simulation_options(*model, flags);
  if (!flags.u0.empty()) options.u0 = parse_list("--u0", flags.u0);

  model::Values values = options.values;
  for (const auto& [name, expression] : options.inputs) values.drive(name, expression);
  io::SimulationCsvFile csv(
      out, *model, {io::momentum_columns(std::make_shared<num::CompiledMomenta>(model, values))});
  auto writing = [&](auto&& write) {
    try {
      write();
    } catch (const model::ModelError&) {
      throw usage_error("--out", "cannot write the file", out);
    }
  };
  // With --report, the rows kept for the page (at most 2000, evenly spaced).
  std::optional<report::SimulationRecording> recording;
  if (!report.empty()) recording.emplace(options);
  auto on_row = [&](const num::SimulationRow& row) {
    writing([&] { csv.row(row, row.v); });
    if (recording) recording->add(row, row.v);
  };
  try {
    // The recursions in the speeds where they cover the model (their generated code compiled,
    // or interpreted), its equations otherwise.
    if (principles::recursions_do_not_cover(*model).empty())
      options.dynamics = std::make_shared<const num::Dynamics>(
          compiled_dynamics(model, values, no_jit, "simulate"));
    const auto result = num::simulate(model, options, on_row);
    csv.close();
    print_summary(*model, options, result, out, true);
    if (recording) {
      recording->finish(result);
      write_simulation_report(model, *recording, report);
    }
    return 0;
  } catch (const model::ModelError& e) {
    throw at_simulation_option(e);
  } catch (const num::SimulationError& e) {
    writing([&] { csv.mark_incomplete(e.what()); });
    csv.close();
    print_summary(*model, options, e.partial(), out, false);
    if (recording) {
      recording->fail(e);
      write_simulation_report(model, *recording, report);
    }
    throw;
  }
}

}  // namespace appell::cli
