// appell sweep: many simulations of one model (a cases file, a grid or a Latin hypercube sample)
// on threads, MPI ranks (mpirun, srun) or shards (--shard I/N), into one HDF5 file. The library
// does the work (sweep/: the runner, the cases, the results file; src/sweep/mpi: the ranks);
// this file parses the options and prints.
//
// stdout: one summary line per rank 0, the same bytes run to run; timings and progress on stderr.
// Exit: 0 when every case of this run has a status (ok or failed: failures are results, counted
// in the summary and recorded with their reasons); 2 for bad input; 1 when the sweep itself
// fails (the file cannot be written); 130/143 after SIGINT/SIGTERM (the cases done are in the
// file, and --resume completes it).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#include "appell/appell.hpp"
#include "appell/io/model_file.hpp"
#include "appell/numeric/interruption.hpp"
#include "appell/sweep/case_sources.hpp"
#include "appell/sweep/model_hash.hpp"
#include "appell/sweep/results_file.hpp"
#include "appell/sweep/sweep_runner.hpp"
#include "cli_support.hpp"
#include "jit_flags.hpp"
#include "mpi_sweep.hpp"
#include "output_paths.hpp"
#include "simulation_flags.hpp"
#include "standard_streams.hpp"

namespace appell::cli {

namespace {

struct SweepOptions {
  UrdfFlags urdf;
  std::string model, cases, out, save = "summary", shard, count, seed = "1", jobs = "1";
  std::vector<std::string> grid, sample;
  SimulationFlags flags;
  bool resume = false;
  bool no_jit = false;
  std::string command_line;
};

std::size_t whole_number(const std::string& option, const std::string& text, double low,
                         double high) {
  const double value = parse_number(option, text);
  if (!(value >= low && value <= high && value == std::floor(value))) {
    std::ostringstream range;
    range << "expected a whole number from " << low << " to " << high;
    throw usage_error(option, range.str(), text);
  }
  return static_cast<std::size_t>(value);
}

// "I/N" -> (I, N), 1 ≤ I ≤ N.
std::pair<std::size_t, std::size_t> parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos)
    throw usage_error("--shard", "expected I/N (the I-th of N slices, 1 ≤ I ≤ N)", text);
  const std::size_t n = whole_number("--shard", text.substr(slash + 1), 1, 1e6);
  const std::size_t i = whole_number("--shard", text.substr(0, slash), 1, static_cast<double>(n));
  return {i, n};
}

// The cases from exactly one source.
sweep::CaseTable read_cases(const SweepOptions& o, const model::Model& model) {
  const int sources = !o.cases.empty() + !o.grid.empty() + !o.sample.empty();
  if (sources == 0)
    throw usage_error("--cases",
                      "give the cases: --cases FILE.csv, --grid NAME=... or --sample "
                      "NAME=LOW:HIGH --count N");
  if (sources > 1)
    throw usage_error(!o.grid.empty() && !o.cases.empty() ? "--grid" : "--sample",
                      "give the cases one way: --cases, --grid or --sample");
  if (!o.sample.empty() && o.count.empty())
    throw usage_error("--count", "--sample needs --count N (the number of cases)");
  if (o.sample.empty() && !o.count.empty()) throw usage_error("--count", "only with --sample");
  if (!o.cases.empty()) return sweep::read_cases_csv(o.cases, model);
  if (!o.grid.empty()) return sweep::grid_cases(o.grid, model);
  const std::size_t count = whole_number("--count", o.count, 1, 1e7);
  const auto seed = static_cast<std::uint64_t>(whole_number("--seed", o.seed, 0, 9.007e15));
  return sweep::sample_cases(o.sample, count, seed, model);
}

