// The linear and angular momentum of a model's bodies and particles about the world origin:
//   p = Σ m v,   L = Σ r × m v + Σ R I ω,
// v and r of each centre of mass and particle, R the rotation of a body's frame, I its inertia
// about the centre of mass and ω its angular velocity in the frame's axes (world components).
// Without external forces p and L are conserved; otherwise dp/dt is the sum of the external
// forces and dL/dt that of their moments about the origin.
#pragma once

#include <Eigen/Dense>
#include <memory>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/model/values.hpp"
#include "appell/numeric/tape.hpp"

namespace appell::num {

/// Linear momentum p (kg·m/s) and angular momentum L about the world origin (kg·m²/s), world
/// components.
struct Momenta {
  Eigen::Vector3d linear = Eigen::Vector3d::Zero();
  Eigen::Vector3d angular = Eigen::Vector3d::Zero();
};

/// The momenta of a model compiled for evaluation at numeric states.
class CompiledMomenta {
 public:
  /// `values` as for CompiledEquations (model::bind); throws what model::bind throws.
  explicit CompiledMomenta(std::shared_ptr<const model::Model> model,
                           const model::Values& values = {});
  /// p and L at time t and q, q̇ (n values each, coordinate order; other sizes throw
  /// std::invalid_argument).
  Momenta evaluate(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd) const;

 private:
  std::size_t n_ = 0;
  std::unique_ptr<Tape> tape_;
  mutable std::vector<double> variables_, outputs_, workspace_;
};

}  // namespace appell::num
