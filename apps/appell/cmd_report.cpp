// appell report: one self-contained HTML page of a model — its equations typeset, the verify
// table, plots of a simulation and a 3-D animation (report/). Exit 1 when a part failed (the page
// is still written, marked incomplete with the reason).
#include <iostream>
#include <limits>

#include "appell/numeric/interruption.hpp"
#include "appell/report/html_writer.hpp"
#include "appell/report/report.hpp"
#include "cli_support.hpp"
#include "output_paths.hpp"
#include "simulation_flags.hpp"

namespace appell::cli {

namespace {

struct ReportCommandOptions {
  UrdfFlags urdf;  // how a URDF model is read
  std::string model, out, method = "gibbs-appell", verify = "auto";
  SimulationFlags simulation = [] {
    SimulationFlags flags;
    flags.t_end = "5";  // seconds simulated when --t-end is not given
    return flags;
  }();
  bool no_simulation = false;
};

int run_report(const ReportCommandOptions& o) {
  report::ReportOptions options;
  options.method = method_option(o.method);
  options.simulate = !o.no_simulation;
  if (o.verify == "none")
    options.verify = false;
  else if (o.verify == "numeric")
    options.symbolic_verify_limit = 0;
  else if (o.verify == "full")
    options.symbolic_verify_limit = std::numeric_limits<std::size_t>::max();
  else if (o.verify != "auto")
    throw usage_error("--verify", "expected auto, full, numeric or none", o.verify);
  auto model = read_model(o.model, o.urdf);
  check_output_paths(model_inputs("MODEL", *model), {{"--out", o.out}});
  options.simulation = simulation_options(*model, o.simulation);
  if (!o.simulation.u0.empty()) {
    if (!model->has_speeds())
      throw usage_error("--u0", "the model has no generalized speeds (speeds:, rot_quat)",
                        o.simulation.u0);
    options.simulation.u0 = parse_list("--u0", o.simulation.u0);
  }
  report::Report contents;
  try {
    contents = report::make_report(model, options);
  } catch (const model::ModelError& e) {
    throw at_simulation_option(e);
  }
  write_report_file(o.out, contents);
  std::cout << "report of " << model->name << " written to " << o.out << "\n";
  for (const auto& reason : contents.incomplete) std::cout << "  INCOMPLETE: " << reason << "\n";
  // A signal stopped the simulation: the page says so; the exit status too (128 + signal).
  if (const int signal = num::interruption_signal(); signal != 0)
    throw num::Interrupted(signal, "interrupted");
  if (!contents.complete()) {
    std::cerr << "appell: computation failed: the report is incomplete: "
              << contents.incomplete.front() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

void add_report_command(CLI::App& app, Commands& commands) {
  auto o = std::make_shared<ReportCommandOptions>();
  auto* r = app.add_subcommand(
      "report",
      "one self-contained HTML page: the model, its equations typeset, the verify table, plots "
      "and a 3-D animation of a simulation");
  r->add_option("MODEL", o->model, "model file (YAML or URDF)")->required();
  add_urdf_options(*r, o->urdf);
  r->add_option("--out", o->out, "the HTML file to write")->required();
  r->add_option("--method", o->method,
                "the equations shown and integrated: lagrange | gibbs-appell (default) | "
                "dalembert | gauss | nielsen");
  r->add_option("--verify", o->verify,
                "the verify table: auto (default: symbolic and numeric, numeric alone for "
                "equations of more than 500 nodes) | full | numeric | none");
  r->add_flag("--no-simulation", o->no_simulation,
              "no simulation: the model drawn in its initial state");
  r->add_option("--t-end", o->simulation.t_end, "end time of the simulation (default 5)");
  r->add_option("--q0", o->simulation.q0, "initial coordinates V1,V2,.. (default: the model's)");
  r->add_option("--qd0", o->simulation.qd0, "initial velocities V1,V2,.. (default: the model's)");
  r->add_option("--u0", o->simulation.u0,
                "a model with generalized speeds: the initial speeds V1,V2,.. (default: from the "
                "velocities)");
  r->add_option("--rtol", o->simulation.rtol, "relative tolerance (default 1e-8)");
  r->add_option("--atol", o->simulation.atol, "absolute tolerance (default 1e-8)");
  r->add_option("--output-step", o->simulation.output_step, "time between rows (default 0.01)");
  r->add_option("--integrator", o->simulation.integrator, "bdf (default) | adams");
  r->add_option("--input", o->simulation.inputs,
                "NAME=EXPR: an input as an expression of t; repeatable");
  r->add_option("--set", o->simulation.set,
                "NAME=VALUE for a parameter or a constant input; repeatable");
  r->add_option("--max-rows", o->simulation.max_rows,
                "the most rows a simulation may ask for (default 1e7); the page keeps at most "
                "2000 of them, evenly spaced");
  commands.push_back({r, [o] { return run_report(*o); }});
}

}  // namespace appell::cli
