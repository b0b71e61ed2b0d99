// Statements of C or C++ computing chosen nodes of a dynamics program (internal to codegen).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "appell/codegen/cpp_generator.hpp"
#include "dynamics_program.hpp"
#include "generated_dynamics.hpp"

namespace appell::codegen::detail {

/// A statement's left side ("M[3]") and the node it receives.
struct Target {
  std::string name;
  Node node;
};

struct Body {
  /// "  const double v0 = ...;" lines, then the targets' assignments; empty when `parts` holds
  /// the statements.
  std::string code;
  /// A long body cut into parts of at most kStatementsPerPart statements, each to be the body of
  /// a function of its own (the same arguments, and `double* w`): compilers' register
  /// allocation and scheduling grow faster than linearly in the length of one function, so the
  /// 30-link chain's 10,000-statement functions compiled in minutes. A value a later part reads
  /// crosses in w[slot] (`workspace` slots); the caller declares `double w[workspace]` and calls
  /// the parts in order.
  std::vector<std::string> parts;
  std::size_t workspace = 0;
  OperationCounts counts;
  std::set<Argument> arguments_read;
};

/// The longest part of a body (statements); a body of at most twice that stays one function.
inline constexpr std::size_t kStatementsPerPart = 2000;

/// One `const double vK = ...;` per live node the targets need (K counts from 0 in the body),
/// then `target = node;` per target. Variables read as the plan names them (C: p->M, in->u),
/// q̈ as qdd[j] (u̇ as udot[j] in the speeds: Plan::accelerations) and the extra forces as Qx[j].
/// Long bodies come in parts (Body::parts).
Body write_body(const DynamicsProgram& d, const Plan& plan, const std::vector<Target>& targets,
                Language language);

/// The body of each generated function (shared by the writers and the operation counts);
/// forward dynamics writes `accelerations` (qdd, or udot in the speeds).
std::vector<Target> function_targets(const DynamicsProgram& d, GeneratedFunction function,
                                     const std::string& accelerations = "qdd");

}  // namespace appell::codegen::detail
