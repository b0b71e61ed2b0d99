// A flat instruction list that evaluates GiNaC expressions numerically.
//
// Built once from the expression DAG (each shared node visited once, by identity) with common
// subexpressions merged at the instruction level: an instruction with the same operation and
// operand slots as an earlier one reuses its slot, so structurally equal subtrees collapse
// without ever comparing GiNaC trees. Then evaluated as many times as needed with plain doubles:
// the numeric path never substitutes into GiNaC trees in a loop (DESIGN.md, "Numbers").
#pragma once

#include <ginac/ginac.h>

#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

namespace appell::sym {

class Tape {
 public:
  /// What an instruction computes. Unary operations read slot `a`; Add, Mul, Div, Pow and Atan2
  /// read `a` and `b`.
  enum class Op : std::uint8_t {
    Constant,
    Variable,
    Add,
    Mul,
    Div,
    PowInt,
    Pow,
    Sqrt,
    Sin,
    Cos,
    Tan,
    Exp,
    Log,
    Asin,
    Acos,
    Atan,
    Atan2,
    Sinh,
    Cosh,
    Tanh,
    Abs
  };
  /// One step of the tape. Its result goes to the slot of its own index; operands are earlier
  /// slots, so the list is in dependency order.
  struct Instruction {
    Op op;
    std::uint32_t a = 0, b = 0;  // operand slots (Variable: the variable's index)
    double value = 0.0;          // Constant: the value; PowInt: the integer exponent
  };

  /// `variables` are the symbols whose values are passed to evaluate(), in that order. Every
  /// other symbol in `outputs` is an error (std::invalid_argument naming it).
  Tape(const GiNaC::exvector& outputs, const std::vector<GiNaC::symbol>& variables);

  /// Evaluates every output. `workspace` is resized as needed (reuse it between calls).
  void evaluate(const double* variables, double* outputs, std::vector<double>& workspace) const;

  std::size_t operations() const { return code_.size(); }
  std::size_t output_count() const { return outputs_.size(); }
  std::size_t variable_count() const { return variable_count_; }

  /// The instructions after common-subexpression elimination, read-only (code generation).
  const std::vector<Instruction>& instructions() const { return code_; }
  /// The slot of each output, in the order of the expressions given to the constructor.
  const std::vector<std::uint32_t>& output_slots() const { return outputs_; }

 private:
  std::uint32_t compile(const GiNaC::ex& e);
  std::uint32_t emit(Instruction instruction);

  std::vector<Instruction> code_;
  std::vector<std::uint32_t> outputs_;
  std::size_t variable_count_ = 0;
  struct InstructionHash {
    std::size_t operator()(const Instruction& i) const;
  };
  struct InstructionEqual {
    bool operator()(const Instruction& x, const Instruction& y) const;
  };
  struct Visited {
    GiNaC::ex node;  // keeps the key alive
    std::uint32_t slot;
  };
  std::unordered_map<const void*, Visited> visited_;
  std::unordered_map<Instruction, std::uint32_t, InstructionHash, InstructionEqual> unique_;
  std::map<GiNaC::ex, std::uint32_t, GiNaC::ex_is_less> variables_;
};

}  // namespace appell::sym
