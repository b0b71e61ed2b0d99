#include "appell/numeric/state_evaluation.hpp"

#include <stdexcept>
#include <string>

namespace appell::num {

StateEvaluation evaluate_state(const CompiledEquations& compiled, double t,
                               const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
  const auto n = static_cast<Eigen::Index>(compiled.dof());
  if (q.size() != n || qd.size() != n)
    throw std::invalid_argument("evaluate_state: expected " + std::to_string(n) +
                                " coordinates and speeds, got " + std::to_string(q.size()) +
                                " and " + std::to_string(qd.size()));
  StateEvaluation s;
  s.t = t;
  s.q = q;
  s.qd = qd;
  compiled.evaluate(t, q, qd, s.mass_matrix, s.forcing);
  compiled.constraints(s.constraint_matrix, s.constraint_rhs);
  compiled.accelerations_and_multipliers(s.mass_matrix, s.forcing, s.constraint_matrix,
                                         s.constraint_rhs, s.qdd, s.lambda);
  s.redundant = redundant_constraints(s.constraint_matrix);
  return s;
}

}  // namespace appell::num