// A bar on a terminal: cases done of all, failed, rate and the time left.
class Progress {
 public:
  explicit Progress(std::size_t total)
      : total_(total),
        enabled_(isatty(fileno(stderr)) != 0),
        start_(std::chrono::steady_clock::now()) {}
  ~Progress() { finish(); }
  void update(std::size_t done, std::size_t failed) {
    if (!enabled_ || total_ == 0) return;
    const auto now = std::chrono::steady_clock::now();
    if (done < total_ && now - shown_ < std::chrono::milliseconds(200)) return;
    shown_ = now;
    const double seconds = std::chrono::duration<double>(now - start_).count();
    const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0.0;
    constexpr std::size_t kWidth = 30;
    const std::size_t filled = done * kWidth / total_;
    // Numbers only, and the controls that redraw the bar: unescaped.
    std::ostream& err = unescaped_stderr();
    err << "\r[" << std::string(filled, '=') << std::string(kWidth - filled, ' ') << "] " << done
        << "/" << total_ << " cases";
    if (failed > 0) err << ", " << failed << " failed";
    err << std::fixed << std::setprecision(1) << ", " << rate << "/s";
    if (rate > 0 && done < total_)
      err << ", ETA " << format_seconds(static_cast<double>(total_ - done) / rate);
    err << std::defaultfloat << "\033[K" << std::flush;
    drawn_ = true;
  }
  void finish() {
    if (!drawn_) return;
    unescaped_stderr() << "\r\033[K" << std::flush;
    drawn_ = false;
  }

 private:
  std::size_t total_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, shown_{};
};

int run_sweep(const SweepOptions& o) {
  auto model = read_model(o.model, o.urdf);
  check_output_paths(model_inputs("MODEL", *model), {{"--out", o.out}});
  const auto shard =
      o.shard.empty() ? std::pair<std::size_t, std::size_t>{1, 1} : parse_shard(o.shard);
  const std::size_t jobs = whole_number("--jobs", o.jobs, 1, 1024);
  const auto save = sweep::parse_save(o.save);
  if (!save) throw usage_error("--save", "expected series, final or summary", o.save);

  SimulationFlags flags = o.flags;
  const num::SimulationOptions simulation = simulation_options(*model, flags);
  sweep::RunnerOptions options;
  sweep::SweepSettings& settings = options.settings;
  settings.t_end = simulation.t_end;
  settings.output_step = simulation.output_step;
  settings.rtol = simulation.rtol;
  settings.atol = simulation.atol;
  settings.integrator = num::integrator_name(simulation.integrator);
  settings.save = *save;
  settings.model_name = model->name;
  settings.model_hash = sweep::model_hash(*model, io::read_model_text(o.model));
  settings.appell_version = APPELL_VERSION_STRING;
  settings.command_line = o.command_line;
  for (const auto& c : model->coordinates) settings.coordinates.push_back(c.name);
  for (const auto& speed : model->speeds) settings.speeds.push_back(speed.name);
  for (const auto& item : o.flags.set) settings.common_values.push_back("--set " + item);
  for (const auto& item : o.flags.inputs) settings.common_values.push_back("--input " + item);
  std::sort(settings.common_values.begin(), settings.common_values.end());
  options.common = simulation.values;
  options.jit.enabled = !o.no_jit;

  sweep::CaseTable table = read_cases(o, *model);
  const std::size_t total = table.size();

  // MPI only when launched among ranks; every rank prepares the same runner.
  std::optional<sweep::mpi::Session> session;
  if (sweep::mpi::launched_with_ranks()) session.emplace();
  const bool lead = !session || session->rank() == 0;

  std::optional<sweep::SweepRunner> runner;
  runner.emplace(model, table, options);
  if (lead && !runner->note().empty()) std::cerr << "appell sweep: " << runner->note() << "\n";

  // Rank 0 opens the file; the others learn whether it could.
  std::optional<sweep::ResultsFile> file;
  int opened = 0;
  std::optional<model::ModelError> open_error;
  if (lead) {
    try {
      file.emplace(o.resume ? sweep::ResultsFile::resume(o.out, settings, table)
                            : sweep::ResultsFile::create(o.out, settings, table));
    } catch (const model::ModelError& e) {
      open_error = e;
      opened = 2;
    }
  }
  if (session && session->broadcast(opened) != 0 && !lead) return 2;
  if (open_error) throw *open_error;

  // This shard's slice, less what a resumed file has done.
  std::vector<std::size_t> indices;
  std::size_t skipped = 0;
  if (lead) {
    const std::size_t begin = total * (shard.first - 1) / shard.second,
                      end = total * shard.first / shard.second;
    for (std::size_t k = begin; k < end; ++k) {
      if (file->statuses()[k] == "ok") {
        ++skipped;
        continue;
      }
      indices.push_back(k);
    }
  }

  std::size_t done = 0, failed = 0;
  Progress progress(indices.size());
  const auto start = std::chrono::steady_clock::now();
  auto on_result = [&](sweep::CaseResult&& result) {
    file->write(result);
    ++done;
    if (result.status != "ok") ++failed;
    progress.update(done, failed);
  };
  if (session)
    sweep::mpi::run_cases(*session, *runner, indices, jobs, on_result);
  else
    sweep::run_cases(*runner, indices, jobs, on_result);
  progress.finish();
  if (!lead) return 0;
  file->close();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::size_t not_run = indices.size() - done;
  std::cout << "swept " << model->name << ": " << indices.size() << " cases";
  if (shard.second > 1) std::cout << " (shard " << shard.first << "/" << shard.second << ")";
  if (skipped > 0) std::cout << ", " << skipped << " already ok";
  std::cout << "; ok " << done - failed << ", failed " << failed;
  if (not_run > 0) std::cout << ", not run " << not_run << " (--resume completes them)";
  std::cout << "; " << sweep::save_name(*save) << " in " << o.out << "\n";
  std::cerr << "appell sweep: " << done << " cases in " << format_seconds(seconds) << " ("
            << runner->evaluator() << ", " << (session ? session->size() : 1) << " rank"
            << (session && session->size() > 1 ? "s" : "") << " x " << jobs << " thread"
            << (jobs > 1 ? "s" : "") << ")\n";
  if (const int signal = num::interruption_signal()) throw num::Interrupted(signal, "interrupted");
  return 0;
}

