// `appell regressor`: the inertial-parameter regressor Y and, on request, the base parameters
// (principles/regressor.hpp, numeric/base_parameters.hpp) as text, LaTeX or JSON.
//
// JSON layout (one object, indented by 2):
//   model, coordinates       the model's name and its coordinates (Y's rows, in order)
//   equation                 "Y(q, dot(q), ddot(q)) pi = tau + Q_loads" (gravity is in Y)
//   parameters               the standard parameters, Y's columns in order: {name, owner, kind,
//                            value (expression of the model's parameters), number}
//   regressor                Y: one list per row of expression strings (simplified)
//   base (with base)         {count, samples, tolerance,
//                             parameters: [{column, expression, value, exact}] (Y_b's columns),
//                             kept: [names], grouped: [{name, into: [names]}], vanish: [names],
//                             regressor: Y_b, one list per row}
#pragma once

#include <string>

#include "appell/model/model.hpp"
#include "appell/model/values.hpp"

namespace appell::io {

enum class RegressorFormat { Text, Latex, Json };

/// Y of `model` (and with `base` the base parameters and the reduced regressor), the numbers
/// with `values` bound. Throws what principles::regressor_matrix and num::base_parameters throw
/// (model::ModelError for a model the regressor does not cover).
std::string write_regressor(const model::Model& model, const model::Values& values, bool base,
                            RegressorFormat format);

}  // namespace appell::io
