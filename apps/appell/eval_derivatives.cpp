#include "eval_derivatives.hpp"

#include <iomanip>
#include <iostream>

#include "appell/io/printed_numbers.hpp"
#include "appell/io/state_writer.hpp"
#include "appell/model/source_location.hpp"
#include "appell/numeric/dynamics_derivatives.hpp"
#include "appell/principles/recursive_dynamics.hpp"
#include "cli_support.hpp"

namespace appell::cli {

namespace {

void print_matrix(const char* name, const char* meaning, const Eigen::MatrixXd& m) {
  std::cout << name << " (" << meaning << "):\n";
  for (Eigen::Index i = 0; i < m.rows(); ++i) std::cout << "  [" << m.row(i) << "]\n";
}

}  // namespace

int run_eval_derivatives(const std::shared_ptr<const model::Model>& model,
                         const std::vector<std::string>& set, double t, const Eigen::VectorXd& q,
                         const Eigen::VectorXd& qd, bool json) {
  const std::string reason = principles::recursions_alone_do_not_cover(*model);
  // A feature this model does not have is a refusal of the request (exit 2), as --regressor's.
  if (!reason.empty())
    throw usage_error("--derivatives",
                      "differentiates the recursions, which do not cover " + reason);
  const num::DynamicsDerivativesEvaluator derivatives(model, parse_assignments(set));
  num::DerivativesWorkspace work;
  num::ForwardDynamicsDerivatives forward;
  derivatives.forward(t, q, qd, Eigen::VectorXd(), forward, work);
  num::InverseDynamicsDerivatives inverse;
  derivatives.inverse(t, q, qd, forward.qdd, inverse, work);
  // Printed without rounding noise, text and JSON alike (io/printed_numbers.hpp).
  forward = io::without_rounding_noise(forward);
  inverse = io::without_rounding_noise(inverse);
  if (json) {
    std::cout << io::write_derivatives_json(*model, t, q, qd, forward, inverse) << "\n";
    return 0;
  }
  std::cout << std::setprecision(12) << model->name << " at t = " << t
            << ": derivatives of the dynamics (rows: outputs, columns: coordinates, in order)\n";
  for (std::size_t i = 0; i < model->dof(); ++i) {
    const auto k = static_cast<Eigen::Index>(i);
    std::cout << "  " << model->coordinates[i].name << " = " << q[k] << ", dot = " << qd[k]
              << ", ddot = " << forward.qdd[k] << "\n";
  }
  print_matrix("dtau_dq", "d tau / d q at this ddot(q)", inverse.dtau_dq);
  print_matrix("dtau_dqd", "d tau / d dot(q) at this ddot(q)", inverse.dtau_dqd);
  print_matrix("dqdd_dq", "d ddot(q) / d q", forward.dqdd_dq);
  print_matrix("dqdd_dqd", "d ddot(q) / d dot(q)", forward.dqdd_dqd);
  print_matrix("minv", "M^-1 = d ddot(q) / d tau", forward.minv);
  std::cout << "(forward dynamics by " << derivatives.forward_method() << ", its derivatives "
            << derivatives.forward_derivatives_method() << "; " << derivatives.inverse_operations()
            << " and " << derivatives.forward_operations() << " operations)\n";
  return 0;
}

}  // namespace appell::cli
