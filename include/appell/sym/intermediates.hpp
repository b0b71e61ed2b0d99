// Named intermediates: expressions written the way MotionGenesis and Robotran print big systems —
// short named quantities defined once, in order, and the results in terms of them.
//
// Kinematic chains build expressions whose tree is exponentially larger than their DAG
// (DESIGN.md, "Scale"); printed as trees they are unreadable, while their distinct
// subexpressions are few. Every subexpression used more than once gets a name, and so does any
// subexpression that would otherwise print longer than a line; each name is defined in terms of
// names defined before it.
#pragma once

#include <ginac/ginac.h>

#include <cstddef>
#include <string>
#include <vector>

namespace appell::sym {

/// One named quantity: `name` = `value`, the value in terms of earlier names.
struct Intermediate {
  GiNaC::symbol name;
  GiNaC::ex value;
};

/// The roots rewritten through named intermediates.
struct NamedIntermediates {
  std::vector<Intermediate> intermediates;  // in order of definition
  GiNaC::exvector roots;                    // the given roots, in terms of the names
};

/// How intermediates are chosen and named.
struct IntermediateOptions {
  std::string prefix = "z";  // names prefix1, prefix2, ... in order of definition
  /// A subexpression used once is named when written out in full it would have more operations
  /// than this (sym::operation_count), so that no definition grows longer than a line or two.
  std::size_t max_operations = 24;
};

/// `roots` through named intermediates: every subexpression (not a symbol, number or a number
/// times a symbol) that occurs in more than one place of the roots' DAG is named, and so is any
/// subexpression longer than options.max_operations. Substituting the values back in reverse
/// order gives the roots again. The names are new symbols (never equal to the caller's); the
/// order of definition follows the DAG (children first), so it is the same for the same input.
NamedIntermediates named_intermediates(const GiNaC::exvector& roots,
                                       const IntermediateOptions& options = {});

}  // namespace appell::sym
