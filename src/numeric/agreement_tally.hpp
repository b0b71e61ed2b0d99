// What the comparisons of agreement.hpp share (internal): the tally of the numeric differences
// state by state against each state's bound, with the witness it keeps, the condition number that
// sets a solve's bound, and the bounded common denominator of the symbolic tests.
#pragma once

#include <ginac/ginac.h>

#include <Eigen/Dense>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "appell/numeric/agreement.hpp"

namespace appell::num::detail {

/// σ_max/σ_min of `m` equilibrated by its diagonal when that is positive (D m D, D =
/// diag(1/√m_ii)); 1 for an empty matrix, infinity for a singular or non-finite one.
double condition_number(const Eigen::MatrixXd& m);

/// The differences of one comparison, state by state. Each state's entries are compared relative
/// to that state's scale and allowed up to that state's bound; the state and entry that exceed
/// their bound the most are kept as the witness.
class Tally {
 public:
  /// One state compared: `reference` and `other` hold the same entries (in the order `name` of
  /// finish() numbers them), each difference relative to `scale`, allowed up to `bound`.
  void add(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
           const Eigen::VectorXd& reference, const Eigen::VectorXd& other, double scale,
           double bound);
  /// Whether a state whose solved matrices have condition number `condition` is drawn again
  /// (counted) rather than compared: while `attempts` (draws so far) < 10·`states`, a condition
  /// above 1/kMinReciprocalCondition is; after that every state is compared, held to its own
  /// bound, so that a model ill-conditioned everywhere still gets numbers.
  bool redraw(double condition, std::size_t attempts, std::size_t states) {
    if (attempts >= 10 * states || condition * kMinReciprocalCondition <= 1.0) return false;
    ++ill_conditioned_;
    return true;
  }
  std::size_t states() const { return states_; }
  /// The numeric half of `result`: max_numeric_error, bound, states, ill_conditioned, and
  /// first_difference with the witness when some state's difference exceeds its bound (the entry
  /// named by `name`).
  void finish(Agreement& result, const std::function<std::string(std::size_t)>& name) const;

 private:
  std::size_t states_ = 0, ill_conditioned_ = 0;
  double max_error_ = 0.0, max_error_bound_ = 0.0;  // and the bound at its state
  // The entry whose error goes furthest past (or comes closest to) its bound, as
  // (error − bound) / bound: ordered as error / bound when bound > 0, and still an order when a
  // caller's tolerance is 0 or negative (no difference allowed).
  bool have_worst_ = false;
  double worst_excess_ = 0.0;
  AgreementWitness worst_;
  std::size_t worst_index_ = 0;
};

/// The numerator of `e` over a common denominator (GiNaC's normal()), or nullopt when `e` has more
/// than kNormalOperations operations: normal() has no budget of its own.
std::optional<GiNaC::ex> bounded_numerator(const GiNaC::ex& e);
/// Every entry of `m` replaced by its bounded_numerator(), where it has one.
void to_bounded_numerators(GiNaC::matrix& m);

/// Whether `e` is zero as written, or over a common denominator when it has at most
/// kNormalOperations operations (false when it is larger: not shown to be zero).
bool bounded_is_zero(const GiNaC::ex& e);

}  // namespace appell::num::detail
