// Statements of C or C++ computing chosen nodes of a dynamics program (internal to codegen).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "appell/codegen/cpp_generator.hpp"
#include "appell/codegen/generated_dynamics.hpp"
#include "dynamics_program.hpp"

namespace appell::codegen::detail {

/// A statement's left side ("M[3]") and the node it receives.
struct Target {
  std::string name;
  Node node;
};

struct Body {
  std::string code;  // "  const double v0 = ...;" lines, then the targets' assignments
  OperationCounts counts;
  std::set<Argument> arguments_read;
};

/// One `const double vK = ...;` per live node the targets need (K counts from 0 in the body),
/// then `target = node;` per target. Variables read as the plan names them (C: p->M, in->u),
/// q̈ as qdd[j] and the extra forces as Qx[j].
Body write_body(const DynamicsProgram& d, const Plan& plan, const std::vector<Target>& targets,
                Language language);

/// The body of each generated function (shared by the writers and the operation counts).
std::vector<Target> function_targets(const DynamicsProgram& d, GeneratedFunction function);

}  // namespace appell::codegen::detail
