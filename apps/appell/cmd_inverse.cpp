// appell inverse: the generalized driving forces Q = M q̈ − f along a prescribed motion, as CSV.
#include <cmath>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>

#include "appell/io/csv_writer.hpp"
#include "appell/numeric/interruption.hpp"
#include "appell/numeric/inverse_dynamics.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/recursive_dynamics.hpp"
#include "cli_support.hpp"
#include "jit_flags.hpp"
#include "output_paths.hpp"

namespace appell::cli {

namespace {

struct InverseOptions {
  UrdfFlags urdf;  // how a URDF model is read
  std::string model, method = "gibbs-appell", trajectory, from_csv, t_end, output_step, out;
  std::vector<std::string> set;
  bool no_jit = false;
  bool method_given = false;  // --method on the command line: that principle's equations
};

// Enough rows for any sensible study; more is almost surely a mistyped step.
constexpr double max_rows = 1e8;

std::size_t row_count(double t_end, double step) {
  // t_k = k·H, k = 0..K with K·H ≤ T; the tolerance keeps T itself when T/H is an integer that
  // floating-point division lands just below (e.g. 0.3 / 0.1 = 2.9999999999999996).
  const double intervals = std::floor(t_end / step * (1.0 + 1e-12) + 1e-9);
  if (intervals + 1.0 > max_rows)
    throw usage_error("--output-step", "more than 1e8 rows; choose a larger step");
  return static_cast<std::size_t>(intervals) + 1;
}

int run_inverse(const InverseOptions& o) {
  const bool from_formula = !o.trajectory.empty();
  if (from_formula == !o.from_csv.empty())
    throw usage_error("--trajectory",
                      "give exactly one of --trajectory \"q1=EXPR; ...\" and --from-csv FILE");
  if (from_formula && (o.t_end.empty() || o.output_step.empty()))
    throw usage_error(o.t_end.empty() ? "--t-end" : "--output-step", "required with --trajectory");
  if (!from_formula && !(o.t_end.empty() && o.output_step.empty()))
    throw usage_error(o.t_end.empty() ? "--output-step" : "--t-end",
                      "not used with --from-csv (the file's rows give the times)");

  const auto model = read_model(o.model, o.urdf);
  {
    auto inputs = model_inputs("MODEL", *model);
    inputs.push_back({"--from-csv", o.from_csv});
    check_output_paths(inputs, {{"--out", o.out}});
  }
  // A model in generalized speeds (quaternions, floating bases) by the recursions in its speeds
  // (the forces on the speeds); its formed equations (--method) are in the coordinates.
  if (!model->has_speeds() || o.method_given)
    principles::require_coordinates(*model);  // before the trajectory names its coordinates

  reject_constraints(*model, "inverse");
  const auto values = parse_assignments(o.set);

  // Everything that can be wrong with the input is checked before the (slower) derivation.
  std::vector<num::TrajectorySample> samples;
  std::optional<num::Trajectory> trajectory;
  std::size_t rows = 0;
  double step = 0.0;
  if (from_formula) {
    const double t_end = parse_number("--t-end", o.t_end);
    step = parse_number("--output-step", o.output_step);
    if (!std::isfinite(t_end) || t_end < 0.0)
      throw usage_error("--t-end", "must be a finite number >= 0", o.t_end);
    if (!std::isfinite(step) || step <= 0.0)
      throw usage_error("--output-step", "must be a finite number > 0", o.output_step);
    rows = row_count(t_end, step);
    try {
      trajectory.emplace(o.trajectory, *model, values);
    } catch (const model::ModelError& e) {
      throw at_option(e, {{"trajectory", "--trajectory"}});
    }
  } else {
    samples = num::read_trajectory_csv(o.from_csv, *model);
    rows = samples.size();
  }

  // A tree the recursions cover, without --method: Newton-Euler straight from the model (its
  // generated code compiled, or interpreted), no equations formed. Otherwise that principle's
  // equations, by their tape.
  const principles::Method method = method_option(o.method);
  const bool by_recursions =
      !o.method_given &&
      (model->has_speeds() ? principles::recursions_do_not_cover(*model).empty()
                           : principles::recursions_alone_do_not_cover(*model).empty());
  const num::InverseDynamics inverse =
      by_recursions ? num::InverseDynamics(std::make_shared<const num::Dynamics>(
                          compiled_dynamics(model, values, o.no_jit, "inverse")))
                    : num::InverseDynamics(principles::derive(model, method), values);

  io::OutputFile out = open_output("--out", o.out);
  try {
    // Stops at a row the file refuses (a full disk): out.close() names the file.
    if (trajectory)
      io::write_driving_forces_csv(out.stream(), *model, inverse, *trajectory, rows, step);
    else
      io::write_driving_forces_csv(out.stream(), *model, inverse, samples);
  } catch (const io::IncompleteCsvError& e) {
    out.close();
    throw model::ComputationError(std::string(e.what()) + " (" + std::to_string(e.rows_written()) +
                                  " rows written to " + o.out + ")");
  } catch (const num::Interrupted& e) {
    // The rows so far and `# incomplete: interrupted at t = T` are in the file: keep them.
    out.close();
    std::cout << "appell inverse: INCOMPLETE (" << e.what() << "): rows written to " << o.out
              << "\n";
    throw;
  }
  out.close();
  std::cout << "appell inverse: " << rows << " rows of driving forces ("
            << (inverse.in_speeds() ? std::to_string(inverse.force_count()) + " speeds, "
                                    : std::to_string(model->dof()) + " coordinates, ")
            << (by_recursions ? "the recursions" : principles::method_name(method))
            << ") written to " << o.out << "\n";
  return 0;
}

}  // namespace

void add_inverse_command(CLI::App& app, Commands& commands) {
  auto o = std::make_shared<InverseOptions>();
  auto* c = app.add_subcommand(
      "inverse", "driving forces Q = M ddot(q) - f along a prescribed motion, as CSV");
  c->add_option("MODEL", o->model, "model file (YAML or URDF)")->required();
  add_urdf_options(*c, o->urdf);
  c->add_option("--trajectory", o->trajectory,
                "the motion: \"q1=EXPR; q2=EXPR\", one expression of t and the parameters per "
                "coordinate");
  c->add_option("--from-csv", o->from_csv,
                "the motion as samples: CSV with header t,<q..>,dot(<q>)..,ddot(<q>)..");
  c->add_option("--t-end", o->t_end, "with --trajectory: last time T (rows at t = 0, H, .., T)");
  c->add_option("--output-step", o->output_step, "with --trajectory: time step H between rows");
  c->add_option("--out", o->out,
                "output CSV: t,Q_<q1>,Q_<q2>,.. (a model in generalized speeds: t,Q_<u1>,..)")
      ->required();
  c->add_option("--set", o->set,
                "NAME=VALUE for a parameter, an input or an unspecified prescribed function "
                "(also dot(NAME)=VALUE); repeatable");
  add_method_option(*c, o->method, o->method_given,
                    "lagrange | gibbs-appell: from that principle's equations "
                    "(default: Newton-Euler straight from the model where the "
                    "recursions cover it, else gibbs-appell)");
  add_jit_flag(*c, o->no_jit);
  commands.push_back({c, [o] { return run_inverse(*o); }});
}

}  // namespace appell::cli
