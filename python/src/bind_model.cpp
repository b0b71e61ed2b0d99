// appell.Model, appell.ModelBuilder, appell.load and Model.from_yaml.
#include "common.hpp"

namespace appell::python {

namespace {

std::string type_name(const py::handle& value) {
  return py::str(py::type::of(value).attr("__name__"));
}

// An expression: text in the model language, or a number (an int exactly, a float as written).
model::Expr to_expr(const py::handle& value, const std::string& argument) {
  if (py::isinstance<py::str>(value)) return model::Expr(value.cast<std::string>());
  if (py::isinstance<py::bool_>(value) || value.is_none())
    type_error(argument, "expected an expression (str) or a number, got " + type_name(value));
  if (py::isinstance<py::int_>(value)) return model::Expr(value.cast<long>());
  try {
    return model::Expr(py::float_(py::reinterpret_borrow<py::object>(value)).cast<double>());
  } catch (const py::error_already_set&) {
    type_error(argument, "expected an expression (str) or a number, got " + type_name(value));
  }
}

std::vector<py::object> items(const py::handle& value, const std::string& argument) {
  if (py::isinstance<py::str>(value) || !py::isinstance<py::sequence>(value))
    type_error(argument, "expected a list, got " + type_name(value));
  std::vector<py::object> result;
  for (const auto& item : py::reinterpret_borrow<py::sequence>(value))
    result.push_back(py::reinterpret_borrow<py::object>(item));
  return result;
}

model::Expr3 to_expr3(const py::handle& value, const std::string& argument) {
  const auto list = items(value, argument);
  if (list.size() != 3)
    value_error(argument, "expected 3 components, got " + std::to_string(list.size()));
  return {to_expr(list[0], argument + "[0]"), to_expr(list[1], argument + "[1]"),
          to_expr(list[2], argument + "[2]")};
}

std::array<model::Expr3, 3> to_rows(const py::handle& value, const std::string& argument) {
  const auto rows = items(value, argument);
  if (rows.size() != 3)
    value_error(argument, "expected 3 rows of 3, got " + std::to_string(rows.size()));
  return {to_expr3(rows[0], argument + "[0]"), to_expr3(rows[1], argument + "[1]"),
          to_expr3(rows[2], argument + "[2]")};
}

// A rotation: None (identity), text ("rot_z(q1)*rot_x(a)") or a matrix by rows.
model::Rotation to_rotation(const py::handle& value) {
  if (value.is_none()) return {};
  if (py::isinstance<py::str>(value)) return model::Rotation(value.cast<std::string>());
  return model::Rotation::matrix(to_rows(value, "rotation"));
}

// As in a model file: None, a 3×3 matrix, [Ixx, Iyy, Izz, Ixy, Iyz, Ixz], or one shape
// {"rod": {"length", "axis"}}, {"disk": {"radius", "axis"}}, {"cylinder": {"radius", "length",
// "axis"}}, {"box": {"size": [a, b, c]}}, {"sphere": {"radius"}}.
model::Inertia to_inertia(const py::handle& value) {
  if (value.is_none()) return {};
  if (py::isinstance<py::dict>(value)) {
    const auto shapes = py::reinterpret_borrow<py::dict>(value);
    if (shapes.size() != 1)
      value_error("inertia", "expected one shape: rod, disk, cylinder, box or sphere");
    const auto [key, spec] = *shapes.begin();
    const std::string shape = py::str(key);
    if (!py::isinstance<py::dict>(spec)) type_error("inertia['" + shape + "']", "expected a dict");
    const auto d = py::reinterpret_borrow<py::dict>(spec);
    auto get = [&](const char* name) -> py::object {
      if (!d.contains(name)) value_error("inertia['" + shape + "']", std::string("needs ") + name);
      return d[name];
    };
    auto axis = [&] { return model::Name(py::str(get("axis")).cast<std::string>()); };
    const std::string at = "inertia['" + shape + "']";
    if (shape == "rod")
      return model::Inertia::rod(to_expr(get("length"), at + "['length']"), axis());
    if (shape == "disk")
      return model::Inertia::disk(to_expr(get("radius"), at + "['radius']"), axis());
    if (shape == "cylinder")
      return model::Inertia::cylinder(to_expr(get("radius"), at + "['radius']"),
                                      to_expr(get("length"), at + "['length']"), axis());
    if (shape == "box") return model::Inertia::box(to_expr3(get("size"), at + "['size']"));
    if (shape == "sphere") return model::Inertia::sphere(to_expr(get("radius"), at + "['radius']"));
    value_error("inertia", "unknown shape '" + shape + "' (rod, disk, cylinder, box, sphere)");
  }
  const auto list = items(value, "inertia");
  if (list.size() == 6) {
    std::vector<model::Expr> e;
    for (std::size_t i = 0; i < 6; ++i)
      e.push_back(to_expr(list[i], "inertia[" + std::to_string(i) + "]"));
    return model::Inertia::entries(e[0], e[1], e[2], e[3], e[4], e[5]);
  }
  if (list.size() == 3) return model::Inertia::matrix(to_rows(value, "inertia"));
  value_error("inertia", "expected a 3x3 matrix, [Ixx, Iyy, Izz, Ixy, Iyz, Ixz] or a shape");
}

// A point fixed in a frame or body: "frame" (its origin) or (frame, [x, y, z]).
model::PointSpec to_point(const py::handle& value, const std::string& argument) {
  if (py::isinstance<py::str>(value)) return {value.cast<std::string>(), {0, 0, 0}};
  const auto list = items(value, argument);
  if (list.size() != 2 || !py::isinstance<py::str>(list[0]))
    value_error(argument, "expected FRAME or (FRAME, [x, y, z])");
  return {list[0].cast<std::string>(), to_expr3(list[1], argument + "[1]")};
}

std::optional<model::Name> optional_name(const py::handle& value) {
  if (value.is_none()) return std::nullopt;
  return model::Name(value.cast<std::string>());
}

std::vector<std::string> names_of(const auto& items) {
  std::vector<std::string> names;
  for (const auto& item : items) names.push_back(item.name);
  return names;
}

// The one place that reads a model file for Python: YAML or URDF, told apart by content. The
// URDF options are refused for a YAML model, as the command line refuses them: a model file says
// all of that itself. Returns (Model, warnings): the package warns with Python's warnings.
py::tuple load(const std::string& path, const std::optional<std::array<double, 3>>& gravity,
               bool joint_damping, bool symbolic_inertia, bool floating_base, bool exact_angles) {
  const io::UrdfOptions options =
      urdf_options(gravity, joint_damping, symbolic_inertia, floating_base, exact_angles);
  io::ModelFile file = interruptible([&] { return io::read_model(path, options); });
  if (file.format == io::ModelFormat::Yaml) {
    const char* given = gravity            ? "gravity"
                        : joint_damping    ? "joint_damping"
                        : symbolic_inertia ? "symbolic_inertia"
                        : floating_base    ? "floating_base"
                        : exact_angles     ? "exact_angles"
                                           : nullptr;
    if (given)
      value_error(given,
                  "applies to a URDF model; a model file says this itself (gravity:, "
                  "loads:, parameters:): " +
                      path);
  }
  return py::make_tuple(Model{file.model}, file.warnings);
}

}  // namespace

void bind_model(py::module_& m) {
  py::class_<Model>(m, "Model", R"doc(A mechanical system (immutable): parameters, coordinates,
frames, bodies, particles, loads, constraints. Made by appell.load(path),
Model.from_yaml(text) or ModelBuilder.build().)doc")
      .def_static(
          "from_yaml",
          [](const std::string& text, const std::string& name) {
            return Model{interruptible([&] { return io::parse_model(text, name); })};
          },
          py::arg("text"), py::arg("name") = "<string>",
          "A model from YAML text (docs/model-format.md); `name` is the file name errors show.")
      .def_property_readonly("name", [](const Model& s) { return s.model->name; })
      .def_property_readonly("description", [](const Model& s) { return s.model->description; })
      .def_property_readonly(
          "source", [](const Model& s) { return s.model->source; },
          "the file it was read from ('' when built in code)")
      .def_property_readonly(
          "dof", [](const Model& s) { return s.model->dof(); },
          "n, the number of generalized coordinates")
      .def_property_readonly(
          "coordinates", [](const Model& s) { return names_of(s.model->coordinates); },
          "the coordinates' names, in the order of every vector")
      .def_property_readonly(
          "parameters",
          [](const Model& s) {
            const auto values = locked([&] { return s.model->parameter_values(); });
            py::dict d;  // in the model's order
            for (const auto& p : s.model->parameters) d[py::str(p.name)] = values.at(p.name);
            return d;
          },
          "the parameters' default values, name -> number, in the model's order")
      .def_property_readonly("inputs", [](const Model& s) { return names_of(s.model->inputs); })
      .def_property_readonly(
          "prescribed",
          [](const Model& s) {
            std::vector<std::string> names;
            for (const auto& p : s.model->prescribed)
              if (!p.expression) names.push_back(p.name);
            return names;
          },
          "the unspecified prescribed functions of time (given values at evaluation)")
      .def_property_readonly("constraints",
                             [](const Model& s) { return names_of(s.model->constraints); })
      .def_property_readonly(
          "speeds", [](const Model& s) { return names_of(s.model->speeds); },
          "the generalized speeds' names (speeds:, rot_quat, a URDF floating base), [] without")
      .def_property_readonly("frames", [](const Model& s) { return names_of(s.model->frames); })
      .def_property_readonly("bodies", [](const Model& s) { return names_of(s.model->bodies); })
      .def_property_readonly("particles",
                             [](const Model& s) { return names_of(s.model->particles); })
      .def_property_readonly("flexible_bodies",
                             [](const Model& s) { return names_of(s.model->flexible); })
      .def_property_readonly(
          "independent",
          [](const Model& s) {
            std::vector<std::string> names;
            for (std::size_t j : s.model->independent)
              names.push_back(s.model->coordinates[j].name);
            return names;
          },
          "the coordinates whose speeds are independent (the minimal form), or []")
      .def_property_readonly(
          "q0",
          [](const Model& s) {
            Eigen::VectorXd q(static_cast<Eigen::Index>(s.model->dof()));
            for (std::size_t j = 0; j < s.model->dof(); ++j)
              q[static_cast<Eigen::Index>(j)] = s.model->coordinates[j].initial;
            return to_numpy(q);
          },
          "the initial coordinates (n,)")
      .def_property_readonly(
          "qd0",
          [](const Model& s) {
            Eigen::VectorXd qd(static_cast<Eigen::Index>(s.model->dof()));
            for (std::size_t j = 0; j < s.model->dof(); ++j)
              qd[static_cast<Eigen::Index>(j)] = s.model->coordinates[j].velocity;
            return to_numpy(qd);
          },
          "the initial velocities (n,)")
      .def("__repr__", [](const Model& s) {
        std::string text = "<appell.Model '" + s.model->name +
                           "': " + std::to_string(s.model->dof()) + " coordinates (";
        for (std::size_t j = 0; j < s.model->dof(); ++j)
          text += (j ? ", " : "") + s.model->coordinates[j].name;
        text += ")";
        if (!s.model->constraints.empty())
          text += ", " + std::to_string(s.model->constraints.size()) + " constraints";
        return text + ">";
      });

  m.def("_load", &load, py::arg("path"), py::arg("gravity") = py::none(),
        py::arg("joint_damping") = false, py::arg("symbolic_inertia") = false,
        py::arg("floating_base") = false, py::arg("exact_angles") = false);

  using model::ModelBuilder;
  py::class_<ModelBuilder>(m, "ModelBuilder",
                           R"doc(Builds a model in code, as a model file does, with
the same checks and messages (the library's one builder). Expressions are text in the model
language ("l/2", "-M_S*g", "dot(q1)") or numbers; vectors are lists of three; every call returns
the builder.

    b = appell.ModelBuilder("pendulum")
    b.parameter("m", 1).parameter("l", 0.5).parameter("g", 9.81)
    b.coordinate("theta", 0.3)
    b.frame("arm", rotation="rot_z(theta)")
    b.particle("bob", frame="arm", mass="m", position=["l", 0, 0])
    b.gravity([0, "-g", 0])
    model = b.build())doc")
      .def(py::init([](const std::string& name, const std::string& source) {
             return locked([&] { return std::make_unique<ModelBuilder>(name, source); });
           }),
           py::arg("name"), py::arg("source") = "")
      .def(
          "description",
          [](ModelBuilder& b, const std::string& text) -> ModelBuilder& {
            return locked([&]() -> ModelBuilder& { return b.description(text); });
          },
          py::arg("text"), py::return_value_policy::reference_internal)
      .def(
          "parameter",
          [](ModelBuilder& b, const std::string& name, const Expression& value) -> ModelBuilder& {
            const auto e = to_expr(value, "value");
            locked([&] { b.parameter(name, e); });
            return b;
          },
          py::arg("name"), py::arg("value"), py::return_value_policy::reference_internal,
          "a parameter with its default value (numbers, pi, earlier parameters)")
      .def(
          "coordinate",
          [](ModelBuilder& b, const std::string& name, const Expression& initial,
             const Expression& velocity) -> ModelBuilder& {
            const auto q0 = to_expr(initial, "initial"), qd0 = to_expr(velocity, "velocity");
            locked([&] { b.coordinate(name, q0, qd0); });
            return b;
          },
          py::arg("name"), py::arg("initial") = 0, py::arg("velocity") = 0,
          py::return_value_policy::reference_internal,
          "a generalized coordinate q(t) with its initial value and rate")
      .def(
          "prescribed",
          [](ModelBuilder& b, const std::string& name,
             const py::object& expression) -> ModelBuilder& {
            std::optional<model::Expr> e;
            if (!expression.is_none()) e = to_expr(expression, "expression");
            locked([&] { b.prescribed(name, e); });
            return b;
          },
          py::arg("name"), py::arg("expression") = py::none(),
          py::return_value_policy::reference_internal,
          "a prescribed function of t (None: unspecified, given values at evaluation)")
      .def(
          "input",
          [](ModelBuilder& b, const std::string& name) -> ModelBuilder& {
            locked([&] { b.input(name); });
            return b;
          },
          py::arg("name"), py::return_value_policy::reference_internal,
          "an input u(t), 0 unless given a value")
      .def(
          "frame",
          [](ModelBuilder& b, const std::string& name, const std::string& parent,
             const Vector3& translation, const py::object& rotation) -> ModelBuilder& {
            model::FrameSpec spec{parent, to_expr3(translation, "translation"),
                                  to_rotation(rotation)};
            locked([&] { b.frame(name, spec); });
            return b;
          },
          py::arg("name"), py::arg("parent") = "world",
          py::arg("translation") = std::vector<int>{0, 0, 0}, py::arg("rotation") = py::none(),
          py::return_value_policy::reference_internal,
          "a frame: origin at `translation` in the parent, turned by `rotation` (text such as "
          "'rot_z(q1)', or a matrix by rows)")
      .def(
          "relative_to",
          [](ModelBuilder& b, const std::string& frame) -> ModelBuilder& {
            locked([&] { b.relative_to(frame); });
            return b;
          },
          py::arg("frame"), py::return_value_policy::reference_internal,
          "the carrier frame of relative motion (Zhang and Xia, 2024)")
      .def(
          "body",
          [](ModelBuilder& b, const std::string& name, const std::string& frame,
             const Expression& mass, const Vector3& com,
             const py::object& inertia) -> ModelBuilder& {
            model::BodySpec spec{frame, to_expr(mass, "mass"), to_expr3(com, "com"),
                                 to_inertia(inertia)};
            locked([&] { b.body(name, spec); });
            return b;
          },
          py::arg("name"), py::arg("frame") = "world", py::kw_only(), py::arg("mass"),
          py::arg("com") = std::vector<int>{0, 0, 0}, py::arg("inertia") = py::none(),
          py::return_value_policy::reference_internal,
          "a rigid body moving with `frame`; inertia about the centre of mass: a 3x3 matrix, "
          "[Ixx, Iyy, Izz, Ixy, Iyz, Ixz], or {'rod': {'length': 'l', 'axis': 'x'}}, {'disk': "
          "{'radius', 'axis'}}, {'cylinder': {'radius', 'length', 'axis'}}, {'box': {'size': "
          "[a, b, c]}}, {'sphere': {'radius'}}")
      .def(
          "particle",
          [](ModelBuilder& b, const std::string& name, const std::string& frame,
             const Expression& mass, const Vector3& position) -> ModelBuilder& {
            model::ParticleSpec spec{frame, to_expr(mass, "mass"), to_expr3(position, "position")};
            locked([&] { b.particle(name, spec); });
            return b;
          },
          py::arg("name"), py::arg("frame") = "world", py::kw_only(), py::arg("mass"),
          py::arg("position") = std::vector<int>{0, 0, 0},
          py::return_value_policy::reference_internal, "a point mass fixed in `frame`")
      .def(
          "gravity",
          [](ModelBuilder& b, const Vector3& g) -> ModelBuilder& {
            const auto v = to_expr3(g, "g");
            locked([&] { b.gravity(v); });
            return b;
          },
          py::arg("g"), py::return_value_policy::reference_internal,
          "gravity's acceleration, world components, e.g. [0, '-g', 0]")
      .def(
          "force",
          [](ModelBuilder& b, const Vector3& force, const std::string& on, const py::object& at,
             const OptionalText& in) -> ModelBuilder& {
            model::ForceSpec spec{to_expr3(force, "force"), on, std::nullopt, optional_name(in)};
            if (!at.is_none()) spec.at = to_expr3(at, "at");
            locked([&] { b.force(spec); });
            return b;
          },
          py::arg("force"), py::arg("on") = "world", py::arg("at") = py::none(),
          py::arg("in_") = py::none(), py::return_value_policy::reference_internal,
          "a force at the centre of mass of body `on` (or the origin of frame `on`) or at point "
          "`at` of its frame; components in frame `in_` (default world)")
      .def(
          "torque",
          [](ModelBuilder& b, const Vector3& torque, const std::string& on,
             const OptionalText& in) -> ModelBuilder& {
            model::TorqueSpec spec{to_expr3(torque, "torque"), on, optional_name(in)};
            locked([&] { b.torque(spec); });
            return b;
          },
          py::arg("torque"), py::arg("on"), py::arg("in_") = py::none(),
          py::return_value_policy::reference_internal, "a moment on a frame or body")
      .def(
          "spring",
          [](ModelBuilder& b, const py::object& from, const py::object& to,
             const Expression& stiffness, const Expression& rest_length) -> ModelBuilder& {
            model::SpringSpec spec{to_point(from, "from_"), to_point(to, "to"),
                                   to_expr(stiffness, "stiffness"),
                                   to_expr(rest_length, "rest_length")};
            locked([&] { b.spring(spec); });
            return b;
          },
          py::arg("from_"), py::arg("to"), py::arg("stiffness"), py::arg("rest_length") = 0,
          py::return_value_policy::reference_internal,
          "a linear spring between two points, each FRAME or (FRAME, [x, y, z])")
      .def(
          "damper",
          [](ModelBuilder& b, const py::object& from, const py::object& to,
             const Expression& coefficient) -> ModelBuilder& {
            model::DamperSpec spec{to_point(from, "from_"), to_point(to, "to"),
                                   to_expr(coefficient, "coefficient")};
            locked([&] { b.damper(spec); });
            return b;
          },
          py::arg("from_"), py::arg("to"), py::arg("coefficient"),
          py::return_value_policy::reference_internal, "a linear damper between two points")
      .def(
          "generalized_force",
          [](ModelBuilder& b, const std::string& coordinate,
             const Expression& value) -> ModelBuilder& {
            const auto e = to_expr(value, "value");
            locked([&] { b.generalized_force(coordinate, e); });
            return b;
          },
          py::arg("coordinate"), py::arg("value"), py::return_value_policy::reference_internal,
          "a generalized force added to one coordinate's equation")
      .def(
          "potential",
          [](ModelBuilder& b, const Expression& potential) -> ModelBuilder& {
            const auto e = to_expr(potential, "potential");
            locked([&] { b.potential(e); });
            return b;
          },
          py::arg("potential"), py::return_value_policy::reference_internal,
          "a potential energy V(q, t)")
      .def(
          "holonomic_constraint",
          [](ModelBuilder& b, const std::string& name,
             const Expression& expression) -> ModelBuilder& {
            const auto e = to_expr(expression, "expression");
            locked([&] { b.holonomic_constraint(name, e); });
            return b;
          },
          py::arg("name"), py::arg("expression"), py::return_value_policy::reference_internal,
          "f(q, t) = 0, its multiplier lambda_NAME")
      .def(
          "nonholonomic_constraint",
          [](ModelBuilder& b, const std::string& name,
             const Expression& expression) -> ModelBuilder& {
            const auto e = to_expr(expression, "expression");
            locked([&] { b.nonholonomic_constraint(name, e); });
            return b;
          },
          py::arg("name"), py::arg("expression"), py::return_value_policy::reference_internal,
          "a(q, t)·q̇ + a0(q, t) = 0")
      .def(
          "independent",
          [](ModelBuilder& b, const std::vector<std::string>& coordinates) -> ModelBuilder& {
            const std::vector<model::Name> names(coordinates.begin(), coordinates.end());
            locked([&] { b.independent(names); });
            return b;
          },
          py::arg("coordinates"), py::return_value_policy::reference_internal,
          "the coordinates whose speeds are independent (for the minimal form)")
      .def(
          "build", [](ModelBuilder& b) { return Model{locked([&] { return b.build(); })}; },
          "checks what needs the whole model and returns it");
}

}  // namespace appell::python
