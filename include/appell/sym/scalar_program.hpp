// A straight-line program of scalar operations, built node by node.
//
// The recursions of principles/recursive_dynamics.hpp (Newton–Euler, composite inertias,
// articulated bodies, LDLᵀ) are written over these nodes instead of GiNaC trees: every node is
// hash-consed (the same operation on the same operands is the same node) and folded where the
// result is known (x·0 = 0, x·1 = x, x + 0 = x, constants computed), so the zeros and ones of a
// model (axes along z, a centre of mass on x) vanish from the generated code and what is shared is
// computed once. Node indices grow in construction order, which is deterministic, so the program is
// the same every run.
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "appell/sym/tape.hpp"

namespace appell::sym {

using Op = sym::Tape::Op;
using Instruction = sym::Tape::Instruction;
using Node = std::uint32_t;

/// Nodes in dependency order (an operand is an earlier node). Variable nodes read the variable
/// vector passed to evaluate(); what a variable is, the caller knows.
class ScalarProgram {
 public:
  Node constant(double value);
  Node variable(std::uint32_t index);
  Node add(Node a, Node b);
  Node sub(Node a, Node b);
  Node mul(Node a, Node b);
  Node div(Node a, Node b);
  Node neg(Node a);
  /// Any other operation of the tape (functions, powers), folded when its operands are constants.
  Node apply(Op op, Node a, Node b = 0, double value = 0.0);

  /// Room for `nodes` nodes without rehashing (what a large program spends otherwise).
  void reserve(std::size_t nodes) {
    code_.reserve(nodes);
    unique_.reserve(nodes);
  }

  bool is_constant(Node n) const { return code_[n].op == Op::Constant; }
  bool is_zero(Node n) const { return is_constant(n) && code_[n].value == 0.0; }
  bool is_one(Node n) const { return is_constant(n) && code_[n].value == 1.0; }
  double value(Node n) const { return code_[n].value; }

  /// Appends the instructions of `tape` with its variable k read as `variables[k]` (a node of
  /// this program, possibly a constant: the tape's expressions are then folded); returns the
  /// node of each of the tape's outputs.
  std::vector<Node> import(const sym::Tape& tape, const std::vector<Node>& variables);

  const std::vector<Instruction>& instructions() const { return code_; }

  /// The operations (nodes that are neither constants nor variables) `targets` need.
  std::size_t operation_count(const std::vector<Node>& targets) const;

  /// The instructions `outputs` need and nothing else, renumbered in the same order, as a Tape
  /// over `variable_count` variables: what evaluates them fast, from any number of threads.
  Tape tape(const std::vector<Node>& outputs, std::size_t variable_count) const;

  /// Evaluates every node up to and including max(outputs) (dead ones too: this is the checking
  /// path, not the fast one) and gives the outputs' values.
  void evaluate(const double* variables, const std::vector<Node>& outputs, double* values,
                std::vector<double>& workspace) const;

 private:
  Node emit(Instruction instruction);
  struct Hash {
    std::size_t operator()(const Instruction& i) const;
  };
  struct Equal {
    bool operator()(const Instruction& x, const Instruction& y) const;
  };
  std::vector<Instruction> code_;
  std::unordered_map<Instruction, Node, Hash, Equal> unique_;
};

/// A 3-vector and a 3×3 matrix (row-major) of nodes, and the algebra the recursions need.
using Vec3 = std::array<Node, 3>;
using Mat3 = std::array<Node, 9>;

Vec3 zero3(ScalarProgram& p);
Mat3 identity3(ScalarProgram& p);
Vec3 add(ScalarProgram& p, const Vec3& a, const Vec3& b);
Vec3 sub(ScalarProgram& p, const Vec3& a, const Vec3& b);
Vec3 scale(ScalarProgram& p, Node s, const Vec3& a);
Node dot(ScalarProgram& p, const Vec3& a, const Vec3& b);
Vec3 cross(ScalarProgram& p, const Vec3& a, const Vec3& b);
Vec3 mul(ScalarProgram& p, const Mat3& m, const Vec3& v);             // m v
Vec3 mul_transposed(ScalarProgram& p, const Mat3& m, const Vec3& v);  // mᵀ v
Mat3 mul(ScalarProgram& p, const Mat3& a, const Mat3& b);             // a b
Mat3 add(ScalarProgram& p, const Mat3& a, const Mat3& b);
/// R S Rᵀ for a symmetric S (only its upper triangle read; the result is symmetric).
Mat3 congruence(ScalarProgram& p, const Mat3& r, const Mat3& s);

}  // namespace appell::sym
