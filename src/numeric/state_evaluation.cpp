#include "appell/numeric/state_evaluation.hpp"

#include <stdexcept>
#include <string>

namespace appell::num {

namespace {

// The state itself, after checking its sizes against the model's n.
StateEvaluation state_at(Eigen::Index n, double t, const Eigen::VectorXd& q,
                         const Eigen::VectorXd& qd) {
  if (q.size() != n || qd.size() != n)
    throw std::invalid_argument("evaluate_state: expected " + std::to_string(n) +
                                " coordinates and speeds, got " + std::to_string(q.size()) +
                                " and " + std::to_string(qd.size()));
  StateEvaluation s;
  s.t = t;
  s.q = q;
  s.qd = qd;
  return s;
}

}  // namespace

StateEvaluation evaluate_state(const CompiledEquations& compiled, double t,
                               const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
  const auto n = static_cast<Eigen::Index>(compiled.dof());
  StateEvaluation s = state_at(n, t, q, qd);
  compiled.evaluate(t, q, qd, s.mass_matrix, s.forcing);
  compiled.constraints(s.constraint_matrix, s.constraint_rhs);
  compiled.accelerations_and_multipliers(s.mass_matrix, s.forcing, s.constraint_matrix,
                                         s.constraint_rhs, s.qdd, s.lambda);
  s.redundant = redundant_constraints(s.constraint_matrix);
  return s;
}

StateEvaluation evaluate_state(const Dynamics& dynamics, double t, const Eigen::VectorXd& q,
                               const Eigen::VectorXd& qd) {
  const auto n = static_cast<Eigen::Index>(dynamics.dof());
  StateEvaluation s = state_at(n, t, q, qd);
  DynamicsWorkspace work;
  dynamics.mass_matrix_and_forcing(t, q, qd, s.mass_matrix, s.forcing, work);
  if (dynamics.constraint_count() == 0) {
    // The recursions' own solver (the articulated bodies where they apply).
    if (!s.mass_matrix.allFinite() || !s.forcing.allFinite())
      throw model::ComputationError("the mass matrix or the forcing is not finite at this state");
    dynamics.accelerations(t, q, qd, s.qdd, work);
    s.constraint_matrix.resize(0, n);
    s.constraint_rhs.resize(0);
    s.lambda.resize(0);
    return s;
  }
  // As the formed equations' evaluate_state: the same solver on the same M, f, A and b.
  dynamics.constraints(t, q, qd, s.constraint_matrix, s.constraint_rhs, work);
  solve_constrained_accelerations(s.mass_matrix, s.forcing, s.constraint_matrix, s.constraint_rhs,
                                  s.qdd, s.lambda);
  s.redundant = redundant_constraints(s.constraint_matrix);
  return s;
}

}  // namespace appell::num
