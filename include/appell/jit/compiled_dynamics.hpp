// In-process evaluation at the speed of generated code: a model's recursions written as C
// (codegen::loadable_c_source) compiled by the system's C compiler into a shared object cached
// on disk (num::load_native_library) and called by num::Dynamics, the one numeric object. The
// object lists the members of its parameters and inputs structs itself, so that one found in the
// cache needs nothing generated.
//
// This room sits above numeric and codegen (it uses both; neither uses the other): codegen
// writes the source, numeric compiles, caches and loads it and owns the Dynamics that calls it.
#pragma once

#include <memory>
#include <string>

#include "appell/model/values.hpp"
#include "appell/numeric/dynamics.hpp"
#include "appell/numeric/native_library.hpp"

namespace appell::jit {

struct JitOptions {
  bool enabled = true;                  // false: the tape (`--no-jit`)
  num::NativeCompilerOptions compiler;  // compiler, flags, cache directory, timeout
};

/// The num::Dynamics of a model the recursions cover (principles::recursions_do_not_cover()
/// empty) with its programs compiled: the generated C of the recursions
/// (codegen::loadable_c_source(model)) compiled by the system's C compiler into a cached shared
/// object and loaded (kind() "jit"). With constraints their rows, λ and projection are compiled
/// beside M and f. The code is cached under a key of what determines it (jit/dynamics_key.hpp):
/// found there, it is loaded without generating the code or building the interpreted programs
/// (milliseconds); otherwise generated, compiled and stored. Dynamics::with_values() gives the
/// same code with other numbers (a sweep's case) without compiling.
///
/// A model in generalized speeds (quaternion frames, declared speeds, URDF floating bases) is
/// compiled in its speeds: M̃, f̃, u̇, τ and the kinematic equations q̇ = W u, q̈ = W u̇ + γ.
///
/// The programs run interpreted (kind() "recursions", compilation() says why) when the JIT is
/// off, for constraints in generalized speeds (not written yet: codegen::recursions_do_not_write),
/// and when no compiler is found, compiling fails or times out, or the cache is not writable or not
/// private (compilation().note says so: the caller asked for speed and did not get it). Either may
/// be used from several threads at once. Throws std::invalid_argument for a model the recursions do
/// not cover, model::ModelError for bad values.
num::Dynamics compile_dynamics(std::shared_ptr<const model::Model> model,
                               const model::Values& values = {}, const JitOptions& options = {});

}  // namespace appell::jit
