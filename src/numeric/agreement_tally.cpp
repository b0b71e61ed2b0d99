#include "agreement_tally.hpp"

#include <Eigen/SVD>
#include <cmath>
#include <limits>

#include "appell/sym/operation_count.hpp"

namespace appell::num {

std::string verdict_name(AgreementVerdict verdict) {
  switch (verdict) {
    case AgreementVerdict::Equal:
      return "equal";
    case AgreementVerdict::AgreeNumerically:
      return "agree numerically";
    case AgreementVerdict::Differ:
      return "differ";
  }
  return "differ";
}

AgreementVerdict verdict(const Agreement& agreement) {
  // Numbers that differ beyond their bound outweigh a symbolic proof: what is computed differs.
  if (agreement.witness) return AgreementVerdict::Differ;
  if (agreement.symbolic_test == SymbolicTest::Zero) return AgreementVerdict::Equal;
  return agreement.first_difference.empty() ? AgreementVerdict::AgreeNumerically
                                            : AgreementVerdict::Differ;
}

double solve_bound(double tolerance, double condition) {
  return std::max(tolerance, kRoundingFactor * condition * std::numeric_limits<double>::epsilon());
}

namespace detail {

double condition_number(const Eigen::MatrixXd& m) {
  if (m.size() == 0) return 1.0;
  if (!m.allFinite()) return std::numeric_limits<double>::infinity();
  // Equilibrated by its diagonal when that is positive (a mass matrix): the rounding of a
  // Cholesky solve depends on the condition of D M D, D = diag(1/√M_ii) (van der Sluis), not on
  // the units that make a wheel's inertia 10⁻⁸ of its mass.
  Eigen::MatrixXd scaled = m;
  if (m.rows() == m.cols() && (m.diagonal().array() > 0.0).all()) {
    const Eigen::VectorXd d = m.diagonal().cwiseSqrt().cwiseInverse();
    scaled = d.asDiagonal() * m * d.asDiagonal();
  }
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(scaled);
  const auto& s = svd.singularValues();
  const double smallest = s[s.size() - 1];
  if (!(smallest > 0.0)) return std::numeric_limits<double>::infinity();
  return s[0] / smallest;
}

void Tally::add(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                const Eigen::VectorXd& reference, const Eigen::VectorXd& other, double scale,
                double bound) {
  ++states_;
  for (Eigen::Index k = 0; k < reference.size(); ++k) {
    const double error = std::abs(reference[k] - other[k]) / scale;
    // Written so that a NaN counts as the largest difference; the first entry sets the bound.
    if (!have_worst_ || !(error <= max_error_)) {
      max_error_ = error;
      max_error_bound_ = bound;
    }
    const double excess = (error - bound) / std::max(bound, std::numeric_limits<double>::min());
    if (have_worst_ && excess <= worst_excess_) continue;
    have_worst_ = true;
    worst_excess_ = std::isnan(excess) ? std::numeric_limits<double>::infinity() : excess;
    worst_index_ = static_cast<std::size_t>(k);
    worst_.t = t;
    worst_.q.assign(q.data(), q.data() + q.size());
    worst_.qd.assign(qd.data(), qd.data() + qd.size());
    worst_.reference = reference[k];
    worst_.other = other[k];
    worst_.error = error;
    worst_.bound = bound;
  }
}

void Tally::finish(Agreement& result, const std::function<std::string(std::size_t)>& name) const {
  result.states = states_;
  result.ill_conditioned = ill_conditioned_;
  result.max_numeric_error = max_error_;
  if (!have_worst_) return;
  result.bound = max_error_bound_;
  if (worst_.error <= worst_.bound) return;
  AgreementWitness witness = worst_;
  witness.entry = name(worst_index_);
  result.first_difference = witness.entry;
  result.witness = std::move(witness);
}

std::optional<GiNaC::ex> bounded_numerator(const GiNaC::ex& e) {
  if (sym::operation_count(e) > kNormalOperations) return std::nullopt;
  return e.normal().numer();
}

void to_bounded_numerators(GiNaC::matrix& m) {
  for (unsigned i = 0; i < m.rows(); ++i)
    for (unsigned j = 0; j < m.cols(); ++j)
      if (auto numerator = bounded_numerator(m(i, j))) m(i, j) = *numerator;
}

bool bounded_is_zero(const GiNaC::ex& e) {
  if (e.is_zero()) return true;
  const auto numerator = bounded_numerator(e);
  return numerator && numerator->is_zero();
}

}  // namespace detail
}  // namespace appell::num
