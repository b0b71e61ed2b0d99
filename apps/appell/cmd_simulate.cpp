// appell simulate: forward dynamics with CVODE to a CSV of t, q, q̇ and the energies T, V, E.
//
// The CSV is opened when the first row arrives, so that a bad option never leaves a file behind.
// When the integration stops early, the rows reached stay in the file and a last comment line
// `# incomplete: <why>` marks it; the command then exits 1. SIGINT or SIGTERM stops it the same
// way (`# incomplete: interrupted at t = T`, T the last row's time), then exits 130 or 143.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <set>

#include "appell/io/csv_writer.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/recursive_dynamics.hpp"
#include "appell/report/report.hpp"
#include "cli_support.hpp"
#include "jit_flags.hpp"
#include "output_paths.hpp"
#include "simulate_speeds_command.hpp"
#include "simulation_flags.hpp"
#include "standard_streams.hpp"

namespace appell::cli {

namespace {

struct SimulateOptions {
  UrdfFlags urdf;  // how a URDF model is read
  std::string model, out, report;
  SimulationFlags flags;
  bool reactions = false;
  bool no_jit = false;
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
    // Numbers only, and the carriage return that redraws the bar: unescaped.
    unescaped_stderr() << "\r[" << std::string(static_cast<std::size_t>(filled), '=')
                       << std::string(static_cast<std::size_t>(kWidth - filled), ' ') << "] "
                       << std::setw(3) << percent << "%  t = " << std::setprecision(6) << t
                       << std::flush;
  }
  void finish() {
    if (!enabled_ || shown_ < 0) return;
    unescaped_stderr() << "\r\033[K" << std::flush;  // erase the bar: the summary starts clean
    shown_ = -1;
  }

 private:
  double t_start_, span_;
  bool enabled_;
  int shown_ = -1;
};

// 14663 -> "14,663".
std::string thousands(long long value) {
  std::string digits = std::to_string(value < 0 ? -value : value), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

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
  print_energy(r);
  print_constraints(r, "dq/dt");
}

int run_simulate(const SimulateOptions& o) {
  auto model = read_model(o.model, o.urdf);
  warn_coordinates_moving_no_mass(*model);
  check_output_paths(model_inputs("MODEL", *model), {{"--out", o.out}, {"--report", o.report}});
  if (model->has_speeds())
    return run_simulate_speeds(model, o.flags, o.out, o.reactions, o.report, o.no_jit);
  if (!o.flags.u0.empty())
    throw usage_error("--u0", "the model has no generalized speeds (speeds:, rot_quat)",
                      o.flags.u0);
  num::SimulationOptions options = simulation_options(*model, o.flags);
  // With --report, the rows kept for the page (at most 2000, evenly spaced).
  std::optional<report::SimulationRecording> recording;
  if (!o.report.empty()) recording.emplace(options);

  // A tree the recursions cover is integrated without forming its equations (num::simulate of
  // the model); other models in their Gibbs–Appell equations.
  const bool by_recursions = principles::recursions_do_not_cover(*model).empty();
  std::optional<principles::Equations> equations;
  if (!by_recursions) equations = principles::derive(model, principles::Method::GibbsAppell);
  // After the simulation's own columns: the momenta, and with --reactions every frame's reaction.
  model::Values values = options.values;
  for (const auto& [name, expression] : options.inputs) values.drive(name, expression);
  std::vector<io::ExtraColumns> extra{
      io::momentum_columns(std::make_shared<num::CompiledMomenta>(model, values))};
  if (o.reactions)
    extra.push_back(io::reaction_columns(std::make_shared<num::CompiledReactions>(model, values)));
  io::SimulationCsvFile csv(o.out, *model, std::move(extra));
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
    if (recording) recording->add(row);
    progress.update(row.t);
  };
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - first_row).count();
  };
  // The speed of this run on stderr (a time: never on stdout, which stays the same bytes).
  std::string evaluator = "tape";
  auto print_speed = [&](const num::SimulationResult& r, double seconds) {
    std::cerr << "appell simulate: " << r.steps << " steps in " << std::fixed
              << std::setprecision(seconds < 10 ? 3 : 1) << seconds << " s, "
              << thousands(seconds > 0 ? static_cast<long long>(std::llround(r.steps / seconds))
                                       : 0)
              << " steps/s (" << evaluator << ")\n"
              << std::defaultfloat;
  };
  try {
    if (by_recursions) {
      // q̈ by the compiled generated code of the recursions (or the recursions interpreted);
      // with constraints their rows, λ and projection by the same code.
      options.dynamics = std::make_shared<const num::Dynamics>(
          compiled_dynamics(model, values, o.no_jit, "simulate"));
      evaluator = options.dynamics->kind();
    }
    // Otherwise (what the recursions do not cover) the formed equations' tape.
    const auto result = by_recursions ? num::simulate(model, options, on_row)
                                      : num::simulate(*equations, options, on_row);
    const double seconds = elapsed();
    progress.finish();
    print_speed(result, seconds);
    csv.close();
    print_summary(*model, options, result, o.out, seconds, true);
    if (recording) {
      recording->finish(result);
      write_simulation_report(model, *recording, o.report);
    }
    return 0;
  } catch (const model::ModelError& e) {
    // Bad options, before anything was integrated: at the flags that gave them.
    throw at_simulation_option(e);
  } catch (const num::SimulationError& e) {
    const double seconds = elapsed();
    progress.finish();
    print_speed(e.partial(), seconds);
    writing([&] { csv.mark_incomplete(e.what()); });
    csv.close();
    print_summary(*model, options, e.partial(), o.out, seconds, false);
    if (recording) {
      recording->fail(e);
      write_simulation_report(model, *recording, o.report);
    }
    throw;  // main reports it and exits 1 (128 + the signal when one stopped the run)
  }
}

}  // namespace

