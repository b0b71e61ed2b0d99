// appell statics: generalized forces by virtual work, equilibria and their stability.
#include <cmath>
#include <iostream>
#include <sstream>

#include "appell/io/equation_writer.hpp"
#include "appell/io/statics_writer.hpp"
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
  double stability_tolerance = num::StaticsOptions{}.stability_tolerance;
  bool modes = false;
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

  options.stability_tolerance = o.stability_tolerance;
  num::StaticsResult result;
  try {
    result = num::solve_statics(model, options);
  } catch (const model::ModelError& e) {
    throw at_option(e, {{"guesses", "--guess"}, {"stability_tolerance", "--stability-tolerance"}});
  }
  // With --modes, the small oscillations about each equilibrium from the equations of motion.
  std::vector<num::EquilibriumDynamics> dynamics;
  if (o.modes) {
    dynamics = num::equilibria_dynamics(model, result, options);
  }
  if (o.json) {
    std::cout << io::write_statics_json(*model, result, o.modes ? &dynamics : nullptr) << "\n";
    return 0;
  }
  const auto context = io::readable_context(*model);
  const GiNaC::matrix forces = sym::readable(result.generalized_forces, context);
  const auto& relative = result.relative;
  const GiNaC::matrix inertial =
      relative ? sym::readable(relative->inertial_forces, context) : GiNaC::matrix();
  std::vector<std::string> free_names;
  for (const std::size_t j : result.free_coordinates)
    free_names.push_back(model->coordinates[j].name);
  std::cout << model->name << ": generalized forces at rest, by virtual work\n";
  for (unsigned i = 0; i < forces.rows(); ++i)
    std::cout << "  Q_" << model->coordinates[i].name << " = "
              << io::expression_text(forces(i, 0), context) << "\n";
  if (!free_names.empty())
    std::cout << "\nfree coordinates: " << join_names(free_names)
              << " (neither Q nor the constraints depend on "
              << (free_names.size() == 1 ? "it" : "them")
              << ": each equilibrium is a family in which "
              << (free_names.size() == 1 ? "it takes" : "they take")
              << " any value, shown at the starting value)\n";
  const bool constrained =
      !result.equilibria.empty() && result.equilibria.front().lambda.size() > 0;
  if (relative) {
    const std::string motion = io::relative_motion_text(*model, *relative);
    std::cout << "\ninertial forces of " << motion << " at rest (f - Q at dot(q) = 0)\n";
    for (unsigned i = 0; i < inertial.rows(); ++i)
      std::cout << "  F_" << model->coordinates[i].name << " = "
                << io::expression_text(inertial(i, 0), context) << "\n";
    std::cout << "\nrelative equilibria ("
              << (constrained ? "Q + F + Phi_q^T lambda = 0, phi = 0" : "Q + F = 0")
              << "), including the inertial forces of " << motion
              << "; steady (nothing at rest depends on t, shown " << relative->steady_by
              << "); stability from the stiffness K = -d(Q + F"
              << (constrained ? " + Phi_q^T lambda)/dq on the motions the constraints allow"
                              : ")/dq")
              << " and the linear model's modes:\n";
  } else if (constrained)
    std::cout << "\nequilibria (Q + Phi_q^T lambda = 0, phi = 0), stability from the stiffness "
                 "K = -d(Q + Phi_q^T lambda)/dq on the motions the constraints allow"
              << (o.modes ? " and the linear model's modes" : "") << ":\n";
  else
    std::cout << "\nequilibria (Q = 0), stability from the stiffness K = -dQ/dq"
              << (o.modes ? " and the linear model's modes" : "") << ":\n";
  for (std::size_t index = 0; index < result.equilibria.size(); ++index) {
    const auto& e = result.equilibria[index];
    std::cout << "  q = [";
    for (Eigen::Index k = 0; k < e.q.size(); ++k) std::cout << (k ? ", " : "") << e.q[k];
    std::cout << "]";
    if (e.lambda.size() > 0) {
      std::cout << "  lambda = [";
      for (Eigen::Index k = 0; k < e.lambda.size(); ++k)
        std::cout << (k ? ", " : "") << e.lambda[k];
      std::cout << "]";
    }
    std::cout << "  " << num::stability_name(o.modes ? dynamics[index].stability : e.stability)
              << "  (eigenvalues of K: " << e.stiffness_eigenvalues.transpose();
    // Neutral along (a family) and degenerate along (isolated, flat to second order): a
    // coordinate's name for its unit vector, else the combination.
    auto directions = [&](const Eigen::MatrixXd& columns, const char* what) {
      for (Eigen::Index c = 0; c < columns.cols(); ++c) {
        std::cout << (c ? ", " : what);
        std::string terms;
        for (Eigen::Index k = 0; k < columns.rows(); ++k) {
          const double v = columns(k, c);
          if (v == 0.0) continue;
          const std::string& name = model->coordinates[static_cast<std::size_t>(k)].name;
          std::ostringstream term;
          print_no_negative_zero(term);
          if (v == 1.0)
            term << (terms.empty() ? "" : " + ") << name;
          else
            term << (terms.empty() ? (v < 0 ? "-" : "") : (v < 0 ? " - " : " + ")) << std::abs(v)
                 << " " << name;
          terms += term.str();
        }
        std::cout << terms;
      }
    };
    directions(e.neutral_directions, "; neutral along ");
    directions(e.degenerate_directions, "; degenerate along ");
    std::cout << ")\n";
    if (e.degenerate_directions.cols() > 0)
      std::cout << "    degenerate: K is zero along "
                << (e.degenerate_directions.cols() == 1 ? "that direction" : "those directions")
                << " (at the scale of K over the search) but Q is not: an isolated point flat "
                   "to second order, whose stability the higher-order terms of Q decide\n";
    if (o.modes) {
      const auto& d = dynamics[index];
      if (!d.unavailable.empty()) {
        std::cout << "    no small oscillations: " << d.unavailable << "\n";
      } else {
        std::cout << "    small oscillations (eigenvalues s of the linear model; |s| rad/s):";
        for (const auto& mode : d.modes) {
          // A real part within rounding of zero (num::Mode: damping ratio 0) prints as 0.
          const double real = mode.damping_ratio == 0.0 ? 0.0 : mode.eigenvalue.real();
          std::cout << " " << no_negative_zero(real);
          if (mode.eigenvalue.imag() != 0.0)
            std::cout << (mode.eigenvalue.imag() < 0 ? "-" : "+")
                      << std::abs(mode.eigenvalue.imag()) << "i";
          std::cout << " (" << no_negative_zero(mode.natural_frequency) << ")";
        }
        std::cout << "\n";
        if (d.stability != e.stability)
          std::cout << "    unstable by the linear model's growing mode, though the stiffness "
                       "alone is not\n";
      }
    }
    if (e.gyroscopic_stabilization)
      std::cout
          << "    stable by gyroscopic stabilization (to linear order: no mode grows), though "
             "the stiffness alone is not\n";
    if (!e.redundant_constraints.empty())
      std::cout << "    redundant constraints here (combinations of the others): "
                << join_names(e.redundant_constraints) << "; lambda is the minimum-norm one\n";
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
              "print {\"generalized_forces\": [..], \"equilibria\": [{\"q\", \"stable\", "
              "\"stability\", \"stiffness_eigenvalues\", \"neutral_directions\", "
              "\"degenerate_directions\"}], "
              "\"free_coordinates\": [..]} (and \"lambda\", \"redundant_constraints\" with "
              "holonomic constraints; \"inertial_forces\", \"relative\" and "
              "\"gyroscopic_stabilization\" for a moving model's relative equilibria)");
  s->add_option("--guess", o->guesses,
                "a starting point: NAME=VALUE (one coordinate) or V1,V2,.. (repeatable)");
  s->add_option("--set", o->set, "override a parameter: NAME=VALUE (repeatable)");
  s->add_option("--t", o->t,
                "time for rheonomic loads (default 0); a moving model's relative equilibria must "
                "not depend on it");
  s->add_flag("--modes", o->modes,
              "also the small oscillations about each equilibrium (the eigenvalues of the linear "
              "model; a growing mode makes it unstable)");
  s->add_option("--stability-tolerance", o->stability_tolerance,
                "a stiffness eigenvalue within this fraction of max |K_ij| (at the equilibrium "
                "or over the search, the larger) counts as zero: neutral or degenerate (default "
                "1e-9)");
  commands.push_back({s, [o] { return run_statics(*o); }});
}

}  // namespace appell::cli
