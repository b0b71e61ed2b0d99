#include "appell/principles/derivation.hpp"

#include <algorithm>
#include <cmath>

#include "appell/kinematics/kinematics.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/gauss.hpp"
#include "appell/principles/relative_motion.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/differentiator.hpp"
#include "appell/sym/progress.hpp"
#include "appell/sym/tape.hpp"
#include "readable_step.hpp"
#include "recursive_form.hpp"

namespace appell::principles {

namespace {

model::ModelError request_error(const std::string& field, const std::string& message,
                                const std::string& offending) {
  return model::ModelError(model::SourceLocation{field, 0, 0}, message, offending);
}

// Every check of the request, in one place and before anything is formed.
void check(const model::Model& model, const DerivationRequest& request) {
  const std::string method = method_name(request.method);
  if (request.inertial_forces && !model.relative_to)
    throw request_error("inertial_forces",
                        "inertial forces need a carrier frame (relative_to: FRAME)", model.name);
  if (request.compulsion && request.method != Method::Gauss)
    throw request_error("compulsion", "the compulsion belongs to method gauss", method);
  if (request.order < 1)
    throw request_error("order", "the order is at least 1", std::to_string(request.order));
  if (request.order > 1 && request.method != Method::GibbsAppell)
    throw request_error("order", "higher orders belong to method gibbs-appell", method);
  if (request.inertial_forces && !relative_form(request.method))
    throw request_error("method",
                        "the equations of relative motion have Appell's (gibbs-appell), "
                        "Lagrange's (lagrange) and Nielsen's (nielsen) forms",
                        method);
  if (request.split) {
    if (model.has_speeds())
      throw request_error("split",
                          "a model with generalized speeds is formed in them, where M's "
                          "Christoffel symbols do not give the velocity terms",
                          model.source.empty() ? model.name : model.source);
    if (request.minimal)
      throw request_error("split",
                          "the split is of M q̈ = f in the coordinates, not of the minimal form",
                          "minimal");
    if (request.order > 1)
      throw request_error("split", "equations of order m > 1 have no split into M, C and g",
                          std::to_string(request.order));
  }
  if (model.has_speeds()) {
    if (request.method != Method::GibbsAppell && request.method != Method::Dalembert)
      throw request_error("method",
                          "a model with generalized speeds is formed in them by gibbs-appell "
                          "(quasi-accelerations) or dalembert (Kane's form)",
                          method);
    if (request.order > 1)
      throw request_error("order", "equations in generalized speeds are of order 1",
                          std::to_string(request.order));
    if (request.minimal)
      throw request_error("minimal",
                          "a model with generalized speeds has no minimal form in independent: "
                          "[..]; its equations are formed in the speeds",
                          model.source.empty() ? model.name : model.source);
  }
  if (request.minimal) {
    if (model.independent.empty())
      throw request_error("minimal", "the model lists no independent speeds (independent: [..])",
                          model.source.empty() ? model.name : model.source);
    if (request.method != Method::GibbsAppell)
      throw request_error(
          "minimal", "the minimal form is formed by method gibbs-appell with quasi-accelerations",
          method);
    if (request.order > 1)
      throw request_error("minimal", "the minimal form is of order 1",
                          std::to_string(request.order));
  }
}

// `e` with the given numbers substituted, then readable or as formed.
GiNaC::ex shown(const GiNaC::ex& e, const model::Model& model, const DerivationRequest& request,
                const sym::ReadableContext& context) {
  const GiNaC::ex given =
      request.values.empty() ? e : sym::substitute(e, printed_numbers(model, request.values));
  return request.readable ? sym::readable(given, context) : given;
}

// The equations as the request wants them shown: readable, as formed, or through named
// intermediates (asked for, or chosen because they are too large to simplify whole).
Equations presented(const Equations& formed, const DerivationRequest& request, Derivation& result) {
  const bool automatic = request.readable && !request.intermediates &&
                         request.intermediates_above > 0 &&
                         formed.cost.size_before > request.intermediates_above;
  std::size_t over_budget = 0;
  if (!request.intermediates && !automatic) {
    if (!request.readable) return formed;
    Equations simple = simplify(formed);
    // Entries too large to simplify within the budget read better through names than as trees.
    over_budget = simple.cost.kept_over_budget;
    if (over_budget == 0 || request.intermediates_above == 0) return simple;
  }
  IntermediateForm named;
  named.automatic = automatic || over_budget > 0;
  named.threshold = automatic ? request.intermediates_above : 0;
  named.over_budget = over_budget;
  if (formed.form == Form::Coordinates) {
    // A tree's equations read best through its own recursions, named after its frames.
    std::string why;
    const sym::ProgressStep step("writing the equations through the recursions");
    if (auto written = detail::through_recursions(formed, request, request.readable, named, why)) {
      result.named = std::move(named);
      return *written;
    }
    named.recursions_not_used = why;
  }
  const sym::ProgressStep step("naming the intermediates");
  Equations shown = detail::through_intermediates(formed, named.intermediates, request.readable);
  result.named = std::move(named);
  return shown;
}

// Seed 003 eqs. 31–34 and what each form's left-hand side is made of (eqs. 55–57).
InertialForceTerms inertial_force_terms(std::shared_ptr<const model::Model> model,
                                        const DerivationRequest& request) {
  const model::Model& m = *model;
  sym::Differentiator d(m.time_functions);
  kin::Kinematics kin(model, d);
  const auto forces = inertial_forces(kin);
  InertialForceTerms out;
  out.carrier = *m.relative_to;
  out.form = *relative_form(request.method);
  auto& terms = out.terms;
  // Appell's form needs the relative acceleration energy, Nielsen's the rate of T_r; T_r, the
  // energy of the relative motion, is shown in every form.
  if (out.form == RelativeForm::Appell)
    terms.emplace_back("S_r", relative_acceleration_energy(kin));
  terms.emplace_back("T_r", forces.relative_kinetic_energy);
  if (out.form == RelativeForm::Nielsen)
    terms.emplace_back("Tdot_r", d.time_derivative(forces.relative_kinetic_energy));
  terms.emplace_back("Pi_o", forces.transport_potential);
  terms.emplace_back("Pi_omega", forces.centrifugal_potential);
  for (std::size_t s = 0; s < m.dof(); ++s)
    terms.emplace_back("Q_omegadot_" + m.coordinates[s].name,
                       forces.rotational(static_cast<unsigned>(s), 0));
  for (std::size_t s = 0; s < m.dof(); ++s)
    terms.emplace_back("Gamma_" + m.coordinates[s].name,
                       forces.gyroscopic(static_cast<unsigned>(s), 0));
  const auto context = readable_context(m);
  for (auto& term : terms) term.second = shown(term.second, m, request, context);
  return out;
}

// The residual of the split (split_residual: zero when it reproduces f) at a few fixed states,
// when simplification could not prove it zero: parameters at their values, t, q, q̇ and every
// other time function (inputs, prescribed functions) at unremarkable numbers, rounding measured
// against the largest entry of f and g there. Returns the states at which everything was finite
// (a singular state proves nothing); throws ComputationError when the residual is not zero to
// rounding at one of them.
std::size_t check_split_at_states(const model::Model& m, const GiNaC::exvector& residual,
                                  const GiNaC::exvector& scale) {
  const GiNaC::exmap parameters = m.parameter_substitution();
  GiNaC::exvector entries;
  for (const auto* part : {&residual, &scale})
    for (const auto& e : *part) entries.push_back(sym::substitute(e, parameters));
  std::vector<GiNaC::symbol> symbols;
  for (const auto& s : sym::symbols_in(entries)) symbols.push_back(GiNaC::ex_to<GiNaC::symbol>(s));
  const sym::Tape tape(entries, symbols);
  std::vector<double> values(symbols.size()), out(entries.size()), work;
  std::size_t finite = 0;
  for (int state = 0; state < 3; ++state) {
    for (std::size_t k = 0; k < symbols.size(); ++k)
      values[k] = 0.4 + 0.6 * std::sin(1.7 * static_cast<double>(k + 1) + 2.3 * state);
    tape.evaluate(values.data(), out.data(), work);
    if (!std::all_of(out.begin(), out.end(), [](double v) { return std::isfinite(v); })) continue;
    ++finite;
    double size = 1.0;
    for (std::size_t i = residual.size(); i < out.size(); ++i)
      size = std::max(size, std::abs(out[i]));
    for (std::size_t i = 0; i < residual.size(); ++i)
      if (std::abs(out[i]) > 1e-9 * size)
        throw model::ComputationError(
            "the split M q̈ + C q̇ + g = Q does not reproduce f at a test state (row " +
            std::to_string(i + 1) + " misses by " + std::to_string(out[i]) + ")");
  }
  return finite;
}

// The split of the equations as formed, with the request's numbers, readable where that is
// shorter; with a readable request also the proof that it reproduces f.
void split_shown(CoriolisSplit split, const Equations& formed, const DerivationRequest& request,
                 Derivation& result) {
  const model::Model& m = *split.model;
  if (!request.values.empty()) {
    const GiNaC::exmap numbers = printed_numbers(m, request.values);
    GiNaC::exvector entries = split.entries();
    for (auto& e : entries) e = sym::substitute(e, numbers);
    split.set_entries(entries);
  }
  if (request.readable) {
    const auto context = readable_context(m);
    const GiNaC::matrix residual = split_residual(split, formed);
    GiNaC::exvector check;
    for (unsigned i = 0; i < residual.rows(); ++i) check.push_back(residual(i, 0));
    const auto proved = sym::readable_within(check, context);
    result.split_proved = proved.count(sym::EntryForm::Readable) == check.size() &&
                          std::all_of(proved.entries.begin(), proved.entries.end(),
                                      [](const GiNaC::ex& e) { return e.is_zero(); });
    if (!*result.split_proved) {
      GiNaC::exvector scale;
      for (unsigned i = 0; i < residual.rows(); ++i) {
        scale.push_back(formed.forcing(i, 0));
        scale.push_back(split.gravity(i, 0));
      }
      result.split_states_checked = check_split_at_states(m, check, scale);
    }
    split.set_entries(sym::readable_within(split.entries(), context).entries);
  }
  result.split = std::move(split);
}

}  // namespace

Equations with_names_put_back(const Equations& written, const IntermediateForm& named) {
  GiNaC::exmap back;
  for (const auto& i : named.intermediates) back[i.name] = sym::substitute(i.value, back);
  GiNaC::exvector entries;
  for (const GiNaC::ex& e : written.entries()) entries.push_back(sym::substitute(e, back));
  Equations out = written;
  out.set_entries(entries);
  return out;
}

std::string construction_name(IntermediateConstruction construction) {
  return construction == IntermediateConstruction::Recursions ? "recursions"
                                                              : "common subexpressions";
}

std::optional<RelativeForm> relative_form(Method method) {
  switch (method) {
    case Method::GibbsAppell:
      return RelativeForm::Appell;
    case Method::Lagrange:
      return RelativeForm::Lagrange;
    case Method::Nielsen:
      return RelativeForm::Nielsen;
    default:
      return std::nullopt;
  }
}

std::string relative_form_name(RelativeForm form) {
  switch (form) {
    case RelativeForm::Appell:
      return "appell";
    case RelativeForm::Lagrange:
      return "lagrange";
    case RelativeForm::Nielsen:
      return "nielsen";
  }
  return "?";
}

Derivation derive(std::shared_ptr<const model::Model> model, const DerivationRequest& request) {
  check(*model, request);
  Derivation result;
  result.model = model;
  // The minimal form in the independent accelerations, or M q̈ = f (+ Aᵀλ).
  if (model->has_speeds()) {
    const auto formed = with_values(speed_form(model, request.method), request.values);
    result.equations = presented(formed, request, result);
  } else if (request.minimal) {
    const auto formed = with_values(minimal_form(model), request.values);
    result.equations = presented(formed, request, result);
  } else {
    const auto raw = request.order > 1 ? derive_gibbs_appell(model, request.order)
                                       : derive(model, request.method);
    const auto formed = with_values(raw, request.values);
    result.equations = presented(formed, request, result);
    if (request.split) split_shown(coriolis_split(raw), formed, request, result);
  }
  // Gauss's compulsion Z, whose stationarity in q̈ gave the equations (seed 003 eq. 11).
  if (request.compulsion) {
    sym::Differentiator d(model->time_functions);
    kin::Kinematics kin(model, d);
    result.compulsion = shown(compulsion(kin), *model, request, readable_context(*model));
  }
  if (request.inertial_forces) result.inertial_forces = inertial_force_terms(model, request);
  return result;
}

sym::ReadableContext readable_context(const model::Model& model) {
  std::vector<std::string> functions;
  for (const auto& coordinate : model.coordinates) functions.push_back(coordinate.name);
  for (const auto& prescribed : model.prescribed)
    if (!prescribed.expression) functions.push_back(prescribed.name);
  for (const auto& speed : model.speeds)
    if (speed.kind != model::Speed::Kind::Coordinate) functions.push_back(speed.name);
  std::vector<GiNaC::symbol> parameters;
  for (const auto& parameter : model.parameters) parameters.push_back(parameter.symbol);
  auto context =
      sym::ReadableContext::for_functions(*model.time_functions, functions, std::move(parameters));
  context.positive = model.positive;
  // In the equations in the speeds u plays the part of the velocities and dot(u) that of the
  // accelerations: terms are collected over them (m*(h^2 + r^2)/(x^2 + y^2)^2, not one sum).
  for (std::size_t k = 0; k < model.speeds.size(); ++k)
    if (model.speeds[k].kind != model::Speed::Kind::Coordinate) {
      context.velocities.push_back(model.speed_symbol(k, 0));
      context.accelerations.push_back(model.speed_symbol(k, 1));
    }
  return context;
}

GiNaC::exmap printed_numbers(const model::Model& model, const model::Values& values) {
  GiNaC::exmap numbers;
  for (const auto& [symbol, number] : model::bind(model, values).given) {
    const double value = GiNaC::ex_to<GiNaC::numeric>(number).to_double();
    const double whole = std::round(value);
    numbers[symbol] = whole == value && std::abs(whole) < 1e15
                          ? GiNaC::numeric(static_cast<long>(whole))
                          : GiNaC::numeric(value);
  }
  return numbers;
}

namespace {}  // namespace

Equations with_values(const Equations& equations, const model::Values& values) {
  if (values.empty()) return equations;
  const GiNaC::exmap numbers = printed_numbers(*equations.model, values);
  GiNaC::exvector entries = equations.entries();
  for (auto& e : entries) e = sym::substitute(e, numbers);
  Equations result = equations;
  result.set_entries(entries);
  return result;
}

}  // namespace appell::principles
