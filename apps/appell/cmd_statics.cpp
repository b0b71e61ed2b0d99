// appell statics: generalized forces by virtual work, equilibria and their stability.
#include <iostream>
#include <nlohmann/json.hpp>

#include "appell/io/equation_writer.hpp"
#include "appell/numeric/statics.hpp"
#include "appell/sym/readable.hpp"
#include "cli_support.hpp"

namespace appell::cli {

namespace {

struct StaticsCommandOptions {
  UrdfFlags urdf;  // how a URDF model is read
  std::string model;
  std::vector<std::string> guesses, set;
  double t = 0.0;
  bool json = false;
};

int run_statics(const StaticsCommandOptions& o) {
  auto model = read_model(o.model, o.urdf);
  num::StaticsOptions options;
  options.values = parse_assignments(o.set);
  options.t = o.t;
  // --guess q1=0.5 sets that coordinate of one extra starting point (others at their initial
  // values); --guess 0.5,1.0 gives a whole starting point.
  Eigen::VectorXd named(static_cast<Eigen::Index>(model->dof()));
  bool has_named = false;
  for (std::size_t j = 0; j < model->dof(); ++j)
    named[static_cast<Eigen::Index>(j)] = model->coordinates[j].initial;
  for (const auto& g : o.guesses) {
    const auto eq = g.find('=');
    if (eq == std::string::npos) {
      const auto values = parse_list("--guess", g);
      if (values.size() != model->dof())
        throw usage_error("--guess",
                          "expected " + std::to_string(model->dof()) + " values or NAME=VALUE", g);
      options.guesses.push_back(Eigen::Map<const Eigen::VectorXd>(
          values.data(), static_cast<Eigen::Index>(values.size())));
      continue;
    }
    const std::string name = g.substr(0, eq);
    std::size_t index = model->dof();
    for (std::size_t j = 0; j < model->dof(); ++j)
      if (model->coordinates[j].name == name) index = j;
    if (index == model->dof()) throw usage_error("--guess", "unknown coordinate", name);
    named[static_cast<Eigen::Index>(index)] = parse_number("--guess", g.substr(eq + 1));
    has_named = true;
  }
  if (has_named) options.guesses.insert(options.guesses.begin(), named);

  const auto result = num::solve_statics(model, options);
  const auto context = io::readable_context(*model);
  const GiNaC::matrix forces = sym::readable(result.generalized_forces, context);
  if (o.json) {
    nlohmann::ordered_json j;
    j["generalized_forces"] = nlohmann::ordered_json::array();
    for (unsigned i = 0; i < forces.rows(); ++i)
      j["generalized_forces"].push_back(io::expression_text(forces(i, 0), context));
    j["equilibria"] = nlohmann::ordered_json::array();
    for (const auto& e : result.equilibria) {
      nlohmann::ordered_json entry = {
          {"q", std::vector<double>(e.q.data(), e.q.data() + e.q.size())}, {"stable", e.stable}};
      // With holonomic constraints, their multipliers (as `eval` names them in its JSON).
      if (e.lambda.size() > 0)
        entry["lambda"] = std::vector<double>(e.lambda.data(), e.lambda.data() + e.lambda.size());
      j["equilibria"].push_back(entry);
    }
    std::cout << j.dump() << "\n";
    return 0;
  }
  std::cout << model->name << ": generalized forces at rest, by virtual work\n";
  for (unsigned i = 0; i < forces.rows(); ++i)
    std::cout << "  Q_" << model->coordinates[i].name << " = "
              << io::expression_text(forces(i, 0), context) << "\n";
  const bool constrained =
      !result.equilibria.empty() && result.equilibria.front().lambda.size() > 0;
  if (constrained)
    std::cout << "\nequilibria (Q + Phi_q^T lambda = 0, phi = 0), stability from the stiffness "
                 "K = -d(Q + Phi_q^T lambda)/dq on the motions the constraints allow:\n";
  else
    std::cout << "\nequilibria (Q = 0), stability from the stiffness K = -dQ/dq:\n";
  for (const auto& e : result.equilibria) {
    std::cout << "  q = [";
    for (Eigen::Index k = 0; k < e.q.size(); ++k) std::cout << (k ? ", " : "") << e.q[k];
    std::cout << "]";
    if (e.lambda.size() > 0) {
      std::cout << "  lambda = [";
      for (Eigen::Index k = 0; k < e.lambda.size(); ++k)
        std::cout << (k ? ", " : "") << e.lambda[k];
      std::cout << "]";
    }
    std::cout << "  " << (e.stable ? "stable" : "unstable")
              << "  (eigenvalues of K: " << e.stiffness_eigenvalues.transpose() << ")\n";
  }
  return 0;
}

}  // namespace

void add_statics_command(CLI::App& app, Commands& commands) {
  auto o = std::make_shared<StaticsCommandOptions>();
  auto* s = app.add_subcommand(
      "statics", "generalized forces by virtual work, equilibria and their stability");
  s->add_option("MODEL", o->model, "model file (YAML or URDF)")->required();
  add_urdf_options(*s, o->urdf);
  s->add_flag("--json", o->json,
              "print {\"generalized_forces\": [..], \"equilibria\": [{\"q\", \"stable\"}]} "
              "(and \"lambda\" with holonomic constraints)");
  s->add_option("--guess", o->guesses,
                "a starting point: NAME=VALUE (one coordinate) or V1,V2,.. (repeatable)");
  s->add_option("--set", o->set, "override a parameter: NAME=VALUE (repeatable)");
  s->add_option("--t", o->t, "time for rheonomic loads (default 0)");
  commands.push_back({s, [o] { return run_statics(*o); }});
}

}  // namespace appell::cli
