#include "appell/jit/compiled_dynamics.hpp"

#include <stdexcept>

#include "appell/codegen/loadable_source.hpp"
#include "appell/numeric/dynamics.hpp"

namespace appell::jit {

namespace {

using MassMatrixAndForcing = void (*)(double, const double*, const double*, const double*,
                                      const double*, double*, double*);
using ForwardDynamics = int (*)(double, const double*, const double*, const double*, const double*,
                                double*);
using InverseDynamics = void (*)(double, const double*, const double*, const double*, const double*,
                                 const double*, double*);

template <typename Function>
Function function_of(const num::NativeLibrary& library, const char* name) {
  return reinterpret_cast<Function>(library.symbol(name));
}

// The generated functions of a loaded shared object. Holds the library (the functions live as
// long as it) and the values; keeps no buffers, so calls from several threads are safe.
class JitDynamics : public num::DynamicsEvaluator {
 public:
  JitDynamics(num::NativeLibrary library, const codegen::LoadableSource& source)
      : library_(std::move(library)),
        n_(source.dof),
        parameters_(source.parameters),
        inputs_(source.inputs),
        parameter_names_(source.parameter_names),
        input_names_(source.input_names),
        mass_and_forcing_(
            function_of<MassMatrixAndForcing>(library_, codegen::kLoadableMassMatrixAndForcing)),
        forward_(function_of<ForwardDynamics>(library_, codegen::kLoadableForwardDynamics)),
        inverse_(function_of<InverseDynamics>(library_, codegen::kLoadableInverseDynamics)) {
    const auto dof = function_of<int (*)()>(library_, codegen::kLoadableDof);
    if (dof() != static_cast<int>(n_))
      throw num::NativeCompileError(library_.path().string() + " is not for this model");
    // A struct without members is generated with one member `unused`.
    if (parameters_.empty()) parameters_.push_back(0.0);
    if (inputs_.empty()) inputs_.push_back(0.0);
  }

  std::size_t dof() const override { return n_; }
  const char* kind() const override { return "jit"; }

  /// The same library with the numbers of `values`.
  std::shared_ptr<const JitDynamics> with_values(const model::Model& model,
                                                 const model::Values& values) const {
    codegen::LoadableSource source;
    source.dof = n_;
    source.parameter_names = parameter_names_;
    source.input_names = input_names_;
    codegen::bind_loadable_values(model, values, source);
    return std::make_shared<JitDynamics>(library_, source);
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

 private:
  num::NativeLibrary library_;
  std::size_t n_;
  std::vector<double> parameters_, inputs_;
  std::vector<std::string> parameter_names_, input_names_;
  MassMatrixAndForcing mass_and_forcing_;
  ForwardDynamics forward_;
  InverseDynamics inverse_;
};

// Compiles (or finds in the cache) and loads `source` into `out`; throws NativeCompileError.
void load(const codegen::LoadableSource& source, const JitOptions& options, CompiledDynamics& out) {
  num::NativeLibrary library = num::load_native_library(source.code, options.compiler);
  out.library_path = library.path().string();
  out.compiled_now = library.compiled_now();
  out.evaluator = std::make_shared<JitDynamics>(std::move(library), source);
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
    load(source, options, out);
    return out;
  } catch (const num::NativeCompileError& e) {
    return tape("the JIT failed", e.what());
  }
}

CompiledDynamics compile_dynamics(std::shared_ptr<const model::Model> model,
                                  const model::Values& values, const JitOptions& options) {
  CompiledDynamics out;
  // Built first: it checks the values and the model's cover, and is the fallback.
  auto recursions = std::make_shared<num::Dynamics>(model, values);
  auto interpreted = [&](std::string reason, std::string note) {
    out.reason = std::move(reason);
    out.note = std::move(note);
    out.evaluator = recursions;
    return out;
  };
  if (!options.enabled) return interpreted("the JIT is off", "");
  const codegen::LoadableSource source = codegen::loadable_c_source(*model, values);
  try {
    load(source, options, out);
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
