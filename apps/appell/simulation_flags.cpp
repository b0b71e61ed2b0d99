#include "simulation_flags.hpp"

#include <cmath>
#include <iostream>
#include <utility>

#include "appell/report/html_writer.hpp"
#include "appell/report/report.hpp"
#include "appell/sym/cancellation.hpp"
#include "output_paths.hpp"

namespace appell::cli {

num::SimulationOptions simulation_options(const model::Model& model, const SimulationFlags& o) {
  num::SimulationOptions options;
  options.t_end = parse_number("--t-end", o.t_end);
  options.rtol = parse_number("--rtol", o.rtol);
  options.atol = parse_number("--atol", o.atol);
  options.output_step = parse_number("--output-step", o.output_step);
  const double max_rows = parse_number("--max-rows", o.max_rows);
  if (!(max_rows >= 1 && max_rows <= 1e12 && max_rows == std::floor(max_rows)))
    throw usage_error("--max-rows", "expected a whole number from 1 to 1e12", o.max_rows);
  options.max_rows = static_cast<long>(max_rows);
  if (!o.q0.empty()) options.q0 = parse_list("--q0", o.q0);
  if (!o.qd0.empty()) options.qd0 = parse_list("--qd0", o.qd0);
  const auto integrator = num::parse_integrator(o.integrator);
  if (!integrator)
    throw usage_error("--integrator", "unknown integrator (bdf, adams)", o.integrator);
  options.integrator = *integrator;
  options.values = parse_assignments(o.set);
  for (const auto& item : o.inputs) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw usage_error("--input", "expected NAME=EXPR", item);
    const std::string name = item.substr(0, eq);
    if (options.values.driven().count(name)) throw usage_error("--input", "given twice", name);
    GiNaC::ex expression;
    try {
      expression = num::parse_time_function(model, item.substr(eq + 1));
    } catch (const model::ModelError& e) {
      throw at_option(e, {{"input", "--input"}});
    }
    options.values.drive(name, expression, model::SourceLocation{"--input", 0, 0});
  }
  return options;
}

model::ModelError at_simulation_option(const model::ModelError& error) {
  return at_option(error, {{"t_end", "--t-end"},
                           {"output_step", "--output-step"},
                           {"rtol", "--rtol"},
                           {"atol", "--atol"},
                           {"q0", "--q0"},
                           {"qd0", "--qd0"},
                           {"u0", "--u0"},
                           {"integrator", "--integrator"}});
}

void write_report_file(const std::string& path, const report::Report& contents,
                       const std::string& option) {
  write_output(option, path, report::write_html(contents));
}

void print_energy(const num::SimulationResult& r) {
  if (r.conservative)
    std::cout << "  energy E0 = " << r.initial_energy << ", drift max|E - E0| = " << r.energy_drift;
  else
    std::cout << "  energy E0 = " << r.initial_energy << ", change max|E - E0| = " << r.energy_drift
              << " (not conserved: " << r.not_conservative_because << ")";
  if (r.conservative && r.initial_energy != 0.0)
    std::cout << " (relative " << r.energy_drift / std::abs(r.initial_energy) << ")";
  std::cout << "\n";
}

void print_constraints(const num::SimulationResult& r, const std::string& velocities) {
  if (r.constraints == 0) return;
  std::cout << "  constraints: " << r.constraints
            << " (projected after every step), max violation |phi| = " << r.max_violation.position
            << ", velocity level " << r.max_violation.velocity << "\n";
  if (r.initial_correction.position > 0 || r.initial_correction.velocity > 0)
    std::cout << "  the initial state was projected onto the constraints: max |dq| = "
              << r.initial_correction.position << ", max |" << velocities
              << "| = " << r.initial_correction.velocity << "\n";
  if (!r.redundant_constraints.empty())
    std::cout << "  redundant constraints (combinations of the others at t = 0): "
              << join_names(r.redundant_constraints)
              << "; their multipliers are the minimum-norm ones\n";
}

void write_simulation_report(std::shared_ptr<const model::Model> model,
                             report::SimulationRecording recording, const std::string& path) {
  // The page of a run a signal stopped is still made: the signal has done its work (the run
  // ended after a whole row); the derivations the page needs must not see it again.
  const sym::CancellationScope finish_the_page([] { return false; });
  report::ReportOptions options;
  options.simulation = recording.options();
  write_report_file(path, report::make_report(model, options, std::move(recording)), "--report");
  std::cout << "report written to " << path << "\n";
}

}  // namespace appell::cli
