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

#include "appell/sym/canonical_order.hpp"

namespace appell::sym {

/// A compiled list of instructions computing a fixed vector of outputs from a fixed vector of
/// variables. Immutable after construction; evaluate() is const and keeps its scratch space in
/// the caller's `workspace`, so one Tape may be evaluated from several threads with their own
/// workspaces.
class Tape {
 public:
  /// What an instruction computes. Unary operations (Neg, PowInt, Sqrt and the functions) read
  /// slot `a`; Add, Sub (a - b), Mul, Div, Pow and Atan2 read `a` and `b`.
  enum class Op : std::uint8_t {
    Constant,
    Variable,
    Add,
    Sub,
    Neg,
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

  /// Compiles `outputs` (any number of expressions) over `variables`, the symbols whose values
  /// are passed to evaluate(), in that order. Numbers, pi and the like become constants; +, ×,
  /// powers (a·b⁻¹ as a division, integer and ½ exponents specially) and sin, cos, tan, exp, log,
  /// asin, acos, atan, atan2, sinh, cosh, tanh and abs are supported. Throws
  /// std::invalid_argument for any other symbol in `outputs` ("no value for symbol NAME"), a
  /// complex number, or a function or expression kind it cannot evaluate.
  Tape(const GiNaC::exvector& outputs, const std::vector<GiNaC::symbol>& variables);

  /// A tape written by another builder (ScalarProgram::tape): `code` in dependency order (every
  /// operand an earlier slot, Variable instructions below `variable_count`), `outputs` slots of
  /// it. Throws std::invalid_argument when that does not hold.
  Tape(std::vector<Instruction> code, std::vector<std::uint32_t> outputs,
       std::size_t variable_count);

  /// Evaluates every output: `variables` holds variable_count() values in the constructor's
  /// order, `outputs` receives output_count() values in the order of the expressions given.
  /// `workspace` is resized as needed (reuse it between calls). IEEE arithmetic: a division by
  /// zero or a log of a negative number gives inf or nan, never an exception.
  void evaluate(const double* variables, double* outputs, std::vector<double>& workspace) const;

  /// Number of instructions after common-subexpression elimination (the cost of one evaluate()).
  std::size_t operations() const { return code_.size(); }
  /// Number of outputs, as given to the constructor.
  std::size_t output_count() const { return outputs_.size(); }
  /// Number of variables evaluate() reads.
  std::size_t variable_count() const { return variable_count_; }

  /// The instructions after common-subexpression elimination, read-only (code generation).
  const std::vector<Instruction>& instructions() const { return code_; }
  /// The slot of each output, in the order of the expressions given to the constructor.
  const std::vector<std::uint32_t>& output_slots() const { return outputs_; }

 private:
  // The value of e as sign · slot: GiNaC puts a sign in different places from run to run, the
  // structural order (CanonicalOrder) takes it out, so the instructions are the same every run.
  struct Signed {
    std::uint32_t slot;
    int sign;
  };
  Signed compile_signed(const GiNaC::ex& e);
  Signed compile_product(const GiNaC::ex& e);
  Signed compile_factors(const CanonicalOrder::Factors& factors);
  std::uint32_t compile(const GiNaC::ex& e);
  std::uint32_t constant(double value);
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
    Signed value;
  };
  std::unordered_map<const void*, Visited> visited_;
  // Operands of sums and products in a structural order: GiNaC's own order changes from run
  // to run, and with it the rounding of the evaluated numbers.
  CanonicalOrder order_;
  std::unordered_map<Instruction, std::uint32_t, InstructionHash, InstructionEqual> unique_;
  std::map<GiNaC::ex, std::uint32_t, GiNaC::ex_is_less> variables_;
};

}  // namespace appell::sym
