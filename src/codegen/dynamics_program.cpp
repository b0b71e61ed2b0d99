#include "dynamics_program.hpp"

#include <cmath>

namespace appell::codegen::detail {

namespace {

// The program from the tape of M and f: inverse dynamics M q̈ − f.
void build_from_tape(const Plan& plan, DynamicsProgram& d) {
  ScalarProgram& p = d.program;
  const std::size_t n = d.n;
  std::vector<Node> variables, at_rest;
  for (std::size_t i = 0; i < plan.variables.size(); ++i) {
    variables.push_back(p.variable(static_cast<std::uint32_t>(i)));
    at_rest.push_back(plan.variables[i].argument == Argument::Qd ? p.constant(0.0)
                                                                 : variables.back());
  }
  const std::vector<Node> all = p.import(*plan.tape, variables);
  const std::vector<Node> rest = p.import(*plan.tape, at_rest);
  const bool symmetric = mass_matrix_is_symmetric(plan);
  d.mass.assign(n * n, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < n; ++k)
      d.mass[i * n + k] = all[symmetric && k < i ? k * n + i : i * n + k];
  d.bias.clear();
  d.gravity.clear();
  d.inverse.clear();
  for (std::size_t i = 0; i < n; ++i) {
    d.bias.push_back(p.neg(all[n * n + i]));
    d.gravity.push_back(p.neg(rest[n * n + i]));
    Node tau = d.bias[i];
    for (std::size_t k = 0; k < n; ++k)
      tau = p.add(
          tau, p.mul(d.mass[i * n + k], p.variable(static_cast<std::uint32_t>(d.first_qdd + k))));
    d.inverse.push_back(tau);
  }
}

// Whether the recursive inverse dynamics equals M q̈ − f of the equations at two states.
bool agrees_with_tape(const Plan& plan, const DynamicsProgram& d) {
  const std::size_t n = d.n;
  std::vector<double> work, outputs(plan.tape->output_count()), tau(n);
  for (int s = 0; s < 2; ++s) {
    std::vector<double> q(n), qd(n), qdd(n), extra(n, 0.0);
    for (std::size_t j = 0; j < n; ++j) {
      const double k = static_cast<double>(j) + 1.0 + s;
      q[j] = 0.3 + 0.5 * std::sin(1.9 * k);
      qd[j] = 0.7 * std::cos(1.3 * k);
      qdd[j] = 0.4 - 0.25 * std::sin(0.7 * k);
    }
    const std::vector<double> v =
        program_variables(plan, 0.37 + s, q.data(), qd.data(), qdd.data(), extra.data());
    plan.tape->evaluate(v.data(), outputs.data(), work);
    d.program.evaluate(v.data(), d.inverse, tau.data(), work);
    double scale = 0.0;
    std::vector<double> want(n);
    for (std::size_t i = 0; i < n; ++i) {
      want[i] = -outputs[n * n + i];
      for (std::size_t k = 0; k < n; ++k) want[i] += outputs[i * n + k] * qdd[k];
      scale = std::max(scale, std::fabs(want[i]));
      for (std::size_t k = 0; k < n; ++k)
        scale = std::max(scale, std::fabs(outputs[i * n + k] * qdd[k]));
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (!std::isfinite(want[i])) continue;  // a singular state of the model: no verdict
      if (!(std::fabs(tau[i] - want[i]) <= 1e-8 * std::max(scale, 1e-12))) return false;
    }
  }
  return true;
}

// Extra generalized forces and q̈ of forward and inverse dynamics as program variables.
std::vector<Node> variable_range(ScalarProgram& p, std::size_t first, std::size_t count) {
  std::vector<Node> nodes;
  for (std::size_t j = 0; j < count; ++j)
    nodes.push_back(p.variable(static_cast<std::uint32_t>(first + j)));
  return nodes;
}

}  // namespace

std::vector<double> program_variables(const Plan& plan, double t, const double* q, const double* qd,
                                      const double* qdd, const double* extra) {
  const std::size_t n = plan.n, rates = plan.p;
  std::vector<double> v;
  v.reserve(plan.variables.size() + 2 * rates);
  std::size_t parameter = 0;
  for (const auto& var : plan.variables) {
    switch (var.argument) {
      case Argument::Time:
        v.push_back(t);
        break;
      case Argument::Q:
        v.push_back(q[v.size() - 1]);
        break;
      case Argument::Qd:
        v.push_back(qd[v.size() - 1 - n]);
        break;
      case Argument::Parameters:
        v.push_back(plan.parameters[parameter++].default_value);
        break;
      case Argument::Inputs:
        v.push_back(
            plan.input_candidates[static_cast<std::size_t>(var.input_field)].field.default_value);
        break;
      case Argument::Qdd:
      case Argument::Extra:
        break;
    }
  }
  for (std::size_t j = 0; j < rates; ++j) v.push_back(qdd ? qdd[j] : 0.0);
  for (std::size_t j = 0; j < rates; ++j) v.push_back(extra ? extra[j] : 0.0);
  return v;
}

DynamicsProgram build_recursive_dynamics(const Plan& plan, principles::RecursionBuilder& builder) {
  // In generalized speeds the builder reads u and takes u̇ and the extra forces on the speeds
  // (p of each): the outputs are M̃ u̇ − f̃, −f̃, M̃ ... (principles/recursive_dynamics.hpp).
  DynamicsProgram d;
  d.n = plan.p;
  d.first_qdd = plan.variables.size();
  d.first_extra = d.first_qdd + d.n;
  principles::RecursionInputs inputs;
  inputs.substitution = plan.bound.driven;
  for (std::size_t i = 0; i < plan.variables.size(); ++i) {
    inputs.symbols.push_back(plan.variables[i].symbol);
    inputs.nodes.push_back(d.program.variable(static_cast<std::uint32_t>(i)));
  }
  inputs.qdd = variable_range(d.program, d.first_qdd, d.n);
  inputs.extra = variable_range(d.program, d.first_extra, d.n);
  builder.build(d, inputs);
  d.recursive = true;
  return d;
}

principles::DynamicsDerivatives differentiate(DynamicsProgram& d, const Plan& plan) {
  principles::DerivativeVariables v;
  for (std::size_t i = 0; i < plan.variables.size(); ++i) {
    const Argument a = plan.variables[i].argument;
    if (a == Argument::Q) v.q.push_back(d.program.variable(static_cast<std::uint32_t>(i)));
    if (a == Argument::Qd) v.qd.push_back(d.program.variable(static_cast<std::uint32_t>(i)));
  }
  v.qdd = variable_range(d.program, d.first_qdd, d.n);
  v.extra = variable_range(d.program, d.first_extra, d.n);
  return principles::differentiate_dynamics(d, v);
}

std::vector<bool> variables_read(const ScalarProgram& program, const std::vector<Node>& targets,
                                 std::size_t count) {
  const auto& code = program.instructions();
  std::vector<bool> live(code.size(), false), read(count, false);
  for (Node t : targets) live[t] = true;
  for (std::size_t i = code.size(); i-- > 0;) {
    if (!live[i]) continue;
    const Instruction& c = code[i];
    if (c.op == Op::Variable) {
      if (c.a < count) read[c.a] = true;
    } else if (c.op != Op::Constant) {
      live[c.a] = true;
      if (c.op == Op::Add || c.op == Op::Sub || c.op == Op::Mul || c.op == Op::Div ||
          c.op == Op::Pow || c.op == Op::Atan2)
        live[c.b] = true;
    }
  }
  return read;
}

DynamicsProgram build_dynamics(const principles::Equations& eq, const Plan& plan) {
  const model::Model& m = *eq.model;
  auto fresh = [&] {
    DynamicsProgram d;
    d.n = plan.n;
    d.first_qdd = plan.variables.size();
    d.first_extra = d.first_qdd + d.n;
    return d;
  };
  DynamicsProgram d = fresh();
  // Constraints are rows of their own beside the tree's M and f (generate_header): the
  // recursions give M and f all the same.
  // The formed equations of a model with speeds are in the coordinates (derive), the recursions
  // in the speeds: their tape is written.
  d.fallback_reason = eq.order != 1    ? "equations of order " + std::to_string(eq.order)
                      : m.has_speeds() ? "generalized speeds"
                                       : recursions_do_not_write(m);
  if (d.fallback_reason.empty()) {
    principles::RecursionBuilder builder(m);
    d = build_recursive_dynamics(plan, builder);
    if (!agrees_with_tape(plan, d)) {
      d = fresh();
      d.fallback_reason = "the recursions disagreed with the equations";
    }
  }
  if (!d.recursive) {
    build_from_tape(plan, d);
    d.forcing.clear();
    for (Node b : d.bias) d.forcing.push_back(d.program.neg(b));
    principles::solve_by_ldlt(d, variable_range(d.program, d.first_extra, d.n));
    d.forward_method = "M = L^T D L";
  }
  return d;
}

}  // namespace appell::codegen::detail
