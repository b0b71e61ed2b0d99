#include "appell/principles/regressor.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <stdexcept>

#include "appell/principles/readable_form.hpp"
#include "appell/principles/recursive_dynamics.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/scalar_program.hpp"

namespace appell::principles {

namespace {

using sym::Node;
using sym::Op;

// A constant of the program as GiNaC reads it: the exact decimal when the double's shortest
// spelling has at most 12 significant digits (the model's 0.425 and 9.81 came in exact and were
// read as doubles), else the double itself.
GiNaC::ex exact_number(double value) {
  if (value == 0.0) return 0;
  char buffer[64];
  const auto result =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  const std::string text(buffer, result.ptr);  // "-4.25e-01"
  const std::size_t e = text.find('e');
  std::string digits;
  for (std::size_t i = 0; i < e; ++i)
    if (text[i] >= '0' && text[i] <= '9') digits += text[i];
  if (digits.size() > 12) return GiNaC::numeric(value);
  const int exponent = std::stoi(text.substr(e + 1)) - static_cast<int>(digits.size()) + 1;
  const GiNaC::numeric scaled =
      GiNaC::numeric(digits.c_str()) * GiNaC::numeric(10).power(GiNaC::numeric(exponent));
  return value < 0 ? -scaled : scaled;
}

// One program node as a GiNaC expression of its operands' `value`s (variable k read as
// variables[k]).
GiNaC::ex node_expression(const sym::Instruction& c, const GiNaC::exvector& value,
                          const GiNaC::exvector& variables) {
  const bool leaf = c.op == Op::Constant || c.op == Op::Variable;
  const GiNaC::ex a = leaf ? GiNaC::ex(0) : value[c.a];
  const GiNaC::ex b = leaf ? GiNaC::ex(0) : value[c.b];
  switch (c.op) {
    case Op::Constant:
      return exact_number(c.value);
    case Op::Variable:
      return variables.at(c.a);
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
      return GiNaC::pow(a, static_cast<int>(c.value));
    case Op::Pow:
      return GiNaC::pow(a, b);
    case Op::Sqrt:
      return GiNaC::sqrt(a);
    case Op::Sin:
      return GiNaC::sin(a);
    case Op::Cos:
      return GiNaC::cos(a);
    case Op::Tan:
      return GiNaC::tan(a);
    case Op::Exp:
      return GiNaC::exp(a);
    case Op::Log:
      return GiNaC::log(a);
    case Op::Asin:
      return GiNaC::asin(a);
    case Op::Acos:
      return GiNaC::acos(a);
    case Op::Atan:
      return GiNaC::atan(a);
    case Op::Atan2:
      return GiNaC::atan2(a, b);
    case Op::Sinh:
      return GiNaC::sinh(a);
    case Op::Cosh:
      return GiNaC::cosh(a);
    case Op::Tanh:
      return GiNaC::tanh(a);
    case Op::Abs:
      return GiNaC::abs(a);
  }
  return 0;
}

// The program's nodes `outputs` as GiNaC expressions, variable k read as variables[k]; shared
// nodes stay shared (one ex each).
GiNaC::exvector program_expressions(const sym::ScalarProgram& program,
                                    const std::vector<Node>& outputs,
                                    const GiNaC::exvector& variables) {
  const auto& code = program.instructions();
  Node last = 0;
  for (Node o : outputs) last = std::max(last, o);
  GiNaC::exvector value(outputs.empty() ? 0 : last + 1);
  for (Node i = 0; i < value.size(); ++i) value[i] = node_expression(code[i], value, variables);
  GiNaC::exvector out;
  for (Node o : outputs) out.push_back(value[o]);
  return out;
}

}  // namespace

const std::vector<std::string>& inertial_parameter_kinds() {
  static const std::vector<std::string> kinds = {"m",   "mx",  "my",  "mz",  "Ixx",
                                                 "Ixy", "Ixz", "Iyy", "Iyz", "Izz"};
  return kinds;
}

std::vector<InertialParameter> standard_parameters(const model::Model& model) {
  std::vector<InertialParameter> out;
  auto add = [&](const std::string& owner, const GiNaC::ex& m, const model::Vector3& c,
                 const GiNaC::matrix* inertia) {
    // I about the origin = I_c + m (|c|² 1 − c cᵀ).
    const GiNaC::ex c2 = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
    auto about_origin = [&](unsigned r, unsigned s) {
      GiNaC::ex e = -m * c[r] * c[s];
      if (r == s) e += m * c2;
      if (inertia) e += (*inertia)(r, s);
      return e.expand();
    };
    const GiNaC::exvector values = {m,
                                    (m * c[0]).expand(),
                                    (m * c[1]).expand(),
                                    (m * c[2]).expand(),
                                    about_origin(0, 0),
                                    about_origin(0, 1),
                                    about_origin(0, 2),
                                    about_origin(1, 1),
                                    about_origin(1, 2),
                                    about_origin(2, 2)};
    for (std::size_t k = 0; k < values.size(); ++k) {
      const std::string name = inertial_parameter_kinds()[k] + "_" + owner;
      out.push_back({name, owner, inertial_parameter_kinds()[k], GiNaC::symbol(name), values[k]});
    }
  };
  for (const auto& b : model.bodies) add(b.name, b.mass, b.com, &b.inertia);
  for (const auto& p : model.particles) add(p.name, p.mass, p.position, nullptr);
  return out;
}

std::string regressor_not_covered(const model::Model& model) {
  return recursions_alone_do_not_cover(model);
}

namespace {

// The regressor's program over the recursion builder's symbols and q̈, its outputs and what
// they were formed from.
struct RegressorProgram {
  sym::ScalarProgram program;
  GiNaC::exvector variables;
  std::vector<Node> Y;
  std::vector<RegressorQuantity> quantities;
  std::size_t rows = 0, columns = 0;
};

void build_regressor(const model::Model& model, RegressorProgram& out, bool quantities) {
  RecursionBuilder builder(model);
  RecursionInputs inputs;
  for (const auto& s : builder.symbols()) {
    inputs.symbols.push_back(s);
    inputs.nodes.push_back(out.program.variable(static_cast<std::uint32_t>(out.variables.size())));
    out.variables.push_back(s);
  }
  const std::size_t n = model.dof();
  for (std::size_t j = 0; j < n; ++j) {
    inputs.qdd.push_back(out.program.variable(static_cast<std::uint32_t>(out.variables.size())));
    out.variables.push_back(model.coordinate_symbol(j, 2));
    inputs.extra.push_back(out.program.constant(0.0));
  }
  out.Y = builder.regressor(out.program, inputs, quantities ? &out.quantities : nullptr);
  out.rows = n;
  out.columns = n == 0 ? 0 : out.Y.size() / n;
}

GiNaC::matrix as_matrix(const GiNaC::exvector& entries, std::size_t rows, std::size_t columns) {
  GiNaC::matrix out(static_cast<unsigned>(rows), static_cast<unsigned>(columns));
  for (std::size_t k = 0; k < entries.size(); ++k)
    out(static_cast<unsigned>(k / columns), static_cast<unsigned>(k % columns)) = entries[k];
  return out;
}

/// Too small to deserve a name: a number, a symbol, or a number times a symbol.
bool is_trivial(const GiNaC::ex& e) {
  if (GiNaC::is_a<GiNaC::numeric>(e) || GiNaC::is_a<GiNaC::symbol>(e)) return true;
  if (GiNaC::is_a<GiNaC::mul>(e) && e.nops() == 2)
    return (GiNaC::is_a<GiNaC::numeric>(e.op(0)) && GiNaC::is_a<GiNaC::symbol>(e.op(1))) ||
           (GiNaC::is_a<GiNaC::numeric>(e.op(1)) && GiNaC::is_a<GiNaC::symbol>(e.op(0)));
  return false;
}

// Whether an operation reads its second operand.
bool binary(Op op) {
  return op == Op::Add || op == Op::Sub || op == Op::Mul || op == Op::Div || op == Op::Pow ||
         op == Op::Atan2;
}

// A node's name before it is made unique, and what it belongs to.
struct NodeName {
  std::string name;
  std::size_t quantity = 0;  // its group: nodes of one quantity print on one line
  bool negated = false;      // the node is −name (the quantity's component is its negative)
};

// Y through the quantities of its recursion (ReadableRegressor::named): each quantity's nodes
// that Y reaches become names, defined in node order (an operand is always an earlier node, so
// every definition uses names defined before it), consecutive names of one quantity grouped.
ReadableRegressor through_quantities(const model::Model& model, const RegressorProgram& r) {
  const auto& code = r.program.instructions();
  Node last = 0;
  for (Node o : r.Y) last = std::max(last, o);
  const std::size_t size = r.Y.empty() ? 0 : last + 1;
  // The nodes Y needs.
  std::vector<bool> needed(size, false);
  for (Node o : r.Y) needed[o] = true;
  for (std::size_t i = size; i-- > 0;) {
    if (!needed[i]) continue;
    const sym::Instruction& c = code[i];
    if (c.op == Op::Constant || c.op == Op::Variable) continue;
    needed[c.a] = true;
    if (binary(c.op)) needed[c.b] = true;
  }
  auto nameable = [&](Node i) {
    return i < size && needed[i] && code[i].op != Op::Constant && code[i].op != Op::Variable;
  };

  // The names, by node; a node two quantities share keeps the first one's.
  std::map<Node, NodeName> names;
  std::vector<std::pair<std::string, std::string>> quantity_part;  // (section, part) per group
  const char* const axes[3] = {"x", "y", "z"};
  const std::string trig_section =
      "the frames' rotations in their parents: cosines and sines of "
      "the angles";
  const std::string motion_section =
      "root to leaves, each in its frame's axes: omega the angular velocity, alpha its rate and a "
      "the acceleration of the origin at the given ddot(q), gravity as an upward acceleration of "
      "the world; w_j_k and v_j_k the angular and linear velocity of frame k per unit dot(q_j)";
  auto part = [&](std::size_t k) {
    return model.frames[k].name + " (frame " + std::to_string(k + 1) + ")";
  };
  for (const auto& q : r.quantities) {
    const std::string id = std::to_string(q.frame + 1);
    if (q.kind == RegressorQuantity::Kind::Local) {
      // The cosines and sines in the frame's own placement and motion, by their angle.
      std::set<Node> trig;
      std::vector<Node> stack(q.nodes.begin(), q.nodes.end());
      std::set<Node> seen;
      while (!stack.empty()) {
        const Node i = stack.back();
        stack.pop_back();
        if (i >= size || !seen.insert(i).second) continue;
        const sym::Instruction& c = code[i];
        if (c.op == Op::Constant || c.op == Op::Variable) continue;
        if ((c.op == Op::Sin || c.op == Op::Cos) && nameable(i) && !names.count(i)) trig.insert(i);
        stack.push_back(c.a);
        if (binary(c.op)) stack.push_back(c.b);
      }
      std::vector<Node> angles;  // the operands, in the order of their first cos or sin
      for (Node i : trig)
        if (std::find(angles.begin(), angles.end(), code[i].a) == angles.end())
          angles.push_back(code[i].a);
      if (angles.empty()) continue;
      quantity_part.push_back({trig_section, part(q.frame)});
      for (Node i : trig) {
        const std::size_t index = static_cast<std::size_t>(
            std::find(angles.begin(), angles.end(), code[i].a) - angles.begin());
        const std::string suffix =
            id + (angles.size() > 1 ? "_" + std::to_string(index + 1) : std::string());
        names[i] = {(code[i].op == Op::Cos ? "c" : "s") + suffix, quantity_part.size() - 1};
      }
      continue;
    }
    std::string stem;
    switch (q.kind) {
      case RegressorQuantity::Kind::Omega:
        stem = "omega_" + id;
        break;
      case RegressorQuantity::Kind::Epsilon:
        stem = "alpha_" + id;
        break;
      case RegressorQuantity::Kind::Acceleration:
        stem = "a_" + id;
        break;
      case RegressorQuantity::Kind::AngularPartial:
        stem = "w_" + std::to_string(q.coordinate + 1) + "_" + id;
        break;
      default:
        stem = "v_" + std::to_string(q.coordinate + 1) + "_" + id;
        break;
    }
    quantity_part.push_back({motion_section, part(q.frame)});
    for (std::size_t c = 0; c < q.nodes.size() && c < 3; ++c) {
      // The program folds signs into the products that use a component (−x·−x = x·x): a
      // component −x is named through x, which then reads as −name wherever it is used.
      Node i = q.nodes[c];
      bool negated = false;
      if (i < size && code[i].op == Op::Neg && nameable(code[i].a)) {
        i = code[i].a;
        negated = true;
      }
      if (nameable(i) && !names.count(i))
        names[i] = {stem + axes[c], quantity_part.size() - 1, negated};
    }
  }

  // Names no symbol of the model has.
  std::set<std::string> taken;
  for (const auto& p : model.parameters) taken.insert(p.name);
  for (const auto& c : model.coordinates) taken.insert(c.name);
  for (const auto& p : model.prescribed) taken.insert(p.name);
  for (const auto& i : model.inputs) taken.insert(i.name);
  for (const auto& p : standard_parameters(model)) taken.insert(p.name);
  auto unique = [&](std::string name) {
    while (taken.count(name) != 0) name += "_";
    taken.insert(name);
    return name;
  };

  IntermediateForm form;
  form.construction = IntermediateConstruction::Recursions;
  std::vector<std::size_t> group_of;  // per intermediate
  GiNaC::exmap trig;                  // the cosines and sines named, to their names
  GiNaC::exvector value(size);
  for (Node i = 0; i < size; ++i) {
    if (!needed[i]) continue;
    value[i] = node_expression(code[i], value, r.variables);
    const auto it = names.find(i);
    if (it == names.end() || is_trivial(value[i])) continue;
    const GiNaC::symbol s(unique(it->second.name));
    const bool negated = it->second.negated;
    form.intermediates.push_back({s, negated ? -value[i] : value[i]});
    group_of.push_back(it->second.quantity);
    // A cosine or sine stays a function until the definitions are readable, so that the
    // simplification knows cos² + sin² = 1; its name replaces it afterwards.
    if (code[i].op == Op::Sin || code[i].op == Op::Cos)
      trig[value[i]] = s;
    else
      value[i] = negated ? -s : GiNaC::ex(s);
  }
  GiNaC::exvector entries;
  for (Node o : r.Y) entries.push_back(value[o]);

  // Each definition and entry readable where that is shorter (never longer than as built).
  GiNaC::exvector all;
  for (const auto& i : form.intermediates) all.push_back(i.value);
  all.insert(all.end(), entries.begin(), entries.end());
  const sym::BoundedReadable shown = readable_entries_within(model, all);
  for (std::size_t k = 0; k < form.intermediates.size(); ++k)
    if (!trig.count(form.intermediates[k].value))
      form.intermediates[k].value = shown.entries[k].subs(trig, GiNaC::subs_options::no_pattern);
  entries.assign(shown.entries.begin() + static_cast<std::ptrdiff_t>(form.intermediates.size()),
                 shown.entries.end());
  for (auto& e : entries) e = e.subs(trig, GiNaC::subs_options::no_pattern);

  // What the readable entries no longer use is dropped (a name whose terms cancelled).
  sym::SymbolSet used = sym::symbols_in(entries);
  std::vector<bool> keep(form.intermediates.size(), false);
  for (std::size_t k = form.intermediates.size(); k-- > 0;) {
    if (!used.count(form.intermediates[k].name)) continue;
    keep[k] = true;
    for (const auto& s : sym::symbols_in(GiNaC::exvector{form.intermediates[k].value}))
      used.insert(s);
  }
  std::vector<sym::Intermediate> kept;
  std::vector<IntermediateGroup> groups;
  std::string section;                      // the one open
  std::size_t open = quantity_part.size();  // the quantity of the group open
  for (std::size_t k = 0; k < form.intermediates.size(); ++k) {
    if (!keep[k]) continue;
    const std::size_t g = group_of[k];
    if (g != open) {
      open = g;
      const auto& [group_section, group_part] = quantity_part[g];
      groups.push_back(
          {group_section != section ? group_section : std::string(), group_part, kept.size(), 0});
      section = group_section;
    }
    kept.push_back(form.intermediates[k]);
    ++groups.back().count;
  }
  form.groups = std::move(groups);
  form.intermediates = std::move(kept);
  ReadableRegressor out;
  out.regressor = as_matrix(entries, r.rows, r.columns);
  out.named = std::move(form);
  return out;
}

}  // namespace

GiNaC::matrix regressor_matrix(const model::Model& model) {
  RegressorProgram r;
  build_regressor(model, r, false);
  return as_matrix(program_expressions(r.program, r.Y, r.variables), r.rows, r.columns);
}

ReadableRegressor readable_regressor(const model::Model& model, const RegressorRequest& request) {
  RegressorProgram r;
  build_regressor(model, r, true);
  std::size_t over_budget = 0;
  if (!request.intermediates) {
    const GiNaC::exvector raw = program_expressions(r.program, r.Y, r.variables);
    const bool large =
        request.intermediates_above > 0 && sym::dag_size(raw) > request.intermediates_above;
    if (!large) {
      const sym::BoundedReadable shown = readable_entries_within(model, raw);
      over_budget = shown.count(sym::EntryForm::OverBudget);
      if (over_budget == 0) return {as_matrix(shown.entries, r.rows, r.columns), std::nullopt};
    }
  }
  ReadableRegressor out = through_quantities(model, r);
  out.named->automatic = !request.intermediates;
  out.named->threshold =
      over_budget == 0 && !request.intermediates ? request.intermediates_above : 0;
  out.named->over_budget = over_budget;
  return out;
}

}  // namespace appell::principles
