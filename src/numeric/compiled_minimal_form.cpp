#include "appell/numeric/compiled_minimal_form.hpp"

#include <charconv>
#include <sstream>
#include <string>

#include "appell/model/source_location.hpp"
#include "appell/numeric/dynamics_evaluator.hpp"
#include "tape_layout.hpp"

namespace appell::num {

CompiledMinimalForm::CompiledMinimalForm(const principles::MinimalEquations& eq,
                                         const model::Values& values)
    : n_(eq.model->dof()),
      p_(eq.size()),
      tape_([&] {
        Layout layout = layout_of(*eq.model, eq.entries(), values);
        fixed_ = std::move(layout.fixed);
        return Tape(layout.entries, layout.variables);
      }()),
      independent_(eq.independent) {
  variables_.assign(1 + 2 * n_, 0.0);
  variables_.insert(variables_.end(), fixed_.begin(), fixed_.end());
  outputs_.resize(p_ * p_ + p_ + n_ * p_ + 2 * n_);
}

CompiledMinimalForm::State CompiledMinimalForm::solve(double t, const Eigen::VectorXd& q,
                                                      const Eigen::VectorXd& u) const {
  // The tape reads the independent speeds from their q̇ slots; the dependent slots are unused
  // (the minimal form's expressions are free of them).
  variables_[0] = t;
  for (std::size_t j = 0; j < n_; ++j) {
    variables_[1 + j] = q[static_cast<Eigen::Index>(j)];
    variables_[1 + n_ + j] = 0.0;
  }
  for (std::size_t k = 0; k < p_; ++k)
    variables_[1 + n_ + independent_[k]] = u[static_cast<Eigen::Index>(k)];
  tape_.evaluate(variables_.data(), outputs_.data(), workspace_);

  const auto n = static_cast<Eigen::Index>(n_), p = static_cast<Eigen::Index>(p_);
  State s;
  s.mass_matrix.resize(p, p);
  s.forcing.resize(p);
  Eigen::MatrixXd B(n, p);
  Eigen::VectorXd beta(n), gamma(n);
  std::size_t k = 0;
  for (Eigen::Index i = 0; i < p; ++i)
    for (Eigen::Index j = 0; j < p; ++j) s.mass_matrix(i, j) = outputs_[k++];
  for (Eigen::Index i = 0; i < p; ++i) s.forcing[i] = outputs_[k++];
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < p; ++j) B(i, j) = outputs_[k++];
  for (Eigen::Index i = 0; i < n; ++i) beta[i] = outputs_[k++];
  for (Eigen::Index i = 0; i < n; ++i) gamma[i] = outputs_[k++];

  if (!B.allFinite() || !beta.allFinite())
    throw model::ComputationError(
        "the constraints do not determine the dependent speeds at this state (their block of "
        "the constraint Jacobian is singular); choose other independent speeds");
  s.qd = B * u + beta;
  if (!s.mass_matrix.allFinite() || !s.forcing.allFinite() || !gamma.allFinite())
    throw model::ComputationError("the minimal form is not finite at this state");
  // M̃ = BᵀMB is positive definite when M is and B has full column rank.
  const auto llt = factor_mass_matrix(s.mass_matrix, "singular mass matrix of the minimal form");
  s.udot = llt.solve(s.forcing);
  s.qdd = B * s.udot + gamma;
  s.speed_matrix = B;
  s.acceleration_offset = gamma;
  return s;
}

Eigen::VectorXd independent_speeds(const model::Model& model, const std::vector<double>& speeds) {
  const std::size_t n = model.dof(), p = model.independent.size();
  if (!speeds.empty() && speeds.size() != n && speeds.size() != p) {
    std::string written;
    for (double v : speeds) {
      char buffer[32];
      const auto end = std::to_chars(buffer, buffer + sizeof buffer, v).ptr;
      written += (written.empty() ? "" : ",") + std::string(buffer, end);
    }
    throw model::ModelError(model::SourceLocation{"speeds", 0, 0},
                            "expected " + std::to_string(p) + " independent speeds or " +
                                std::to_string(n) + " speeds (one per coordinate), got " +
                                std::to_string(speeds.size()),
                            written);
  }
  Eigen::VectorXd u(static_cast<Eigen::Index>(p));
  for (std::size_t k = 0; k < p; ++k) {
    const std::size_t j = model.independent[k];
    u[static_cast<Eigen::Index>(k)] = speeds.empty()       ? model.coordinates[j].velocity
                                      : speeds.size() == p ? speeds[k]
                                                           : speeds[j];
  }
  return u;
}

}  // namespace appell::num
