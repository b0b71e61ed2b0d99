// Reaction forces: what each frame's parent exerts on it, by Newton–Euler on the frame's subtree
// once q̈ is known.
//
// For a frame F with origin O_F, the subtree S(F) is F and every frame below it with what is
// fixed in them. The force and moment (about O_F) the parent exerts on S(F) are
//   R_F = Σ_{points of S(F)} (m a − m g) − Σ F_ext,
//   N_F = Σ (r − O_F) × (m a − m g) + Σ R (I ε + ω × I ω) − Σ (r_P − O_F) × F_ext − Σ M_ext,
// world components, summed over the mass points (centres of mass and particles), the bodies'
// rotational inertia (R the frame's rotation, I, ω, ε in its axes) and the loads acting on S(F):
// point forces and torques on its frames, the ends of springs and dampers fixed in it (a spring
// with both ends in S(F) is internal and cancels). Generalized loads and potentials are forces of
// the joints (a motor torque, joint friction): they are part of the reactions, not external loads.
// Formed recursively from the leaves, R_F = own + Σ_children R_C and the moments shifted by
// (O_C − O_F) × R_C, so shared terms are formed once.
//
// With constraints the same sums give the resultant of every force on S(F) that is not a load:
// the parent's and those of the constraints acting on S(F). A constraint given as an equation in
// the coordinates does not say at which points it acts (a loop closure written as
// r cos q1 + L cos q2 − x = 0 names no pin), so its physical force cannot be split off a
// frame's reaction; what a constraint does is known exactly in generalized form, λ_c ∇φ_c (the
// multiplier times the constraint's row of A), which generalized_constraint_forces() gives.
#pragma once

#include <Eigen/Dense>
#include <memory>
#include <string>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/model/values.hpp"
#include "appell/numeric/state_evaluation.hpp"
#include "appell/numeric/tape.hpp"

namespace appell::num {

/// The force and moment a frame's parent exerts on the frame and everything below it, at the
/// frame's origin, world components (N, N·m).
struct Reaction {
  std::string frame;
  Eigen::Vector3d force = Eigen::Vector3d::Zero();
  Eigen::Vector3d moment = Eigen::Vector3d::Zero();
};

/// The reactions of every frame of a model compiled for evaluation at numeric states.
class CompiledReactions {
 public:
  /// Forms the reactions of every frame (Model::frames, in that order) and compiles them;
  /// `values` as for CompiledEquations (model::bind). With constraints each reaction also holds
  /// the constraint forces acting on the frame's subtree (file comment). Throws
  /// model::ModelError for bad values (what model::bind throws).
  CompiledReactions(std::shared_ptr<const model::Model> model, const model::Values& values = {});

  /// The frames, in the order of evaluate()'s reactions.
  const std::vector<std::string>& frames() const { return frames_; }
  /// The reactions at time t, q, q̇ and q̈ (n values each, coordinate order; other sizes throw
  /// std::invalid_argument), one per frame. q̈ must be the accelerations of the equations of
  /// motion at (t, q, q̇) for the reactions to be those of the motion.
  std::vector<Reaction> evaluate(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                 const Eigen::VectorXd& qdd) const;

 private:
  std::size_t n_ = 0;
  std::vector<std::string> frames_;
  std::unique_ptr<Tape> tape_;
  std::vector<std::size_t> acceleration_slots_;  // variable slot of ddot(q_j), or npos
  mutable std::vector<double> variables_, outputs_, workspace_;
};

/// The generalized force of each constraint at `state` (the model's order of constraints): the
/// n-vector λ_c A_c, the multiplier times the constraint's row of A (for a holonomic constraint
/// φ_c, λ_c ∂φ_c/∂q), so that M q̈ = f + Σ_c λ_c A_cᵀ. Empty without constraints.
std::vector<Eigen::VectorXd> generalized_constraint_forces(const StateEvaluation& state);

}  // namespace appell::num
