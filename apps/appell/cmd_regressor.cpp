// appell regressor: τ + Q_loads = Y(q, q̇, q̈) π in the standard inertial parameters, and with
// --base the base parameters and the reduced regressor (io/regressor_writer.hpp prints them).
#include <iostream>

#include "appell/io/regressor_writer.hpp"
#include "cli_support.hpp"

namespace appell::cli {

namespace {

struct RegressorOptions {
  UrdfFlags urdf;  // how a URDF model is read
  std::string model, format = "text";
  std::vector<std::string> set;
  bool base = false;
};

int run_regressor(const RegressorOptions& o) {
  if (o.format != "text" && o.format != "latex" && o.format != "json")
    throw usage_error("--format", "unknown format (text, latex, json)", o.format);
  const model::Values values = parse_assignments(o.set);
  auto model = read_model(o.model, o.urdf);
  const io::RegressorFormat format = o.format == "text"    ? io::RegressorFormat::Text
                                     : o.format == "latex" ? io::RegressorFormat::Latex
                                                           : io::RegressorFormat::Json;
  std::cout << io::write_regressor(*model, values, o.base, format);
  return 0;
}

}  // namespace

void add_regressor_command(CLI::App& app, Commands& commands) {
  auto o = std::make_shared<RegressorOptions>();
  auto* c = app.add_subcommand(
      "regressor",
      "the inertial-parameter regressor: Y(q, dot(q), ddot(q)) pi = tau + Q_loads, pi the ten "
      "standard parameters of each body about its frame's origin; --base: the base parameters");
  c->add_option("MODEL", o->model, "model file (YAML or URDF)")->required();
  add_urdf_options(*c, o->urdf);
  c->add_flag("--base", o->base,
              "also the base parameters (exact combinations of the standard ones: kept, grouped, "
              "vanishing, by the numeric rank of Y at random states) and the reduced regressor");
  c->add_option("--format", o->format, "text (default) | latex | json");
  c->add_option("--set", o->set, "override a parameter: NAME=VALUE (repeatable)");
  commands.push_back({c, [o] { return run_regressor(*o); }});
}

}  // namespace appell::cli
