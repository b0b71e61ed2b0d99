#include "code_writer.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace appell::codegen::detail {

namespace {

bool is_binary(Op op) {
  return op == Op::Add || op == Op::Sub || op == Op::Mul || op == Op::Div || op == Op::Pow ||
         op == Op::Atan2;
}

class Writer {
 public:
  Writer(const DynamicsProgram& d, const Plan& plan, Language language)
      : d_(d), plan_(plan), code_(d.program.instructions()), c_(language == Language::C) {}

  Body write(const std::vector<Target>& targets) {
    std::vector<bool> live(code_.size(), false);
    for (const auto& target : targets) live[target.node] = true;
    for (std::size_t i = code_.size(); i-- > 0;) {
      if (!live[i] || code_[i].op == Op::Constant || code_[i].op == Op::Variable) continue;
      live[code_[i].a] = true;
      if (is_binary(code_[i].op)) live[code_[i].b] = true;
    }
    names_.assign(code_.size(), std::string());
    // A target is stored as soon as its value is known: short live ranges keep the compiler's
    // register allocation (and its time) linear in the size of a large function.
    std::vector<std::vector<std::size_t>> stores(code_.size());
    std::vector<std::size_t> at_end;
    for (std::size_t k = 0; k < targets.size(); ++k) {
      const Op op = code_[targets[k].node].op;
      if (op == Op::Constant || op == Op::Variable)
        at_end.push_back(k);
      else
        stores[targets[k].node].push_back(k);
    }
    Body body;
    // The statements in order, and the part each falls in.
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < code_.size(); ++i) {
      if (!live[i]) continue;
      if (code_[i].op == Op::Variable) {
        body.arguments_read.insert(argument(code_[i].a));
        continue;
      }
      if (code_[i].op != Op::Constant) order.push_back(i);
    }
    const bool split = order.size() > 2 * kStatementsPerPart;
    part_.assign(code_.size(), 0);
    slot_.assign(code_.size(), kNoSlot);
    if (split) {
      for (std::size_t k = 0; k < order.size(); ++k) part_[order[k]] = k / kStatementsPerPart;
      // A value read by a later part crosses in the workspace.
      for (std::size_t i : order) {
        const Instruction& c = code_[i];
        for (Node a : {Node(c.a), is_binary(c.op) ? Node(c.b) : Node(c.a)}) {
          const Op op = code_[a].op;
          if (op == Op::Constant || op == Op::Variable) continue;
          if (part_[a] != part_[i] && slot_[a] == kNoSlot) slot_[a] = body.workspace++;
        }
      }
    }
    std::ostringstream out;
    std::size_t next = 0, current = 0;
    for (std::size_t i : order) {
      if (split && part_[i] != current) {
        body.parts.push_back(out.str());
        out.str("");
        current = part_[i];
      }
      reading_part_ = part_[i];
      const std::string expr = expression(code_[i], body.counts);
      names_[i] = "v" + std::to_string(next++);
      out << "  const double " << names_[i] << " = " << expr << ";\n";
      if (slot_[i] != kNoSlot) out << "  w[" << slot_[i] << "] = " << names_[i] << ";\n";
      for (std::size_t k : stores[i]) out << "  " << targets[k].name << " = " << names_[i] << ";\n";
    }
    reading_part_ = current;
    for (std::size_t k : at_end)
      out << "  " << targets[k].name << " = " << operand(targets[k].node) << ";\n";
    if (split) {
      body.parts.push_back(out.str());
      return body;
    }
    body.code = out.str();
    return body;
  }

 private:
  Argument argument(std::uint32_t variable) const {
    if (variable < plan_.variables.size()) return plan_.variables[variable].argument;
    return variable < d_.first_extra ? Argument::Qdd : Argument::Extra;
  }

  std::string reference(std::uint32_t variable) const {
    if (variable >= d_.first_extra) return "Qx[" + std::to_string(variable - d_.first_extra) + "]";
    if (variable >= d_.first_qdd)
      return plan_.accelerations() + "[" + std::to_string(variable - d_.first_qdd) + "]";
    const Variable& v = plan_.variables[variable];
    if (!c_) return v.reference;
    if (v.argument == Argument::Parameters) return "p->" + v.reference.substr(2);
    if (v.argument == Argument::Inputs) return "in->" + v.reference.substr(3);
    return v.reference;
  }

  std::string literal(double v) const {
    if (c_ && !std::isfinite(v)) return std::isnan(v) ? "NAN" : v > 0 ? "INFINITY" : "(-INFINITY)";
    return operand_literal(v);
  }

  std::string operand(Node node) const {
    const Instruction& c = code_[node];
    if (c.op == Op::Constant) return literal(c.value);
    if (c.op == Op::Variable) return reference(c.a);
    // Computed in an earlier part: read from the workspace.
    if (part_[node] != reading_part_) return "w[" + std::to_string(slot_[node]) + "]";
    return names_[node];
  }

