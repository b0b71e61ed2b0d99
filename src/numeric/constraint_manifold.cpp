#include "appell/numeric/constraint_manifold.hpp"

#include <algorithm>
#include <stdexcept>

#include "appell/sym/dag.hpp"
#include "appell/sym/differentiator.hpp"
#include "rank_revealing.hpp"

namespace appell::num {

using GiNaC::ex;

ConstraintManifold::ConstraintManifold(const model::Model& model, const GiNaC::exmap& values,
                                       double rank_tolerance)
    : n_(model.dof()), count_(model.constraints.size()), rank_tolerance_(rank_tolerance) {
  sym::Differentiator d(model.time_functions);
  std::vector<GiNaC::symbol> positions, speeds;
  for (std::size_t j = 0; j < n_; ++j) {
    positions.push_back(model.coordinate_symbol(j, 0));
    speeds.push_back(model.coordinate_symbol(j, 1));
  }
  // Outputs: φ and Φ_q row by row (holonomic only), then every constraint's velocity-level
  // residual (φ̇, or the nonholonomic g itself) and its coefficients of q̇.
  GiNaC::exvector phi, phi_q, rates;
  for (const auto& c : model.constraints) {
    const ex expression = sym::substitute(c.expression, values);
    if (c.kind == model::Constraint::Kind::Holonomic) {
      ++holonomic_;
      phi.push_back(expression);
      for (const auto& s : positions) phi_q.push_back(d.partial(expression, s));
      rates.push_back(d.time_derivative(expression));
    } else {
      rates.push_back(expression);
    }
  }
  GiNaC::matrix rate_coefficients;
  GiNaC::exvector rate_rest;
  if (count_ > 0) d.split_linear(rates, speeds, rate_coefficients, rate_rest);

  GiNaC::exvector outputs = phi;
  outputs.insert(outputs.end(), phi_q.begin(), phi_q.end());
  outputs.insert(outputs.end(), rates.begin(), rates.end());
  for (std::size_t i = 0; i < rate_coefficients.nops(); ++i)
    outputs.push_back(rate_coefficients.op(i));

  std::vector<GiNaC::symbol> variables{model.time_functions->time()};
  variables.insert(variables.end(), positions.begin(), positions.end());
  variables.insert(variables.end(), speeds.begin(), speeds.end());
  try {
    tape_ = std::make_unique<Tape>(outputs, variables);
  } catch (const std::invalid_argument& e) {
    const auto& first = model.constraints.front();
    throw model::ModelError(first.where,
                            std::string("the constraints must be known along the motion: ") +
                                e.what() + " (give it a value or an expression of t)",
                            first.name);
  }

  const auto n = static_cast<Eigen::Index>(n_);
  const auto h = static_cast<Eigen::Index>(holonomic_), m = static_cast<Eigen::Index>(count_);
  variables_.assign(1 + 2 * n_, 0.0);
  outputs_.assign(outputs.size(), 0.0);
  phi_.resize(h);
  phi_q_.resize(h, n);
  rate_.resize(m);
  rate_qd_.resize(m, n);
}

void ConstraintManifold::evaluate(double t, const Eigen::VectorXd& q,
                                  const Eigen::VectorXd& qd) const {
  variables_[0] = t;
  for (std::size_t j = 0; j < n_; ++j) {
    variables_[1 + j] = q[static_cast<Eigen::Index>(j)];
    variables_[1 + n_ + j] = qd[static_cast<Eigen::Index>(j)];
  }
  tape_->evaluate(variables_.data(), outputs_.data(), workspace_);
  std::size_t k = 0;
  for (Eigen::Index i = 0; i < phi_.size(); ++i) phi_[i] = outputs_[k++];
  for (Eigen::Index i = 0; i < phi_q_.rows(); ++i)
    for (Eigen::Index j = 0; j < phi_q_.cols(); ++j) phi_q_(i, j) = outputs_[k++];
  for (Eigen::Index i = 0; i < rate_.size(); ++i) rate_[i] = outputs_[k++];
  for (Eigen::Index i = 0; i < rate_qd_.rows(); ++i)
    for (Eigen::Index j = 0; j < rate_qd_.cols(); ++j) rate_qd_(i, j) = outputs_[k++];
}

ConstraintViolation ConstraintManifold::violation(double t, const Eigen::VectorXd& q,
                                                  const Eigen::VectorXd& qd) const {
  if (count_ == 0) return {};
  evaluate(t, q, qd);
  ConstraintViolation v;
  if (holonomic_ > 0) v.position = phi_.cwiseAbs().maxCoeff();
  v.velocity = rate_.cwiseAbs().maxCoeff();
  return v;
}

bool ConstraintManifold::project_positions(double t, Eigen::VectorXd& q, double tolerance) const {
  if (holonomic_ == 0) return true;
  // Gauss–Newton converges quadratically from a state near the manifold; the limit only stops
  // a hopeless start (or a singular configuration) from looping.
  constexpr int kIterations = 25;
  const Eigen::VectorXd unused = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(n_));
  for (int iteration = 0; iteration < kIterations; ++iteration) {
    evaluate(t, q, unused);
    if (!phi_.allFinite() || !phi_q_.allFinite()) return false;
    if (phi_.cwiseAbs().maxCoeff() <= tolerance) return true;
    // The minimum-norm step, also when constraints are redundant (Φ_q rank-deficient).
    const Eigen::VectorXd step = detail::rank_revealing(phi_q_, rank_tolerance_).solve(-phi_);
    q += step;
    // A step at the level of rounding: as close as doubles get.
    if (step.cwiseAbs().maxCoeff() <= 1e-15 * (1.0 + q.cwiseAbs().maxCoeff())) {
      evaluate(t, q, unused);
      return phi_.cwiseAbs().maxCoeff() <= std::max(tolerance, 1e-10);
    }
  }
  return false;
}

void ConstraintManifold::project_velocities(double t, const Eigen::VectorXd& q,
                                            Eigen::VectorXd& qd) const {
  if (count_ == 0) return;
  evaluate(t, q, qd);
  qd += detail::rank_revealing(rate_qd_, rank_tolerance_).solve(-rate_);
}

void ConstraintManifold::project_error(double t, const Eigen::VectorXd& q,
                                       Eigen::VectorXd& position_error,
                                       Eigen::VectorXd& velocity_error) const {
  if (count_ == 0) return;
  evaluate(t, q, Eigen::VectorXd::Zero(static_cast<Eigen::Index>(n_)));
  // e − J⁺J e: the component of e tangent to the manifold.
  if (holonomic_ > 0)
    position_error -=
        detail::rank_revealing(phi_q_, rank_tolerance_).solve(phi_q_ * position_error);
  velocity_error -=
      detail::rank_revealing(rate_qd_, rank_tolerance_).solve(rate_qd_ * velocity_error);
}

}  // namespace appell::num
