// appell derive: M(q, t) q̈ = f(q, q̇, t) as text, LaTeX or JSON (principles::derive with a
// DerivationRequest; io/derivation_writer.hpp prints it).
#include <iostream>

#include "appell/io/derivation_writer.hpp"
#include "appell/principles/derivation.hpp"
#include "cli_support.hpp"

namespace appell::cli {

namespace {

struct DeriveOptions {
  UrdfFlags urdf;  // how a URDF model is read
  std::string model, method = "gibbs-appell", format = "text";
  std::vector<std::string> set;
  std::string show;
  int order = 1;
  bool raw = false;
  bool minimal = false;
  bool intermediates = false;
  bool split = false;
  std::size_t intermediates_above = 1500;
};

int run_derive(const DeriveOptions& o) {
  auto model = read_model(o.model, o.urdf);
  warn_coordinates_moving_no_mass(*model);
  principles::DerivationRequest request;
  request.values = parse_assignments(o.set);
  request.method = method_option(o.method);
  if (o.format != "text" && o.format != "latex" && o.format != "json")
    throw usage_error("--format", "unknown format (text, latex, json)", o.format);
  if (!o.show.empty() && o.show != "compulsion" && o.show != "inertial-forces")
    throw usage_error("--show", "unknown quantity (compulsion, inertial-forces)", o.show);
  request.compulsion = o.show == "compulsion";
  request.inertial_forces = o.show == "inertial-forces";
  request.order = o.order;
  request.minimal = o.minimal;
  request.readable = !o.raw;
  request.intermediates = o.intermediates;
  request.split = o.split;
  request.intermediates_above = o.intermediates_above;

  principles::Derivation derivation;
  try {
    derivation = principles::derive(model, request);
  } catch (const model::ModelError& e) {
    throw at_option(e, {{"compulsion", "--show"},
                        {"inertial_forces", "--show"},
                        {"order", "--order"},
                        {"method", "--method"},
                        {"minimal", "--minimal"},
                        {"split", "--split"}});
  }
  io::WriteOptions writing;
  writing.timing = timing_requested();
  if (o.format == "text")
    std::cout << io::write_text(derivation, writing);
  else if (o.format == "latex")
    std::cout << io::write_latex(derivation);
  else
    std::cout << io::write_json(derivation, writing) << "\n";
  return 0;
}

}  // namespace

void add_derive_command(CLI::App& app, Commands& commands) {
  auto o = std::make_shared<DeriveOptions>();
  auto* d = app.add_subcommand("derive", "print M(q,t) ddot(q) = f(q, dot(q), t)");
  d->add_option("MODEL", o->model, "model file (YAML or URDF)")->required();
  add_urdf_options(*d, o->urdf);
  add_timing_flag(*d);
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
  d->add_flag("--split", o->split,
              "also the split M ddot(q) + C(q, dot(q)) dot(q) + g(q) = Q: C from the Christoffel "
              "symbols, g = dV/dq, Q the other loads (with prescribed or carrier motion also "
              "dM/dt, the gyroscopic G and the prescribed-motion forces p)");
  d->add_flag("--intermediates", o->intermediates,
              "write the equations through short named quantities defined once, in order: for "
              "a tree by gibbs-appell or dalembert the recursions over its frames (omega_3x, "
              "F_2y, J_1zz, ...), otherwise common subexpressions (z1 = cos(q1), ...)");
  d->add_option("--intermediates-above", o->intermediates_above,
                "switch to named intermediates by itself when the equations as formed have more "
                "than NODES distinct nodes (default 1500; 0: never; at most 1e12)")
      ->type_name("NODES")
      ->check(CLI::Range(0.0, 1e12));
  commands.push_back({d, [o] { return run_derive(*o); }});
}

}  // namespace appell::cli