  std::string function(const char* name) const { return c_ ? name : std::string("std::") + name; }

  std::string call(const char* name, const Instruction& c, OperationCounts& counts) const {
    ++counts.calls;
    return function(name) + "(" + operand(c.a) + ")";
  }

  std::string expression(const Instruction& c, OperationCounts& counts) const {
    const std::string a = operand(c.a);
    switch (c.op) {
      case Op::Add:
        ++counts.adds;
        return a + " + " + operand(c.b);
      case Op::Sub:
        ++counts.adds;
        return a + " - " + operand(c.b);
      case Op::Neg:
        ++counts.negations;
        return "-" + a;
      case Op::Mul:
        ++counts.multiplies;
        return a + " * " + operand(c.b);
      case Op::Div:
        ++counts.divides;
        return a + " / " + operand(c.b);
      case Op::PowInt: {
        // Small powers as products: compilers keep pow(x, 3.0) a call without -ffast-math.
        const int n = static_cast<int>(c.value);
        switch (n) {
          case 2:
            ++counts.multiplies;
            return a + " * " + a;
          case 3:
            counts.multiplies += 2;
            return a + " * " + a + " * " + a;
          case -1:
            ++counts.divides;
            return "1.0 / " + a;
          case -2:
            ++counts.divides;
            ++counts.multiplies;
            return "1.0 / (" + a + " * " + a + ")";
          default:
            ++counts.calls;
            return function("pow") + "(" + a + ", " + plain_literal(c.value) + ")";
        }
      }
      case Op::Pow:
        ++counts.calls;
        return function("pow") + "(" + a + ", " + operand(c.b) + ")";
      case Op::Atan2:
        ++counts.calls;
        return function("atan2") + "(" + a + ", " + operand(c.b) + ")";
      case Op::Sqrt:
        return call("sqrt", c, counts);
      case Op::Sin:
        return call("sin", c, counts);
      case Op::Cos:
        return call("cos", c, counts);
      case Op::Tan:
        return call("tan", c, counts);
      case Op::Exp:
        return call("exp", c, counts);
      case Op::Log:
        return call("log", c, counts);
      case Op::Asin:
        return call("asin", c, counts);
      case Op::Acos:
        return call("acos", c, counts);
      case Op::Atan:
        return call("atan", c, counts);
      case Op::Sinh:
        return call("sinh", c, counts);
      case Op::Cosh:
        return call("cosh", c, counts);
      case Op::Tanh:
        return call("tanh", c, counts);
      case Op::Abs:
        return call("fabs", c, counts);
      case Op::Constant:
      case Op::Variable:
        break;
    }
    throw std::logic_error("codegen: unexpected instruction");
  }

  const DynamicsProgram& d_;
  const Plan& plan_;
  const std::vector<Instruction>& code_;
  bool c_;
  std::vector<std::string> names_;
  static constexpr std::size_t kNoSlot = static_cast<std::size_t>(-1);
  std::vector<std::size_t> part_;  // per node: the part that computes it (0 when not split)
  std::vector<std::size_t> slot_;  // per node: its workspace slot when a later part reads it
  std::size_t reading_part_ = 0;   // the part whose statement is being written
};

std::vector<Target> indexed(const std::string& array, const std::vector<Node>& nodes) {
  std::vector<Target> targets;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    targets.push_back({array + "[" + std::to_string(i) + "]", nodes[i]});
  return targets;
}

}  // namespace

Body write_body(const DynamicsProgram& d, const Plan& plan, const std::vector<Target>& targets,
                Language language) {
  return Writer(d, plan, language).write(targets);
}

std::vector<Target> function_targets(const DynamicsProgram& d, GeneratedFunction function,
                                     const std::string& accelerations) {
  std::vector<Target> targets;
  auto append = [&](const std::vector<Target>& more) {
    targets.insert(targets.end(), more.begin(), more.end());
  };
  switch (function) {
    case GeneratedFunction::MassMatrix:
      return indexed("M", d.mass);
    case GeneratedFunction::Forcing:
    case GeneratedFunction::MassMatrixAndForcing: {
      if (function == GeneratedFunction::MassMatrixAndForcing) append(indexed("M", d.mass));
      for (std::size_t i = 0; i < d.n; ++i)
        targets.push_back({"f[" + std::to_string(i) + "]", d.forcing[i]});
      return targets;
    }
    case GeneratedFunction::NonlinearEffects:
      return indexed("h", d.bias);
    case GeneratedFunction::Gravity:
      return indexed("g", d.gravity);
    case GeneratedFunction::InverseDynamics:
      return indexed("Q", d.inverse);
    case GeneratedFunction::ForwardDynamics:
      append(indexed(accelerations, d.forward));
      append(indexed("pivot", d.pivots));
      append(indexed("diagonal", d.diagonal));
      return targets;
  }
  return targets;
}

}  // namespace appell::codegen::detail
