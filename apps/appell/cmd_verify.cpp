// appell verify: the equations by every principle, their agreement, and what each cost.
#include <cstdio>
#include <iostream>

#include "appell/io/limits_writer.hpp"
#include "appell/numeric/verification.hpp"
#include "cli_support.hpp"

namespace appell::cli {

namespace {

struct VerifyOptions {
  UrdfFlags urdf;  // how a URDF model is read
  std::string model;
  std::size_t states = 20;
  double tolerance = 1e-12;
};

int run_verify(const VerifyOptions& o) {
  auto model = read_model(o.model, o.urdf);
  num::VerifyOptions options;
  options.states = o.states;
  options.tolerance = o.tolerance;
  const num::VerificationReport report = num::verify(model, options);

  std::printf(
      "%s: %zu coordinates; each method against %s (symbolic difference, and the "
      "largest relative difference at %zu random states)\n",
      report.model.c_str(), report.dof,
      report.speeds_only ? "speeds-appell" : principles::method_name(report.reference).c_str(),
      report.options.states);
  if (report.speeds_only)
    std::printf(
        "(a quaternion frame: the equations exist in the speeds only, by Gibbs-Appell and by "
        "Kane)\n");
  std::printf("\n");
  const bool timing = timing_requested();
  std::printf("%-13s %-7s %10s %16s %16s %12s %11s", "method", "agrees", "max error",
              "differentiations", "derivative nodes", "size before", "size after");
  if (timing) std::printf(" %11s %11s", "derive", "simplify");
  std::printf("\n");
  for (const auto& row : report.rows) {
    std::printf("%-13s %-7s %10.1e %16zu %16zu %12zu %11zu", row.method.c_str(),
                row.agrees ? "yes" : "NO", row.max_error, row.differentiations,
                row.derivative_nodes, row.size_before, row.size_after);
    if (timing)
      std::printf(" %11s %11s", format_seconds(row.derive_seconds).c_str(),
                  format_seconds(row.simplify_seconds).c_str());
    std::printf("\n");
  }
  if (!report.all_agree) {
    std::cout << "\nDISAGREEMENT: " << report.first_disagreement << "\n";
    return 1;
  }
  if (report.speeds_only)
    std::cout << "\nGibbs-Appell and Kane give the same equations in the speeds";
  else
    std::cout << "\nAll " << report.methods << " methods give the same equations";
  if (report.has_minimal) std::cout << ", and the minimal form the same motion";
  if (report.has_speeds && !report.speeds_only)
    std::cout << ", and the equations in the speeds are theirs projected";
  std::cout << ".\n";
  if (const std::string limits = io::write_limits_text(*model); !limits.empty())
    std::cout << "\n" << limits;
  return 0;
}

}  // namespace

void add_verify_command(CLI::App& app, Commands& commands) {
  auto o = std::make_shared<VerifyOptions>();
  auto* v = app.add_subcommand(
      "verify", "every principle: agreement (symbolic and numeric) and cost; exit 1 on a mismatch");
  v->add_option("MODEL", o->model, "model file (YAML or URDF)")->required();
  add_urdf_options(*v, o->urdf);
  add_timing_flag(*v);
  // A count read into std::size_t would take -1 as 2^64 - 1: the range is checked on the text.
  v->add_option("--states", o->states,
                "random states of the numeric check (default 20, at most 100000)")
      ->check(CLI::Range(1, 100000));
  v->add_option("--tolerance", o->tolerance, "largest relative difference allowed (1e-12)");
  commands.push_back({v, [o] { return run_verify(*o); }});
}

}  // namespace appell::cli
