// What the report evaluates at each recorded state of a simulation: the pose of every frame (for
// the animation) and the residual of every constraint (for the plot of the constraint
// violation). Compiled once to tapes over (t, q, q̇) with the values bound, evaluated per row.
#pragma once

#include <memory>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/model/values.hpp"
#include "appell/numeric/tape.hpp"

namespace appell::report {

class MotionEvaluator {
 public:
  /// Compiles the frames' world origins and rotations (kin::Kinematics) and the constraints'
  /// expressions (holonomic φ(q, t), nonholonomic a(q, t)·q̇ + a₀) with `values` bound
  /// (model::bind's errors propagate). Throws model::ComputationError when an expression keeps
  /// a symbol that has no value.
  MotionEvaluator(std::shared_ptr<const model::Model> model, const model::Values& values);

  /// Per frame in Model::frames order: origin x, y, z and rotation quaternion x, y, z, w (world
  /// from frame, w ≥ 0), 7 numbers each.
  std::vector<double> poses(double t, const std::vector<double>& q) const;
  /// One residual per constraint, model order (0 when the state satisfies it).
  std::vector<double> constraint_residuals(double t, const std::vector<double>& q,
                                           const std::vector<double>& qd) const;

 private:
  std::shared_ptr<const model::Model> model_;
  std::unique_ptr<num::Tape> frames_, constraints_;
  mutable std::vector<double> workspace_;
};

/// The quaternion (x, y, z, w), w ≥ 0, of a rotation matrix given row by row.
std::vector<double> quaternion_of(const double* rotation_row_major);

}  // namespace appell::report
