// appell codegen: the equations as one self-contained C++17 (or C99) header
// (codegen::generate_code).
#include <iostream>

#include "appell/codegen/cpp_generator.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/recursive_dynamics.hpp"
#include "appell/principles/regressor.hpp"
#include "cli_support.hpp"
#include "output_paths.hpp"

namespace appell::cli {

namespace {

struct CodegenCommandOptions {
  UrdfFlags urdf;  // how a URDF model is read
  std::string model, out, namespace_name, method = "gibbs-appell", language = "c++";
  std::vector<std::string> set;
  bool method_given = false;  // --method on the command line: from that principle's equations
  bool split = false;         // also coriolis_matrix (from the equations)
  bool derivatives = false;   // also the derivatives of inverse and forward dynamics
  bool regressor = false;     // also regressor (from the recursions)
};

int run_codegen(const CodegenCommandOptions& o) {
  // Usage first: a bad namespace or method must not cost a derivation.
  if (!o.namespace_name.empty() && !codegen::is_valid_namespace(o.namespace_name))
    throw usage_error("--namespace",
                      "not a valid C++ namespace name (identifiers, not keywords, joined by ::)",
                      o.namespace_name);
  if (o.language != "c++" && o.language != "c")
    throw usage_error("--language", "must be c++ or c", o.language);
  const principles::Method method = method_option(o.method);
  const auto values = parse_assignments(o.set);
  auto model = read_model(o.model, o.urdf);
  check_output_paths(model_inputs("MODEL", *model), {{"--out", o.out}});
  // What this model cannot have written is a refusal of the request (exit 2), never a failed
  // computation.
  if (o.derivatives && model->has_speeds())
    throw usage_error("--derivatives",
                      "the derivatives are written in the coordinates' rates dot(q) and ddot(q), "
                      "and this model's equations are in its generalized speeds");
  if (o.regressor && model->has_speeds())
    throw usage_error("--regressor",
                      "the regressor is written in the coordinates' rates dot(q) and ddot(q), "
                      "and this model's equations are in its generalized speeds");
  if (o.derivatives) {
    // Before any derivation: the derivatives differentiate the recursions.
    const std::string reason = principles::recursions_alone_do_not_cover(*model);
    if (!reason.empty())
      throw usage_error("--derivatives",
                        "differentiates the recursions, which do not cover " + reason);
  }
  if (const std::string reason = principles::regressor_not_covered(*model);
      o.regressor && !reason.empty())
    throw usage_error("--regressor",
                      "needs a tree of rigid bodies the recursions cover, not " + reason);
  const codegen::CodegenOptions options{
      o.namespace_name,
      values,
      o.language == "c" ? codegen::Language::C : codegen::Language::Cpp,
      o.split,
      o.derivatives,
      o.regressor};
  // A tree the recursions cover is written straight from the model (no equations formed, time
  // about linear in the bodies); --method asks for the equations of one principle.
  // The Coriolis matrix comes from M's Christoffel symbols: --split forms the equations.
  // Constraints add constraints() and constraint_manifold() (A, b and the projection's levels)
  // either way.
  const std::string not_written = codegen::recursions_do_not_write(*model);
  const bool from_model = !o.split && !o.method_given && not_written.empty();
  // A quaternion's four coordinates have no equations in q̈ (principles::derive refuses them):
  // its model is written in the speeds, by the recursions, or not at all.
  if (!from_model && !model->quaternions.empty()) {
    const model::Quaternion& first = model->quaternions.front();
    throw model::ModelError(
        first.where,
        "the frame turns by rot_quat, so codegen writes the model in its generalized speeds, "
        "by the recursions" +
            (!not_written.empty() ? ", which do not cover " + not_written
             : o.split            ? "; --split needs the equations in the coordinates"
                                  : "; --method forms the equations in the coordinates"),
        first.frame);
  }
  std::string written_by;  // which method wrote which functions (codegen::generate_code)
  const std::string header = [&] {
    try {
      return from_model
                 ? codegen::generate_code(*model, options)
                 : codegen::generate_code(principles::derive(model, method), options, &written_by);
    } catch (const model::ModelError& e) {
      throw at_option(e, {{"split", "--split"}});
    } catch (const std::invalid_argument& e) {
      // The derivatives need the recursions: a model they do not cover cannot have them.
      if (!o.derivatives) throw;
      throw usage_error("--derivatives", e.what());
    }
  }();

  write_output("--out", o.out, header);
  std::cout << "wrote " << o.out << " (" << model->name << ", " << model->dof() << " DOF, ";
  if (from_model && model->has_speeds())
    std::cout << "in " << model->speeds.size() << " generalized speeds, ";
  std::cout << (from_model ? "the recursions" : written_by) << ")\n";
  return 0;
}

}  // namespace

void add_codegen_command(CLI::App& app, Commands& commands) {
  auto o = std::make_shared<CodegenCommandOptions>();
  auto* c = app.add_subcommand("codegen",
                               "a self-contained C++17 (or C99) header: M, f, forward and inverse "
                               "dynamics, nonlinear effects, gravity (with constraints also A, b "
                               "and their position and velocity levels)");
  c->add_option("MODEL", o->model, "model file (YAML or URDF)")->required();
  add_urdf_options(*c, o->urdf);
  c->add_option("--out", o->out, "header to write (FILE.hpp, or FILE.h with --language c)")
      ->required();
  c->add_option("--language", o->language, "c++ (default: C++17) or c (C99)");
  c->add_option("--namespace", o->namespace_name,
                "namespace of the generated code, e.g. robots::arm (default: the model's name); "
                "with --language c the prefix of every name (robots_arm_)");
  add_method_option(*c, o->method, o->method_given,
                    "lagrange | gibbs-appell: from the equations of that principle "
                    "(default: straight from the recursions where they cover the "
                    "model, else gibbs-appell)");
  c->add_flag(
      "--split", o->split,
      "also coriolis_matrix(t, q, qd, p, in, C): C(q, dot(q)) of M ddot(q) + C dot(q) + g = "
      "Q, row-major, from the Christoffel symbols of M (forms the equations)");
  c->add_flag("--derivatives", o->derivatives,
              "also inverse_dynamics_derivatives (dtau/dq, dtau/dqd) and "
              "forward_dynamics_derivatives (qdd, dqdd/dq, dqdd/dqd, M^-1), by differentiating the "
              "recursions (not finite differences)");
  c->add_flag("--regressor", o->regressor,
              "also regressor(t, q, qd, qdd, p, in, Y): the inertial-parameter regressor, "
              "Y pi = Q + Q_loads, row-major dof x 10 per body (appell regressor)");
  c->add_option("--set", o->set,
                "NAME=VALUE: new default of a parameter, an input or an unspecified prescribed "
                "function (also dot(NAME)=VALUE) in the generated structs; repeatable");
  commands.push_back({c, [o] { return run_codegen(*o); }});
}

}  // namespace appell::cli
