// appell eval: M, f and q̈ at one state; --json prints the object of MODEL_FORMAT.md.
#include <algorithm>
#include <iomanip>
#include <iostream>

#include "appell/io/printed_numbers.hpp"
#include "appell/io/state_writer.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/dynamics.hpp"
#include "appell/numeric/reactions.hpp"
#include "appell/numeric/speeds.hpp"
#include "appell/numeric/split_evaluation.hpp"
#include "appell/numeric/state_evaluation.hpp"
#include "appell/principles/coriolis_split.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/minimal_form.hpp"
#include "appell/principles/recursive_dynamics.hpp"
#include "appell/principles/speed_form.hpp"
#include "cli_support.hpp"
#include "eval_derivatives.hpp"
#include "jit_flags.hpp"

namespace appell::cli {

namespace {

struct EvalOptions {
  UrdfFlags urdf;  // how a URDF model is read
  std::string model, method = "gibbs-appell", q, qd, u;
  double t = 0.0;
  std::vector<std::string> set;
  bool json = false;
  bool minimal = false;
  bool reactions = false;
  bool split = false;
  bool derivatives = false;
  bool no_jit = false;
  bool method_given = false;  // --method on the command line: the equations of that principle
};

// eval --minimal: M̃ u̇ = f̃ at (t, q, u); --qd gives either the independent speeds u or every
// speed (of which the independent ones are taken: the dependent ones follow from the constraints).
int run_eval_minimal(const EvalOptions& o, std::shared_ptr<const model::Model> model,
                     const Eigen::VectorXd& q) {
  const model::Model& m = *model;
  if (m.independent.empty())
    throw usage_error("--minimal", "the model lists no independent speeds (independent: [..])",
                      o.model);
  if (method_option(o.method) != principles::Method::GibbsAppell)
    throw usage_error("--minimal",
                      "the minimal form is formed by --method gibbs-appell (quasi-accelerations)",
                      o.method);
  const std::size_t n = m.dof();
  Eigen::VectorXd u;
  try {
    u = num::independent_speeds(m, o.qd.empty() ? std::vector<double>{} : parse_list("--qd", o.qd));
  } catch (const model::ModelError& e) {
    throw at_option(e, {{"speeds", "--qd"}});
  }
  const auto equations = principles::minimal_form(model);
  const num::CompiledEquations compiled(equations, parse_assignments(o.set));
  // Printed without rounding noise, text and JSON alike (io/printed_numbers.hpp).
  const auto state = io::without_rounding_noise(compiled.solve(o.t, q, u));

  if (o.json) {
    std::cout << io::write_minimal_state_json(m, o.t, q, state) << "\n";
    return 0;
  }
  std::cout << std::setprecision(12) << m.name << " at t = " << o.t
            << ", minimal form in the independent speeds\n";
  for (std::size_t i = 0; i < n; ++i) {
    const auto k = static_cast<Eigen::Index>(i);
    const auto position = std::find(m.independent.begin(), m.independent.end(), i);
    std::cout << "  " << m.coordinates[i].name << " = " << q[k] << ", dot = " << state.qd[k]
              << ", ddot = " << state.qdd[k];
    if (position == m.independent.end()) {
      std::cout << " (dependent)\n";
      continue;
    }
    const auto row = static_cast<Eigen::Index>(position - m.independent.begin());
    std::cout << ", f = " << state.forcing[row] << ", M row = [" << state.mass_matrix.row(row)
              << "]\n";
  }
  return 0;
}

// A model with generalized speeds: M̃ u̇ = f̃ at (t, q, u), with q̇ = W u and q̈ = W u̇ + γ.
// --u gives the speeds; without it they follow from the velocities (--qd or the model's).
int run_eval_speeds(const EvalOptions& o, std::shared_ptr<const model::Model> model,
                    Eigen::VectorXd q) {
  const model::Model& m = *model;
  if (o.minimal)
    throw usage_error("--minimal",
                      "a model with generalized speeds has no minimal form: its equations are "
                      "formed in the speeds",
                      o.model);
  if (o.reactions)
    throw usage_error("--reactions", "not computed yet for a model with generalized speeds",
                      m.name);
  const model::Values values = parse_assignments(o.set);
  num::normalize_quaternions(m, q, "--q");  // a zero quaternion: located at --q
  Eigen::VectorXd u;
  if (!o.u.empty()) {
    if (!o.qd.empty()) throw usage_error("--u", "give --u or --qd, not both", o.u);
    const std::vector<double> given = parse_list("--u", o.u);
    if (given.size() != m.speeds.size())
      throw usage_error("--u",
                        "expected " + std::to_string(m.speeds.size()) +
                            " speeds (one per speed, in the model's order), got " +
                            std::to_string(given.size()),
                        o.u);
    u = Eigen::Map<const Eigen::VectorXd>(given.data(), static_cast<Eigen::Index>(given.size()));
  } else {
    Eigen::VectorXd qd = initial_velocities(m);
    read_coordinate_values(m, "--qd", o.qd, qd);
    u = num::speeds_from_velocities(m, values, o.t, q, qd);
  }
  // Covered by the recursions (no constraints): the numbers in the speeds without forming the
  // equations (num::Dynamics in u); --method asks for the equations of one principle.
  const auto state = io::without_rounding_noise([&] {
    if (o.method_given || !principles::recursions_do_not_cover(m).empty()) {
      const auto equations = principles::speed_form(model, method_option(o.method));
      return num::CompiledEquations(equations, values).solve(o.t, q, u);
    }
    return num::solve_in_speeds(num::Dynamics(model, values), o.t, q, u);
  }());
  if (o.json) {
    std::cout << io::write_speed_state_json(m, o.t, q, u, state) << "\n";
    return 0;
  }
  std::cout << std::setprecision(12) << m.name << " at t = " << o.t << ", in its speeds\n";
  for (std::size_t i = 0; i < m.dof(); ++i) {
    const auto k = static_cast<Eigen::Index>(i);
    std::cout << "  " << m.coordinates[i].name << " = " << q[k] << ", dot = " << state.qd[k]
              << ", ddot = " << state.qdd[k] << "\n";
  }
  for (std::size_t i = 0; i < m.speeds.size(); ++i) {
    const auto k = static_cast<Eigen::Index>(i);
    std::cout << "  " << m.speeds[i].name << " = " << u[k] << ", dot = " << state.vdot[k]
              << ", f = " << state.forcing[k] << ", M row = [" << state.mass_matrix.row(k) << "]\n";
  }
  return 0;
}

// eval --split: M, C, g, Q (and the prescribed motion's terms) at (t, q, q̇), from the equations
// of the chosen principle.
int run_eval_split(const EvalOptions& o, std::shared_ptr<const model::Model> model,
                   const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
  const model::Model& m = *model;
  principles::CoriolisSplit split;
  try {
    split = principles::coriolis_split(principles::derive(model, method_option(o.method)));
  } catch (const model::ModelError& e) {
    throw at_option(e, {{"split", "--split"}});
  }
  const num::CompiledSplit compiled(split, parse_assignments(o.set));
  const num::SplitEvaluation s = io::without_rounding_noise(compiled.evaluate(o.t, q, qd));
  if (o.json) {
    std::cout << io::write_split_state_json(m, s) << "\n";
    return 0;
  }
  std::cout << std::setprecision(12) << m.name << " at t = " << o.t
            << ", split M ddot(q) + C dot(q) + " << (s.moving ? "(dM/dt + G) dot(q) + p + " : "")
            << "g = Q" << (m.constraints.empty() ? "" : " + A^T lambda") << "\n";
  const Eigen::VectorXd h = s.nonlinear_effects();
  for (std::size_t i = 0; i < m.dof(); ++i) {
    const auto k = static_cast<Eigen::Index>(i);
    std::cout << "  " << m.coordinates[i].name << " = " << q[k] << ", dot = " << qd[k]
              << ", g = " << s.gravity[k] << ", Q = " << s.loads[k] << ", -f = " << h[k]
              << ", M row = [" << s.mass_matrix.row(k) << "], C row = [" << s.coriolis.row(k)
              << "]";
    if (s.moving)
      std::cout << ", dM/dt row = [" << s.mass_rate.row(k) << "], G row = [" << s.gyroscopic.row(k)
                << "], p = " << s.prescribed_motion[k];
    std::cout << "\n";
  }
  return 0;
}

int run_eval(const EvalOptions& o) {
  auto model = read_model(o.model, o.urdf);
  warn_coordinates_moving_no_mass(*model);
  const auto n = model->dof();
  Eigen::VectorXd q = initial_coordinates(*model), qd = initial_velocities(*model);
  const auto take = [&](const std::string& option, const std::string& text, Eigen::VectorXd& into) {
    read_coordinate_values(*model, option, text, into);
  };
  take("--q", o.q, q);
  if (o.derivatives) {
    // The recursions differentiated: no equations of a principle, no other form of them.
    const std::pair<bool, const char*> others[] = {{o.method_given, "--method"},
                                                   {o.split, "--split"},
                                                   {o.minimal, "--minimal"},
                                                   {o.reactions, "--reactions"},
                                                   {!o.u.empty(), "--u"}};
    for (const auto& [given, option] : others)
      if (given) throw usage_error("--derivatives", "not with " + std::string(option), option);
    take("--qd", o.qd, qd);
    return run_eval_derivatives(model, o.set, o.t, q, qd, o.json);
  }
  if (o.split && model->has_speeds())
    throw usage_error("--split",
                      "a model with generalized speeds is formed in them, where M's Christoffel "
                      "symbols do not give the velocity terms",
                      o.model);
  // A quaternion frame's equations exist in the speeds only; --u asks for them.
  if (model->has_speeds() && (!model->quaternions.empty() || !o.u.empty()))
    return run_eval_speeds(o, model, q);
  if (!o.u.empty())
    throw usage_error("--u", "the model has no generalized speeds (speeds:, rot_quat)", o.u);
  if (o.minimal && o.reactions)
    throw usage_error("--reactions",
                      "not with --minimal (the minimal form has no multipliers: evaluate without "
                      "--minimal for the reactions and the constraint forces)",
                      "--minimal");
  if (o.split && (o.minimal || o.reactions))
    throw usage_error("--split", "not with --minimal or --reactions",
                      o.minimal ? "--minimal" : "--reactions");
  if (o.minimal) return run_eval_minimal(o, model, q);
  take("--qd", o.qd, qd);
  if (o.split) return run_eval_split(o, model, q, qd);

  const model::Values values = parse_assignments(o.set);
  // A tree the recursions cover: its numbers without forming the equations (num::Dynamics), in
  // time about linear in the bodies; constraints as the Dynamics' own rows (A, b and λ).
  // --method asks for the equations of one principle: formed, then evaluated by their tape (one
  // state never waits for a compiler).
  const num::StateEvaluation computed = [&] {
    if (!o.method_given && principles::recursions_do_not_cover(*model).empty())
      return num::evaluate_state(num::Dynamics(model, values), o.t, q, qd);
    const auto eq = principles::derive(model, method_option(o.method));
    return num::evaluate_state(num::CompiledEquations(eq, values), o.t, q, qd);
  }();
  // Everything printed without rounding noise, text and JSON alike (io/printed_numbers.hpp); the
  // reactions from the accelerations as computed.
  const num::StateEvaluation state = io::without_rounding_noise(computed);
  const Eigen::MatrixXd& M = state.mass_matrix;
  const Eigen::VectorXd &f = state.forcing, &qdd = state.qdd;
  if (!state.redundant.empty()) {
    std::vector<std::string> names;
    for (std::size_t i : state.redundant) names.push_back(model->constraints[i].name);
    std::cerr << "warning: redundant constraints at this state (combinations of the others): "
              << join_names(names) << "; lambda is the minimum-norm one\n";
  }
  std::vector<num::Reaction> reactions;
  if (o.reactions)
    reactions = io::without_rounding_noise(
        num::CompiledReactions(model, parse_assignments(o.set)).evaluate(o.t, q, qd, computed.qdd));
  if (o.json) {
    std::cout << (o.reactions ? io::write_state_json(*model, state, reactions)
                              : io::write_state_json(*model, state))
              << "\n";
  } else {
    std::cout << std::setprecision(12) << model->name << " at t = " << o.t << "\n";
    for (std::size_t i = 0; i < n; ++i) {
      const auto k = static_cast<Eigen::Index>(i);
      std::cout << "  " << model->coordinates[i].name << " = " << q[k] << ", dot = " << qd[k]
                << ", ddot = " << qdd[k] << ", f = " << f[k] << ", M row = [" << M.row(k) << "]\n";
    }
    if (o.reactions)
      std::cout << "reactions (force and moment of each frame's parent on it and everything below "
                   "it, at its origin, world axes):\n";
    for (const auto& r : reactions)
      std::cout << "  " << r.frame << ": force = [" << r.force.transpose() << "], moment = ["
                << r.moment.transpose() << "]\n";
    if (o.reactions && !model->constraints.empty()) {
      std::cout << "  (with constraints, each also holds the constraint forces on the frame's "
                   "subtree)\nconstraint forces (generalized, lambda times the constraint's row "
                   "of A):\n";
      // As the JSON writer forms them (io::write_state_json): from the state as printed.
      const auto forces = io::without_rounding_noise(num::generalized_constraint_forces(state));
      for (std::size_t c = 0; c < forces.size(); ++c)
        std::cout << "  " << model->constraints[c].name << ": [" << forces[c].transpose() << "]\n";
    }
  }
  return 0;
}

}  // namespace

void add_eval_command(CLI::App& app, Commands& commands) {
  auto o = std::make_shared<EvalOptions>();
  auto* e = app.add_subcommand("eval", "M, f and ddot(q) at a state");
  e->add_option("MODEL", o->model, "model file (YAML or URDF)")->required();
  add_urdf_options(*e, o->urdf);
  e->add_option("--q", o->q, "coordinates V1,V2,.. (default: the model's initial values)");
  e->add_option("--qd", o->qd, "velocities V1,V2,.. (default: the model's initial values)");
  e->add_option("--u", o->u,
                "a model with generalized speeds: the speeds V1,V2,.. (default: from the "
                "velocities); prints M~ dot(u) = f~ with dot(q) = W u");
  e->add_option("--t", o->t, "time (default 0)");
  e->add_option("--set", o->set,
                "NAME=VALUE for a parameter, an input or an unspecified prescribed function "
                "(also dot(NAME)=VALUE); repeatable");
  add_method_option(*e, o->method, o->method_given,
                    "lagrange | gibbs-appell (default) | dalembert | gauss | nielsen");
  e->add_flag("--json", o->json, "print one JSON object (MODEL_FORMAT.md)");
  e->add_flag("--minimal", o->minimal,
              "the minimal form in the model's independent speeds (independent: [..]): --qd "
              "gives those speeds (or every speed, of which they are taken)");
  add_jit_flag(*e, o->no_jit);
  e->add_flag("--split", o->split,
              "M, C(q, dot(q)), g(q) and the loads Q of M ddot(q) + C dot(q) + g = Q at the state "
              "(with prescribed or carrier motion also dM/dt, G and p); --json keys mass_matrix, "
              "coriolis, gravity, loads, nonlinear_effects");
  e->add_flag("--derivatives", o->derivatives,
              "the derivatives of the dynamics at the state, by differentiating the recursions: "
              "dtau_dq, dtau_dqd (of tau = M ddot(q) - f at this ddot(q)), dqdd_dq, dqdd_dqd and "
              "minv = M^-1 (--json keys)");
  e->add_flag("--reactions", o->reactions,
              "also the force and moment each frame's parent exerts on it and everything below "
              "it, at its origin, world axes (--json: \"reactions\": {FRAME: {\"force\", "
              "\"moment\"}})");
  commands.push_back({e, [o] { return run_eval(*o); }});
}

}  // namespace appell::cli
