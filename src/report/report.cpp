#include "appell/report/report.hpp"

#include <utility>

#include "appell/principles/derive.hpp"
#include "appell/principles/recursive_dynamics.hpp"
#include "appell/principles/speed_form.hpp"

namespace appell::report {

namespace {

model::Values bound_values(const num::SimulationOptions& simulation) {
  model::Values values = simulation.values;
  for (const auto& [name, expression] : simulation.inputs) values.drive(name, expression);
  return values;
}

// Derivation and verification: a ComputationError (or an expression too large to print) is a
// reason for an incomplete report, not the end of it.
Report describe(std::shared_ptr<const model::Model> model, const ReportOptions& options) {
  Report report;
  report.model = model;
  report.method = options.method;
  report.values = bound_values(options.simulation);
  model::bind(*model, report.values);  // bad values are bad input: before anything is computed
  principles::DerivationRequest request;
  request.method = options.method;
  request.inertial_forces =
      model->relative_to.has_value() && principles::relative_form(options.method).has_value();
  try {
    report.derivation = principles::derive(model, request);
  } catch (const model::ComputationError& e) {
    report.incomplete.push_back(std::string("equations: ") + e.what());
  }
  if (options.verify) {
    num::VerifyOptions verification = options.verification;
    const std::size_t size = report.derivation && report.derivation->equations
                                 ? report.derivation->equations->cost.size_before
                                 : 0;
    if (verification.symbolic && size > options.symbolic_verify_limit) {
      verification.symbolic = false;
      report.verification_note = "the equations have " + std::to_string(size) +
                                 " distinct nodes as formed, more than the report's limit of " +
                                 std::to_string(options.symbolic_verify_limit) +
                                 " for simplifying every principle";
    }
    try {
      report.verification = num::verify(model, verification);
    } catch (const model::ComputationError& e) {
      report.incomplete.push_back(std::string("verification: ") + e.what());
    }
  }
  return report;
}

void note_simulation(Report& report) {
  if (report.simulation && !report.simulation->complete())
    report.incomplete.push_back("simulation: " + report.simulation->failure());
}

}  // namespace

Report make_report(std::shared_ptr<const model::Model> model, const ReportOptions& options) {
  Report report = describe(model, options);
  if (!options.simulate) return report;
  SimulationRecording recording(options.simulation, options.max_rows);
  try {
    // What the page shows was formed once, above: the simulation takes those equations rather
    // than forming them again, and a tree none at all.
    const principles::Derivation* shown = report.derivation ? &*report.derivation : nullptr;
    if (model->has_speeds()) {
      // M̃ u̇ = f̃ with q̇ = W u, as `appell simulate` integrates a model with speeds.
      const auto equations = shown && shown->equations && !shown->named
                                 ? *shown->equations
                                 : principles::speed_form(model, options.method);
      recording.finish(
          num::simulate(equations, options.simulation,
                        [&](const num::SimulationRow& row) { recording.add(row, row.v); }));
    } else if (principles::recursions_do_not_cover(*model).empty()) {
      // A tree: q̈ and the energies from the recursions (num::Dynamics), as `appell simulate`
      // integrates it; every principle gives these equations.
      recording.finish(num::simulate(model, options.simulation,
                                     [&](const num::SimulationRow& row) { recording.add(row); }));
    } else {
      // Equations written through named intermediates are evaluated with the names put back.
      const auto equations = !shown || !shown->equations || shown->inertial_forces
                                 ? principles::derive(model, options.method)
                             : shown->named
                                 ? principles::with_names_put_back(*shown->equations, *shown->named)
                                 : *shown->equations;
      recording.finish(num::simulate(equations, options.simulation,
                                     [&](const num::SimulationRow& row) { recording.add(row); }));
    }
  } catch (const num::SimulationError& e) {
    recording.fail(e);
  } catch (const model::ModelError&) {
    throw;  // bad options: bad input
  } catch (const model::ComputationError& e) {
    recording.fail(e.what());
  }
  report.simulation = std::move(recording);
  note_simulation(report);
  return report;
}

Report make_report(std::shared_ptr<const model::Model> model, const ReportOptions& options,
                   SimulationRecording recorded) {
  Report report = describe(model, options);
  report.simulation = std::move(recorded);
  note_simulation(report);
  return report;
}

}  // namespace appell::report
