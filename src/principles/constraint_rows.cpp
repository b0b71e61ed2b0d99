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
