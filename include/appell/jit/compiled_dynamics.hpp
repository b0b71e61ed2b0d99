// In-process evaluation at the speed of generated code: the model's generated C
// (codegen::loadable_c_source) compiled by the system's C compiler into a shared object cached
// on disk (num::load_native_library) and called through num::DynamicsEvaluator; the tape
// (num::TapeDynamics) when that cannot be had. The object lists the members of its parameters
// and inputs structs itself, so that one found in the cache needs nothing generated.
//
// This room sits above numeric and codegen (it uses both; neither uses the other): codegen
// writes the source, numeric compiles, caches and loads it and defines the evaluator interface
// that simulate() and InverseDynamics accept.
//
// The tape is used, and the reason recorded, when the JIT is turned off, when the generated code
// is not the recursions (relative motion in a carrier frame, Gibbs–Appell of higher order: it
// would be the tape of M and f written out, so nothing is gained) and when no compiler is found,
// compiling fails or times out, or the cache is not writable or not private (then `note` says
// so: the caller asked for speed and did not get it). Constrained equations get no evaluator at
// all (the tape of the formed equations has no constrained solve); a constrained model the
// recursions cover gets its constraint rows compiled with the rest (compile_dynamics(model)).
#pragma once

#include <memory>
#include <string>

#include "appell/model/values.hpp"
#include "appell/numeric/dynamics_evaluator.hpp"
#include "appell/numeric/native_library.hpp"
#include "appell/principles/equations.hpp"

namespace appell::jit {

struct JitOptions {
  bool enabled = true;                  // false: the tape (`--no-jit`)
  num::NativeCompilerOptions compiler;  // compiler, flags, cache directory, timeout
};

/// The evaluator chosen and why.
struct CompiledDynamics {
  /// Null only for equations with constraints.
  std::shared_ptr<const num::DynamicsEvaluator> evaluator;
  /// Why the tape evaluates although the JIT was enabled and the model is one the generated
  /// code covers (no compiler, a compile error with the compiler's messages, the cache); empty
  /// otherwise. Worth telling the user: the run is slower than it could be.
  std::string note;
  /// Why the tape evaluates in every other case (JIT off, not recursive, constraints); empty
  /// with the JIT.
  std::string reason;
  /// With the JIT: the shared object, and whether this call compiled it (false: from the cache).
  std::string library_path;
  bool compiled_now = false;
};

/// The evaluator of `equations` with `values` bound (model::bind; model::ModelError for bad
/// values, as CompiledEquations). With the JIT its functions are pure and it may be used from
/// several threads at once; the tape's may not.
CompiledDynamics compile_dynamics(const principles::Equations& equations,
                                  const model::Values& values = {}, const JitOptions& options = {});

/// The evaluator of a model the recursions cover (principles::recursions_do_not_cover() empty),
/// without forming its equations: the generated code of the recursions compiled, or else
/// num::Dynamics (kind "recursions", the same recursions interpreted; `note` or `reason` says
/// why: always for a model with generalized speeds, whose recursions run in u while the code is
/// written in q̇). With constraints either has their rows, λ and projection
/// (DynamicsEvaluator::constraint_count() and what follows it): the generated code has
/// constraints() and constraint_manifold() beside M and f. Either may be used from several
/// threads at once. The compiled code is cached under a key of what
/// determines it (jit/dynamics_key.hpp): found there, it is loaded without generating the code or
/// building num::Dynamics (milliseconds); otherwise generated, compiled and stored. Throws
/// std::invalid_argument for a model the recursions do not cover, model::ModelError for bad values.
CompiledDynamics compile_dynamics(std::shared_ptr<const model::Model> model,
                                  const model::Values& values = {}, const JitOptions& options = {});

/// The compiled code of `compiled` (a model's, compile_dynamics(model, ...), with the JIT) with
/// the numbers of other `values`, without generating or compiling anything: one case of a sweep.
/// `values` must drive the same functions by the same expressions as those `compiled` was made
/// with (they are code). Null when `compiled` is not the JIT (then num::Dynamics's run-time
/// parameters give the numbers). Throws model::ModelError for bad values (model::bind).
std::shared_ptr<const num::DynamicsEvaluator> bind_values(const CompiledDynamics& compiled,
                                                          const model::Model& model,
                                                          const model::Values& values);

}  // namespace appell::jit
