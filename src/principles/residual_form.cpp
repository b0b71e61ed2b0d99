#include "residual_form.hpp"

#include <chrono>

#include "appell/principles/constraint_rows.hpp"
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
    // With the same differentiator: its cost is the equations' cost.
    ConstraintRows rows = constraint_rows(*model, d, order);
    eq.multipliers = std::move(rows.multipliers);
    eq.constraint_matrix = std::move(rows.matrix);
    eq.constraint_rhs = std::move(rows.rhs);
  }

  eq.cost.differentiations = d.differentiations();
  eq.cost.derivative_nodes = d.derivative_nodes();
  eq.cost.size_before = sym::dag_size(eq.entries());
  eq.cost.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return eq;
}

}  // namespace appell::principles::detail
