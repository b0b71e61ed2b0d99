// --no-jit and what the commands that evaluate many states (simulate, inverse) say about the
// Dynamics they got (jit::compile_dynamics): nothing on stdout (the choice of path is fixed
// by the machine, not by the run, so stdout stays the same bytes run to run), a note on stderr
// when the compiled path was wanted and could not be had.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "appell/jit/compiled_dynamics.hpp"

namespace appell::cli {

/// Adds --no-jit to `command`.
void add_jit_flag(CLI::App& command, bool& no_jit);
/// The Dynamics of a model the recursions cover, without forming its equations: the generated
/// code of the recursions compiled unless `no_jit`, or the recursions interpreted (a note on
/// stderr, prefixed by "appell COMMAND: ", when the JIT was wanted and could not be had).
num::Dynamics compiled_dynamics(std::shared_ptr<const model::Model> model,
                                const model::Values& values, bool no_jit,
                                const std::string& command);

}  // namespace appell::cli
