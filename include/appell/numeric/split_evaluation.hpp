// The split M q̈ + C q̇ + g = Q (principles/coriolis_split.hpp) at numeric states: what
// `appell eval --split` prints, and what the tests hold against the equations.
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "appell/model/values.hpp"
#include "appell/numeric/tape.hpp"
#include "appell/principles/coriolis_split.hpp"

namespace appell::num {

/// The split at one state, every vector in coordinate order (n coordinates). Without prescribed
/// or carrier motion (CoriolisSplit::moving false) mass_rate and gyroscopic are n×n zeros and
/// prescribed_motion n zeros.
struct SplitEvaluation {
  double t = 0.0;
  Eigen::VectorXd q, qd;                  // the state, n each
  Eigen::MatrixXd mass_matrix, coriolis;  // M, C(q, q̇): n×n
  Eigen::VectorXd gravity, loads;         // g, Q: n
  bool moving = false;                    // CoriolisSplit::moving
  Eigen::MatrixXd mass_rate, gyroscopic;  // ∂M/∂t, G: n×n
  Eigen::VectorXd prescribed_motion;      // p: n
  /// C q̇ + (∂M/∂t + G) q̇ + p + g − Q: −f, everything but the inertia of the accelerations.
  Eigen::VectorXd nonlinear_effects() const;
};

/// Every entry of a split compiled to one tape over t, q, q̇ and the values bound (as
/// CompiledEquations binds them: parameters overridden, inputs and unspecified prescribed
/// functions given). Immutable after construction; evaluate() keeps its scratch space in the
/// caller's workspace, so one object serves several threads.
class CompiledSplit {
 public:
  /// Throws what CompiledEquations' constructor throws (model::ModelError for bad values,
  /// std::invalid_argument for an expression the tape cannot evaluate).
  explicit CompiledSplit(const principles::CoriolisSplit& split, const model::Values& values = {});

  std::size_t dof() const { return n_; }
  /// The split at time t and the state q, q̇ (n values each; other sizes throw
  /// std::invalid_argument). Numbers that are not finite are returned as they are.
  SplitEvaluation evaluate(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd) const;

 private:
  std::size_t n_ = 0;
  bool moving_ = false;
  std::vector<double> fixed_;
  Tape tape_;
};

}  // namespace appell::num
