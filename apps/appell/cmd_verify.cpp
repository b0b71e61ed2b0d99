// appell verify: the equations by every principle, each one's verdict against the reference
// (equal, agree numerically, differ), and what each cost.
#include <cstdio>
#include <iostream>
#include <sstream>

#include "appell/io/limits_writer.hpp"
#include "appell/io/verification_writer.hpp"
#include "appell/numeric/verification.hpp"
#include "cli_support.hpp"

namespace appell::cli {

namespace {

struct VerifyOptions {
  UrdfFlags urdf;  // how a URDF model is read
  std::string model;
  std::size_t states = 20;
  double tolerance = num::kDefaultTolerance;
  bool numeric_only = false;
  bool json = false;
};

// "[0.1, -1.2]": 17 significant digits, so that `appell eval --q ... --qd ...` reproduces it.
std::string vector_text(const std::vector<double>& v) {
  std::ostringstream out;
  out.precision(17);
  out << "[";
  for (std::size_t k = 0; k < v.size(); ++k) out << (k ? ", " : "") << (v[k] == 0.0 ? 0.0 : v[k]);
  out << "]";
  return out.str();
}

// The state where a row differs beyond its bound, and the entry there.
void print_witness(const model::Model& model, const num::VerificationRow& row,
                   const std::string& reference) {
  const num::AgreementWitness& w = *row.witness;
  std::string names;
  for (const auto& c : model.coordinates) names += (names.empty() ? "" : ", ") + c.name;
  std::ostringstream t;
  t.precision(17);
  t << w.t;
  std::printf("  witness: t = %s, q = %s, dot(q) = %s (q = [%s])\n", t.str().c_str(),
              vector_text(w.q).c_str(), vector_text(w.qd).c_str(), names.c_str());
  std::printf(
      "  %s = %.12g by %s, %.12g by %s: relative difference %.1e, far above the %.1e this "
      "state allows\n",
      w.entry.c_str(), w.reference, reference.c_str(), w.other, row.method.c_str(), w.error,
      w.bound);
}

int run_verify(const VerifyOptions& o) {
  auto model = read_model(o.model, o.urdf);
  num::VerifyOptions options;
  options.states = o.states;
  options.tolerance = o.tolerance;
  options.symbolic = !o.numeric_only;
  const num::VerificationReport report = [&] {
    try {
      return num::verify(model, options);
    } catch (const model::ModelError& e) {
      throw at_option(e, {{"tolerance", "--tolerance"}});
    }
  }();
  const bool timing = timing_requested();
  const std::string reference =
      report.speeds_only ? "speeds-appell" : principles::method_name(report.reference);

  if (o.json) {
    io::WriteOptions write;
    write.timing = timing;
    std::cout << io::write_verification_json(*model, report, write) << "\n";
    return report.all_agree ? 0 : 1;
  }

  // The model's name through std::cout, which shows its control characters (printf would not).
  std::cout << report.model << std::flush;
  std::printf(
      ": %zu coordinates; each method against %s (%sthe largest relative difference at %zu "
      "random states)\n",
      report.dof, reference.c_str(), options.symbolic ? "symbolic difference, and " : "",
      report.options.states);
  if (report.speeds_only)
    std::printf(
        "(a quaternion frame: the equations exist in the speeds only, by Gibbs-Appell and by "
        "Kane)\n");
  std::printf("\n");
  std::printf("%-13s %-17s %10s %10s %16s %16s %12s %11s", "method", "verdict", "max error",
              "bound", "differentiations", "derivative nodes", "size before", "size after");
  if (timing) std::printf(" %11s %11s", "derive", "simplify");
  std::printf("\n");
  std::size_t equal = 0, numerically = 0, ill_conditioned = 0;
  for (const auto& row : report.rows) {
    std::printf("%-13s %-17s %10.1e %10.1e %16zu %16zu %12zu %11zu", row.method.c_str(),
                num::verdict_name(row.verdict).c_str(), row.max_error, row.bound,
                row.differentiations, row.derivative_nodes, row.size_before, row.size_after);
    if (timing)
      std::printf(" %11s %11s", format_seconds(row.derive_seconds).c_str(),
                  format_seconds(row.simplify_seconds).c_str());
    std::printf("\n");
    equal += row.verdict == num::AgreementVerdict::Equal;
    numerically += row.verdict == num::AgreementVerdict::AgreeNumerically;
    ill_conditioned += row.ill_conditioned;
  }
  if (ill_conditioned > 0)
    std::printf(
        "\n(%zu random states were drawn again: a matrix to be solved there had a reciprocal "
        "condition number below %.0e)\n",
        ill_conditioned, num::kMinReciprocalCondition);
  if (!report.all_agree) {
    std::cout << "\nDISAGREEMENT: " << report.first_disagreement << "\n";
    for (const auto& row : report.rows)
      if (row.verdict == num::AgreementVerdict::Differ && row.witness) {
        print_witness(*model, row, reference);
        break;
      }
    return 1;
  }
  if (equal == report.rows.size()) {
    if (report.speeds_only)
      std::cout << "\nGibbs-Appell and Kane give the same equations in the speeds";
    else
      std::cout << "\nAll " << report.methods << " methods give the same equations";
    if (report.has_minimal) std::cout << ", and the minimal form the same motion";
    if (report.has_speeds && !report.speeds_only)
      std::cout << ", and the equations in the speeds are theirs projected";
    std::cout << " (proved symbolically, and at every random state).\n";
  } else {
    std::cout << "\nNo row differs: " << equal << " equal (the simplified difference is 0), "
              << numerically << " agree numerically\n(at every random state, within the bound; "
              << (options.symbolic ? "the symbolic test was inconclusive within its budget"
                                   : "the symbolic test was not run")
              << ").\n";
  }
  if (const std::string limits = io::write_limits_text(*model); !limits.empty())
    std::cout << "\n" << limits;
  return 0;
}

}  // namespace

void add_verify_command(CLI::App& app, Commands& commands) {
  auto o = std::make_shared<VerifyOptions>();
  auto* v = app.add_subcommand(
      "verify",
      "every principle against Lagrange II: equal, agree numerically or differ (exit 1), and cost");
  v->add_option("MODEL", o->model, "model file (YAML or URDF)")->required();
  add_urdf_options(*v, o->urdf);
  add_timing_flag(*v);
  // A count read into std::size_t would take -1 as 2^64 - 1: the range is checked on the text.
  v->add_option("--states", o->states,
                "random states of the numeric check (default 20, at most 100000)")
      ->check(CLI::Range(1, 100000));
  v->add_option("--tolerance", o->tolerance,
                "largest relative difference allowed at a well-conditioned state (1e-12)");
  v->add_flag("--numeric-only", o->numeric_only,
              "compare at the random states only, without the symbolic difference (no verdict "
              "'equal'): what a large model can afford");
  v->add_flag("--json", o->json, "print one JSON object, every row with its verdict");
  commands.push_back({v, [o] { return run_verify(*o); }});
}

}  // namespace appell::cli
