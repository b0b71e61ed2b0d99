// The JIT cache key of a model's compiled dynamics, computed from what determines the code and
// not from the code: the code of a model is found again in the cache without generating it
// (which costs more than loading it), so a warm cache gives a compiled Dynamics in milliseconds.
//
// What determines the code of jit::compile_dynamics(model, values) (codegen::loadable_c_source):
// the model's structure and every expression in it (frames and their joints, bodies, particles,
// gravity, loads, constraints, parameters with their defaults, coordinates, inputs, prescribed
// functions), the functions the values drive by expressions of t (those are generated as code;
// numbers cross at run time, so one library serves every `--set`), and the build of appell that
// generates it. The content is written canonically: expressions by sym::canonical_text (marked:
// every name and number with its kind and length; numbers exact), which writes them alike
// whatever order GiNaC keeps the operands of sums and products in and wherever it keeps the sign
// of a sum factor (both change from run to run), every name and list length-prefixed or
// delimited, so that two models whose code differs never write the same content, and the layout
// of a model file (whitespace, comments, the order of keys in a mapping) never reaches it. What
// never reaches the code is left out: the model's name, description and file, source locations,
// coordinate limits and initial values, the names of constraints, the shapes of inertias and the
// visuals.
#pragma once

#include <string>

#include "appell/model/model.hpp"
#include "appell/model/values.hpp"
#include "appell/numeric/native_library.hpp"

namespace appell::jit {

/// What determines the code compile_dynamics(model, values) compiles, as canonical text (see
/// above; deterministic: the same model and values give the same bytes in every run and
/// process). Throws std::invalid_argument for a model the recursions do not write
/// (codegen::recursions_do_not_write).
std::string dynamics_content(const model::Model& model, const model::Values& values = {});

/// The cache key under which compile_dynamics(model, values) keeps that code compiled with
/// `compiler` (num::native_content_key of dynamics_content: the compiler's identity and flags
/// too), 64 hex digits, without generating the code. Throws as dynamics_content, and
/// num::NativeCompileError when the compiler is not found.
std::string dynamics_key(const model::Model& model, const model::Values& values = {},
                         const num::NativeCompilerOptions& compiler = {});

}  // namespace appell::jit
