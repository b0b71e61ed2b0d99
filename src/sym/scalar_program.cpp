#include "appell/sym/scalar_program.hpp"

#include <cmath>
#include <cstring>
#include <stdexcept>

namespace appell::sym {

namespace {

bool is_unary(Op op) {
  switch (op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Div:
    case Op::Pow:
    case Op::Atan2:
      return false;
    default:
      return true;
  }
}

double compute(Op op, double a, double b, double value) {
  switch (op) {
    case Op::Add:
      return a + b;
    case Op::Sub:
      return a - b;
    case Op::Neg:
      return -a;
    case Op::Mul:
      return a * b;
    case Op::Div:
      return a / b;
    case Op::PowInt:
      return std::pow(a, static_cast<int>(value));
    case Op::Pow:
      return std::pow(a, b);
    case Op::Sqrt:
      return std::sqrt(a);
    case Op::Sin:
      return std::sin(a);
    case Op::Cos:
      return std::cos(a);
    case Op::Tan:
      return std::tan(a);
    case Op::Exp:
      return std::exp(a);
    case Op::Log:
      return std::log(a);
    case Op::Asin:
      return std::asin(a);
    case Op::Acos:
      return std::acos(a);
    case Op::Atan:
      return std::atan(a);
    case Op::Atan2:
      return std::atan2(a, b);
    case Op::Sinh:
      return std::sinh(a);
    case Op::Cosh:
      return std::cosh(a);
    case Op::Tanh:
      return std::tanh(a);
    case Op::Abs:
      return std::fabs(a);
    case Op::Constant:
    case Op::Variable:
      break;
  }
  throw std::logic_error("scalar program: not an operation");
}

}  // namespace

std::size_t ScalarProgram::Hash::operator()(const Instruction& i) const {
  // Operands are small consecutive integers: mixed (splitmix64's finalizer) so that nodes with
  // nearby operands do not crowd into nearby buckets.
  std::uint64_t bits = 0;
  std::memcpy(&bits, &i.value, sizeof bits);
  auto mix = [](std::uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  };
  const std::uint64_t operands = (std::uint64_t{i.a} << 32 | i.b) ^ static_cast<std::uint64_t>(i.op)
                                                                        << 59;
  return static_cast<std::size_t>(mix(operands ^ mix(bits)));
}

bool ScalarProgram::Equal::operator()(const Instruction& x, const Instruction& y) const {
  return x.op == y.op && x.a == y.a && x.b == y.b &&
         std::memcmp(&x.value, &y.value, sizeof x.value) == 0;
}

Node ScalarProgram::emit(Instruction instruction) {
  if ((instruction.op == Op::Add || instruction.op == Op::Mul) && instruction.a > instruction.b)
    std::swap(instruction.a, instruction.b);
  if (auto it = unique_.find(instruction); it != unique_.end()) return it->second;
  code_.push_back(instruction);
  const auto node = static_cast<Node>(code_.size() - 1);
  unique_.emplace(instruction, node);
  return node;
}

Node ScalarProgram::constant(double value) {
  if (value == 0.0) value = 0.0;  // -0 and 0 are one constant
  return emit({Op::Constant, 0, 0, value});
}

Node ScalarProgram::variable(std::uint32_t index) { return emit({Op::Variable, index, 0, 0.0}); }

Node ScalarProgram::add(Node a, Node b) {
  if (is_zero(a)) return b;
  if (is_zero(b)) return a;
  if (is_constant(a) && is_constant(b)) return constant(value(a) + value(b));
  if (code_[b].op == Op::Neg) return sub(a, code_[b].a);
  if (code_[a].op == Op::Neg) return sub(b, code_[a].a);
  return emit({Op::Add, a, b, 0.0});
}

Node ScalarProgram::sub(Node a, Node b) {
  if (is_zero(b)) return a;
  if (is_zero(a)) return neg(b);
  if (a == b) return constant(0.0);
  if (is_constant(a) && is_constant(b)) return constant(value(a) - value(b));
  if (code_[b].op == Op::Neg) return add(a, code_[b].a);
  if (code_[a].op == Op::Neg) return neg(add(code_[a].a, b));
  return emit({Op::Sub, a, b, 0.0});
}

Node ScalarProgram::neg(Node a) {
  if (is_constant(a)) return constant(-value(a));
  if (code_[a].op == Op::Neg) return code_[a].a;
  if (code_[a].op == Op::Sub) return sub(code_[a].b, code_[a].a);
  return emit({Op::Neg, a, 0, 0.0});
}

Node ScalarProgram::mul(Node a, Node b) {
  if (is_zero(a) || is_zero(b)) return constant(0.0);
  if (is_one(a)) return b;
  if (is_one(b)) return a;
  if (is_constant(a) && is_constant(b)) return constant(value(a) * value(b));
  if (is_constant(a) && value(a) == -1.0) return neg(b);
  if (is_constant(b) && value(b) == -1.0) return neg(a);
  // Signs out of products, so that x·(-y) and -(x·y) are one node.
  if (code_[a].op == Op::Neg) return neg(mul(code_[a].a, b));
  if (code_[b].op == Op::Neg) return neg(mul(a, code_[b].a));
  if (is_constant(a) && value(a) < 0) return neg(mul(constant(-value(a)), b));
  if (is_constant(b) && value(b) < 0) return neg(mul(a, constant(-value(b))));
  return emit({Op::Mul, a, b, 0.0});
}

Node ScalarProgram::div(Node a, Node b) {
  if (is_zero(a) && !is_zero(b)) return constant(0.0);
  if (is_one(b)) return a;
  if (is_constant(a) && is_constant(b)) return constant(value(a) / value(b));
  if (is_constant(b) && value(b) == -1.0) return neg(a);
  if (code_[a].op == Op::Neg) return neg(div(code_[a].a, b));
  if (code_[b].op == Op::Neg) return neg(div(a, code_[b].a));
  return emit({Op::Div, a, b, 0.0});
}

Node ScalarProgram::apply(Op op, Node a, Node b, double value_) {
  switch (op) {
    case Op::Add:
      return add(a, b);
    case Op::Sub:
      return sub(a, b);
    case Op::Mul:
      return mul(a, b);
    case Op::Div:
      return div(a, b);
    case Op::Neg:
      return neg(a);
    case Op::Constant:
      return constant(value_);
    case Op::Variable:
      return variable(a);
    default:
      break;
  }
  if (op == Op::PowInt) {
    const int n = static_cast<int>(value_);
    if (n == 0) return constant(1.0);
    if (n == 1) return a;
  }
  const bool unary = is_unary(op);
  if (is_constant(a) && (unary || is_constant(b)))
    return constant(compute(op, value(a), unary ? 0.0 : value(b), value_));
  return emit({op, a, unary ? 0u : b, op == Op::PowInt ? value_ : 0.0});
}

std::vector<Node> ScalarProgram::import(const sym::Tape& tape, const std::vector<Node>& variables) {
  const auto& code = tape.instructions();
  std::vector<Node> map(code.size());
  for (std::size_t i = 0; i < code.size(); ++i) {
    const Instruction& c = code[i];
    if (c.op == Op::Constant) {
      map[i] = constant(c.value);
    } else if (c.op == Op::Variable) {
      map[i] = variables.at(c.a);
    } else {
      map[i] = apply(c.op, map[c.a], is_unary(c.op) ? 0u : map[c.b], c.value);
    }
  }
  std::vector<Node> outputs;
  for (auto slot : tape.output_slots()) outputs.push_back(map[slot]);
  return outputs;
}

std::size_t ScalarProgram::operation_count(const std::vector<Node>& targets) const {
  std::vector<bool> live(code_.size(), false);
  for (Node t : targets) live.at(t) = true;
  std::size_t count = 0;
  for (std::size_t i = code_.size(); i-- > 0;) {
    const Instruction& c = code_[i];
    if (!live[i] || c.op == Op::Constant || c.op == Op::Variable) continue;
    ++count;
    live[c.a] = true;
    if (!is_unary(c.op)) live[c.b] = true;
  }
  return count;
}

Tape ScalarProgram::tape(const std::vector<Node>& outputs, std::size_t variable_count) const {
  std::vector<bool> live(code_.size(), false);
  for (Node n : outputs) live.at(n) = true;
  for (std::size_t i = code_.size(); i-- > 0;) {
    if (!live[i]) continue;
    const Instruction& c = code_[i];
    if (c.op == Op::Constant || c.op == Op::Variable) continue;
    live[c.a] = true;
    if (!is_unary(c.op)) live[c.b] = true;
  }
  std::vector<std::uint32_t> slot(code_.size(), 0);
  std::vector<Instruction> code;
  for (std::size_t i = 0; i < code_.size(); ++i) {
    if (!live[i]) continue;
    Instruction c = code_[i];
    if (c.op != Op::Constant && c.op != Op::Variable) {
      c.a = slot[c.a];
      if (!is_unary(c.op)) c.b = slot[c.b];
    }
    slot[i] = static_cast<std::uint32_t>(code.size());
    code.push_back(c);
  }
  std::vector<std::uint32_t> output_slots;
  for (Node n : outputs) output_slots.push_back(slot[n]);
  return Tape(std::move(code), std::move(output_slots), variable_count);
}

void ScalarProgram::evaluate(const double* variables, const std::vector<Node>& outputs,
                             double* values, std::vector<double>& w) const {
  std::size_t end = 0;
  for (Node n : outputs) end = std::max<std::size_t>(end, n + 1);
  w.resize(end);
  for (std::size_t i = 0; i < end; ++i) {
    const Instruction& c = code_[i];
    if (c.op == Op::Constant) {
      w[i] = c.value;
    } else if (c.op == Op::Variable) {
      w[i] = variables[c.a];
    } else {
      w[i] = compute(c.op, w[c.a], is_unary(c.op) ? 0.0 : w[c.b], c.value);
    }
  }
  for (std::size_t k = 0; k < outputs.size(); ++k) values[k] = w[outputs[k]];
}

// ---- 3-vectors and 3×3 matrices ------------------------------------------------------------

Vec3 zero3(ScalarProgram& p) {
  const Node z = p.constant(0.0);
  return {z, z, z};
}

Mat3 identity3(ScalarProgram& p) {
  const Node z = p.constant(0.0), o = p.constant(1.0);
  return {o, z, z, z, o, z, z, z, o};
}

Vec3 add(ScalarProgram& p, const Vec3& a, const Vec3& b) {
  return {p.add(a[0], b[0]), p.add(a[1], b[1]), p.add(a[2], b[2])};
}

Vec3 sub(ScalarProgram& p, const Vec3& a, const Vec3& b) {
  return {p.sub(a[0], b[0]), p.sub(a[1], b[1]), p.sub(a[2], b[2])};
}

Vec3 scale(ScalarProgram& p, Node s, const Vec3& a) {
  return {p.mul(s, a[0]), p.mul(s, a[1]), p.mul(s, a[2])};
}

Node dot(ScalarProgram& p, const Vec3& a, const Vec3& b) {
  return p.add(p.add(p.mul(a[0], b[0]), p.mul(a[1], b[1])), p.mul(a[2], b[2]));
}

Vec3 cross(ScalarProgram& p, const Vec3& a, const Vec3& b) {
  return {p.sub(p.mul(a[1], b[2]), p.mul(a[2], b[1])), p.sub(p.mul(a[2], b[0]), p.mul(a[0], b[2])),
          p.sub(p.mul(a[0], b[1]), p.mul(a[1], b[0]))};
}

Vec3 mul(ScalarProgram& p, const Mat3& m, const Vec3& v) {
  Vec3 r;
  for (int i = 0; i < 3; ++i)
    r[i] =
        p.add(p.add(p.mul(m[3 * i], v[0]), p.mul(m[3 * i + 1], v[1])), p.mul(m[3 * i + 2], v[2]));
  return r;
}

Vec3 mul_transposed(ScalarProgram& p, const Mat3& m, const Vec3& v) {
  Vec3 r;
  for (int i = 0; i < 3; ++i)
    r[i] = p.add(p.add(p.mul(m[i], v[0]), p.mul(m[3 + i], v[1])), p.mul(m[6 + i], v[2]));
  return r;
}

Mat3 mul(ScalarProgram& p, const Mat3& a, const Mat3& b) {
  Mat3 r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      r[3 * i + j] = p.add(p.add(p.mul(a[3 * i], b[j]), p.mul(a[3 * i + 1], b[3 + j])),
                           p.mul(a[3 * i + 2], b[6 + j]));
  return r;
}

Mat3 add(ScalarProgram& p, const Mat3& a, const Mat3& b) {
  Mat3 r;
  for (int i = 0; i < 9; ++i) r[i] = p.add(a[i], b[i]);
  return r;
}

Mat3 congruence(ScalarProgram& p, const Mat3& r, const Mat3& s) {
  // (R S) first, then only the upper triangle of (R S) Rᵀ, mirrored.
  Mat3 full = s;
  full[3] = s[1];
  full[6] = s[2];
  full[7] = s[5];
  const Mat3 rs = mul(p, r, full);
  Mat3 out;
  for (int i = 0; i < 3; ++i)
    for (int j = i; j < 3; ++j) {
      out[3 * i + j] = p.add(p.add(p.mul(rs[3 * i], r[3 * j]), p.mul(rs[3 * i + 1], r[3 * j + 1])),
                             p.mul(rs[3 * i + 2], r[3 * j + 2]));
      out[3 * j + i] = out[3 * i + j];
    }
  return out;
}

}  // namespace appell::sym
