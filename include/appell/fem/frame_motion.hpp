// The rigid motion of a flexible body's floating frame, as numbers at any time.
//
// Kineto-elastodynamic hypothesis (seed 002 §1): the rigid motion is known before the elastic
// one and is not changed by it. It comes from the model: when the model has coordinates their
// motion is integrated first (the rigid equations, simulate()) and interpolated; with
// `coordinates: []` the frame moves by prescribed functions of t alone. The frame's ω, ε, the
// origin's acceleration and gravity are compiled once into a tape in t, q, q̇, q̈.
#pragma once

#include <Eigen/Core>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/model/values.hpp"
#include "appell/numeric/tape.hpp"

namespace appell::fem {

/// The floating frame at one instant, every vector in frame components (rad/s, rad/s², m/s²).
struct FrameState {
  Eigen::Vector3d omega = Eigen::Vector3d::Zero();                // ω
  Eigen::Vector3d epsilon = Eigen::Vector3d::Zero();              // ε = dω/dt
  Eigen::Vector3d origin_acceleration = Eigen::Vector3d::Zero();  // a_O
  Eigen::Vector3d gravity = Eigen::Vector3d::Zero();              // g (0 without gravity)
};

/// The rigid motion of one frame of a model. at() is const but reuses buffers: one object per
/// thread.
class FrameMotion {
 public:
  /// The motion of `frame` (a frame of `model`; "world" or an unknown name is not checked here)
  /// with `values` (model::bind: parameters, and inputs or unspecified prescribed functions
  /// given a number or driven by an expression of t). `t_end` and `step` (s) bound the rigid
  /// simulation of a model with coordinates (Gibbs–Appell equations, num::simulate with default
  /// tolerances, rows every `step` up to max(t_end, step)); unused otherwise. Throws
  /// model::ModelError for bad values (what bind throws), and at `where` when the frame's motion
  /// uses an unspecified prescribed function or an input that `values` leaves without a value;
  /// what principles::derive and num::simulate throw (SimulationError when the rigid
  /// integration fails).
  FrameMotion(std::shared_ptr<const model::Model> model, const std::string& frame,
              const model::Values& values, double t_end, double step,
              const model::SourceLocation& where);
  ~FrameMotion();
  FrameMotion(FrameMotion&&) noexcept;

  /// The frame's state at time t: exact for a frame moved by functions of t alone; with
  /// coordinates, from the simulated rows by cubic Hermite interpolation of q and q̇ (q̈
  /// linear), t outside the simulated span taken at its nearest end.
  FrameState at(double t) const;
  /// The model's coordinates q at time t, interpolated as at() does (empty for a model without
  /// coordinates): what places the frame in the world (the report draws the body moving).
  std::vector<double> coordinates(double t) const;
  /// True when the model has coordinates, whose motion was integrated first.
  bool rigid_motion_from_simulation() const { return !samples_.empty(); }

 private:
  struct Sample {
    double t;
    Eigen::VectorXd q, qd, qdd;
  };
  // Fills variables_ with t and the interpolated q, q̇, q̈.
  void interpolate(double t) const;
  std::size_t dof_ = 0;
  std::unique_ptr<num::Tape> tape_;
  std::vector<Sample> samples_;
  mutable std::vector<double> variables_, outputs_, workspace_;
};

}  // namespace appell::fem