void add_simulate_command(CLI::App& app, Commands& commands) {
  auto o = std::make_shared<SimulateOptions>();
  auto* s = app.add_subcommand("simulate", "forward dynamics with CVODE, written to a CSV file");
  s->add_option("MODEL", o->model, "model file (YAML or URDF)")->required();
  add_urdf_options(*s, o->urdf);
  add_timing_flag(*s);
  s->add_option("--t-end", o->flags.t_end, "end time (the simulation starts at t = 0)")->required();
  s->add_option("--q0", o->flags.q0, "initial coordinates V1,V2,.. (default: the model's)");
  s->add_option("--qd0", o->flags.qd0, "initial velocities V1,V2,.. (default: the model's)");
  s->add_option("--u0", o->flags.u0,
                "initial speeds V1,V2,.. of a model with generalized speeds, in their order "
                "(default: from the coordinates' velocities)");
  s->add_option("--rtol", o->flags.rtol, "relative tolerance (default 1e-8)");
  s->add_option("--atol", o->flags.atol, "absolute tolerance (default 1e-8)");
  s->add_option("--output-step", o->flags.output_step,
                "time between CSV rows (default 0.01; the last row is at --t-end)");
  s->add_option("--integrator", o->flags.integrator,
                "bdf (default; Newton, dense linear solver) | adams (fixed-point iterations)");
  s->add_option("--input", o->flags.inputs,
                "NAME=EXPR: an input (or unspecified prescribed function) as an expression of t "
                "and the parameters; repeatable");
  s->add_option("--set", o->flags.set,
                "NAME=VALUE for a parameter, or a constant input or prescribed function; "
                "repeatable");
  s->add_option("--max-rows", o->flags.max_rows,
                "the most output rows a run may ask for (default 1e7): more is refused before "
                "integrating");
  s->add_option("--out", o->out,
                "CSV file: t,<q..>,dot(<q>)..,T,V,E (then lambda_<constraint>.. with constraints), "
                "p_x,p_y,p_z,L_x,L_y,L_z (momenta about the world origin)")
      ->required();
  s->add_flag("--reactions", o->reactions,
              "also F_<frame>_x,..,M_<frame>_x,..: the force and moment each frame's parent "
              "exerts on it and everything below it, at its origin, world axes");
  add_jit_flag(*s, o->no_jit);
  s->add_option("--report", o->report,
                "also an HTML report of this run (appell report's page): FILE.html");
  commands.push_back({s, [o] { return run_simulate(*o); }});
}

}  // namespace appell::cli
