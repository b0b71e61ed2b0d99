// appell._linearize, _check, _report and _import_urdf: the commands linearize, check, report and
// import with their options as arguments. Where the command line prints JSON, these return the
// same JSON (the library's writers) for the package's Python part to read, so that Python and the
// command line cannot drift apart.
#include <limits>
#include <optional>

#include "common.hpp"

namespace appell::python {

namespace {

std::vector<std::string> names_at(const model::Model& model,
                                  const std::vector<std::size_t>& indices) {
  std::vector<std::string> names;
  for (std::size_t j : indices) names.push_back(model.coordinates[j].name);
  return names;
}

Eigen::VectorXd initial(const model::Model& model, bool velocities) {
  Eigen::VectorXd v(static_cast<Eigen::Index>(model.dof()));
  for (std::size_t j = 0; j < model.dof(); ++j)
    v[static_cast<Eigen::Index>(j)] =
        velocities ? model.coordinates[j].velocity : model.coordinates[j].initial;
  return v;
}

// `appell linearize --json --modes` (and --symbolic), with the operating point and the
// coordinates the constraints made dependent beside it.
py::dict linearize(const py::handle& target, const py::object& q, const py::object& qd, double t,
                   const py::object& inputs, const py::object& values, const std::string& method,
                   bool symbolic) {
  const auto model = model_of(target, "model");
  locked([&] { principles::require_coordinates(*model); });
  const Eigen::VectorXd q0 = q.is_none() ? initial(*model, false) : to_vector(q, model->dof(), "q");
  const Eigen::VectorXd qd0 =
      qd.is_none() ? initial(*model, true) : to_vector(qd, model->dof(), "qd");
  num::LinearizationOptions options;
  options.values = to_values(*model, values, "values", false);
  options.t = t;
  if (inputs.is_none()) {
    for (const auto& input : model->inputs) options.inputs.push_back(input.name);
  } else {
    if (py::isinstance<py::str>(inputs) || !py::isinstance<py::sequence>(inputs))
      type_error("inputs", "expected a list of the model's input names");
    for (const auto& name : py::reinterpret_borrow<py::sequence>(inputs)) {
      if (!py::isinstance<py::str>(name)) type_error("inputs", "names must be str");
      options.inputs.push_back(name.cast<std::string>());
    }
  }
  const bool given = py::isinstance<Equations>(target);
  const auto m = to_method(method.empty() ? "gibbs-appell" : method);  // "": none given
  struct Out {
    std::string json, text;
    num::LinearModel linear;
  };
  const Out out = interruptible([&] {
    // A model's numbers from the recursions where they cover it (as `appell linearize`): its
    // equations are formed only for the symbolic A and B, or for a method given by name.
    std::optional<principles::Equations> equations;
    if (given)
      equations = target.cast<const Equations&>().equations("linearize");
    else if (symbolic || !method.empty())
      equations = principles::derive(model, m);
    Out o;
    o.linear = equations ? num::linearize(*equations, q0, qd0, options)
                         : num::linearize(model, q0, qd0, options);
    o.json = io::write_linear_model_json(o.linear, true);
    o.text = io::write_linear_model_text(*model, o.linear, t, true);
    if (symbolic) {
      try {
        const auto formed = num::symbolic_linear_model(*equations, o.linear, options);
        o.json = io::add_symbolic_linear_model_json(o.json, *model, formed);
        o.text += io::write_symbolic_linear_model_text(*model, formed);
      } catch (const model::ComputationError& e) {
        // As the command line: the numeric model still holds at the point; say why.
        o.json = io::add_symbolic_linear_model_absent_json(o.json, e.what());
      }
    }
    return o;
  });
  py::dict d;
  d["json"] = out.json;
  d["text"] = out.text;
  d["q"] = to_numpy(out.linear.q);
  d["qd"] = to_numpy(out.linear.qd);
  d["completed"] = out.linear.completed;
  d["independent_coordinates"] = names_at(*model, out.linear.independent_coordinates);
  d["dependent_coordinates"] = names_at(*model, out.linear.dependent_coordinates);
  d["independent_speeds"] = names_at(*model, out.linear.independent_speeds);
  d["dependent_speeds"] = names_at(*model, out.linear.dependent_speeds);
  d["noise_threshold"] = num::kRoundingNoise;
  // Where each eigenvalue group's members begin in "eigenvalues" and "modes": the modes once
  // per group, as the command line's text lists them (write_linear_model_text).
  std::vector<std::size_t> first;
  for (const auto& group : num::eigenvalue_groups(out.linear)) first.push_back(group.first);
  d["group_first"] = first;
  return d;
}

// `appell check MODEL CLAIMS --json` and its text.
std::pair<std::string, std::string> check(const Model& target, const std::string& claims_path) {
  return interruptible([&] {
    const io::Claims claims = io::read_claims_file(claims_path, *target.model);
    const auto results = num::check_claims(target.model, claims.claims, claims.multipliers);
    return std::make_pair(io::write_check_json(*target.model, results),
                          io::write_check_text(*target.model, results));
  });
}

// `appell report`: the page written to `out` (or returned when `out` is empty), and the parts
// that failed.
py::dict report(const Model& target, const std::string& out, const std::string& method,
                const std::string& verify, bool simulate, double t_end, const py::object& q0,
                const py::object& qd0, const py::object& u0, double rtol, double atol,
                double output_step, const std::string& integrator, const py::object& values,
                const py::object& inputs, long max_rows) {
  const auto& model = *target.model;
  report::ReportOptions options;
  options.method = to_method(method);
  options.simulate = simulate;
  if (verify == "none")
    options.verify = false;
  else if (verify == "numeric")
    options.symbolic_verify_limit = 0;
  else if (verify == "full")
    options.symbolic_verify_limit = std::numeric_limits<std::size_t>::max();
  else if (verify != "auto")
    value_error("verify", "expected 'auto', 'full', 'numeric' or 'none', got '" + verify + "'");
  auto& s = options.simulation;
  s.t_end = t_end;
  s.rtol = rtol;
  s.atol = atol;
  s.output_step = output_step;
  s.max_rows = max_rows;
  if (!q0.is_none()) {
    const auto v = to_vector(q0, model.dof(), "q0");
    s.q0.assign(v.data(), v.data() + v.size());
  }
  if (!qd0.is_none()) {
    const auto v = to_vector(qd0, model.dof(), "qd0");
    s.qd0.assign(v.data(), v.data() + v.size());
  }
  if (!u0.is_none()) {
    if (!model.has_speeds())
      value_error("u0", "the model has no generalized speeds (speeds:, rot_quat): give qd0");
    const auto v = to_vector(u0, model.speeds.size(), "u0");
    options.simulation.u0.assign(v.data(), v.data() + v.size());
  }
  const auto kind = num::parse_integrator(integrator);
  if (!kind) value_error("integrator", "unknown integrator '" + integrator + "' (bdf, adams)");
  s.integrator = *kind;
  s.values = to_values(model, values, "values");
  s.values.merge(to_values(model, inputs, "inputs"));
  struct Page {
    std::string html;
    std::vector<std::string> incomplete;
  };
  const Page page = interruptible([&] {
    const report::Report contents = report::make_report(target.model, options);
    return Page{report::write_html(contents), contents.incomplete};
  });
  py::dict d;
  if (!out.empty()) {
    locked([&] { io::write_file(out, page.html); });
    d["html"] = py::none();
  } else {
    d["html"] = page.html;
  }
  d["incomplete"] = page.incomplete;
  return d;
}

// `appell import URDF [--out FILE]`: the model file's text and the translation's warnings.
py::tuple import_urdf(const std::string& path, const std::optional<std::array<double, 3>>& gravity,
                      bool joint_damping, bool symbolic_inertia, bool floating_base,
                      bool exact_angles, const std::string& out) {
  const io::UrdfOptions options =
      urdf_options(gravity, joint_damping, symbolic_inertia, floating_base, exact_angles);
  const io::UrdfImport imported = interruptible([&] { return io::import_urdf(path, options); });
  if (!out.empty()) locked([&] { io::write_model_file(imported.yaml, out, path); });
  return py::make_tuple(imported.yaml, imported.warnings);
}

}  // namespace

void bind_commands(py::module_& m) {
  m.def("_linearize", &linearize, py::arg("model"), py::arg("q"), py::arg("qd"), py::arg("t"),
        py::arg("inputs"), py::arg("values"), py::arg("method"), py::arg("symbolic"));
  m.def("_check", &check, py::arg("model"), py::arg("claims"));
  m.def("_report", &report, py::arg("model"), py::arg("out"), py::arg("method"), py::arg("verify"),
        py::arg("simulate"), py::arg("t_end"), py::arg("q0"), py::arg("qd0"), py::arg("u0"),
        py::arg("rtol"), py::arg("atol"), py::arg("output_step"), py::arg("integrator"),
        py::arg("values"), py::arg("inputs"), py::arg("max_rows"));
  m.def("_import_urdf", &import_urdf, py::arg("path"), py::arg("gravity"), py::arg("joint_damping"),
        py::arg("symbolic_inertia"), py::arg("floating_base"), py::arg("exact_angles"),
        py::arg("out"));
}

}  // namespace appell::python
