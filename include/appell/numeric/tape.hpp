// A flat instruction list that evaluates GiNaC expressions numerically.
//
// Built once from the expression DAG with common subexpressions merged (structurally equal
// nodes share one slot), then evaluated as many times as needed with plain doubles: the numeric
// path never substitutes into GiNaC trees in a loop (DESIGN.md, "Numbers").
#pragma once

#include <ginac/ginac.h>

#include <cstdint>
#include <vector>

namespace appell::num {

class Tape {
 public:
  /// `variables` are the symbols whose values are passed to evaluate(), in that order. Every
  /// other symbol in `outputs` is an error (std::invalid_argument naming it).
  Tape(const GiNaC::exvector& outputs, const std::vector<GiNaC::symbol>& variables);

  /// Evaluates every output. `workspace` is resized as needed (reuse it between calls).
  void evaluate(const double* variables, double* outputs, std::vector<double>& workspace) const;

  std::size_t operations() const { return code_.size(); }
  std::size_t output_count() const { return outputs_.size(); }
  std::size_t variable_count() const { return variable_count_; }

 private:
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
  struct Instruction {
    Op op;
    std::uint32_t a = 0, b = 0;  // operand slots (or variable index)
    double value = 0.0;          // constant, or integer exponent
  };

  std::uint32_t compile(const GiNaC::ex& e);
  std::uint32_t emit(Instruction instruction);

  std::vector<Instruction> code_;
  std::vector<std::uint32_t> outputs_;
  std::size_t variable_count_ = 0;
  std::unordered_map<GiNaC::ex, std::uint32_t, std::hash<GiNaC::ex>, GiNaC::ex_is_equal> slots_;
  std::unordered_map<GiNaC::ex, std::uint32_t, std::hash<GiNaC::ex>, GiNaC::ex_is_equal> variables_;
};

}  // namespace appell::num
