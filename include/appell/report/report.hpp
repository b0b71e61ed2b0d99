// The contents of a model's report (`appell report`, `appell simulate --report`): the model, its
// equations made readable by one principle (with the inertial forces of a carrier frame), the
// verification of every principle against each other, and a simulation. Computed here, written
// as one HTML page by report::write_html (html_writer.hpp).
//
// A part that fails to compute does not stop the others: its reason is recorded and the report
// is marked incomplete (a failed simulation keeps the rows it reached). Bad input (a bad option
// or value: model::ModelError) still throws before anything is computed.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/numeric/verification.hpp"
#include "appell/principles/derivation.hpp"
#include "appell/report/simulation_recording.hpp"

namespace appell::report {

struct ReportOptions {
  /// The principle whose equations are shown (and integrated).
  principles::Method method = principles::Method::GibbsAppell;
  /// Every principle compared (num::verify).
  bool verify = true;
  num::VerifyOptions verification;
  /// The verification's symbolic comparison (and readable sizes) only when the equations shown
  /// have at most this many distinct nodes as formed (DerivationCost::size_before); a larger
  /// model is verified numerically alone, and the page says why. Simplifying five principles'
  /// equations is most of a large model's report: 20 of 27 s for the Panda's 9 joints (8638
  /// nodes by Gibbs–Appell), while the examples' models have at most 310. SIZE_MAX: always
  /// symbolic (as `appell verify`); 0: never.
  std::size_t symbolic_verify_limit = 500;
  /// Simulated with these options (their values also bind the parameters shown and drawn). A
  /// model with generalized speeds (Model::has_speeds()) is integrated in them, from
  /// simulation.u0 (empty: the speeds of the velocities).
  bool simulate = true;
  num::SimulationOptions simulation;
  /// The most rows of the simulation kept for the plots and the animation.
  std::size_t max_rows = 2000;
};

struct Report {
  std::shared_ptr<const model::Model> model;
  principles::Method method = principles::Method::GibbsAppell;
  /// The values bound (parameter overrides, inputs): those of the simulation options.
  model::Values values;
  std::optional<principles::Derivation> derivation;     // readable, parameters as symbols
  std::optional<num::VerificationReport> verification;  // when asked for and computed
  /// Why the verification is numeric only (empty when symbolic too, or not verified).
  std::string verification_note;
  std::optional<SimulationRecording> simulation;  // when simulated (complete or not)
  /// "PART: REASON" for every part that failed; empty when the report is complete.
  std::vector<std::string> incomplete;

  bool complete() const { return incomplete.empty(); }
};

/// Computes the report of `model`: derives (options.method, readable, inertial forces when the
/// model has a carrier frame and the method a relative-motion form), verifies and simulates as
/// asked. Throws model::ModelError for bad options or values (num::simulate's checks, run before
/// anything is integrated); a failed computation is recorded in Report::incomplete.
Report make_report(std::shared_ptr<const model::Model> model, const ReportOptions& options);

/// The same with a simulation already run (`simulate --report`): options.simulate is ignored and
/// `recorded` is the report's simulation.
Report make_report(std::shared_ptr<const model::Model> model, const ReportOptions& options,
                   SimulationRecording recorded);

}  // namespace appell::report