// A library error located at a name of the library's ("grid", "out", "t_end", ...) at the flag
// that gave the value.
model::ModelError at_sweep_option(const model::ModelError& error) {
  return at_simulation_option(at_option(error, {{"grid", "--grid"},
                                                {"sample", "--sample"},
                                                {"count", "--count"},
                                                {"out", "--out"},
                                                {"resume", "--resume"}}));
}

}  // namespace

void add_sweep_command(CLI::App& app, Commands& commands, int argc, char** argv) {
  auto o = std::make_shared<SweepOptions>();
  for (int i = 0; i < argc; ++i) o->command_line += (i ? " " : "") + std::string(argv[i]);
  auto* s = app.add_subcommand(
      "sweep",
      "many simulations of one model (cases, a grid or a sample) on threads, MPI ranks "
      "or shards, into one HDF5 file");
  s->add_option("MODEL", o->model, "model file (YAML or URDF)")->required();
  add_urdf_options(*s, o->urdf);
  s->add_option("--cases", o->cases,
                "CSV file of cases: a header of columns (NAME, q0.NAME, qd0.NAME, input.NAME), "
                "one row per case");
  s->add_option("--grid", o->grid,
                "NAME=START:STEP:STOP or NAME=V1,V2,..: the Cartesian product of every --grid; "
                "repeatable");
  s->add_option("--sample", o->sample,
                "NAME=LOW:HIGH: a Latin hypercube sample of --count cases; repeatable");
  s->add_option("--count", o->count, "the number of cases of --sample");
  s->add_option("--seed", o->seed, "the seed of --sample (default 1)");
  s->add_option("--t-end", o->flags.t_end, "end time of every case (each starts at t = 0)")
      ->required();
  s->add_option("--output-step", o->flags.output_step,
                "time between rows of the common output grid (default 0.01)");
  s->add_option("--rtol", o->flags.rtol, "relative tolerance (default 1e-8)");
  s->add_option("--atol", o->flags.atol, "absolute tolerance (default 1e-8)");
  s->add_option("--integrator", o->flags.integrator, "bdf (default) | adams");
  s->add_option("--set", o->flags.set,
                "NAME=VALUE shared by every case (a case's own column replaces it); repeatable");
  s->add_option("--input", o->flags.inputs,
                "NAME=EXPR: an input as an expression of t and the parameters, shared by every "
                "case; repeatable");
  s->add_option("--save", o->save,
                "series (t, q, q', T, V, E on the output grid) | final (the final state) | "
                "summary (default: the final state and the extrema)");
  s->add_option("--jobs", o->jobs, "threads per process (default 1)");
  s->add_option("--shard", o->shard,
                "I/N: run only the I-th of N slices of the cases (Slurm job arrays; join the "
                "files with appell sweep-merge)");
  s->add_flag("--resume", o->resume,
              "complete an existing --out file of the same sweep: run the cases not yet ok");
  add_jit_flag(*s, o->no_jit);
  s->add_option("--out", o->out, "the HDF5 results file (docs/sweep.md)")->required();
  commands.push_back({s, [o] {
                        try {
                          return run_sweep(*o);
                        } catch (const model::ModelError& e) {
                          throw at_sweep_option(e);
                        }
                      }});
}

}  // namespace appell::cli
