// What the binding files share: the wrapped values, the conversions from Python arguments, and
// how a long call runs (the GIL released, Ctrl-C polled, GiNaC used by one thread at a time).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <appell/appell.hpp>
#include <array>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace appell::python {

namespace py = pybind11;

/// Argument types that help() names as Python's typing would, where the binding takes any object
/// and converts or refuses it itself (with a message naming the argument): pybind11 would write
/// `handle` or `object`.
inline bool any_object(PyObject*) { return true; }
#define APPELL_PYTHON_ARGUMENT(Name)                  \
  class Name : public py::object {                    \
   public:                                            \
    PYBIND11_OBJECT_DEFAULT(Name, object, any_object) \
  };
APPELL_PYTHON_ARGUMENT(ArrayLike)       // numbers: a sequence or a numpy array
APPELL_PYTHON_ARGUMENT(Time)            // a number, or one per state
APPELL_PYTHON_ARGUMENT(ValuesArgument)  // None or {name: number or expression of t}
APPELL_PYTHON_ARGUMENT(ModelArgument)   // an appell.Model or appell.Equations
APPELL_PYTHON_ARGUMENT(Expression)      // text in the model language, or a number
APPELL_PYTHON_ARGUMENT(Vector3)         // three expressions
APPELL_PYTHON_ARGUMENT(OptionalText)    // None or a str
#undef APPELL_PYTHON_ARGUMENT

/// A model as Python holds it (model::Model is shared as a pointer to const).
struct Model {
  std::shared_ptr<const model::Model> model;
};

/// What appell.derive returned: the equations as the library formed them for reading (or raw).
struct Equations {
  std::shared_ptr<const model::Model> model;
  principles::Derivation derivation;
  bool raw = false;
  /// When the derivation is written through named intermediates: its M and f with the names put
  /// back (principles::with_names_put_back), what compile(), simulate and to_sympy work on.
  std::optional<principles::Equations> evaluable;
  /// What derive() was asked: the split (coriolis(), gravity()) is formed with the same request
  /// when derive(split=True) did not form it.
  principles::DerivationRequest request;

  /// The equations M q̈ = f (+ Aᵀλ) in the model's symbols; ValueError for the minimal form and
  /// the equations in generalized speeds.
  const principles::Equations& equations(const char* what) const;
};

/// GiNaC's reference counts are not atomic: every call that touches GiNaC values runs under this
/// lock, taken with the GIL released (so that a thread waiting for it never holds the GIL that
/// the running call's Ctrl-C check needs).
std::mutex& ginac_mutex();

/// Runs `work` with the GIL released and GiNaC locked; Ctrl-C (Python's pending signals, checked
/// from the library's poll_cancellation()) stops it with KeyboardInterrupt.
template <class Work>
auto interruptible(Work&& work) -> decltype(work()) {
  bool interrupted = false;
  try {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(ginac_mutex());
    sym::CancellationScope scope([&interrupted] {
      py::gil_scoped_acquire acquire;
      interrupted = PyErr_CheckSignals() != 0;  // leaves KeyboardInterrupt set
      return interrupted;
    });
    return work();
  } catch (const sym::Cancelled&) {
    if (interrupted) throw py::error_already_set();
    throw;
  }
}

/// Runs a short `work` that touches GiNaC values under the lock (the GIL released meanwhile).
template <class Work>
auto locked(Work&& work) -> decltype(work()) {
  py::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(ginac_mutex());
  return work();
}

/// A TypeError or ValueError whose message starts with the argument's name.
[[noreturn]] void type_error(const std::string& argument, const std::string& message);
[[noreturn]] void value_error(const std::string& argument, const std::string& message);

/// `values` (None, or a dict name -> number, or name -> str: an expression of t and the
/// parameters driving an input or prescribed function) as model::Values located at `argument`.
/// Expressions only when `expressions` (derive substitutes numbers only). Needs the GIL.
model::Values to_values(const model::Model& model, const py::handle& values,
                        const std::string& argument, bool expressions = true);

/// A vector of `n` numbers from any sequence or 1-D array; ValueError naming `argument`.
Eigen::VectorXd to_vector(const py::handle& value, std::size_t n, const std::string& argument);

/// How a URDF file becomes a model (the command line's --gravity, --joint-damping,
/// --symbolic-inertia, --floating-base, --exact-angles); no gravity: the URDF default (0, 0,
/// -9.81).
io::UrdfOptions urdf_options(const std::optional<std::array<double, 3>>& gravity,
                             bool joint_damping, bool symbolic_inertia, bool floating_base,
                             bool exact_angles);

/// A method name as on the command line; ValueError naming `method` for an unknown one.
principles::Method to_method(const std::string& name);

/// The bindings' one call of jit::compile_dynamics: the num::Dynamics of `model`, which the
/// recursions must cover (principles::recursions_do_not_cover() empty), without forming its
/// equations: compiled unless `jit` is false (or no compiler: compilation().note says so), else
/// the recursions interpreted. Touches GiNaC: call it under ginac_mutex().
std::shared_ptr<const num::Dynamics> compile_dynamics(std::shared_ptr<const model::Model> model,
                                                      const model::Values& values, bool jit);

/// A copy of an Eigen vector or matrix as a new numpy array (matrices row-major, rows × cols).
py::array_t<double> to_numpy(const Eigen::VectorXd& v);
py::array_t<double> to_numpy(const Eigen::MatrixXd& m);

/// The model of `target`: a Model, or the model of Equations. TypeError naming `argument`.
std::shared_ptr<const model::Model> model_of(const py::handle& target, const std::string& argument);

void bind_errors(py::module_& m);
void bind_model(py::module_& m);
void bind_equations(py::module_& m);
void bind_solvers(py::module_& m);
void bind_sweep(py::module_& m);
void bind_commands(py::module_& m);

}  // namespace appell::python

namespace pybind11::detail {
#define APPELL_PYTHON_TYPE_NAME(Name, text)        \
  template <>                                      \
  struct handle_type_name<appell::python::Name> {  \
    static constexpr auto name = const_name(text); \
  };
APPELL_PYTHON_TYPE_NAME(ArrayLike, "numpy.typing.ArrayLike")
APPELL_PYTHON_TYPE_NAME(Time, "float | numpy.typing.ArrayLike")
APPELL_PYTHON_TYPE_NAME(ValuesArgument, "dict[str, float | str] | None")
APPELL_PYTHON_TYPE_NAME(ModelArgument, "appell.Model | appell.Equations")
APPELL_PYTHON_TYPE_NAME(Expression, "str | float")
APPELL_PYTHON_TYPE_NAME(Vector3, "list[str | float]")
APPELL_PYTHON_TYPE_NAME(OptionalText, "str | None")
#undef APPELL_PYTHON_TYPE_NAME
}  // namespace pybind11::detail
