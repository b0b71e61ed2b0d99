#include "appell/numeric/verification.hpp"

#include <optional>
#include <stdexcept>

#include "appell/numeric/agreement.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/minimal_form.hpp"
#include "appell/principles/speed_form.hpp"
#include "appell/sym/progress.hpp"
#include "cvode_support.hpp"

namespace appell::num {

namespace {

// The cost columns of a row: forming (`formed`) and making readable (`readable`).
// Without the symbolic comparison (`symbolic` false) nothing is simplified: the readable columns
// stay 0.
template <class Formed>
void record_cost(VerificationRow& row, const Formed& formed, bool symbolic) {
  row.differentiations = formed.cost.differentiations;
  row.derivative_nodes = formed.cost.derivative_nodes;
  row.size_before = formed.cost.size_before;
  row.derive_seconds = formed.cost.seconds;
  if (!symbolic) return;
  const Formed readable = principles::simplify(formed);
  row.size_after = readable.cost.size_after;
  row.simplify_seconds = readable.cost.simplify_seconds;
}

void record_agreement(VerificationRow& row, const Agreement& agreement) {
  row.verdict = verdict(agreement);
  row.symbolic = agreement.symbolic;
  row.symbolic_test = agreement.symbolic_test;
  row.max_error = agreement.max_numeric_error;
  row.bound = agreement.bound;
  row.states = agreement.states;
  row.ill_conditioned = agreement.ill_conditioned;
  row.agrees = row.verdict != AgreementVerdict::Differ;
  if (!row.agrees) {
    row.first_difference = agreement.first_difference;
    row.witness = agreement.witness;
  }
}

// A model with a quaternion frame has equations in its speeds only: Kane against Gibbs–Appell.
VerificationReport verify_in_speeds(std::shared_ptr<const model::Model> model,
                                    const VerifyOptions& options) {
  VerificationReport report;
  report.model = model->name;
  report.dof = model->dof();
  report.options = options;
  report.reference = principles::Method::GibbsAppell;
  report.has_speeds = report.speeds_only = true;
  const auto appell = principles::speed_form(model, principles::Method::GibbsAppell);
  const auto kane = principles::speed_form(model, principles::Method::Dalembert);
  for (const auto* formed : {&appell, &kane}) {
    VerificationRow row;
    row.method = formed == &appell ? "speeds-appell" : "speeds-kane";
    record_cost(row, *formed, options.symbolic);
    record_agreement(row,
                     compare(appell, *formed, options.states, options.symbolic, options.tolerance));
    if (!row.agrees && report.first_disagreement.empty())
      report.first_disagreement =
          row.method + " differs from speeds-appell in " + row.first_difference;
    report.rows.push_back(std::move(row));
  }
  report.all_agree = report.first_disagreement.empty();
  return report;
}

}  // namespace

VerificationReport verify(std::shared_ptr<const model::Model> model, const VerifyOptions& options) {
  // Without a state there are no numbers: neither "agree numerically" nor "differ" could be said.
  if (options.states == 0)
    throw std::invalid_argument("verify needs at least 1 random state (states = 0)");
  // A tolerance of 0 or less makes every method "differ", one of nan or inf none: bad input, not a
  // disagreement. The rule of every tolerance (rtol, atol): a finite number > 0.
  detail::check_positive(options.tolerance, "tolerance", "the tolerance");
  if (!model->quaternions.empty()) return verify_in_speeds(model, options);
  VerificationReport report;
  report.model = model->name;
  report.dof = model->dof();
  report.options = options;

  // Every principle is formed before any is compared, so that each one's cost is measured alone.
  std::vector<principles::Equations> formed;
  {
    sym::ProgressStep step("verifying", std::size(principles::all_methods));
    for (auto method : principles::all_methods) {
      step.advance();
      formed.push_back(principles::derive(model, method));
    }
  }
  const principles::Equations& reference = formed.front();
  report.reference = reference.method;
  const std::string reference_name = principles::method_name(reference.method);

  auto note_disagreement = [&](const VerificationRow& row) {
    if (!row.agrees && report.first_disagreement.empty())
      report.first_disagreement =
          row.method + " differs from " + reference_name + " in " + row.first_difference;
  };
  // Without the symbolic comparison the reference is compiled once, not once per principle.
  std::optional<CompiledEquations> compiled_reference;
  if (!options.symbolic) compiled_reference.emplace(reference);
  sym::ProgressStep step("comparing the principles", formed.size());
  for (const auto& equations : formed) {
    step.advance();
    VerificationRow row;
    row.method = principles::method_name(equations.method);
    row.principle = equations.method;
    record_cost(row, equations, options.symbolic);
    record_agreement(
        row,
        compiled_reference
            ? compare_numerically(*compiled_reference, CompiledEquations(equations), options.states,
                                  options.tolerance)
            : compare(reference, equations, options.states, /*symbolic=*/true, options.tolerance));
    note_disagreement(row);
    report.rows.push_back(std::move(row));
  }
  report.methods = report.rows.size();

  if (!model->independent.empty()) {
    const auto minimal = principles::minimal_form(model);
    VerificationRow row;
    row.method = "minimal";
    record_cost(row, minimal, options.symbolic);
    record_agreement(
        row, compare(reference, minimal, options.states, options.symbolic, options.tolerance));
    note_disagreement(row);
    report.rows.push_back(std::move(row));
    report.has_minimal = true;
  }
  if (model->has_speeds()) {
    for (const auto method : {principles::Method::GibbsAppell, principles::Method::Dalembert}) {
      const auto formed = principles::speed_form(model, method);
      VerificationRow row;
      row.method = method == principles::Method::GibbsAppell ? "speeds-appell" : "speeds-kane";
      record_cost(row, formed, options.symbolic);
      record_agreement(
          row, compare(reference, formed, options.states, options.symbolic, options.tolerance));
      note_disagreement(row);
      report.rows.push_back(std::move(row));
    }
    report.has_speeds = true;
  }
  report.all_agree = report.first_disagreement.empty();
  return report;
}

}  // namespace appell::num
