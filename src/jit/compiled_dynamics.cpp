#include "appell/jit/compiled_dynamics.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "appell/codegen/loadable_source.hpp"
#include "appell/jit/dynamics_key.hpp"
#include "appell/numeric/dynamics.hpp"
#include "appell/principles/recursive_dynamics.hpp"

namespace appell::jit {

namespace {

using MassMatrixAndForcing = void (*)(double, const double*, const double*, const double*,
                                      const double*, double*, double*);
using ForwardDynamics = int (*)(double, const double*, const double*, const double*, const double*,
                                double*);
using InverseDynamics = void (*)(double, const double*, const double*, const double*, const double*,
                                 const double*, double*);
using Constraints = void (*)(double, const double*, const double*, const double*, const double*,
                             double*, double*);
using ConstraintLevels = void (*)(double, const double*, const double*, const double*,
                                  const double*, double*);

// The highest derivative order of an input or an unspecified prescribed function that an
// object's members are looked for at (the recursions read up to ddot).
constexpr int kHighestInputOrder = 8;

template <typename Function>
Function function_of(const num::NativeLibrary& library, const char* name) {
  return reinterpret_cast<Function>(library.symbol(name));
}

// The names a loaded object lists (appell_jit_parameter_names ...): NativeCompileError when they
// are not a list of names (an object that is not the generated code's).
std::vector<std::string> names_in(const num::NativeLibrary& library, const char* function) {
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

// The generated functions of a loaded shared object. Holds the library (the functions live as
// long as it) and the values; keeps no buffers, so calls from several threads are safe.
class JitDynamics : public num::DynamicsEvaluator {
 public:
  /// The object's functions with the numbers of `values` for `model`, read from the members the
  /// object lists (so that an object found in the cache needs no generated source). Throws
  /// NativeCompileError when the object is not one for `model`, model::ModelError for bad values.
  JitDynamics(num::NativeLibrary library, const model::Model& model, const model::Values& values)
      : library_(std::move(library)),
        n_(model.dof()),
        mass_and_forcing_(
            function_of<MassMatrixAndForcing>(library_, codegen::kLoadableMassMatrixAndForcing)),
        forward_(function_of<ForwardDynamics>(library_, codegen::kLoadableForwardDynamics)),
        inverse_(function_of<InverseDynamics>(library_, codegen::kLoadableInverseDynamics)) {
    const auto dof = function_of<int (*)()>(library_, codegen::kLoadableDof);
    if (dof() != static_cast<int>(n_))
      throw num::NativeCompileError(library_.path().string() + " is not for this model");
    if (!model.constraints.empty()) {
      // The rows and levels of the constraints, as many as the model has.
      const auto count = function_of<int (*)()>(library_, codegen::kLoadableConstraintCount);
      const auto holonomic = function_of<int (*)()>(library_, codegen::kLoadableHolonomicCount);
      if (count() != static_cast<int>(model.constraints.size()) || holonomic() < 0 ||
          holonomic() > count())
        throw num::NativeCompileError(library_.path().string() + " is not for this model");
      m_ = model.constraints.size();
      h_ = static_cast<std::size_t>(holonomic());
      constraints_ = function_of<Constraints>(library_, codegen::kLoadableConstraints);
      levels_ = function_of<ConstraintLevels>(library_, codegen::kLoadableConstraintManifold);
    }
    parameter_names_ = names_in(library_, codegen::kLoadableParameterNames);
    input_names_ = names_in(library_, codegen::kLoadableInputNames);
    make_derivatives(model, input_names_);
    bind(model, values);
  }

  std::size_t dof() const override { return n_; }
  const char* kind() const override { return "jit"; }

  /// The same library with the numbers of `values`.
  std::shared_ptr<const JitDynamics> with_values(const model::Model& model,
                                                 const model::Values& values) const {
    auto copy = std::make_shared<JitDynamics>(*this);
    copy->bind(model, values);
    return copy;
  }

  void mass_matrix_and_forcing(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                               Eigen::MatrixXd& M, Eigen::VectorXd& f) const override {
    const auto n = static_cast<Eigen::Index>(n_);
    M.resize(n, n);
    f.resize(n);
    mass_and_forcing_(t, q.data(), qd.data(), parameters_.data(), inputs_.data(), M.data(),
                      f.data());
    // The generated M is row-major, Eigen's column-major: M was read transposed.
    M.transposeInPlace();
  }

  void accelerations(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                     Eigen::VectorXd& qdd) const override {
    qdd.resize(static_cast<Eigen::Index>(n_));
    if (forward_(t, q.data(), qd.data(), parameters_.data(), inputs_.data(), qdd.data()) == 1)
      return;
    // Refused (M not positive definite, or not finite): the tape's message, with M.
    Eigen::MatrixXd M;
    Eigen::VectorXd f;
    mass_matrix_and_forcing(t, q, qd, M, f);
    qdd = num::solve_accelerations(M, f);  // throws for the states the generated code refuses
  }

  void driving_forces(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                      const Eigen::VectorXd& qdd, Eigen::VectorXd& Q) const override {
    Q.resize(static_cast<Eigen::Index>(n_));
    inverse_(t, q.data(), qd.data(), qdd.data(), parameters_.data(), inputs_.data(), Q.data());
  }

  std::size_t constraint_count() const override { return m_; }

  void constraints(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                   Eigen::MatrixXd& A, Eigen::VectorXd& b) const override {
    const auto n = static_cast<Eigen::Index>(n_), m = static_cast<Eigen::Index>(m_);
    b.resize(m);
    if (m_ == 0) {
      A.resize(0, n);
      return;
    }
    // The generated A is row-major: read as Aᵀ (n×m, column-major), then transposed.
    A.resize(n, m);
    constraints_(t, q.data(), qd.data(), parameters_.data(), inputs_.data(), A.data(), b.data());
    A.transposeInPlace();
  }

  // (constrained_accelerations: DynamicsEvaluator's, from M, f, A and b above.)

  num::ConstraintManifold constraint_manifold(double rank_tolerance) const override {
    if (m_ == 0) return DynamicsEvaluator::constraint_manifold(rank_tolerance);
    // The evaluation holds what it calls: the library (shared) and the values (copied).
    auto evaluation = [library = library_, levels = levels_, p = parameters_, in = inputs_](
                          double t, const double* q, const double* qd, double* outputs) {
      levels(t, q, qd, p.data(), in.data(), outputs);
    };
    return num::ConstraintManifold(n_, m_, h_, std::move(evaluation), rank_tolerance);
  }

 private:
  // p and in from `values` (model::ModelError for bad values).
  void bind(const model::Model& model, const model::Values& values) {
    codegen::LoadableSource source;
    source.dof = n_;
    source.parameter_names = parameter_names_;
    source.input_names = input_names_;
    try {
      codegen::bind_loadable_values(model, values, source);
    } catch (const std::invalid_argument&) {
      // The members the object lists are not the model's: not an object for it.
      throw num::NativeCompileError(library_.path().string() + " is not for this model");
    }
    parameters_ = std::move(source.parameters);
    inputs_ = std::move(source.inputs);
    // A struct without members is generated with one member `unused`.
    if (parameters_.empty()) parameters_.push_back(0.0);
    if (inputs_.empty()) inputs_.push_back(0.0);
  }

  num::NativeLibrary library_;
  std::size_t n_;
  std::size_t m_ = 0, h_ = 0;  // constraints, holonomic ones
  Constraints constraints_ = nullptr;
  ConstraintLevels levels_ = nullptr;
  std::vector<double> parameters_, inputs_;
  std::vector<std::string> parameter_names_, input_names_;
  MassMatrixAndForcing mass_and_forcing_;
  ForwardDynamics forward_;
  InverseDynamics inverse_;
};

// The library's facts in `out`.
void record(const num::NativeLibrary& library, CompiledDynamics& out) {
  out.library_path = library.path().string();
  out.compiled_now = library.compiled_now();
}

}  // namespace

CompiledDynamics compile_dynamics(const principles::Equations& equations,
                                  const model::Values& values, const JitOptions& options) {
  CompiledDynamics out;
  if (equations.constraint_count() > 0) {
    out.reason = "the model has constraints";
    return out;
  }
  auto tape = [&](std::string reason, std::string note) {
    out.reason = std::move(reason);
    out.note = std::move(note);
    out.evaluator = std::make_shared<num::TapeDynamics>(equations, values);
    return out;
  };
  if (!options.enabled) return tape("the JIT is off", "");
  codegen::LoadableSource source;
  try {
    source = codegen::loadable_c_source(equations, values);
  } catch (const std::invalid_argument& e) {
    // A symbol the generated code has no value for (q̈ in equations of higher order): the tape
    // evaluates it as 0, as it always has.
    return tape(std::string("no code is generated: ") + e.what(), "");
  }
  if (!source.recursive)
    return tape("the generated code is not recursive (" + source.fallback_reason + ")", "");
  try {
    num::NativeLibrary library = num::load_native_library(source.code, options.compiler);
    record(library, out);
    out.evaluator = std::make_shared<JitDynamics>(std::move(library), *equations.model, values);
    return out;
  } catch (const num::NativeCompileError& e) {
    return tape("the JIT failed", e.what());
  }
}

CompiledDynamics compile_dynamics(std::shared_ptr<const model::Model> model,
                                  const model::Values& values, const JitOptions& options) {
  CompiledDynamics out;
  // The fallback, built only when needed: on a warm cache the compiled code is found by a key of
  // what determines it (dynamics_key.hpp), without the recursions' program or the code.
  auto interpreted = [&](std::string reason, std::string note) {
    out.reason = std::move(reason);
    out.note = std::move(note);
    out.evaluator = std::make_shared<num::Dynamics>(model, values);
    return out;
  };
  if (!model || !options.enabled) return interpreted("the JIT is off", "");
  // What num::Dynamics checks first, before anything is compiled: the model's cover, the values.
  const std::string reason = principles::recursions_do_not_cover(*model);
  if (!reason.empty())
    throw std::invalid_argument("num::Dynamics: the recursions do not cover " + reason);
  // The generated code is written in q̇ and q̈: the recursions in generalized speeds run
  // interpreted (num::Dynamics in u). Constraints are compiled with the rest (their rows and
  // levels beside M and f).
  if (model->has_speeds())
    return interpreted("generalized speeds",
                       "the JIT compiles no model in generalized speeds: the recursions in the "
                       "speeds run interpreted");
  model::bind(*model, values);
  try {
    num::NativeLibrary library = num::load_native_library(
        dynamics_content(*model, values),
        [&] { return codegen::loadable_c_source(*model, values).code; }, options.compiler);
    record(library, out);
    out.evaluator = std::make_shared<JitDynamics>(std::move(library), *model, values);
    return out;
  } catch (const num::NativeCompileError& e) {
    return interpreted("the JIT failed", e.what());
  }
}

std::shared_ptr<const num::DynamicsEvaluator> bind_values(const CompiledDynamics& compiled,
                                                          const model::Model& model,
                                                          const model::Values& values) {
  const auto* jit = dynamic_cast<const JitDynamics*>(compiled.evaluator.get());
  if (!jit) return nullptr;
  return jit->with_values(model, values);
}

}  // namespace appell::jit
