// Derivatives of a sym::ScalarProgram, built as nodes of the same program.
//
// Forward (tangent) mode in vector form: one pass over the program in its node order gives every
// node reached a tangent ẋ = Σ_k ẋ_k e_k over `directions` directions, by the chain rule of each
// operation (d(a·b) = ȧ b + a ḃ, d sin a = cos a · ȧ, d(a/b) = (ȧ − (a/b) ḃ)/b, ...). The tangents
// are nodes of the program itself, so hash-consing shares what the values and the derivatives
// have in common, folding removes the zero tangents (a node that does not depend on direction k
// has no k-th entry at all: the sparsity of a tree's Jacobians costs nothing) and a program built
// from the result is one common-subexpression-eliminated straight line over every output.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "appell/sym/scalar_program.hpp"

namespace appell::sym {

/// A tangent: the nonzero entries (direction, node) in increasing direction.
using Tangent = std::vector<std::pair<std::uint32_t, Node>>;

/// Where the derivatives start: the tangent of each seeded node, taken as given (the operands of
/// a seeded node are not differentiated through). A variable seeded with {(k, 1)} is the k-th
/// independent direction; a node seeded with an empty tangent is held fixed (a value treated as
/// a constant of the differentiation, as q̈ in ∂τ/∂q at q̈ fixed). Unseeded variables and
/// constants have zero tangents.
using Seeds = std::unordered_map<Node, Tangent>;

/// The Jacobian of `outputs` in `directions` directions, as nodes of `p`: row i, column k
/// (`outputs.size()` × `directions`, row-major) is ∂outputs[i]/∂(direction k), the constant 0
/// where the output does not depend on it. Only the nodes `outputs` reach are differentiated.
/// Every operation of sym::Tape::Op is handled (Abs as a/|a|, undefined at 0 as the function is).
std::vector<Node> jacobian(ScalarProgram& p, const std::vector<Node>& outputs, const Seeds& seeds,
                           std::size_t directions);

/// The seeds of `variables` as the directions first, first + 1, ...: variables[k] gets {(first +
/// k, 1)}.
void seed_directions(ScalarProgram& p, Seeds& seeds, const std::vector<Node>& variables,
                     std::uint32_t first);

/// `outputs` recomputed with each node of `replacements` (key) read as its value: the nodes
/// `outputs` reach are rebuilt in order, through the program's folding, so what does not reach a
/// replaced node stays the node it was.
std::vector<Node> substitute(ScalarProgram& p, const std::vector<Node>& outputs,
                             const std::unordered_map<Node, Node>& replacements);

}  // namespace appell::sym
