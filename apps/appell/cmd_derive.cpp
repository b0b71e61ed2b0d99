// appell derive: M(q, t) q̈ = f(q, q̇, t) as text, LaTeX or JSON.
#include <cmath>
#include <iostream>

#include "appell/io/equation_writer.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/principles/derive.hpp"
#include "appell/sym/dag.hpp"
#include "cli_support.hpp"

namespace appell::cli {

namespace {

/// Parameters given with --set are substituted into the printed equations.
principles::Equations with_parameters(const principles::Equations& eq,
                                      const std::map<std::string, double>& values) {
  if (values.empty()) return eq;
  GiNaC::exmap substitution;
  for (const auto& [name, value] : values) {
    const model::Parameter* p = eq.model->find_parameter(name);
    if (!p) throw usage_error("--set", "unknown parameter", name);
    // Whole numbers stay exact so that the printed equations keep rational coefficients.
    const double whole = std::round(value);
    substitution[p->symbol] = whole == value && std::abs(whole) < 1e15
                                  ? GiNaC::numeric(static_cast<long>(whole))
                                  : GiNaC::numeric(value);
  }
  principles::Equations result = eq;
  result.mass_matrix = sym::substitute(eq.mass_matrix, substitution);
  result.forcing = sym::substitute(eq.forcing, substitution);
  return result;
}

struct DeriveOptions {
  std::string model, method = "gibbs-appell", format = "text";
  std::vector<std::string> set;
  bool raw = false;
};

int run_derive(const DeriveOptions& o) {
  auto model = io::read_model_file(o.model);
  const auto values = parse_assignments(o.set);
  auto eq = with_parameters(principles::derive(model, method_option(o.method)), values);
  if (!o.raw) eq = principles::simplify(eq);
  if (o.format == "text")
    std::cout << io::write_text(eq);
  else if (o.format == "latex")
    std::cout << io::write_latex(eq);
  else if (o.format == "json")
    std::cout << io::write_json(eq) << "\n";
  else
    throw usage_error("--format", "unknown format (text, latex, json)", o.format);
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
  d->add_flag("--raw", o->raw, "print the equations as formed, without simplification");
  commands.push_back({d, [o] { return run_derive(*o); }});
}

}  // namespace appell::cli
