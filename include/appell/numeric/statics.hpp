// Statics by virtual work (seed 000 §2.1–2.3, eqs. 14–17, 29–32, 54–55): the generalized forces
// Q_j(q) = Σ F·∂r/∂q_j + Σ M·∂ω/∂q̇_j − ∂V/∂q_j at rest (q̇ = 0), their zeros (the equilibria,
// solved with SUNDIALS KINSOL: Newton with line search on the compiled Q and its Jacobian) and
// the stability of each: stable when the stiffness K = −∂Q/∂q (the Hessian of V when the forces
// have a potential) is positive definite.
#pragma once

#include <ginac/ginac.h>

#include <Eigen/Dense>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "appell/model/model.hpp"

namespace appell::num {

struct StaticsOptions {
  std::map<std::string, double> values;  // parameters (and inputs) as in CompiledEquations
  double t = 0.0;
  /// Starting points of the Newton iterations; the model's initial values are always tried
  /// first, then these, then `random_starts` points with every coordinate in [−π, π].
  std::vector<Eigen::VectorXd> guesses;
  int random_starts = 8;
  double tolerance = 1e-10;  // on max |Q_j|
};

struct Equilibrium {
  Eigen::VectorXd q;
  bool stable = false;
  Eigen::VectorXd stiffness_eigenvalues;  // of the symmetric part of K = −∂Q/∂q, ascending
  double residual = 0.0;                  // max |Q_j| at q
};

struct StaticsResult {
  GiNaC::matrix generalized_forces;  // n×1, Q(q) at rest, unsimplified
  std::vector<Equilibrium> equilibria;
  double best_residual = 0.0;  // smallest max |Q_j| reached, also when nothing converged
};

/// Throws model::ComputationError when no start converges (with the smallest residual reached).
StaticsResult solve_statics(std::shared_ptr<const model::Model> model,
                            const StaticsOptions& options);

}  // namespace appell::num
