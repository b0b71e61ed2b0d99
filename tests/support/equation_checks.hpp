// Test helpers: compare equations numerically at random states and build small models in code.
#pragma once

#include <gtest/gtest.h>

#include <random>

#include "appell/numeric/compiled_equations.hpp"
#include "appell/principles/equations.hpp"

namespace appell::test_support {

/// Largest |difference| of M and f between two sets of equations of the same model over
/// `states` random states (q, q̇ in [-2, 2], t in [0, 3]), relative to max(1, |value|).
inline double max_numeric_difference(const principles::Equations& a, const principles::Equations& b,
                                     int states = 20, unsigned seed = 12345) {
  num::CompiledEquations ca(a), cb(b);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  const auto n = static_cast<Eigen::Index>(a.dof());
  double worst = 0.0;
  for (int s = 0; s < states; ++s) {
    Eigen::VectorXd q(n), qd(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      q[i] = u(rng);
      qd[i] = u(rng);
    }
    const double t = 0.75 * (u(rng) + 2.0);
    Eigen::MatrixXd Ma, Mb;
    Eigen::VectorXd fa, fb;
    ca.evaluate(t, q, qd, Ma, fa);
    cb.evaluate(t, q, qd, Mb, fb);
    const double scale = std::max({1.0, Ma.cwiseAbs().maxCoeff(), fa.cwiseAbs().maxCoeff()});
    worst = std::max(worst, (Ma - Mb).cwiseAbs().maxCoeff() / scale);
    worst = std::max(worst, (fa - fb).cwiseAbs().maxCoeff() / scale);
  }
  return worst;
}

}  // namespace appell::test_support
