#include "appell/jit/compiled_dynamics.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "../numeric/native_dynamics.hpp"
#include "appell/codegen/cpp_generator.hpp"
#include "appell/codegen/loadable_source.hpp"
#include "appell/jit/dynamics_key.hpp"
#include "appell/numeric/dynamics.hpp"
#include "appell/principles/recursive_dynamics.hpp"

namespace appell::jit {

namespace {

using num::NativeLibrary;
using num::detail::NativeDynamics;

// The highest derivative order of an input or an unspecified prescribed function that an
// object's members are looked for at (the recursions read up to ddot).
constexpr int kHighestInputOrder = 8;

template <typename Function>
Function function_of(const NativeLibrary& library, const char* name) {
  return reinterpret_cast<Function>(library.symbol(name));
}

// The names a loaded object lists (appell_jit_parameter_names ...): NativeCompileError when they
// are not a list of names (an object that is not the generated code's).
std::vector<std::string> names_in(const NativeLibrary& library, const char* function) {
  const auto names = function_of<const char* (*)()>(library, function);
  try {
    return codegen::decode_loadable_names(names());
  } catch (const std::invalid_argument&) {
    throw num::NativeCompileError(library.path().string() + " does not list its " +
                                  std::string(function) + " in the generated code's way");
  }
}

// The derivative symbols of the inputs and unspecified prescribed functions that the object
// reads, made in the model's table of time functions where they are missing: a library found
// in the cache was compiled by a run whose recursions made them, and bind() gives a number only
// to a derivative the table has (dot(u) given by --set would be silently unused otherwise).
void make_derivatives(const model::Model& model, const std::vector<std::string>& input_names) {
  std::vector<std::string> functions;
  for (const auto& in : model.inputs) functions.push_back(in.name);
  for (const auto& p : model.prescribed)
    if (!p.expression) functions.push_back(p.name);
  for (const auto& name : input_names)
    for (const auto& function : functions)
      for (int order = 0; order <= kHighestInputOrder; ++order)
        if (sym::TimeFunctions::text_name(function, order) == name &&
            !model.time_functions->find_derivative(function, order))
          model.time_functions->derivative(function, order);
}

// The parameters and inputs arrays of `native` from `values`, by the members the object lists
// (`parameter_names`, `input_names`); model::ModelError for bad values.
void bind_arrays(const model::Model& model, const model::Values& values,
                 const NativeLibrary& library, const std::vector<std::string>& parameter_names,
                 const std::vector<std::string>& input_names, std::vector<double>& parameters,
                 std::vector<double>& inputs) {
  codegen::LoadableSource source;
  source.dof = model.dof();
  source.parameter_names = parameter_names;
  source.input_names = input_names;
  try {
    codegen::bind_loadable_values(model, values, source);
  } catch (const std::invalid_argument&) {
    // The members the object lists are not the model's: not an object for it.
    throw num::NativeCompileError(library.path().string() + " is not for this model");
  }
  parameters = std::move(source.parameters);
  inputs = std::move(source.inputs);
  // A struct without members is generated with one member `unused`.
  if (parameters.empty()) parameters.push_back(0.0);
  if (inputs.empty()) inputs.push_back(0.0);
}

// The functions of a loaded shared object made for `model`, with the numbers of `values`, read
// from the members the object lists (so that an object found in the cache needs no generated
// source). Throws NativeCompileError when the object is not one for `model`, model::ModelError
// for bad values.
std::shared_ptr<const NativeDynamics> native_dynamics(
    const NativeLibrary& library, const std::shared_ptr<const model::Model>& model,
    const model::Values& values) {
  auto c = std::make_shared<NativeDynamics>();
  c->library = std::make_shared<const NativeLibrary>(library);
  c->n = model->dof();
  c->speeds = model->has_speeds();
  c->p = c->speeds ? model->speeds.size() : c->n;
  c->mass_matrix_and_forcing = function_of<NativeDynamics::MassMatrixAndForcing>(
      library, codegen::kLoadableMassMatrixAndForcing);
  c->forward_dynamics =
      function_of<NativeDynamics::ForwardDynamics>(library, codegen::kLoadableForwardDynamics);
  c->inverse_dynamics =
      function_of<NativeDynamics::InverseDynamics>(library, codegen::kLoadableInverseDynamics);
  const auto dof = function_of<int (*)()>(library, codegen::kLoadableDof);
  const auto speed_count = function_of<int (*)()>(library, codegen::kLoadableSpeedCount);
  if (dof() != static_cast<int>(c->n) || speed_count() != static_cast<int>(c->p))
    throw num::NativeCompileError(library.path().string() + " is not for this model");
  if (c->speeds) {
    // The kinematic equations q̇ = W u and q̈ = W u̇ + γ beside the dynamics in u.
    c->coordinate_velocities = function_of<NativeDynamics::CoordinateVelocities>(
        library, codegen::kLoadableCoordinateVelocities);
    c->coordinate_accelerations = function_of<NativeDynamics::CoordinateAccelerations>(
        library, codegen::kLoadableCoordinateAccelerations);
  }
  if (!model->constraints.empty()) {
    // The rows and levels of the constraints, as many as the model has.
    const auto count = function_of<int (*)()>(library, codegen::kLoadableConstraintCount);
    const auto holonomic = function_of<int (*)()>(library, codegen::kLoadableHolonomicCount);
    if (count() != static_cast<int>(model->constraints.size()) || holonomic() < 0 ||
        holonomic() > count())
      throw num::NativeCompileError(library.path().string() + " is not for this model");
    c->m = model->constraints.size();
    c->h = static_cast<std::size_t>(holonomic());
    c->constraints =
        function_of<NativeDynamics::Constraints>(library, codegen::kLoadableConstraints);
    c->levels = function_of<NativeDynamics::ConstraintLevels>(library,
                                                              codegen::kLoadableConstraintManifold);
  }
  const std::vector<std::string> parameter_names =
      names_in(library, codegen::kLoadableParameterNames);
  const std::vector<std::string> input_names = names_in(library, codegen::kLoadableInputNames);
  make_derivatives(*model, input_names);
  bind_arrays(*model, values, library, parameter_names, input_names, c->parameters, c->inputs);
  // Other numbers for the same code (Dynamics::with_values).
  c->bind = [model, library, parameter_names, input_names](const model::Values& other,
                                                           std::vector<double>& parameters,
                                                           std::vector<double>& inputs) {
    bind_arrays(*model, other, library, parameter_names, input_names, parameters, inputs);
  };
  return c;
}

}  // namespace

num::Dynamics compile_dynamics(std::shared_ptr<const model::Model> model,
                               const model::Values& values, const JitOptions& options) {
  if (!model) throw std::invalid_argument("jit::compile_dynamics: no model");
  // On a warm cache the compiled code is found by a key of what determines it (dynamics_key.hpp),
  // without generating it.
  auto interpreted_only = [&](std::string reason, std::string note) {
    num::DynamicsCompilation why;
    why.reason = std::move(reason);
    why.note = std::move(note);
    return num::detail::DynamicsAccess::with_compilation(num::Dynamics(model, values),
                                                         std::move(why));
  };
  if (!options.enabled) return interpreted_only("the JIT is off", "");
  // What num::Dynamics checks first, before anything is compiled: the model's cover, the values.
  const std::string reason = principles::recursions_do_not_cover(*model);
  if (!reason.empty())
    throw std::invalid_argument("num::Dynamics: the recursions do not cover " + reason);
  // What the generated code does not write yet (constraints in generalized speeds) runs
  // interpreted.
  if (const std::string unwritten = codegen::recursions_do_not_write(*model); !unwritten.empty())
    return interpreted_only(unwritten, "the JIT compiles no model with " + unwritten +
                                           ": the recursions run interpreted");
  // The interpreted programs too (energies, g): built here, where symbolic work is the caller's,
  // so that the Dynamics returned never does any (it is shared by threads). This also checks
  // the values.
  const auto interpreted = std::make_shared<const num::Dynamics>(model, values);
  try {
    const NativeLibrary library = num::load_native_library(
        dynamics_content(*model, values),
        [&] { return codegen::loadable_c_source(*model, values).code; }, options.compiler);
    num::DynamicsCompilation facts;
    facts.library_path = library.path().string();
    facts.compiled_now = library.compiled_now();
    return num::detail::DynamicsAccess::compiled(
        model, values, native_dynamics(library, model, values), facts, interpreted);
  } catch (const num::NativeCompileError& e) {
    num::DynamicsCompilation why;
    why.reason = "the JIT failed";
    why.note = e.what();
    return num::detail::DynamicsAccess::with_compilation(*interpreted, std::move(why));
  }
}

}  // namespace appell::jit
