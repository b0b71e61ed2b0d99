#include "appell/principles/constraint_rows.hpp"

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

}  // namespace appell::principles
