// appell simulate: forward dynamics with CVODE to a CSV of t, q, q̇ and the energies T, V, E.
//
// The CSV is opened when the first row arrives, so that a bad option never leaves a file behind.
// When the integration stops early, the rows reached stay in the file and a last comment line
// `# incomplete: <why>` marks it; the command then exits 1.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <set>

#include "appell/io/csv_writer.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/principles/derive.hpp"
#include "cli_support.hpp"

namespace appell::cli {

namespace {

struct SimulateOptions {
  UrdfFlags urdf;  // how a URDF model is read
  std::string model, t_end, q0, qd0, rtol = "1e-8", atol = "1e-8", output_step = "0.01",
                                     integrator = "bdf", out, max_rows = "10000000";
  std::vector<std::string> inputs, set;
};

// A one-line bar on stderr, redrawn when the shown percentage changes; only for a terminal, so
// that logs and pipes get no carriage-return noise.
class ProgressBar {
 public:
  ProgressBar(double t_start, double t_end)
      : t_start_(t_start), span_(t_end - t_start), enabled_(isatty(fileno(stderr)) != 0) {}
  ~ProgressBar() { finish(); }

  void update(double t) {
    if (!enabled_) return;
    const int percent = static_cast<int>(100.0 * (t - t_start_) / span_);
    if (percent == shown_) return;
    shown_ = percent;
    constexpr int kWidth = 40;
    const int filled = percent * kWidth / 100;
    std::cerr << "\r[" << std::string(static_cast<std::size_t>(filled), '=')
              << std::string(static_cast<std::size_t>(kWidth - filled), ' ') << "] " << std::setw(3)
              << percent << "%  t = " << std::setprecision(6) << t << std::flush;
  }
  void finish() {
    if (!enabled_ || shown_ < 0) return;
    std::cerr << "\r\033[K" << std::flush;  // erase the bar so the summary starts clean
    shown_ = -1;
  }

 private:
  double t_start_, span_;
  bool enabled_;
  int shown_ = -1;
};

void print_summary(const model::Model& model, const num::SimulationOptions& options,
                   const num::SimulationResult& r, const std::string& out, double seconds,
                   bool complete) {
  std::cout << std::setprecision(6) << "simulated " << model.name << " with "
            << num::integrator_name(options.integrator) << " (rtol " << options.rtol << ", atol "
            << options.atol << ") ";
  if (complete)
    std::cout << "to t = " << r.t_reached;
  else
    std::cout << "INCOMPLETE: last row at t = " << r.t_reached << " of " << options.t_end;
  std::cout << ": " << r.rows << " rows in " << out << "\n"
            << "  steps " << r.steps << ", right-hand side evaluations " << r.rhs_evaluations;
  if (timing_requested()) {
    std::cout << ", " << format_seconds(seconds);
    if (seconds > 0 && r.steps > 0)
      std::cout << " (" << std::setprecision(4) << r.steps / seconds << " steps/s)";
  }
  std::cout << "\n" << std::setprecision(6);
  if (r.conservative)
    std::cout << "  energy E0 = " << r.initial_energy << ", drift max|E - E0| = " << r.energy_drift;
  else
    std::cout << "  energy E0 = " << r.initial_energy << ", change max|E - E0| = " << r.energy_drift
              << " (not conserved: " << r.not_conservative_because << ")";
  if (r.conservative && r.initial_energy != 0.0)
    std::cout << " (relative " << r.energy_drift / std::abs(r.initial_energy) << ")";
  std::cout << "\n";
  if (r.constraints > 0) {
    std::cout << "  constraints: " << r.constraints
              << " (projected after every step), max violation |phi| = " << r.max_violation.position
              << ", velocity level " << r.max_violation.velocity << "\n";
    if (r.initial_correction.position > 0 || r.initial_correction.velocity > 0)
      std::cout << "  the initial state was projected onto the constraints: max |dq| = "
                << r.initial_correction.position
                << ", max |dq/dt| = " << r.initial_correction.velocity << "\n";
    if (!r.redundant_constraints.empty())
      std::cout << "  redundant constraints (combinations of the others at t = 0): "
                << join_names(r.redundant_constraints)
                << "; their multipliers are the minimum-norm ones\n";
  }
}

int run_simulate(const SimulateOptions& o) {
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

  auto model = read_model(o.model, o.urdf);

  for (const auto& item : o.inputs) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw usage_error("--input", "expected NAME=EXPR", item);
    const std::string name = item.substr(0, eq);
    if (options.values.driven().count(name)) throw usage_error("--input", "given twice", name);
    GiNaC::ex expression;
    try {
      expression = num::parse_time_function(*model, item.substr(eq + 1));
    } catch (const model::ModelError& e) {
      throw at_option(e, {{"input", "--input"}});
    }
    options.values.drive(name, expression, model::SourceLocation{"--input", 0, 0});
  }

