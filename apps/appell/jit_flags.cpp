#include "jit_flags.hpp"

#include <iostream>

namespace appell::cli {

void add_jit_flag(CLI::App& command, bool& no_jit) {
  command.add_flag("--no-jit", no_jit,
                   "run the recursions interpreted instead of their generated C compiled with $CC "
                   "(or cc) into a cached shared object (docs/user-guide.md, \"Compiled "
                   "evaluation\"; eval compiles nothing either way)");
}

num::Dynamics compiled_dynamics(std::shared_ptr<const model::Model> model,
                                const model::Values& values, bool no_jit,
                                const std::string& command) {
  jit::JitOptions options;
  options.enabled = !no_jit;
  num::Dynamics dynamics = jit::compile_dynamics(std::move(model), values, options);
  if (!dynamics.compilation().note.empty())
    std::cerr << "appell " << command
              << ": note: evaluating by the recursions interpreted (slower): "
              << dynamics.compilation().note << "\n";
  return dynamics;
}

}  // namespace appell::cli
