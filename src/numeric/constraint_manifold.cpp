#include "appell/numeric/constraint_manifold.hpp"

#include <algorithm>
#include <stdexcept>

#include "appell/numeric/tape.hpp"
#include "appell/principles/constraint_rows.hpp"
#include "appell/sym/differentiator.hpp"
#include "rank_revealing.hpp"

namespace appell::num {

using GiNaC::ex;

ConstraintManifold::ConstraintManifold(const model::Model& model, const GiNaC::exmap& values,
                                       double rank_tolerance)
    : n_(model.dof()), count_(model.constraints.size()), rank_tolerance_(rank_tolerance) {
  sym::Differentiator d(model.time_functions);
  // The values first, then the derivatives: a driven input's expression is differentiated in t.
  const principles::ConstraintLevels levels = principles::constraint_levels(model, d, values);
  holonomic_ = levels.holonomic;
  std::vector<GiNaC::symbol> variables{model.time_functions->time()};
  for (int order = 0; order <= 1; ++order)
    for (std::size_t j = 0; j < n_; ++j) variables.push_back(model.coordinate_symbol(j, order));
  std::shared_ptr<const Tape> tape;
  try {
    tape = std::make_shared<const Tape>(levels.outputs(), variables);
  } catch (const std::invalid_argument& e) {
    const auto& first = model.constraints.front();
    throw model::ModelError(first.where,
                            std::string("the constraints must be known along the motion: ") +
                                e.what() + " (give it a value or an expression of t)",
                            first.name);
  }
  // The tape reads t, q, q̇ as one vector: copied there at each call (the function's own buffers).
  evaluation_ = [tape, n = n_, state = std::vector<double>(1 + 2 * n_),
                 work = std::vector<double>()](double t, const double* q, const double* qd,
                                               double* outputs) mutable {
    state[0] = t;
    std::copy(q, q + n, state.begin() + 1);
    std::copy(qd, qd + n, state.begin() + 1 + static_cast<std::ptrdiff_t>(n));
    tape->evaluate(state.data(), outputs, work);
  };
  allocate();
}

ConstraintManifold::ConstraintManifold(std::size_t n, std::size_t m, std::size_t h,
                                       ConstraintEvaluation evaluation, double rank_tolerance)
    : n_(n),
      count_(m),
      holonomic_(h),
      rank_tolerance_(rank_tolerance),
      evaluation_(std::move(evaluation)) {
  if (h > m) throw std::invalid_argument("ConstraintManifold: more holonomic constraints than all");
  allocate();
}

void ConstraintManifold::allocate() {
  const auto n = static_cast<Eigen::Index>(n_);
  const auto h = static_cast<Eigen::Index>(holonomic_), m = static_cast<Eigen::Index>(count_);
  outputs_.assign(holonomic_ * (1 + n_) + count_ * (1 + n_), 0.0);
  phi_.resize(h);
  phi_q_.resize(h, n);
  rate_.resize(m);
  rate_qd_.resize(m, n);
}

void ConstraintManifold::evaluate(double t, const Eigen::VectorXd& q,
                                  const Eigen::VectorXd& qd) const {
  evaluation_(t, q.data(), qd.data(), outputs_.data());
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
