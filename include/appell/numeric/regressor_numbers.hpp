// The regressor at one state as numbers: Y(q, q̇, q̈) with the standard parameters π it
// multiplies (Y π = τ + Q_loads, gravity in Y, the loads not), and on request the base
// parameters β with the reduced regressor Y_b (Y_b β = Y π). What `appell regressor --q --qd
// --qdd` prints and Python's appell.regressor returns.
//
// Y comes from the regressor's tape (RegressorEvaluator), the base parameters from the numeric
// rank of Y at random states (base_parameters): no symbolic Y is formed, so that a robot's
// numbers take milliseconds where its readable Y takes seconds.
#pragma once

#include <Eigen/Dense>
#include <optional>
#include <string>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/model/values.hpp"
#include "appell/numeric/base_parameters.hpp"
#include "appell/principles/regressor.hpp"

namespace appell::num {

/// Where Y is evaluated: t, and q, q̇, q̈ with one value per coordinate each.
struct RegressorState {
  double t = 0.0;
  Eigen::VectorXd q, qd, qdd;
};

/// Y at one state and the parameters it multiplies, as numbers.
struct RegressorNumbers {
  std::vector<std::string> coordinates;  // Y's rows
  /// Y's columns: the standard parameters (names, owners, kinds, exact values).
  std::vector<principles::InertialParameter> standard;
  Eigen::VectorXd values;     // π: each standard parameter at the model's values
  Eigen::MatrixXd regressor;  // Y (coordinates × standard), rounding noise removed
  /// With the base parameters (regressor_numbers' `base`): which standard parameters are kept,
  /// grouped or vanish, and each base parameter's expression and value.
  std::optional<BaseParameters> base;
  Eigen::VectorXd base_values;     // β, one per base->base (their order: Y_b's columns)
  Eigen::MatrixXd base_regressor;  // Y_b: Y's kept columns (coordinates × base->base)
};

/// Y of `model` with `values` bound (model::bind's errors) at `state`, and with `base` the base
/// parameters (base_parameters(model, values)) and Y_b. Rounding noise in Y and Y_b (an entry
/// below kRoundingNoise times the largest |Y_ij|, a cos(π/2) of 6e-17 times a length) is
/// exactly 0, as everywhere numbers are printed (num::without_rounding_noise). Throws
/// model::ModelError as RegressorEvaluator for a model the regressor does not cover (the same
/// refusal as the symbolic regressor's), std::invalid_argument naming q, qd or qdd when it does
/// not hold one value per coordinate or holds a number that is not finite, and what
/// base_parameters throws.
RegressorNumbers regressor_numbers(const model::Model& model, const model::Values& values,
                                   const RegressorState& state, bool base = false);

}  // namespace appell::num
