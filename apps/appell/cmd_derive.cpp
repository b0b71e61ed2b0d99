// appell derive: M(q, t) q̈ = f(q, q̇, t) as text, LaTeX or JSON.
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>

#include "appell/io/equation_writer.hpp"
#include "appell/io/minimal_form_writer.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/kinematics/kinematics.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/gauss.hpp"
#include "appell/principles/minimal_form.hpp"
#include "appell/principles/relative_motion.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/differentiator.hpp"
#include "appell/sym/readable.hpp"
#include "cli_support.hpp"

namespace appell::cli {

namespace {

/// The numbers given with --set (parameters, inputs, unspecified functions; model::bind) to
/// substitute into printed equations.
GiNaC::exmap parameter_numbers(const model::Model& model, const model::Values& values) {
  GiNaC::exmap substitution;
  for (const auto& [symbol, number] : model::bind(model, values).given) {
    // Whole numbers stay exact so that the printed equations keep rational coefficients.
    const double value = GiNaC::ex_to<GiNaC::numeric>(number).to_double();
    const double whole = std::round(value);
    substitution[symbol] = whole == value && std::abs(whole) < 1e15
                               ? GiNaC::numeric(static_cast<long>(whole))
                               : GiNaC::numeric(value);
  }
  return substitution;
}

/// Numbers given with --set are substituted into the printed equations: M, f and the
/// constraint rows A, b alike.
principles::Equations with_parameters(const principles::Equations& eq,
                                      const model::Values& values) {
  if (values.empty()) return eq;
  const GiNaC::exmap substitution = parameter_numbers(*eq.model, values);
  principles::Equations result = eq;
  GiNaC::exvector entries = eq.entries();
  for (auto& e : entries) e = sym::substitute(e, substitution);
  result.set_entries(entries);
  return result;
}

struct DeriveOptions {
  std::string model, method = "gibbs-appell", format = "text";
  std::vector<std::string> set;
  std::string show;
  int order = 1;
  bool raw = false;
  bool minimal = false;
};

/// The form of the equations of relative motion that --show inertial-forces prints (seed 003
/// eqs. 55–57): the one of the chosen --method.
enum class RelativeForm { Appell, Lagrange, Nielsen };

RelativeForm relative_form(principles::Method method, const std::string& written) {
  switch (method) {
    case principles::Method::GibbsAppell:
      return RelativeForm::Appell;
    case principles::Method::Lagrange:
      return RelativeForm::Lagrange;
    case principles::Method::Nielsen:
      return RelativeForm::Nielsen;
    default:
      throw usage_error("--method",
                        "the equations of relative motion have Appell's (gibbs-appell), "
                        "Lagrange's (lagrange) and Nielsen's (nielsen) forms",
                        written);
  }
}

int run_derive(const DeriveOptions& o) {
  auto model = io::read_model_file(o.model);
  const auto values = parse_assignments(o.set);
  const auto method = method_option(o.method);
  if (o.format != "text" && o.format != "latex" && o.format != "json")
    throw usage_error("--format", "unknown format (text, latex, json)", o.format);
  if (!o.show.empty() && o.show != "compulsion" && o.show != "inertial-forces")
    throw usage_error("--show", "unknown quantity (compulsion, inertial-forces)", o.show);
  if (o.show == "inertial-forces" && !model->relative_to)
    throw usage_error("--show", "inertial forces need a carrier frame (relative_to: FRAME)",
                      o.show);
  if (o.show == "compulsion" && method != principles::Method::Gauss)
    throw usage_error("--show", "the compulsion belongs to --method gauss", o.method);

  if (o.order < 1) throw usage_error("--order", "the order is at least 1", std::to_string(o.order));
  if (o.order > 1 && method != principles::Method::GibbsAppell)
    throw usage_error("--order", "higher orders belong to --method gibbs-appell", o.method);
  const RelativeForm form =
      o.show == "inertial-forces" ? relative_form(method, o.method) : RelativeForm::Lagrange;
  if (o.minimal) {
    if (model->independent.empty())
      throw usage_error("--minimal", "the model lists no independent speeds (independent: [..])",
                        o.model);
    if (method != principles::Method::GibbsAppell)
      throw usage_error("--minimal",
                        "the minimal form is formed by --method gibbs-appell (quasi-accelerations)",
                        o.method);
    if (o.order > 1)
      throw usage_error("--minimal", "the minimal form is of order 1", std::to_string(o.order));
  }

  // The minimal form in the independent accelerations, or M q̈ = f (+ Aᵀλ).
  std::optional<principles::Equations> formed;
  std::optional<principles::MinimalEquations> minimal;
  if (o.minimal) {
    auto mf = principles::minimal_form(model);
    if (!values.empty()) {
      const GiNaC::exmap substitution = parameter_numbers(*model, values);
      GiNaC::exvector entries;
      for (const auto& e : mf.entries()) entries.push_back(sym::substitute(e, substitution));
      mf.set_entries(entries);
    }
    minimal = o.raw ? mf : principles::simplify(mf);
  } else {
    auto eq = with_parameters(o.order > 1 ? principles::derive_gibbs_appell(model, o.order)
                                          : principles::derive(model, method),
                              values);
    formed = o.raw ? eq : principles::simplify(eq);
  }
  // A holder for --set substitution of the extra quantities below (compulsion, inertial forces).
  const principles::Equations eq = formed ? *formed : [&] {
    principles::Equations e;
    e.model = model;
    return e;
  }();

  // Gauss's compulsion Z, whose stationarity in q̈ gave the equations (seed 003 eq. 11).
  std::string compulsion_text, compulsion_latex;
  if (o.show == "compulsion") {
    sym::Differentiator d(model->time_functions);
    kin::Kinematics kin(model, d);
    GiNaC::matrix z(1, 1);
    z(0, 0) = principles::compulsion(kin);
    principles::Equations holder = eq;  // reuse --set substitution on a 1×1 "equation"
    holder.mass_matrix = z;
    holder.forcing = GiNaC::matrix(1, 1);
    holder = with_parameters(holder, values);
    const auto context = io::readable_context(*model);
    const GiNaC::ex shown =
        o.raw ? holder.mass_matrix(0, 0) : sym::readable(holder.mass_matrix(0, 0), context);
    compulsion_text = io::expression_text(shown, context);
    compulsion_latex = io::expression_latex(shown, context);
  }

  // The inertial forces of the carrier's motion, seed 003 eqs. 31–34, each made readable.
  std::vector<std::pair<std::string, GiNaC::ex>> inertial;
  if (o.show == "inertial-forces") {
    sym::Differentiator d(model->time_functions);
    kin::Kinematics kin(model, d);
    const auto forces = principles::inertial_forces(kin);
    // Appell's form needs the relative acceleration energy, Nielsen's the rate of T_r; T_r, the
    // energy of the relative motion, is shown in every form.
    if (form == RelativeForm::Appell)
      inertial.emplace_back("S_r", principles::relative_acceleration_energy(kin));
    inertial.emplace_back("T_r", forces.relative_kinetic_energy);
    if (form == RelativeForm::Nielsen)
      inertial.emplace_back("Tdot_r", d.time_derivative(forces.relative_kinetic_energy));
    inertial.emplace_back("Pi_o", forces.transport_potential);
    inertial.emplace_back("Pi_omega", forces.centrifugal_potential);
    for (std::size_t s = 0; s < model->dof(); ++s)
      inertial.emplace_back("Q_omegadot_" + model->coordinates[s].name,
                            forces.rotational(static_cast<unsigned>(s), 0));
    for (std::size_t s = 0; s < model->dof(); ++s)
      inertial.emplace_back("Gamma_" + model->coordinates[s].name,
                            forces.gyroscopic(static_cast<unsigned>(s), 0));
    principles::Equations holder = eq;
    holder.mass_matrix = GiNaC::matrix(static_cast<unsigned>(inertial.size()), 1);
    for (std::size_t k = 0; k < inertial.size(); ++k)
      holder.mass_matrix(static_cast<unsigned>(k), 0) = inertial[k].second;
    holder.forcing = GiNaC::matrix(1, 1);
    holder.multipliers.clear();
    holder = with_parameters(holder, values);
    const auto context = io::readable_context(*model);
    for (std::size_t k = 0; k < inertial.size(); ++k) {
      const GiNaC::ex e = holder.mass_matrix(static_cast<unsigned>(k), 0);
      inertial[k].second = o.raw ? e : sym::readable(e, context);
    }
  }
  const auto context = io::readable_context(*model);
  // Seed 003 eqs. 55–57: the left-hand side of each form; the right-hand side is common.
  const char* form_name = form == RelativeForm::Appell     ? "appell"
                          : form == RelativeForm::Lagrange ? "lagrange"
                                                           : "nielsen";
  const char* form_text = form == RelativeForm::Appell     ? "dS_r/d(ddot q)"
                          : form == RelativeForm::Lagrange ? "d/dt dT_r/d(dot q) - dT_r/dq"
                                                           : "dTdot_r/d(dot q) - 2 dT_r/dq";
  const char* form_latex = form == RelativeForm::Appell
                               ? "\\frac{\\partial S_r}{\\partial \\ddot{q}_s}"
                           : form == RelativeForm::Lagrange
                               ? "\\frac{d}{dt}\\frac{\\partial T_r}{\\partial \\dot{q}_s} - "
                                 "\\frac{\\partial T_r}{\\partial q_s}"
                               : "\\frac{\\partial \\dot{T}_r}{\\partial \\dot{q}_s} - "
                                 "2\\frac{\\partial T_r}{\\partial q_s}";
  const std::string right_side = " = Q - d(Pi_o + Pi_omega)/dq + Q_omegadot + Gamma";

  if (o.format == "text") {
    std::cout << (minimal ? io::write_text(*minimal) : io::write_text(eq));
    if (!compulsion_text.empty()) std::cout << "\ncompulsion Z = " << compulsion_text << "\n";
    if (!inertial.empty()) {
      std::cout << "\ninertial forces of the carrier " << *model->relative_to
                << " (relative motion in " << form_name << " form: " << form_text << right_side
                << "):\n";
      for (const auto& [name, e] : inertial)
        std::cout << "  " << name << " = " << io::expression_text(e, context) << "\n";
    }
  } else if (o.format == "latex") {
    std::cout << (minimal ? io::write_latex(*minimal) : io::write_latex(eq));
    if (!compulsion_latex.empty())
      std::cout << "\\begin{equation}\nZ = " << compulsion_latex << "\n\\end{equation}\n";
    if (!inertial.empty()) {
      std::cout << "% relative motion in " << form_name << " form\n\\begin{equation}\n  "
                << form_latex
                << " = Q_s - \\frac{\\partial (\\Pi_o + \\Pi_\\omega)}{\\partial q_s} + "
                   "Q^{\\dot{\\omega}}_s + \\Gamma_s\n\\end{equation}\n";
      std::cout << "\\begin{align}\n";
      for (std::size_t k = 0; k < inertial.size(); ++k)
        std::cout << "  \\mathrm{" << std::regex_replace(inertial[k].first, std::regex("_"), "\\_")
                  << "} &= " << io::expression_latex(inertial[k].second, context)
                  << (k + 1 < inertial.size() ? " \\\\" : "") << "\n";
      std::cout << "\\end{align}\n";
    }
  } else {
    auto json =
        nlohmann::ordered_json::parse(minimal ? io::write_json(*minimal) : io::write_json(eq));
    if (!compulsion_text.empty()) json["compulsion"] = compulsion_text;
    if (!inertial.empty()) {
      nlohmann::ordered_json forces = nlohmann::ordered_json::object();
      forces["carrier"] = *model->relative_to;
      forces["form"] = form_name;
      forces["equation"] = std::string(form_text) + right_side;
      for (const auto& [name, e] : inertial) forces[name] = io::expression_text(e, context);
      json["inertial_forces"] = forces;
    }
    std::cout << json.dump(2) << "\n";
  }
  return 0;
}

}  // namespace

void add_derive_command(CLI::App& app, Commands& commands) {
  auto o = std::make_shared<DeriveOptions>();
  auto* d = app.add_subcommand("derive", "print M(q,t) ddot(q) = f(q, dot(q), t)");
  d->add_option("MODEL", o->model, "model file (YAML)")->required();
  d->add_option("--method", o->method,
                "lagrange | gibbs-appell (default) | dalembert | gauss | nielsen");
  d->add_option("--format", o->format, "text (default) | latex | json");
  d->add_option("--set", o->set, "override a parameter: NAME=VALUE (repeatable)");
  d->add_option(
      "--show", o->show,
      "also print: compulsion (Gauss's Z, with --method gauss) or inertial-forces (T_r, Pi_o, "
      "Pi_omega, Q_omegadot, Gamma of the carrier frame, with relative_to)");
  d->add_option("--order", o->order,
                "Gibbs-Appell equations of order m (energy of the (m+1)-th derivatives), m >= 1");
  d->add_flag("--raw", o->raw, "print the equations as formed, without simplification");
  d->add_flag("--minimal", o->minimal,
              "the minimal form in the model's independent speeds (independent: [..]) by "
              "Gibbs-Appell with quasi-accelerations: no multipliers");
  commands.push_back({d, [o] { return run_derive(*o); }});
}

}  // namespace appell::cli
