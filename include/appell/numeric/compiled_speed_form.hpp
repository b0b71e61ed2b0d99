// The equations in generalized speeds M̃ u̇ = f̃ (principles/speed_form.hpp) compiled to a Tape,
// with the kinematic equations q̇ = W u and the accelerations q̈ = W u̇ + γ they imply.
#pragma once

#include <Eigen/Dense>
#include <array>
#include <string>
#include <vector>

#include "appell/model/values.hpp"
#include "appell/numeric/constraint_tolerances.hpp"
#include "appell/numeric/tape.hpp"
#include "appell/principles/speed_form.hpp"

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

class CompiledSpeedForm {
 public:
  /// Compiles the equations. `values` as for CompiledEquations (model::bind): parameters, inputs
  /// and unspecified functions by name; throws model::ModelError as it does.
  explicit CompiledSpeedForm(const principles::SpeedEquations& equations,
                             const model::Values& values = {});

  std::size_t dof() const { return n_; }
  /// p, the number of speeds.
  std::size_t size() const { return p_; }

  /// m, the number of constraints (0 without).
  std::size_t constraint_count() const { return m_; }

  struct State {
    Eigen::MatrixXd mass_matrix;  // M̃
    Eigen::VectorXd forcing;      // f̃
    Eigen::MatrixXd kinematics;   // W
    Eigen::VectorXd qd;           // q̇ = W u
    Eigen::VectorXd udot;         // u̇: M̃ u̇ = f̃ (+ Ãᵀλ with Ã u̇ = b̃)
    Eigen::VectorXd qdd;          // q̈ = W u̇ + γ
    // With constraints (m rows; empty without): Ã, b̃, the velocity-level residuals Ã u + ã0
    // and the multipliers (solve_constrained_accelerations: minimum-norm when redundant).
    Eigen::MatrixXd constraint_matrix;
    Eigen::VectorXd constraint_rhs;
    Eigen::VectorXd velocity_residual;
    Eigen::VectorXd lambda;
  };
  /// Everything at (t, q, u). Throws model::ComputationError when an entry is not finite or M̃
  /// is singular there, or (with constraints) as solve_constrained_accelerations() does with
  /// `tolerances`.
  State solve(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& u,
              const ConstraintTolerances& tolerances = {}) const;
  /// q̇ = W u alone, as solve gives it: also where M̃ is singular, since a state's velocities do
  /// not need its accelerations (a simulation's row where it stops still has its momenta).
  /// Throws model::ComputationError when W is not finite there.
  Eigen::VectorXd velocities(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& u) const;
  /// Ã and the velocity-level residuals Ã u + ã0 alone (m rows; none without constraints), what
  /// a simulation's velocity projection needs. Throws model::ComputationError when they are not
  /// finite there.
  void velocity_constraints(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& u,
                            Eigen::MatrixXd& A, Eigen::VectorXd& residual) const;

 private:
  std::size_t n_ = 0, p_ = 0, m_ = 0;
  SpeedTape tape_;
  mutable std::vector<double> outputs_;
};

/// The speeds u = Y(q, t) q̇ of the coordinates' velocities (each Speed's value: a declared
/// speed's expression, 2 Eᵀ(e) ė / |e|² for a quaternion frame's, dot(q) for a coordinate's
/// own), at t with the values bound as for CompiledEquations.
Eigen::VectorXd speeds_from_velocities(const model::Model& model, const model::Values& values,
                                       double t, const Eigen::VectorXd& q,
                                       const Eigen::VectorXd& qd);

/// Each quaternion of `q` (the coordinates of every rot_quat, in frame order) divided by its
/// length. Throws model::ModelError located at `option` naming the frame when one is zero.
void normalize_quaternions(const model::Model& model, Eigen::VectorXd& q,
                           const std::string& option = "q0");

/// The coordinate indices of each quaternion (e0..e3), in frame order.
std::vector<std::array<Eigen::Index, 4>> quaternion_coordinates(const model::Model& model);

}  // namespace appell::num
