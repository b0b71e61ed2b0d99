// appell linearize: the state-space model dx/dt = A x + B u about an operating point, with its
// eigenvalues and (--modes) natural frequencies and damping ratios.
#include <iostream>
#include <optional>

#include "appell/io/linear_model_writer.hpp"
#include "appell/numeric/linearization.hpp"
#include "appell/numeric/symbolic_linearization.hpp"
#include "appell/principles/derive.hpp"
#include "cli_support.hpp"

namespace appell::cli {

namespace {

struct LinearizeOptions {
  UrdfFlags urdf;  // how a URDF model is read
  std::string model, method = "gibbs-appell", q, qd, inputs;
  bool method_given = false;  // --method on the command line: that principle's equations formed
  double t = 0.0;
  std::vector<std::string> set;
  bool json = false;
  bool modes = false;
  bool symbolic = false;
  bool latex = false;
};

int run_linearize(const LinearizeOptions& o) {
  auto model = read_model(o.model, o.urdf);
  principles::require_coordinates(*model);
  Eigen::VectorXd q = initial_coordinates(*model), qd = initial_velocities(*model);
  const auto take = [&](const std::string& option, const std::string& text, Eigen::VectorXd& into) {
    read_coordinate_values(*model, option, text, into);
  };
  take("--q", o.q, q);
  take("--qd", o.qd, qd);

  num::LinearizationOptions options;
  options.values = parse_assignments(o.set);
  options.t = o.t;
  if (o.inputs.empty()) {
    for (const auto& input : model->inputs) options.inputs.push_back(input.name);
  } else {
    std::size_t start = 0;
    while (true) {
      const auto comma = o.inputs.find(',', start);
      const std::string name = o.inputs.substr(start, comma - start);
      if (name.empty()) throw usage_error("--inputs", "an empty name", o.inputs);
      options.inputs.push_back(name);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  // The equations are formed only for the symbolic A and B (or a method asked for by name); the
  // numbers come from the recursions where they cover the model.
  std::optional<principles::Equations> eq;
  if (o.symbolic || o.latex || o.method_given)
    eq = principles::derive(model, method_option(o.method));
  num::LinearModel linear;
  try {
    linear = eq ? num::linearize(*eq, q, qd, options) : num::linearize(model, q, qd, options);
  } catch (const model::ModelError& e) {
    throw at_option(e, {{"inputs", "--inputs"}});
  }
  if (o.latex && o.json) throw usage_error("--latex", "--latex and --json exclude each other", "");
  // Formed before anything is printed, so that the output is one whole. When it cannot be
  // formed (too large, redundant constraints, singular for general parameters) the numeric A and
  // B still hold at the point: they are printed, and a note on stderr says why the symbolic ones
  // are not.
  std::optional<num::SymbolicLinearModel> symbolic;
  std::string absent;  // why there is no symbolic model
  if (o.symbolic || o.latex) {
    try {
      symbolic = num::symbolic_linear_model(*eq, linear, options);
    } catch (const model::ComputationError& e) {
      absent = e.what();
    }
  }
  const auto note = [&] {
    if (absent.empty()) return;
    std::cout << std::flush;  // the note after the model, also where both streams meet
    std::cerr << "note: no symbolic A and B: " << absent
              << "; the numeric A and B printed hold at the operating point\n";
  };
  if (o.latex) {
    std::cout << (symbolic ? io::write_symbolic_linear_model_latex(*model, *symbolic)
                           : io::write_linear_model_latex(*model, linear, o.t, absent));
    note();
    return 0;
  }
  if (o.json) {
    std::string json = io::write_linear_model_json(linear, o.modes);
    if (symbolic) json = io::add_symbolic_linear_model_json(json, *model, *symbolic);
    if (!absent.empty()) json = io::add_symbolic_linear_model_absent_json(json, absent);
    std::cout << json << "\n";
    note();
    return 0;
  }
  std::cout << io::write_linear_model_text(*model, linear, o.t, o.modes);
  if (symbolic) std::cout << io::write_symbolic_linear_model_text(*model, *symbolic);
  note();
  return 0;
}

}  // namespace

void add_linearize_command(CLI::App& app, Commands& commands) {
  auto o = std::make_shared<LinearizeOptions>();
  auto* c = app.add_subcommand("linearize",
                               "the state-space model dx/dt = A x + B u about an operating point");
  c->add_option("MODEL", o->model, "model file (YAML or URDF)")->required();
  add_urdf_options(*c, o->urdf);
  c->add_option("--q", o->q, "coordinates V1,V2,.. (default: the model's initial values)");
  c->add_option("--qd", o->qd, "velocities V1,V2,.. (default: the model's initial values)");
  c->add_option("--t", o->t, "time of the operating point (default 0)");
  c->add_option("--inputs", o->inputs,
                "the inputs u, NAME1,NAME2,.. (default: every input of the model, in order)");
  c->add_option("--set", o->set,
                "NAME=VALUE for a parameter, an input (its operating value) or an unspecified "
                "prescribed function; repeatable");
  add_method_option(*c, o->method, o->method_given,
                    "lagrange | gibbs-appell (default) | dalembert | gauss | nielsen");
  c->add_flag(
      "--json", o->json,
      "print {\"states\", \"inputs\", \"A\", \"B\", \"eigenvalues\", \"eigenvalue_groups\"} "
      "(and \"modes\" with --modes)");
  c->add_flag("--modes", o->modes, "natural frequencies and damping ratios of the eigenvalues");
  c->add_flag("--symbolic", o->symbolic,
              "also A and B as expressions of the parameters (readable form); when they cannot be "
              "formed, a note says why and the numeric model is printed");
  c->add_flag("--latex", o->latex,
              "only the symbolic A and B, as LaTeX matrices (the numeric ones, with a note, when "
              "the symbolic ones cannot be formed)");
  commands.push_back({c, [o] { return run_linearize(*o); }});
}

}  // namespace appell::cli
