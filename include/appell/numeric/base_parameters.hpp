// The regressor at states, and the base parameters: τ = Y(q, q̇, q̈) π = Y_b(q, q̇, q̈) β.
//
// Not every standard parameter (principles/regressor.hpp) has its own effect: some columns of Y
// vanish (a mass on a frame that never moves along gravity's direction ...) and others are
// combinations of other columns for every motion (the classical grouping rules: for a revolute
// joint about z, the columns of I_yy, m·c_z and m of its link are those of its own I_xx, I_zz and
// of its parent's parameters, Khalil & Dombre 2002, §12.5; Gautier & Khalil 1990). The base
// parameters β are the smallest set of combinations of π with τ = Y_b β and Y_b of full column
// rank: what identification from joint forces can determine.
//
// How: Y is evaluated at random states (at one random draw of the model's parameters around their
// values, so that the result holds for generic lengths); columns of unit norm are orthogonalised in
// a fixed order (Householder QR, no pivoting: |R_kk| is the part of column k outside the span of
// the columns before it), the masses from the root of the tree to its tips and, within a mass,
// I_xx, I_xy, I_xz, I_yz, I_zz, m·c_x, m·c_y, I_yy, m·c_z, m, so that a revolute joint about z
// keeps the parameters the classical rules keep. A column is kept when |R_kk| > tolerance (1e-8);
// the count is checked against the rank of a column-pivoted QR of the same matrix. Each other
// column is then written as Σ c_k(p) Y_k over the kept ones before it, c_k polynomials in the
// model's parameters p that Y reads (lengths, g): fitted over monomials of increasing degree (≤ 4)
// at random states and parameters, each coefficient rounded to the fraction with denominator ≤ 1000
// or the 12-digit decimal it equals, and accepted only when the identity then holds at fresh
// random states to 1e-8. Where no polynomial fits (a parameter inside a sine) the coefficients
// are numbers at the parameters' values (BaseParameter::exact false). β_k = π_k + Σ_d c_dk π_d.
#pragma once

#include <ginac/ginac.h>

#include <Eigen/Dense>
#include <memory>
#include <string>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/model/values.hpp"
#include "appell/principles/regressor.hpp"
#include "appell/sym/tape.hpp"

namespace appell::num {

/// Y at states, evaluated from the regressor's straight-line program (a tape). Immutable once
/// built; evaluate() may be called from several threads.
class RegressorEvaluator {
 public:
  /// Y of `model` with `values` bound (parameters, inputs, prescribed functions: model::bind's
  /// errors). Throws model::ModelError (naming the reason, at the model's source) for a model
  /// principles::regressor_not_covered() names.
  explicit RegressorEvaluator(const model::Model& model, const model::Values& values = {});

  std::size_t dof() const { return n_; }
  std::size_t columns() const { return columns_; }
  /// Y (dof × columns) at (t, q, q̇, q̈).
  Eigen::MatrixXd evaluate(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                           const Eigen::VectorXd& qdd) const;

  /// The program's variables: the symbols Y reads (t, q, q̇, parameters, ...), then q̈; and
  /// the tape over them (base_parameters evaluates it at its own values).
  const std::vector<GiNaC::symbol>& variables() const { return variables_; }
  const sym::Tape& tape() const { return *tape_; }
  /// The values bound to each variable (0 for t, q, q̇, q̈).
  const std::vector<double>& bound() const { return bound_; }

 private:
  std::size_t n_ = 0, columns_ = 0;
  std::vector<GiNaC::symbol> variables_;
  std::vector<double> bound_;
  std::vector<std::size_t> t_, q_, qd_, qdd_;  // where t, q_j, q̇_j, q̈_j are among the variables
  std::shared_ptr<const sym::Tape> tape_;
};

/// What a standard parameter is for the base parameters.
enum class ParameterRole {
  Kept,     // its column is one of Y_b's: a base parameter is named after it
  Grouped,  // its column is a combination of kept ones: it adds to their base parameters
  Vanishes  // its column is zero: it has no effect on τ
};

/// One base parameter: β = π_kept + Σ c_d(p) π_d.
struct BaseParameter {
  std::size_t kept = 0;  // index of its standard parameter (its column of Y)
  GiNaC::ex expression;  // in the standard parameters' symbols and the model's parameters
  GiNaC::ex value;       // its number at the model's parameter values
  bool exact = true;     // false: the coefficients are numbers at the parameter values
};

struct BaseParameters {
  std::vector<principles::InertialParameter> standard;
  std::vector<ParameterRole> roles;  // one per standard parameter
  std::vector<BaseParameter> base;   // in the standard parameters' order of their kept columns
  /// For each grouped standard parameter, the kept ones it adds to (their standard indices).
  std::vector<std::vector<std::size_t>> grouped_into;
  std::vector<GiNaC::symbol> geometry;  // the model's parameters Y reads
  std::size_t samples = 0;              // random states of the rank
  double tolerance = 1e-8;              // of |R_kk| over unit columns
};

/// The base parameters of `model` with `values` bound (what the values are for: the numbers of
/// BaseParameter::value and of the coefficients that are not exact). Deterministic: a fixed
/// seed. Throws model::ModelError as RegressorEvaluator, model::ComputationError when the rank
/// is ambiguous (the pivoted QR disagrees) or a grouping cannot be verified.
BaseParameters base_parameters(const model::Model& model, const model::Values& values = {});

/// The columns of the kept parameters (the reduced regressor Y_b) of Y.
Eigen::MatrixXd reduced_regressor(const BaseParameters& base, const Eigen::MatrixXd& Y);

}  // namespace appell::num
