// appell verify: the equations by every principle, their agreement, and what each cost.
#include <cstdio>
#include <iostream>

#include "appell/io/model_reader.hpp"
#include "appell/numeric/agreement.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/minimal_form.hpp"
#include "cli_support.hpp"

namespace appell::cli {

namespace {

struct VerifyOptions {
  std::string model;
  std::size_t states = 20;
  double tolerance = 1e-12;
};

int run_verify(const VerifyOptions& o) {
  auto model = io::read_model_file(o.model);
  // Every principle against the first (Lagrange II): agreement is an equivalence, so agreeing
  // with one reference means agreeing with each other.
  std::vector<principles::Equations> raw;
  for (auto method : principles::all_methods) raw.push_back(principles::derive(model, method));

  std::printf(
      "%s: %zu coordinates; each method against %s (symbolic difference, and the "
      "largest relative difference at %zu random states)\n\n",
      model->name.c_str(), model->dof(), principles::method_name(raw[0].method).c_str(), o.states);
  std::printf("%-13s %-7s %10s %16s %16s %12s %11s %11s %11s\n", "method", "agrees", "max error",
              "differentiations", "derivative nodes", "size before", "size after", "derive",
              "simplify");
  std::string first_disagreement;
  for (const auto& eq : raw) {
    const auto readable = principles::simplify(eq);
    const auto agreement = num::compare(raw[0], eq, o.states, /*symbolic=*/true);
    const bool agrees = agreement.symbolic && agreement.max_numeric_error <= o.tolerance;
    if (!agrees && first_disagreement.empty())
      first_disagreement = principles::method_name(eq.method) + " differs from " +
                           principles::method_name(raw[0].method) + " in " +
                           agreement.first_difference;
    std::printf("%-13s %-7s %10.1e %16zu %16zu %12zu %11zu %11s %11s\n",
                principles::method_name(eq.method).c_str(), agrees ? "yes" : "NO",
                agreement.max_numeric_error, eq.cost.differentiations, eq.cost.derivative_nodes,
                eq.cost.size_before, readable.cost.size_after,
                format_seconds(eq.cost.seconds).c_str(),
                format_seconds(readable.cost.simplify_seconds).c_str());
  }
  // With independent speeds, the minimal form (Gibbs–Appell with quasi-accelerations) joins the
  // table: its q̈ against the reference's at consistent random states, and its M̃, f̃ against
  // the reference projected on the constraints' null space.
  std::size_t rows = raw.size();
  if (!model->independent.empty()) {
    const auto minimal = principles::minimal_form(model);
    const auto readable = principles::simplify(minimal);
    const auto agreement = num::compare_minimal(raw[0], minimal, o.states, /*symbolic=*/true);
    const bool agrees = agreement.symbolic && agreement.max_numeric_error <= o.tolerance;
    if (!agrees && first_disagreement.empty())
      first_disagreement = "minimal differs from " + principles::method_name(raw[0].method) +
                           " in " + agreement.first_difference;
    std::printf("%-13s %-7s %10.1e %16zu %16zu %12zu %11zu %11s %11s\n", "minimal",
                agrees ? "yes" : "NO", agreement.max_numeric_error, minimal.cost.differentiations,
                minimal.cost.derivative_nodes, minimal.cost.size_before, readable.cost.size_after,
                format_seconds(minimal.cost.seconds).c_str(),
                format_seconds(readable.cost.simplify_seconds).c_str());
    ++rows;
  }
  if (!first_disagreement.empty()) {
    std::cout << "\nDISAGREEMENT: " << first_disagreement << "\n";
    return 1;
  }
  std::cout << "\nAll " << raw.size() << " methods give the same equations";
  if (rows > raw.size()) std::cout << ", and the minimal form the same motion";
  std::cout << ".\n";
  return 0;
}

}  // namespace

void add_verify_command(CLI::App& app, Commands& commands) {
  auto o = std::make_shared<VerifyOptions>();
  auto* v = app.add_subcommand(
      "verify", "every principle: agreement (symbolic and numeric) and cost; exit 1 on a mismatch");
  v->add_option("MODEL", o->model, "model file (YAML)")->required();
  v->add_option("--states", o->states, "random states of the numeric check (default 20)");
  v->add_option("--tolerance", o->tolerance, "largest relative difference allowed (1e-12)");
  commands.push_back({v, [o] { return run_verify(*o); }});
}

}  // namespace appell::cli
