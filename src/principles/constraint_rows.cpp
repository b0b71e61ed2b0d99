#include "appell/principles/constraint_rows.hpp"

#include "appell/sym/dag.hpp"

namespace appell::principles {

ConstraintRows constraint_rows(const model::Model& model, sym::Differentiator& d, int order) {
  ConstraintRows rows;
  if (model.constraints.empty()) return rows;
  std::vector<GiNaC::symbol> accelerations;
  for (std::size_t k = 0; k < model.dof(); ++k)
    accelerations.push_back(model.coordinate_symbol(k, order + 1));
  // φ̈ = 0 (holonomic) or ġ = 0 (nonholonomic): linear in q̈ with the same coefficients as the
  // velocities' in φ̇ or g.
  GiNaC::exvector accelerations_level;
  for (const auto& c : model.constraints) {
    rows.multipliers.push_back("lambda_" + c.name);
    const GiNaC::ex rate = d.time_derivative(c.expression);
    accelerations_level.push_back(
        c.kind == model::Constraint::Kind::Holonomic ? d.time_derivative(rate) : rate);
  }
  GiNaC::exvector rest;
  d.split_linear(accelerations_level, accelerations, rows.matrix, rest);
  rows.rhs = GiNaC::matrix(static_cast<unsigned>(rest.size()), 1);
  for (std::size_t k = 0; k < rest.size(); ++k) rows.rhs(static_cast<unsigned>(k), 0) = -rest[k];
  return rows;
}

ConstraintRows constraint_rows_in_speeds(const model::Model& model, sym::Differentiator& d,
                                         GiNaC::matrix& velocity_offset) {
  ConstraintRows rows;
  if (model.constraints.empty()) return rows;
  const auto n = static_cast<unsigned>(model.dof()), p = static_cast<unsigned>(model.speeds.size());
  // q̇ = W u, put into every time derivative (as kin::Rates::Speeds does).
  GiNaC::exmap in_speeds;
  for (unsigned j = 0; j < n; ++j) {
    const GiNaC::symbol qd = model.coordinate_symbol(j, 1);
    GiNaC::ex rate = 0;
    for (unsigned k = 0; k < p; ++k) rate += model.speed_kinematics(j, k) * model.speed_symbol(k);
    if (!rate.is_equal(qd)) in_speeds[qd] = rate;
  }
  auto in_rates = [&](const GiNaC::ex& e) {
    return in_speeds.empty() ? e : sym::substitute(e, in_speeds);
  };
  GiNaC::exvector velocity_level, acceleration_level;
  for (const auto& c : model.constraints) {
    rows.multipliers.push_back("lambda_" + c.name);
    const GiNaC::ex velocity =
        in_rates(c.kind == model::Constraint::Kind::Holonomic ? d.time_derivative(c.expression)
                                                              : c.expression);
    velocity_level.push_back(velocity);
    acceleration_level.push_back(in_rates(d.time_derivative(velocity)));
  }
  std::vector<GiNaC::symbol> speeds, rates;
  for (unsigned k = 0; k < p; ++k) {
    speeds.push_back(model.speed_symbol(k));
    rates.push_back(model.speed_symbol(k, 1));
  }
  GiNaC::matrix velocity_coefficients;
  GiNaC::exvector velocity_rest, acceleration_rest;
  d.split_linear(velocity_level, speeds, velocity_coefficients, velocity_rest);
  d.split_linear(acceleration_level, rates, rows.matrix, acceleration_rest);
  const auto count = static_cast<unsigned>(model.constraints.size());
  rows.rhs = GiNaC::matrix(count, 1);
  velocity_offset = GiNaC::matrix(count, 1);
  for (unsigned i = 0; i < count; ++i) {
    rows.rhs(i, 0) = -acceleration_rest[i];
    velocity_offset(i, 0) = velocity_rest[i];
  }
  return rows;
}

ConstraintLevels constraint_levels(const model::Model& model, sym::Differentiator& d,
                                   const GiNaC::exmap& values) {
  ConstraintLevels levels;
  const std::size_t n = model.dof();
  if (model.constraints.empty()) return levels;
  std::vector<GiNaC::symbol> positions, speeds;
  for (std::size_t j = 0; j < n; ++j) {
    positions.push_back(model.coordinate_symbol(j, 0));
    speeds.push_back(model.coordinate_symbol(j, 1));
  }
  for (const auto& c : model.constraints) {
    const GiNaC::ex expression =
        values.empty() ? c.expression : sym::substitute(c.expression, values);
    if (c.kind == model::Constraint::Kind::Holonomic) {
      ++levels.holonomic;
      levels.positions.push_back(expression);
      for (const auto& s : positions) levels.position_jacobian.push_back(d.partial(expression, s));
      levels.velocities.push_back(d.time_derivative(expression));
    } else {
      levels.velocities.push_back(expression);
    }
  }
  GiNaC::matrix coefficients;
  GiNaC::exvector rest;
  d.split_linear(levels.velocities, speeds, coefficients, rest);
  for (std::size_t i = 0; i < coefficients.nops(); ++i)
    levels.velocity_jacobian.push_back(coefficients.op(i));
  return levels;
}

GiNaC::exvector ConstraintLevels::outputs() const {
  GiNaC::exvector out = positions;
  out.insert(out.end(), position_jacobian.begin(), position_jacobian.end());
  out.insert(out.end(), velocities.begin(), velocities.end());
  out.insert(out.end(), velocity_jacobian.begin(), velocity_jacobian.end());
  return out;
}

}  // namespace appell::principles
