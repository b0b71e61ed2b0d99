// appell._appell: the compiled part of the Python package (python/appell/__init__.py is the
// rest). Bindings over the public C++ API (appell/appell.hpp), no logic of their own.
#include <cmath>

#include "appell/jit/compiled_dynamics.hpp"
#include "common.hpp"

namespace appell::python {

std::mutex& ginac_mutex() {
  static std::mutex mutex;
  return mutex;
}

void type_error(const std::string& argument, const std::string& message) {
  throw py::type_error(argument + ": " + message);
}

void value_error(const std::string& argument, const std::string& message) {
  throw py::value_error(argument + ": " + message);
}

const principles::Equations& Equations::equations(const char* what) const {
  if (derivation.equations && derivation.equations->form == principles::Form::Speeds)
    throw py::value_error(std::string(what) +
                          ": not available for equations in generalized speeds (M~ u' = f~; "
                          "text(), latex(), json() and appell.simulate take them)");
  if (!derivation.equations || derivation.equations->form == principles::Form::Minimal)
    throw py::value_error(std::string(what) +
                          ": not available for the minimal form (derive without minimal=True)");
  return evaluable ? *evaluable : *derivation.equations;
}

model::Values to_values(const model::Model& model, const py::handle& values,
                        const std::string& argument, bool expressions) {
  model::Values result;
  if (values.is_none()) return result;
  if (!py::isinstance<py::dict>(values))
    type_error(argument, std::string("expected a dict of name -> number") +
                             (expressions ? " or expression of t (str)" : "") + ", got " +
                             std::string(py::str(py::type::of(values).attr("__name__"))));
  const model::SourceLocation where{argument, 0, 0};
  for (const auto& [key, value] : py::reinterpret_borrow<py::dict>(values)) {
    if (!py::isinstance<py::str>(key)) type_error(argument, "names must be str");
    const std::string name = key.cast<std::string>();
    const std::string item = argument + "['" + name + "']";
    if (py::isinstance<py::str>(value)) {
      if (!expressions)
        type_error(item, "expected a number (expressions of t are not substituted)");
      result.drive(name, num::parse_time_function(model, value.cast<std::string>()), where);
    } else if (py::isinstance<py::bool_>(value) || value.is_none()) {
      type_error(item, "expected a number");
    } else {
      double number = 0.0;
      try {
        number = py::float_(py::reinterpret_borrow<py::object>(value)).cast<double>();
      } catch (const py::error_already_set&) {
        type_error(item, "expected a number");
      }
      result.set(name, number, where);
    }
  }
  return result;
}

Eigen::VectorXd to_vector(const py::handle& value, std::size_t n, const std::string& argument) {
  py::array_t<double, py::array::c_style | py::array::forcecast> array;
  try {
    array = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(value);
  } catch (const py::error_already_set&) {
  }
  if (!array) type_error(argument, "expected a sequence of numbers");
  if (array.ndim() > 1)
    value_error(argument,
                "expected a vector (1-D), got " + std::to_string(array.ndim()) + " dimensions");
  if (static_cast<std::size_t>(array.size()) != n)
    value_error(argument, "expected " + std::to_string(n) + " values (one per coordinate), got " +
                              std::to_string(array.size()));
  Eigen::VectorXd v(static_cast<Eigen::Index>(n));
  for (std::size_t i = 0; i < n; ++i) v[static_cast<Eigen::Index>(i)] = array.data()[i];
  return v;
}

io::UrdfOptions urdf_options(const std::optional<std::array<double, 3>>& gravity,
                             bool joint_damping, bool symbolic_inertia, bool floating_base,
                             bool exact_angles) {
  io::UrdfOptions options;
  if (gravity) {
    for (double g : *gravity)
      if (!std::isfinite(g)) value_error("gravity", "expected three finite numbers [gx, gy, gz]");
    options.gravity = *gravity;
  }
  options.joint_damping = joint_damping;
  options.symbolic_inertia = symbolic_inertia;
  options.floating_base = floating_base;
  options.exact_angles = exact_angles;
  return options;
}

principles::Method to_method(const std::string& name) {
  const auto method = principles::parse_method(name);
  if (!method)
    value_error("method", "unknown method '" + name +
                              "' (lagrange, gibbs-appell, dalembert, gauss, nielsen)");
  return *method;
}

std::shared_ptr<const num::Dynamics> compile_dynamics(std::shared_ptr<const model::Model> model,
                                                      const model::Values& values, bool jit) {
  jit::JitOptions options;
  options.enabled = jit;
  return std::make_shared<const num::Dynamics>(
      jit::compile_dynamics(std::move(model), values, options));
}

py::array_t<double> to_numpy(const Eigen::VectorXd& v) {
  py::array_t<double> a(v.size());
  std::copy(v.data(), v.data() + v.size(), a.mutable_data());
  return a;
}

py::array_t<double> to_numpy(const Eigen::MatrixXd& m) {
  py::array_t<double> a({m.rows(), m.cols()});
  auto r = a.mutable_unchecked<2>();
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) r(i, j) = m(i, j);
  return a;
}

std::shared_ptr<const model::Model> model_of(const py::handle& target,
                                             const std::string& argument) {
  if (py::isinstance<Model>(target)) return target.cast<const Model&>().model;
  if (py::isinstance<Equations>(target)) return target.cast<const Equations&>().model;
  type_error(argument, "expected an appell.Model or appell.Equations, got " +
                           std::string(py::str(py::type::of(target).attr("__name__"))));
}

void bind_errors(py::module_& m) {
  // ModelError is bad input (a ValueError with the place it was written); ComputationError a
  // computation that failed on valid input. Their attributes are set on every instance raised.
  // Never destroyed: they must outlive the interpreter's last use of them.
  static auto& model_error =
      *new py::exception<model::ModelError>(m, "ModelError", PyExc_ValueError);
  static auto& computation_error =
      *new py::exception<model::ComputationError>(m, "ComputationError", PyExc_RuntimeError);
  model_error.doc() =
      "Bad input: a model, a value or an option. str() is 'PLACE: message (name)'; .file, "
      ".line, .column (0 when unknown), .name (the offending name or text) and .message.";
  computation_error.doc() =
      "A computation that failed on valid input: a singular mass matrix, an integrator failure, "
      "no equilibrium found.";
  for (py::object* e :
       {static_cast<py::object*>(&model_error), static_cast<py::object*>(&computation_error)}) {
    e->attr("__module__") = "appell";
  }
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const model::ModelError& e) {
      py::object error = py::reinterpret_borrow<py::object>(model_error.ptr())(e.what());
      error.attr("file") = e.where().file;
      error.attr("line") = e.where().line;
      error.attr("column") = e.where().column;
      error.attr("name") = e.offending();
      error.attr("message") = std::string(e.what());
      PyErr_SetObject(model_error.ptr(), error.ptr());
    } catch (const model::ComputationError& e) {
      py::object error = py::reinterpret_borrow<py::object>(computation_error.ptr())(e.what());
      error.attr("message") = std::string(e.what());
      PyErr_SetObject(computation_error.ptr(), error.ptr());
    }
  });
}

}  // namespace appell::python

PYBIND11_MODULE(_appell, m) {
  namespace ap = appell::python;
  m.doc() = "appell's compiled bindings; use the package `appell`";
  m.attr("__version__") = APPELL_VERSION_STRING;
  ap::bind_errors(m);
  ap::bind_model(m);
  ap::bind_equations(m);
  ap::bind_solvers(m);
  ap::bind_sweep(m);
  ap::bind_commands(m);
}
