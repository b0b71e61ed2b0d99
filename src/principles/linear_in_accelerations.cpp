#include "linear_in_accelerations.hpp"

#include "appell/sym/dag.hpp"

namespace appell::principles::detail {

void split_linear_in_accelerations(const GiNaC::exvector& residuals, const model::Model& model,
                                   sym::Differentiator& d, GiNaC::matrix& mass_matrix,
                                   GiNaC::matrix& forcing) {
  const auto n = static_cast<unsigned>(model.dof());
  forcing = GiNaC::matrix(n, 1);
  std::vector<GiNaC::symbol> accelerations;
  for (unsigned k = 0; k < n; ++k) accelerations.push_back(model.coordinate_symbol(k, 2));
  GiNaC::exvector remainders;
  d.split_linear(residuals, accelerations, mass_matrix, remainders);
  for (unsigned j = 0; j < n; ++j) forcing(j, 0) = -remainders[j];
}

void finish(Equations& eq, const sym::Differentiator& d,
            std::chrono::steady_clock::time_point start) {
  eq.cost.differentiations = d.differentiations();
  eq.cost.derivative_nodes = d.derivative_nodes();
  eq.cost.size_before = sym::dag_size(eq.entries());
  eq.cost.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace appell::principles::detail
