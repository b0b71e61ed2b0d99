// A tape over expressions of t, q and a model's generalized speeds u (internal: the speeds of a
// state from its velocities, and a simulation's energies in the speeds).
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/model/values.hpp"
#include "appell/numeric/tape.hpp"

namespace appell::num {

/// A tape over expressions of t, q and the model's speeds u (and of q̇ when `velocities`), with
/// the values bound as for CompiledEquations (model::bind).
class SpeedTape {
 public:
  SpeedTape(const model::Model& model, const GiNaC::exvector& entries, const model::Values& values);
  /// The entries at (t, q, u) (q̇ = 0 where an entry has a velocity); `outputs` resized.
  void evaluate(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& u,
                std::vector<double>& outputs) const;
  /// The entries at (t, q, q̇) for entries in the velocities (u not used: 0).
  void evaluate_velocities(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                           std::vector<double>& outputs) const;

 private:
  // Filled while the tape is built, so declared (and constructed) before it.
  std::size_t n_ = 0;
  std::vector<std::size_t> speed_slots_;  // the variable of each speed (npos: not used)
  mutable std::vector<double> variables_, workspace_;
  Tape tape_;
};

}  // namespace appell::num
