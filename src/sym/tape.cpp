#include "appell/sym/tape.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "appell/sym/cancellation.hpp"
#include "appell/sym/progress.hpp"
#include "pairs.hpp"

namespace appell::sym {

using GiNaC::ex;

Tape::Tape(const GiNaC::exvector& outputs, const std::vector<GiNaC::symbol>& variables)
    : variable_count_(variables.size()) {
  for (std::size_t i = 0; i < variables.size(); ++i)
    variables_.emplace(variables[i], static_cast<std::uint32_t>(i));
  ProgressStep step("compiling the expressions", outputs.size());
  for (const ex& e : outputs) {
    step.advance();
    outputs_.push_back(compile(e));
  }
  // Only evaluate() and the read-only views need the tape now: release the expressions the
  // construction caches keep alive.
  visited_.clear();
  unique_.clear();
  order_ = CanonicalOrder();
}

Tape::Tape(std::vector<Instruction> code, std::vector<std::uint32_t> outputs,
           std::size_t variable_count)
    : code_(std::move(code)), outputs_(std::move(outputs)), variable_count_(variable_count) {
  for (std::size_t i = 0; i < code_.size(); ++i) {
    const Instruction& c = code_[i];
    const bool binary = c.op == Op::Add || c.op == Op::Sub || c.op == Op::Mul || c.op == Op::Div ||
                        c.op == Op::Pow || c.op == Op::Atan2;
    const bool ok = c.op == Op::Constant   ? true
                    : c.op == Op::Variable ? c.a < variable_count_
                                           : c.a < i && (!binary || c.b < i);
    if (!ok)
      throw std::invalid_argument("tape: instruction " + std::to_string(i) + " out of order");
  }
  for (std::uint32_t slot : outputs_)
    if (slot >= code_.size()) throw std::invalid_argument("tape: output slot out of range");
}

std::size_t Tape::InstructionHash::operator()(const Instruction& i) const {
  std::size_t h = static_cast<std::size_t>(i.op);
  h = h * 1000003u ^ i.a;
  h = h * 1000003u ^ i.b;
  return h * 1000003u ^ std::hash<double>()(i.value);
}

bool Tape::InstructionEqual::operator()(const Instruction& x, const Instruction& y) const {
  return x.op == y.op && x.a == y.a && x.b == y.b && x.value == y.value;
}

std::uint32_t Tape::emit(Instruction instruction) {
  // a + b and b + a are the same value: order commutative operands so both hit the cache.
  if ((instruction.op == Op::Add || instruction.op == Op::Mul) && instruction.a > instruction.b)
    std::swap(instruction.a, instruction.b);
  if (auto it = unique_.find(instruction); it != unique_.end()) return it->second;
  code_.push_back(instruction);
  const auto slot = static_cast<std::uint32_t>(code_.size() - 1);
  unique_.emplace(instruction, slot);
  return slot;
}

std::uint32_t Tape::constant(double value) { return emit({Op::Constant, 0, 0, value}); }

std::uint32_t Tape::compile(const ex& e) {
  const Signed s = compile_signed(e);
  return s.sign > 0 ? s.slot : emit({Op::Neg, s.slot, 0, 0.0});
}

Tape::Signed Tape::compile_product(const ex& e) { return compile_factors(order_.factors(e)); }

Tape::Signed Tape::compile_factors(const CanonicalOrder::Factors& factors) {
  // Bases with their exponents added up, in the structural order (CanonicalOrder::factors, the
  // same reading the hash makes): A·(-A) and -A^2 give the same instructions.
  if (!factors.real) throw std::invalid_argument("complex number in a numeric expression");
  const GiNaC::numeric& coefficient = factors.coefficient;
  const int sign = factors.sign;
  Signed result{0, sign};
  bool started = false;
  const auto multiply = [&](std::uint32_t slot) {
    result.slot = started ? emit({Op::Mul, result.slot, slot, 0.0}) : slot;
    started = true;
  };
  if (coefficient != 1) multiply(constant(coefficient.to_double()));
  for (const auto& [key, factor] : factors.powers) {
    const GiNaC::numeric& n = factor.exponent;
    if (n.is_zero()) continue;
    if (n.is_integer()) {
      const std::uint32_t base = compile_signed(factor.base).slot;  // the sign is in `sign`
      if (n == 1) {
        multiply(base);
      } else if (n == -1 && started) {
        // a·b^(-1) is a division: cheaper and more accurate than a reciprocal and a product.
        result.slot = emit({Op::Div, result.slot, base, 0.0});
      } else {
        multiply(emit({Op::PowInt, base, 0, n.to_double()}));
      }
    } else if (n == GiNaC::numeric(1, 2)) {
      multiply(emit({Op::Sqrt, compile(factor.base), 0, 0.0}));
    } else {
      multiply(emit({Op::Pow, compile(factor.base), constant(n.to_double()), 0.0}));
    }
  }
  if (!started) result.slot = constant(1.0);
  return result;
}

Tape::Signed Tape::compile_signed(const ex& e) {
  const void* key = &GiNaC::ex_to<GiNaC::basic>(e);
  if (auto it = visited_.find(key); it != visited_.end()) return it->second.value;
  Signed result{0, 1};
  if (GiNaC::is_a<GiNaC::numeric>(e)) {
    const auto& n = GiNaC::ex_to<GiNaC::numeric>(e);
    if (!n.is_real()) throw std::invalid_argument("complex number in a numeric expression");
    const double v = n.to_double();
    result = v < 0 ? Signed{constant(-v), -1} : Signed{constant(v), 1};
  } else if (GiNaC::is_a<GiNaC::symbol>(e)) {
    auto it = variables_.find(e);
    if (it == variables_.end())
      throw std::invalid_argument("no value for symbol " +
                                  GiNaC::ex_to<GiNaC::symbol>(e).get_name());
    result.slot = emit({Op::Variable, it->second, 0, 0.0});
  } else if (GiNaC::is_a<GiNaC::constant>(e)) {
    const double v = GiNaC::ex_to<GiNaC::numeric>(GiNaC::evalf(e)).to_double();
    result = v < 0 ? Signed{constant(-v), -1} : Signed{constant(v), 1};
  } else if (GiNaC::is_a<GiNaC::add>(e)) {
    // Terms in the structural order; the first one's sign is the sum's: a - b and -(b - a) give
    // the same instructions.
    // A term rest·coeff is compiled from GiNaC's pair (sym/pairs.hpp) as the product op() would
    // build, without building it.
    const GiNaC::epvector& pairs = detail::Pairs::of(e);
    const auto compile_term = [&](std::size_t i) {
      if (i == pairs.size()) return compile_signed(detail::Pairs::coefficient(e));
      if (pairs[i].coeff.is_equal(1)) return compile_signed(pairs[i].rest);
      return compile_factors(order_.term_factors(pairs[i]));
    };
    const std::vector<std::size_t> terms = order_.operand_order(e);
    const Signed first = compile_term(terms.front());
    result = first;
    for (std::size_t i = 1; i < terms.size(); ++i) {
      const Signed term = compile_term(terms[i]);
      result.slot =
          emit({term.sign == first.sign ? Op::Add : Op::Sub, result.slot, term.slot, 0.0});
    }
  } else if (GiNaC::is_a<GiNaC::mul>(e) ||
             (GiNaC::is_a<GiNaC::power>(e) && GiNaC::is_a<GiNaC::numeric>(e.op(1)))) {
    result = compile_product(e);
  } else if (GiNaC::is_a<GiNaC::power>(e)) {
    result.slot = emit({Op::Pow, compile(e.op(0)), compile(e.op(1)), 0.0});
  } else if (GiNaC::is_a<GiNaC::function>(e)) {
    const std::string name = GiNaC::ex_to<GiNaC::function>(e).get_name();
    static const std::unordered_map<std::string, Op> unary = {
        {"sin", Op::Sin},   {"cos", Op::Cos},   {"tan", Op::Tan},   {"exp", Op::Exp},
        {"log", Op::Log},   {"asin", Op::Asin}, {"acos", Op::Acos}, {"atan", Op::Atan},
        {"sinh", Op::Sinh}, {"cosh", Op::Cosh}, {"tanh", Op::Tanh}, {"abs", Op::Abs}};
    if (name == "atan2") {
      result.slot = emit({Op::Atan2, compile(e.op(0)), compile(e.op(1)), 0.0});
    } else if (name == "conjugate" && e.nops() == 1) {
      // Every quantity of a model is real, where conjugate is the identity; GiNaC, whose
      // symbols are complex, writes it into abs(x)^2 = x conjugate(x) and into d abs(x)/dx.
      result = compile_signed(e.op(0));
    } else if (auto it = unary.find(name); it != unary.end() && e.nops() == 1) {
      result.slot = emit({it->second, compile(e.op(0)), 0, 0.0});
    } else {
      throw std::invalid_argument("cannot evaluate the function " + name + " numerically");
    }
  } else {
    throw std::invalid_argument("cannot evaluate this kind of expression numerically");
  }
  visited_.emplace(key, Visited{e, result});
  return result;
}

void Tape::evaluate(const double* variables, double* outputs, std::vector<double>& w) const {
  w.resize(code_.size());
  for (std::size_t i = 0; i < code_.size(); ++i) {
    const Instruction& c = code_[i];
    double r = 0.0;
    switch (c.op) {
      case Op::Constant:
        r = c.value;
        break;
      case Op::Variable:
        r = variables[c.a];
        break;
      case Op::Add:
        r = w[c.a] + w[c.b];
        break;
      case Op::Sub:
        r = w[c.a] - w[c.b];
        break;
      case Op::Neg:
        r = -w[c.a];
        break;
      case Op::Mul:
        r = w[c.a] * w[c.b];
        break;
      case Op::Div:
        r = w[c.a] / w[c.b];
        break;
      case Op::PowInt: {
        const int n = static_cast<int>(c.value);
        if (n == 2) {
          r = w[c.a] * w[c.a];
        } else if (n == -1) {
          r = 1.0 / w[c.a];
        } else {
          r = std::pow(w[c.a], n);
        }
        break;
      }
      case Op::Pow:
        r = std::pow(w[c.a], w[c.b]);
        break;
      case Op::Sqrt:
        r = std::sqrt(w[c.a]);
        break;
      case Op::Sin:
        r = std::sin(w[c.a]);
        break;
      case Op::Cos:
        r = std::cos(w[c.a]);
        break;
      case Op::Tan:
        r = std::tan(w[c.a]);
        break;
      case Op::Exp:
        r = std::exp(w[c.a]);
        break;
      case Op::Log:
        r = std::log(w[c.a]);
        break;
      case Op::Asin:
        r = std::asin(w[c.a]);
        break;
      case Op::Acos:
        r = std::acos(w[c.a]);
        break;
      case Op::Atan:
        r = std::atan(w[c.a]);
        break;
      case Op::Atan2:
        r = std::atan2(w[c.a], w[c.b]);
        break;
      case Op::Sinh:
        r = std::sinh(w[c.a]);
        break;
      case Op::Cosh:
        r = std::cosh(w[c.a]);
        break;
      case Op::Tanh:
        r = std::tanh(w[c.a]);
        break;
      case Op::Abs:
        r = std::abs(w[c.a]);
        break;
    }
    w[i] = r;
  }
  for (std::size_t k = 0; k < outputs_.size(); ++k) outputs[k] = w[outputs_[k]];
}

}  // namespace appell::sym
