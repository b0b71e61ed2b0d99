#include "residual_form.hpp"

#include <chrono>

#include "appell/sym/dag.hpp"

namespace appell::principles::detail {

Equations form_equations(std::shared_ptr<const model::Model> model, Method method,
                         const ResidualBuilder& build, int order) {
  const auto start = std::chrono::steady_clock::now();
  sym::Differentiator d(model->time_functions);
  kin::Kinematics kin(model, d);
  const GiNaC::exvector residuals = build(kin);

  Equations eq;
  eq.model = model;
  eq.method = method;
  eq.order = order;
  const auto n = static_cast<unsigned>(model->dof());
  std::vector<GiNaC::symbol> accelerations;
  for (unsigned k = 0; k < n; ++k) accelerations.push_back(model->coordinate_symbol(k, order + 1));
  GiNaC::exvector remainders;
  d.split_linear(residuals, accelerations, eq.mass_matrix, remainders);
  eq.forcing = GiNaC::matrix(n, 1);
  for (unsigned j = 0; j < n; ++j) eq.forcing(j, 0) = -remainders[j];

  if (!model->constraints.empty()) {
    // Constraints at acceleration level: φ̈ = 0 (holonomic) or ġ = 0 (nonholonomic), linear in
    // q̈ with the same coefficients as the velocities' in φ̇ or g: the rows of A.
    GiNaC::exvector accelerations_level;
    for (const auto& c : model->constraints) {
      eq.multipliers.push_back("lambda_" + c.name);
      const GiNaC::ex rate = d.time_derivative(c.expression);
      accelerations_level.push_back(
          c.kind == model::Constraint::Kind::Holonomic ? d.time_derivative(rate) : rate);
    }
    GiNaC::exvector rest;
    d.split_linear(accelerations_level, accelerations, eq.constraint_matrix, rest);
    eq.constraint_rhs = GiNaC::matrix(static_cast<unsigned>(rest.size()), 1);
    for (std::size_t k = 0; k < rest.size(); ++k)
      eq.constraint_rhs(static_cast<unsigned>(k), 0) = -rest[k];
  }

  eq.cost.differentiations = d.differentiations();
  eq.cost.derivative_nodes = d.derivative_nodes();
  eq.cost.size_before = sym::dag_size(eq.entries());
  eq.cost.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return eq;
}

}  // namespace appell::principles::detail
