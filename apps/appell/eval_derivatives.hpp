// appell eval --derivatives: the derivatives of the dynamics at a state (its own file, so that
// cmd_eval.cpp only dispatches to it).
#pragma once

#include <Eigen/Dense>
#include <memory>
#include <string>
#include <vector>

#include "appell/model/model.hpp"

namespace appell::cli {

/// Prints q̈, ∂τ/∂q, ∂τ/∂q̇, ∂q̈/∂q, ∂q̈/∂q̇ and M⁻¹ at (t, q, q̇), as text or (json) one JSON
/// object (io::write_derivatives_json). A model the recursions do not cover fails with the
/// reason (model::ComputationError: exit 1).
int run_eval_derivatives(const std::shared_ptr<const model::Model>& model,
                         const std::vector<std::string>& set, double t, const Eigen::VectorXd& q,
                         const Eigen::VectorXd& qd, bool json);

}  // namespace appell::cli
