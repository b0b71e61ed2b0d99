// --no-jit and what the commands that evaluate the equations (eval, simulate, inverse) say about
// the evaluator they got (jit::compile_dynamics): nothing on stdout (the choice of path is fixed
// by the machine, not by the run, so stdout stays the same bytes run to run), a note on stderr
// when the compiled path was wanted and could not be had.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "appell/jit/compiled_dynamics.hpp"

namespace appell::cli {

/// Adds --no-jit to `command`.
void add_jit_flag(CLI::App& command, bool& no_jit);
/// The evaluator of `equations` with `values`: compiled generated code unless `no_jit`, the
/// model is one codegen does not cover or compiling fails (then a note on stderr, prefixed by
/// "appell COMMAND: ").
jit::CompiledDynamics compiled_dynamics(const principles::Equations& equations,
                                        const model::Values& values, bool no_jit,
                                        const std::string& command);

/// The same for a model the recursions cover, without forming its equations (the generated code
/// of the recursions compiled, or num::Dynamics interpreted).
jit::CompiledDynamics compiled_dynamics(std::shared_ptr<const model::Model> model,
                                        const model::Values& values, bool no_jit,
                                        const std::string& command);

}  // namespace appell::cli
