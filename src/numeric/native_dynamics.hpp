// Internal to numeric and the JIT: a num::Dynamics whose calls run compiled code.
//
// The JIT (src/jit/) writes the recursions' C (codegen::loadable_c_source), compiles and loads it
// (num::load_native_library) and hands the entry points here; numeric knows nothing of the code
// but these signatures (codegen/loadable_source.hpp documents them) and calls them from
// num::Dynamics. The functions are pure: the numbers cross as arrays on every call, so one
// compiled Dynamics is shared by any number of threads.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/model/values.hpp"
#include "appell/numeric/dynamics.hpp"
#include "appell/numeric/native_library.hpp"

namespace appell::num::detail {

/// The loaded functions of one compiled model and the numbers they are called with.
struct NativeDynamics {
  using MassMatrixAndForcing = void (*)(double, const double*, const double*, const double*,
                                        const double*, double*, double*);
  using ForwardDynamics = int (*)(double, const double*, const double*, const double*,
                                  const double*, double*);
  using InverseDynamics = void (*)(double, const double*, const double*, const double*,
                                   const double*, const double*, double*);
  using Constraints = void (*)(double, const double*, const double*, const double*, const double*,
                               double*, double*);
  using ConstraintLevels = void (*)(double, const double*, const double*, const double*,
                                    const double*, double*);
  using CoordinateVelocities = void (*)(double, const double*, const double*, const double*,
                                        const double*, double*);
  using CoordinateAccelerations = void (*)(double, const double*, const double*, const double*,
                                           const double*, const double*, double*);

  /// Keeps the functions loaded (shared by every copy rebound to other numbers).
  std::shared_ptr<const NativeLibrary> library;
  std::size_t n = 0, p = 0;  // coordinates, rates (q̇: p = n; or the generalized speeds u)
  bool speeds = false;       // the code is written in generalized speeds
  std::size_t m = 0, h = 0;  // constraints, holonomic ones
  MassMatrixAndForcing mass_matrix_and_forcing = nullptr;  // M row-major, f
  ForwardDynamics forward_dynamics = nullptr;              // 1: solved; 0: refused
  InverseDynamics inverse_dynamics = nullptr;
  Constraints constraints = nullptr;  // A row-major, b (m > 0)
  ConstraintLevels levels = nullptr;  // principles::ConstraintLevels::outputs() (m > 0)
  CoordinateVelocities coordinate_velocities = nullptr;        // q̇ = W u (speeds)
  CoordinateAccelerations coordinate_accelerations = nullptr;  // q̈ = W u̇ + γ (speeds)
  /// The numbers of the generated parameters and inputs structs, in their members' order.
  std::vector<double> parameters, inputs;
  /// Fills parameters and inputs from other values (the JIT's: the members the object lists);
  /// throws model::ModelError for bad values.
  std::function<void(const model::Values&, std::vector<double>& parameters,
                     std::vector<double>& inputs)>
      bind;
};

/// A compiled Dynamics' interpreted programs: given when it is made (jit::compile_dynamics), or
/// built on the first call that needs them (Dynamics::with_values: symbolic work, so that first
/// call must not run beside other symbolic work on another thread).
struct LazyPrograms {
  std::shared_ptr<const model::Model> model;
  model::Values values;
  std::once_flag built;
  std::shared_ptr<const Dynamics> interpreted;
};

struct DynamicsAccess {
  /// A Dynamics of `model` with `values` whose M, f, q̈, τ and constraints run `native` (bound to
  /// the same values), the rest by `interpreted` (the same model and values), or when null by
  /// programs built when first needed.
  static Dynamics compiled(std::shared_ptr<const model::Model> model, const model::Values& values,
                           std::shared_ptr<const NativeDynamics> native,
                           DynamicsCompilation compilation,
                           std::shared_ptr<const Dynamics> interpreted = nullptr);
  /// `dynamics` (interpreted) with `compilation` saying why.
  static Dynamics with_compilation(Dynamics dynamics, DynamicsCompilation compilation);
};

}  // namespace appell::num::detail
