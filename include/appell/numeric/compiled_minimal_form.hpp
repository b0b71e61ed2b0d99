// The minimal form M̃ u̇ = f̃ (principles/minimal_form.hpp) compiled to a Tape, with the
// dependent speeds q̇ = B u + β and the accelerations q̈ = B u̇ + γ it implies.
#pragma once

#include <Eigen/Dense>
#include <map>
#include <string>
#include <vector>

#include "appell/model/values.hpp"
#include "appell/numeric/tape.hpp"
#include "appell/principles/minimal_form.hpp"

namespace appell::num {

class CompiledMinimalForm {
 public:
  /// Compiles the minimal form. `values` as for CompiledEquations (model::bind): parameters,
  /// inputs and unspecified functions by name; throws model::ModelError as it does.
  explicit CompiledMinimalForm(const principles::MinimalEquations& equations,
                               const model::Values& values = {});

  std::size_t dof() const { return n_; }
  /// Number of independent speeds, n − m.
  std::size_t size() const { return p_; }

  struct State {
    Eigen::VectorXd qd;                   // q̇ = B u + β, every coordinate's speed
    Eigen::MatrixXd mass_matrix;          // M̃
    Eigen::VectorXd forcing;              // f̃
    Eigen::VectorXd udot;                 // u̇ = M̃⁻¹ f̃
    Eigen::VectorXd qdd;                  // q̈ = B u̇ + γ
    Eigen::MatrixXd speed_matrix;         // B
    Eigen::VectorXd acceleration_offset;  // γ
  };
  /// Everything at (t, q) with independent speeds u (in the order of `independent:`). Throws
  /// model::ComputationError when the dependent speeds are not determined there (the constraint
  /// Jacobian's dependent block is singular) or M̃ is singular.
  State solve(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& u) const;

 private:
  std::size_t n_ = 0, p_ = 0;
  std::vector<double> fixed_;
  Tape tape_;
  mutable std::vector<double> variables_, outputs_, workspace_;
  std::vector<std::size_t> independent_;
};

/// The independent speeds u of `model` (one per entry of Model::independent, in that order) out
/// of `speeds`, which holds either u itself (p = independent.size() values) or every speed, one
/// per coordinate (n = dof() values), of which those of the independent coordinates are taken
/// (the dependent ones follow from the constraints and are not used). Empty `speeds`: the
/// model's initial velocities of the independent coordinates. When p = n, `speeds` is u itself.
/// Throws model::ModelError located at {"speeds", 0, 0} when `speeds` has neither p nor n values
/// ("expected p independent speeds or n speeds (one per coordinate), got k", naming the values).
Eigen::VectorXd independent_speeds(const model::Model& model, const std::vector<double>& speeds);

}  // namespace appell::num
