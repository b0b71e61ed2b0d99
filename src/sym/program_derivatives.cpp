#include "appell/sym/program_derivatives.hpp"

#include <algorithm>
#include <stdexcept>

namespace appell::sym {

namespace {

bool is_binary(Op op) {
  return op == Op::Add || op == Op::Sub || op == Op::Mul || op == Op::Div || op == Op::Pow ||
         op == Op::Atan2;
}

// x·a + y·b entry by entry (x or y absent: that side does not enter), zeros dropped.
Tangent combine(ScalarProgram& p, const Tangent& a, Node x, bool has_x, const Tangent& b, Node y,
                bool has_y) {
  Tangent out;
  out.reserve(a.size() + b.size());
  std::size_t i = 0, j = 0;
  auto keep = [&](std::uint32_t k, Node v) {
    if (!p.is_zero(v)) out.emplace_back(k, v);
  };
  while (i < a.size() || j < b.size()) {
    const bool take_a = i < a.size() && (j == b.size() || a[i].first <= b[j].first);
    const bool take_b = j < b.size() && (i == a.size() || b[j].first <= a[i].first);
    const std::uint32_t k = take_a ? a[i].first : b[j].first;
    const Node from_a = take_a ? (has_x ? p.mul(x, a[i].second) : a[i].second) : 0;
    const Node from_b = take_b ? (has_y ? p.mul(y, b[j].second) : b[j].second) : 0;
    if (take_a && take_b)
      keep(k, p.add(from_a, from_b));
    else
      keep(k, take_a ? from_a : from_b);
    if (take_a) ++i;
    if (take_b) ++j;
  }
  return out;
}

Tangent scaled(ScalarProgram& p, Node factor, const Tangent& a) {
  return combine(p, a, factor, true, {}, 0, false);
}

Tangent negated(ScalarProgram& p, const Tangent& a) {
  Tangent out;
  out.reserve(a.size());
  for (const auto& [k, v] : a) out.emplace_back(k, p.neg(v));
  return out;
}

// d(a/b) = (ȧ − r ḃ)/b with r = a/b: the division kept per entry (no 1/b node), so that a
// constant denominator folds into each entry as it did into the value.
Tangent quotient(ScalarProgram& p, Node r, Node b, const Tangent& da, const Tangent& db) {
  Tangent numerator = combine(p, da, 0, false, db, p.neg(r), true);
  for (auto& [k, v] : numerator) v = p.div(v, b);
  return numerator;
}

// The derivative of the unary operation `op` (result r of operand a) with respect to a.
Node unary_factor(ScalarProgram& p, const Instruction& c, Node r) {
  const Node a = c.a;
  const Node one = p.constant(1.0);
  switch (c.op) {
    case Op::PowInt: {
      const double n = c.value;
      return p.mul(p.constant(n), p.apply(Op::PowInt, a, 0, n - 1.0));
    }
    case Op::Sqrt:
      return p.div(p.constant(0.5), r);
    case Op::Sin:
      return p.apply(Op::Cos, a);
    case Op::Cos:
      return p.neg(p.apply(Op::Sin, a));
    case Op::Tan:
      return p.add(one, p.mul(r, r));
    case Op::Exp:
      return r;
    case Op::Log:
      return p.div(one, a);
    case Op::Asin:
      return p.div(one, p.apply(Op::Sqrt, p.sub(one, p.mul(a, a))));
    case Op::Acos:
      return p.neg(p.div(one, p.apply(Op::Sqrt, p.sub(one, p.mul(a, a)))));
    case Op::Atan:
      return p.div(one, p.add(one, p.mul(a, a)));
    case Op::Sinh:
      return p.apply(Op::Cosh, a);
    case Op::Cosh:
      return p.apply(Op::Sinh, a);
    case Op::Tanh:
      return p.sub(one, p.mul(r, r));
    case Op::Abs:
      return p.div(a, r);  // sign(a): undefined at 0, as |a|'s derivative is
    default:
      break;
  }
  throw std::logic_error("program derivatives: not a unary operation");
}

// The nodes `outputs` reach, not looking past a seeded node.
std::vector<bool> reached(const ScalarProgram& p, const std::vector<Node>& outputs,
                          const Seeds& seeds) {
  const auto& code = p.instructions();
  std::vector<bool> live(code.size(), false);
  for (Node o : outputs) live.at(o) = true;
  for (std::size_t i = code.size(); i-- > 0;) {
    if (!live[i] || seeds.count(static_cast<Node>(i))) continue;
    const Instruction& c = code[i];
    if (c.op == Op::Constant || c.op == Op::Variable) continue;
    live[c.a] = true;
    if (is_binary(c.op)) live[c.b] = true;
  }
  return live;
}

}  // namespace

void seed_directions(ScalarProgram& p, Seeds& seeds, const std::vector<Node>& variables,
                     std::uint32_t first) {
  const Node one = p.constant(1.0);
  for (std::size_t k = 0; k < variables.size(); ++k)
    seeds[variables[k]] = Tangent{{first + static_cast<std::uint32_t>(k), one}};
}

std::vector<Node> jacobian(ScalarProgram& p, const std::vector<Node>& outputs, const Seeds& seeds,
                           std::size_t directions) {
  for (const auto& [node, tangent] : seeds)
    for (const auto& [k, v] : tangent)
      if (k >= directions || v >= p.instructions().size() || node >= p.instructions().size())
        throw std::invalid_argument("program derivatives: a seed outside the program");
  const std::size_t size = p.instructions().size();  // the nodes built below are not visited
  const std::vector<bool> live = reached(p, outputs, seeds);
  std::vector<Tangent> dot(size);
  for (std::size_t i = 0; i < size; ++i) {
    if (!live[i]) continue;
    const Node node = static_cast<Node>(i);
    if (const auto seed = seeds.find(node); seed != seeds.end()) {
      dot[i] = seed->second;
      continue;
    }
    // A copy: building nodes below may grow the program's instruction vector.
    const Instruction c = p.instructions()[i];
    if (c.op == Op::Constant || c.op == Op::Variable) continue;
    const Tangent& da = dot[c.a];
    const Tangent empty;
    const Tangent& db = is_binary(c.op) ? dot[c.b] : empty;
    if (da.empty() && db.empty()) continue;
    switch (c.op) {
      case Op::Add:
        dot[i] = combine(p, da, 0, false, db, 0, false);
        break;
      case Op::Sub:
        dot[i] = combine(p, da, 0, false, db, p.constant(-1.0), true);
        break;
      case Op::Neg:
        dot[i] = negated(p, da);
        break;
      case Op::Mul:
        dot[i] = combine(p, da, c.b, true, db, c.a, true);
        break;
      case Op::Div:
        dot[i] = quotient(p, node, c.b, da, db);
        break;
      case Op::Pow: {
        // d(a^b) = b a^(b−1) ȧ + a^b log(a) ḃ
        const Node x =
            da.empty() ? 0 : p.mul(c.b, p.apply(Op::Pow, c.a, p.sub(c.b, p.constant(1.0))));
        const Node y = db.empty() ? 0 : p.mul(node, p.apply(Op::Log, c.a));
        dot[i] = combine(p, da, x, true, db, y, true);
        break;
      }
      case Op::Atan2: {
        // atan2(a, b) = angle of (b, a): d = (b ȧ − a ḃ)/(a² + b²)
        const Node r2 = p.add(p.mul(c.a, c.a), p.mul(c.b, c.b));
        dot[i] = combine(p, da, p.div(c.b, r2), true, db, p.neg(p.div(c.a, r2)), true);
        break;
      }
      default:
        dot[i] = scaled(p, unary_factor(p, c, node), da);
        break;
    }
  }
  const Node zero = p.constant(0.0);
  std::vector<Node> out(outputs.size() * directions, zero);
  for (std::size_t r = 0; r < outputs.size(); ++r)
    for (const auto& [k, v] : dot[outputs[r]]) out[r * directions + k] = v;
  return out;
}

std::vector<Node> substitute(ScalarProgram& p, const std::vector<Node>& outputs,
                             const std::unordered_map<Node, Node>& replacements) {
  const std::size_t size = p.instructions().size();
  std::vector<bool> live(size, false);
  for (Node o : outputs) live.at(o) = true;
  for (std::size_t i = size; i-- > 0;) {
    const Instruction& c = p.instructions()[i];
    if (!live[i] || replacements.count(static_cast<Node>(i))) continue;
    if (c.op == Op::Constant || c.op == Op::Variable) continue;
    live[c.a] = true;
    if (is_binary(c.op)) live[c.b] = true;
  }
  std::vector<Node> map(size);
  std::vector<bool> changed(size, false);
  for (std::size_t i = 0; i < size; ++i) {
    if (!live[i]) continue;
    const Node node = static_cast<Node>(i);
    map[i] = node;
    if (const auto r = replacements.find(node); r != replacements.end()) {
      map[i] = r->second;
      changed[i] = r->second != node;
      continue;
    }
    const Instruction c = p.instructions()[i];
    if (c.op == Op::Constant || c.op == Op::Variable) continue;
    const bool binary = is_binary(c.op);
    if (!changed[c.a] && !(binary && changed[c.b])) continue;  // the node as it was
    map[i] = p.apply(c.op, map[c.a], binary ? map[c.b] : 0, c.value);
    changed[i] = map[i] != node;
  }
  std::vector<Node> out;
  out.reserve(outputs.size());
  for (Node o : outputs) out.push_back(map[o]);
  return out;
}

}  // namespace appell::sym