  const auto equations = principles::derive(model, principles::Method::GibbsAppell);
  io::SimulationCsvFile csv(o.out, *model);
  // The file is created at the first row; the library locates a failure at the path.
  auto writing = [&](auto&& write) {
    try {
      write();
    } catch (const model::ModelError&) {
      throw usage_error("--out", "cannot write the file", o.out);
    }
  };
  ProgressBar progress(options.t_start, options.t_end);
  std::chrono::steady_clock::time_point first_row;
  auto on_row = [&](const num::SimulationRow& row) {
    // The clock starts at the first row: compiling the tapes is not integration time.
    if (row.t == options.t_start) first_row = std::chrono::steady_clock::now();
    writing([&] { csv.row(row); });
    progress.update(row.t);
  };
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - first_row).count();
  };
  try {
    const auto result = num::simulate(equations, options, on_row);
    const double seconds = elapsed();
    progress.finish();
    csv.close();
    print_summary(*model, options, result, o.out, seconds, true);
    return 0;
  } catch (const model::ModelError& e) {
    // Bad options, before anything was integrated: at the flags that gave them.
    throw at_option(e, {{"t_end", "--t-end"},
                        {"output_step", "--output-step"},
                        {"rtol", "--rtol"},
                        {"atol", "--atol"},
                        {"q0", "--q0"},
                        {"qd0", "--qd0"},
                        {"integrator", "--integrator"}});
  } catch (const num::SimulationError& e) {
    const double seconds = elapsed();
    progress.finish();
    writing([&] { csv.mark_incomplete(e.what()); });
    csv.close();
    print_summary(*model, options, e.partial(), o.out, seconds, false);
    throw;  // main reports it and exits 1
  }
}

}  // namespace

void add_simulate_command(CLI::App& app, Commands& commands) {
  auto o = std::make_shared<SimulateOptions>();
  auto* s = app.add_subcommand("simulate", "forward dynamics with CVODE, written to a CSV file");
  s->add_option("MODEL", o->model, "model file (YAML or URDF)")->required();
  add_urdf_options(*s, o->urdf);
  add_timing_flag(*s);
  s->add_option("--t-end", o->t_end, "end time (the simulation starts at t = 0)")->required();
  s->add_option("--q0", o->q0, "initial coordinates V1,V2,.. (default: the model's)");
  s->add_option("--qd0", o->qd0, "initial velocities V1,V2,.. (default: the model's)");
  s->add_option("--rtol", o->rtol, "relative tolerance (default 1e-8)");
  s->add_option("--atol", o->atol, "absolute tolerance (default 1e-8)");
  s->add_option("--output-step", o->output_step,
                "time between CSV rows (default 0.01; the last row is at --t-end)");
  s->add_option("--integrator", o->integrator,
                "bdf (default; Newton, dense linear solver) | adams (fixed-point iterations)");
  s->add_option("--input", o->inputs,
                "NAME=EXPR: an input (or unspecified prescribed function) as an expression of t "
                "and the parameters; repeatable");
  s->add_option("--set", o->set,
                "NAME=VALUE for a parameter, or a constant input or prescribed function; "
                "repeatable");
  s->add_option("--max-rows", o->max_rows,
                "the most output rows a run may ask for (default 1e7): more is refused before "
                "integrating");
  s->add_option("--out", o->out,
                "CSV file: t,<q..>,dot(<q>)..,T,V,E (then lambda_<constraint>.. with constraints)")
      ->required();
  commands.push_back({s, [o] { return run_simulate(*o); }});
}

}  // namespace appell::cli
