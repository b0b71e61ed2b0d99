#include "appell/sym/tape.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "appell/sym/cancellation.hpp"

namespace appell::sym {

using GiNaC::ex;

Tape::Tape(const GiNaC::exvector& outputs, const std::vector<GiNaC::symbol>& variables)
    : variable_count_(variables.size()) {
  for (std::size_t i = 0; i < variables.size(); ++i)
    variables_.emplace(variables[i], static_cast<std::uint32_t>(i));
  for (const ex& e : outputs) outputs_.push_back(compile(e));
  // Only evaluate() and the read-only views need the tape now: release the expressions the
  // construction caches keep alive.
  visited_.clear();
  unique_.clear();
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

std::uint32_t Tape::compile(const ex& e) {
  const void* key = &GiNaC::ex_to<GiNaC::basic>(e);
  if (auto it = visited_.find(key); it != visited_.end()) return it->second.slot;
  poll_cancellation();
  std::uint32_t slot = 0;
  if (GiNaC::is_a<GiNaC::numeric>(e)) {
    const auto& n = GiNaC::ex_to<GiNaC::numeric>(e);
    if (!n.is_real()) throw std::invalid_argument("complex number in a numeric expression");
    slot = emit({Op::Constant, 0, 0, n.to_double()});
  } else if (GiNaC::is_a<GiNaC::symbol>(e)) {
    auto it = variables_.find(e);
    if (it == variables_.end())
      throw std::invalid_argument("no value for symbol " +
                                  GiNaC::ex_to<GiNaC::symbol>(e).get_name());
    slot = emit({Op::Variable, it->second, 0, 0.0});
  } else if (GiNaC::is_a<GiNaC::constant>(e)) {
    slot = emit({Op::Constant, 0, 0, GiNaC::ex_to<GiNaC::numeric>(GiNaC::evalf(e)).to_double()});
  } else if (GiNaC::is_a<GiNaC::add>(e) || GiNaC::is_a<GiNaC::mul>(e)) {
    const Op op = GiNaC::is_a<GiNaC::add>(e) ? Op::Add : Op::Mul;
    slot = compile(e.op(0));
    for (std::size_t i = 1; i < e.nops(); ++i) {
      // a·b^(-1) is a division: cheaper and more accurate than a reciprocal and a product.
      const ex& factor = e.op(i);
      if (op == Op::Mul && GiNaC::is_a<GiNaC::power>(factor) && factor.op(1).is_equal(ex(-1))) {
        slot = emit({Op::Div, slot, compile(factor.op(0)), 0.0});
      } else {
        slot = emit({op, slot, compile(factor), 0.0});
      }
    }
  } else if (GiNaC::is_a<GiNaC::power>(e)) {
    const ex base = e.op(0), exponent = e.op(1);
    const std::uint32_t b = compile(base);
    if (GiNaC::is_a<GiNaC::numeric>(exponent) &&
        GiNaC::ex_to<GiNaC::numeric>(exponent).is_integer()) {
      slot = emit({Op::PowInt, b, 0, GiNaC::ex_to<GiNaC::numeric>(exponent).to_double()});
    } else if (exponent.is_equal(GiNaC::numeric(1, 2))) {
      slot = emit({Op::Sqrt, b, 0, 0.0});
    } else {
      slot = emit({Op::Pow, b, compile(exponent), 0.0});
    }
  } else if (GiNaC::is_a<GiNaC::function>(e)) {
    const std::string name = GiNaC::ex_to<GiNaC::function>(e).get_name();
    static const std::unordered_map<std::string, Op> unary = {
        {"sin", Op::Sin},   {"cos", Op::Cos},   {"tan", Op::Tan},   {"exp", Op::Exp},
        {"log", Op::Log},   {"asin", Op::Asin}, {"acos", Op::Acos}, {"atan", Op::Atan},
        {"sinh", Op::Sinh}, {"cosh", Op::Cosh}, {"tanh", Op::Tanh}, {"abs", Op::Abs}};
    if (name == "atan2") {
      slot = emit({Op::Atan2, compile(e.op(0)), compile(e.op(1)), 0.0});
    } else if (auto it = unary.find(name); it != unary.end() && e.nops() == 1) {
      slot = emit({it->second, compile(e.op(0)), 0, 0.0});
    } else {
      throw std::invalid_argument("cannot evaluate the function " + name + " numerically");
    }
  } else {
    throw std::invalid_argument("cannot evaluate this kind of expression numerically");
  }
  visited_.emplace(key, Visited{e, slot});
  return slot;
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
