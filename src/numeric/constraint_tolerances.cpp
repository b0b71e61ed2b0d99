#include "appell/numeric/constraint_tolerances.hpp"

#include <algorithm>

namespace appell::num {

ConstraintTolerances constraint_tolerances_for(double rtol, double atol) {
  // The state's error, for coordinates of order one; a hundredfold margin covers the Newton
  // iterates and the predictor, which stray further than the accepted steps.
  const double drift = 100 * (rtol + atol);
  // CVODE's difference quotients perturb each component by about √ε·|y| ≈ 1.5e-8·|y|: the
  // redundant singular values and the disagreement of the redundant rows reach that size with
  // any tolerances.
  constexpr double kDifferenceQuotients = 1e-6;
  constexpr double kLargest = 1e-3;
  const double tolerance = std::clamp(drift, kDifferenceQuotients, kLargest);
  return {.rank = tolerance, .consistency = tolerance};
}

}  // namespace appell::num
