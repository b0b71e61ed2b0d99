#include "appell/principles/regressor.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "appell/principles/recursive_dynamics.hpp"
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

// The program's nodes `outputs` as GiNaC expressions, variable k read as variables[k]; shared
// nodes stay shared (one ex each).
GiNaC::exvector program_expressions(const sym::ScalarProgram& program,
                                    const std::vector<Node>& outputs,
                                    const GiNaC::exvector& variables) {
  const auto& code = program.instructions();
  Node last = 0;
  for (Node o : outputs) last = std::max(last, o);
  GiNaC::exvector value(outputs.empty() ? 0 : last + 1);
  for (Node i = 0; i < value.size(); ++i) {
    const sym::Instruction& c = code[i];
    const GiNaC::ex& a = c.op == Op::Constant || c.op == Op::Variable ? value[0] : value[c.a];
    const GiNaC::ex& b = value[c.b];
    switch (c.op) {
      case Op::Constant:
        value[i] = exact_number(c.value);
        break;
      case Op::Variable:
        value[i] = variables.at(c.a);
        break;
      case Op::Add:
        value[i] = a + b;
        break;
      case Op::Sub:
        value[i] = a - b;
        break;
      case Op::Neg:
        value[i] = -a;
        break;
      case Op::Mul:
        value[i] = a * b;
        break;
      case Op::Div:
        value[i] = a / b;
        break;
      case Op::PowInt:
        value[i] = GiNaC::pow(a, static_cast<int>(c.value));
        break;
      case Op::Pow:
        value[i] = GiNaC::pow(a, b);
        break;
      case Op::Sqrt:
        value[i] = GiNaC::sqrt(a);
        break;
      case Op::Sin:
        value[i] = GiNaC::sin(a);
        break;
      case Op::Cos:
        value[i] = GiNaC::cos(a);
        break;
      case Op::Tan:
        value[i] = GiNaC::tan(a);
        break;
      case Op::Exp:
        value[i] = GiNaC::exp(a);
        break;
      case Op::Log:
        value[i] = GiNaC::log(a);
        break;
      case Op::Asin:
        value[i] = GiNaC::asin(a);
        break;
      case Op::Acos:
        value[i] = GiNaC::acos(a);
        break;
      case Op::Atan:
        value[i] = GiNaC::atan(a);
        break;
      case Op::Atan2:
        value[i] = GiNaC::atan2(a, b);
        break;
      case Op::Sinh:
        value[i] = GiNaC::sinh(a);
        break;
      case Op::Cosh:
        value[i] = GiNaC::cosh(a);
        break;
      case Op::Tanh:
        value[i] = GiNaC::tanh(a);
        break;
      case Op::Abs:
        value[i] = GiNaC::abs(a);
        break;
    }
  }
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

GiNaC::matrix regressor_matrix(const model::Model& model) {
  RecursionBuilder builder(model);
  sym::ScalarProgram program;
  RecursionInputs inputs;
  GiNaC::exvector variables;
  for (const auto& s : builder.symbols()) {
    inputs.symbols.push_back(s);
    inputs.nodes.push_back(program.variable(static_cast<std::uint32_t>(variables.size())));
    variables.push_back(s);
  }
  const std::size_t n = model.dof();
  for (std::size_t j = 0; j < n; ++j) {
    inputs.qdd.push_back(program.variable(static_cast<std::uint32_t>(variables.size())));
    variables.push_back(model.coordinate_symbol(j, 2));
    inputs.extra.push_back(program.constant(0.0));
  }
  const std::vector<Node> Y = builder.regressor(program, inputs);
  const GiNaC::exvector entries = program_expressions(program, Y, variables);
  const std::size_t columns = n == 0 ? 0 : Y.size() / n;
  GiNaC::matrix out(static_cast<unsigned>(n), static_cast<unsigned>(columns));
  for (std::size_t k = 0; k < entries.size(); ++k)
    out(static_cast<unsigned>(k / columns), static_cast<unsigned>(k % columns)) = entries[k];
  return out;
}

}  // namespace appell::principles
