// Inverse dynamics: the generalized driving forces that make a system follow a prescribed motion.
//
// With appell's convention M(q, t) q̈ = f(q, q̇, t), where f already carries gravity, the loads
// and the velocity terms, the forces the actuators must add along q(t) are
//   Q = M(q, t) q̈ − f(q, q̇, t)
// (seed 000 eq. 122: Q_m = inertia + gravity + external, the signs of the last two flipped
// because f holds them as applied forces). M and f come from the compiled tape of
// CompiledEquations, so a long trajectory costs one tape evaluation per sample.
//
// The motion is given either as expressions of t (a Trajectory, differentiated symbolically once
// so q̇ and q̈ are exact, then compiled to its own tape) or as samples read from a CSV file.
#pragma once

#include <Eigen/Dense>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/model/values.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/dynamics.hpp"
#include "appell/numeric/tape.hpp"
#include "appell/principles/equations.hpp"

namespace appell::num {

class DynamicsEvaluator;  // internal: the tape of the equations, or the Dynamics

/// The driving forces of one set of equations, or of a model's Dynamics. Not for concurrent use
/// from several threads (it reuses buffers); make one per thread.
class InverseDynamics {
 public:
  /// `values` as for CompiledEquations (model::bind): parameter overrides, inputs and
  /// unspecified prescribed functions; throws model::ModelError as bind does (unknown name, ...).
  explicit InverseDynamics(const principles::Equations& equations,
                           const model::Values& values = {});
  /// Q = τ of `dynamics` (Newton–Euler, interpreted or compiled: jit::compile_dynamics), bound
  /// to the values the caller chose; not null (std::invalid_argument). In generalized speeds
  /// (quaternion frames, floating bases, declared speeds) τ = M̃ u̇ − f̃ acts on the speeds: the
  /// motion q(t) is given in the coordinates as ever, and u, u̇ are taken from it
  /// (speeds_of_motion: exact for a motion the speeds can make, least squares otherwise, e.g. a
  /// quaternion whose length drifts; model::ComputationError where W is singular).
  explicit InverseDynamics(std::shared_ptr<const Dynamics> dynamics);
  ~InverseDynamics();

  /// n, the number of coordinates.
  std::size_t dof() const;
  /// The entries of Q: n, or in generalized speeds p, the speeds.
  std::size_t force_count() const;
  /// Whether Q acts on the model's generalized speeds (a Dynamics of a model with speeds).
  bool in_speeds() const { return in_speeds_; }
  /// Q = M(q, t) q̈ − f(q, q̇, t) (n values, coordinate order; N or N·m as the coordinate is a
  /// length or an angle; in_speeds(): p values on the speeds) at time t for q, q̇, q̈ of n values
  /// each. Vectors of the wrong size
  /// throw std::invalid_argument. The constraint rows A, b are not used: with constraints Q is
  /// the whole generalized force the motion needs, the constraints' reactions Aᵀλ included.
  /// Non-finite numbers are returned as they come, not thrown.
  Eigen::VectorXd driving_forces(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                 const Eigen::VectorXd& qdd) const;

  /// The compiled equations it evaluates (the tape's); std::logic_error when built on a
  /// Dynamics.
  const CompiledEquations& compiled() const;
  /// What evaluates Q: "tape" (the equations'), "jit" or "recursions" (a Dynamics').
  const char* kind() const;

 private:
  std::shared_ptr<const Dynamics> model_dynamics_;  // kept alive for evaluator_
  std::shared_ptr<const DynamicsEvaluator> evaluator_;
  bool in_speeds_ = false;
  mutable DynamicsWorkspace work_;  // in generalized speeds: u, u̇ and τ
  mutable Eigen::VectorXd speeds_, speed_rates_;
  mutable Eigen::VectorXd forces_;  // reused between calls: no allocation per sample
};

/// A motion q(t), q̇(t), q̈(t) at one instant.
struct TrajectorySample {
  double t = 0.0;
  Eigen::VectorXd q, qd, qdd;
};

/// A prescribed motion given as one expression of t (and the model's parameters) per coordinate.
class Trajectory {
 public:
  /// Parses "q1 = EXPR; q2 = EXPR" (items separated by ';', blank items ignored). Every
  /// coordinate of `model` must be given exactly once; an unknown, missing or repeated coordinate
  /// or a bad expression throws model::ModelError located in "trajectory" (line 1, the column
  /// within `text`; no line for a missing coordinate), naming the offender. The parameters take
  /// their numbers from `values` (model::bind, which throws model::ModelError for a bad value);
  /// the trajectory uses no other value.
  Trajectory(const std::string& text, const model::Model& model, const model::Values& values = {});

  /// n, the number of coordinates of the model.
  std::size_t dof() const { return positions_.size(); }
  /// q, q̇, q̈ at time t (each resized to dof(), coordinate order), q̇ and q̈ exact derivatives of
  /// the expressions. Not for concurrent use (shared buffers).
  void evaluate(double t, Eigen::VectorXd& q, Eigen::VectorXd& qd, Eigen::VectorXd& qdd) const;
  /// The same as a TrajectorySample at t.
  TrajectorySample sample(double t) const;

  /// The expressions, in coordinate order, for reading or printing.
  const GiNaC::exvector& positions() const { return positions_; }
  const GiNaC::exvector& velocities() const { return velocities_; }
  const GiNaC::exvector& accelerations() const { return accelerations_; }

 private:
  // Declared before tape_: the constructor fills them while building the tape.
  GiNaC::exvector positions_, velocities_, accelerations_;
  mutable std::vector<double> variables_;  // t, then the parameters (fixed at construction)
  Tape tape_;                              // outputs q, q̇, q̈ stacked
  mutable std::vector<double> outputs_, workspace_;
};

/// The header a trajectory CSV must have for `model`, e.g. for coordinates q1, q2:
///   t,q1,q2,dot(q1),dot(q2),ddot(q1),ddot(q2)
std::string trajectory_csv_header(const model::Model& model);

/// Reads samples from a CSV file with exactly trajectory_csv_header(model) as its first line
/// (cells may be padded with spaces; CRLF line ends accepted), then one row of finite numbers per
/// sample. Blank lines and lines starting with '#' are skipped. A wrong header, a row with the
/// wrong number of cells, a cell that is not a finite number or a file without rows throws
/// model::ModelError at FILE:LINE:COLUMN; an unreadable file at FILE.
std::vector<TrajectorySample> read_trajectory_csv(const std::string& path,
                                                  const model::Model& model);

}  // namespace appell::num
