// appell regressor: τ + Q_loads = Y(q, q̇, q̈) π in the standard inertial parameters, and with
// --base the base parameters and the reduced regressor (io/regressor_writer.hpp prints them);
// with a state (--q, --qd, --qdd) Y's numbers there (num::regressor_numbers).
#include <iostream>

#include "appell/io/regressor_writer.hpp"
#include "appell/numeric/regressor_numbers.hpp"
#include "cli_support.hpp"

namespace appell::cli {

namespace {

struct RegressorOptions {
  UrdfFlags urdf;  // how a URDF model is read
  std::string model, format = "text";
  std::vector<std::string> set;
  bool base = false, json = false;
  bool intermediates = false;
  std::size_t intermediates_above = 400;
  bool intermediates_above_given = false;
  std::string q, qd, qdd, u, udot;
  double t = 0.0;
  bool t_given = false;
};

// Y's numbers at the state the options give: --qdd always (no acceleration is natural), --q and
// --qd defaulting to the model's initial values as `eval`'s.
int run_numbers(const RegressorOptions& o, const std::shared_ptr<const model::Model>& model,
                const model::Values& values, io::RegressorFormat format) {
  if (o.intermediates || o.intermediates_above_given)
    throw usage_error(o.intermediates ? "--intermediates" : "--intermediates-above",
                      "names the symbolic regressor's intermediates: not with a state (--q, "
                      "--qd, --qdd)");
  if (format == io::RegressorFormat::Latex)
    throw usage_error("--format", "the regressor at a state prints text or json", o.format);
  num::RegressorState state;
  state.t = o.t;
  // In generalized speeds the regressor is refused by the library, whatever the state says (its
  // rates would be --u and --udot).
  if (model->has_speeds()) {
    num::regressor_numbers(*model, values, state, o.base);
    return 1;  // not reached: the library refuses such a model
  }
  if (!o.u.empty() || !o.udot.empty())
    throw usage_error(o.u.empty() ? "--udot" : "--u",
                      "the model has no generalized speeds (speeds:, rot_quat): give --qd and "
                      "--qdd",
                      o.u.empty() ? o.udot : o.u);
  if (o.qdd.empty())
    throw usage_error("--qdd",
                      "the regressor at a state needs the accelerations ddot(q) (--q and --qd "
                      "default to the model's initial values)");
  state.q = initial_coordinates(*model);
  state.qd = initial_velocities(*model);
  state.qdd = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(model->dof()));
  read_coordinate_values(*model, "--q", o.q, state.q);
  read_coordinate_values(*model, "--qd", o.qd, state.qd);
  read_coordinate_values(*model, "--qdd", o.qdd, state.qdd);
  const num::RegressorNumbers numbers = num::regressor_numbers(*model, values, state, o.base);
  std::cout << io::write_regressor_numbers(*model, state, numbers, format);
  return 0;
}

int run_regressor(const RegressorOptions& o) {
  if (o.format != "text" && o.format != "latex" && o.format != "json")
    throw usage_error("--format", "unknown format (text, latex, json)", o.format);
  if (o.json && o.format != "text" && o.format != "json")
    throw usage_error("--json", "not with --format " + o.format, o.format);
  const model::Values values = parse_assignments(o.set);
  auto model = read_model(o.model, o.urdf);
  const io::RegressorFormat format = o.json || o.format == "json" ? io::RegressorFormat::Json
                                     : o.format == "latex"        ? io::RegressorFormat::Latex
                                                                  : io::RegressorFormat::Text;
  const bool state = !o.q.empty() || !o.qd.empty() || !o.qdd.empty() || !o.u.empty() ||
                     !o.udot.empty() || o.t_given;
  if (state) return run_numbers(o, model, values, format);
  principles::RegressorRequest request;
  request.intermediates = o.intermediates;
  request.intermediates_above = o.intermediates_above;
  std::cout << io::write_regressor(*model, values, o.base, format, request);
  return 0;
}

}  // namespace

void add_regressor_command(CLI::App& app, Commands& commands) {
  auto o = std::make_shared<RegressorOptions>();
  auto* c = app.add_subcommand(
      "regressor",
      "the inertial-parameter regressor: Y(q, dot(q), ddot(q)) pi = tau + Q_loads, pi the ten "
      "standard parameters of each body about its frame's origin; --base: the base parameters; "
      "--q/--qd/--qdd: Y's numbers at that state");
  c->add_option("MODEL", o->model, "model file (YAML or URDF)")->required();
  add_urdf_options(*c, o->urdf);
  c->add_flag("--base", o->base,
              "also the base parameters (exact combinations of the standard ones: kept, grouped, "
              "vanishing, by the numeric rank of Y at random states) and the reduced regressor");
  c->add_option("--format", o->format, "text (default) | latex | json");
  c->add_flag("--json", o->json, "print one JSON object (as --format json)");
  c->add_option("--set", o->set, "override a parameter: NAME=VALUE (repeatable)");
  c->add_option("--q", o->q,
                "Y's numbers at a state: coordinates V1,V2,.. (default: the model's initial "
                "values; needs --qdd)");
  c->add_option("--qd", o->qd,
                "Y's numbers at a state: velocities V1,V2,.. (default: the model's initial "
                "values; needs --qdd)");
  c->add_option("--qdd", o->qdd, "Y's numbers at a state: accelerations V1,V2,..");
  c->add_option("--u", o->u,
                "a model in generalized speeds: the speeds V1,V2,.. (the regressor does not "
                "cover generalized speeds yet: refused)");
  c->add_option("--udot", o->udot,
                "a model in generalized speeds: the speeds' rates V1,V2,.. (refused as --u)");
  c->add_option("--t", o->t, "Y's numbers at a state: the time (default 0)");
  c->add_flag("--intermediates", o->intermediates,
              "write Y through the quantities of its recursion, named after their frames and "
              "defined once in order (omega_3x, a_2z, w_1_3x, ...), as derive --intermediates");
  c->add_option("--intermediates-above", o->intermediates_above,
                "switch to named intermediates by itself when Y as formed has more than NODES "
                "distinct nodes (default 400; 0: never by size)")
      ->type_name("NODES")
      ->check(CLI::Range(0.0, 1e12));
  commands.push_back({c, [o, c] {
                        o->t_given = c->count("--t") > 0;
                        o->intermediates_above_given = c->count("--intermediates-above") > 0;
                        return run_regressor(*o);
                      }});
}

}  // namespace appell::cli
