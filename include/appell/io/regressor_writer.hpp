// `appell regressor`: the inertial-parameter regressor Y and, on request, the base parameters
// (principles/regressor.hpp, numeric/base_parameters.hpp) as text, LaTeX or JSON; and Y at one
// state as numbers (numeric/regressor_numbers.hpp) as text or JSON.
//
// JSON layout (one object, indented by 2):
//   model, coordinates       the model's name and its coordinates (Y's rows, in order)
//   equation                 "Y(q, dot(q), ddot(q)) pi = tau + Q_loads" (gravity is in Y)
//   state (numbers only)     {t, q, qd, qdd}: where Y was evaluated
//   parameters               the standard parameters, Y's columns in order: {name, owner, kind,
//                            value (expression of the model's parameters), number}
//   intermediates (symbolic, when Y is written through names; as `derive --format json`)
//                            [{name, value}] in order of definition, with intermediates_automatic,
//                            intermediates_construction ("recursions") and intermediate_groups
//                            [{section (when one opens), part, names}]
//   regressor                Y: one list per row of expression strings (simplified), or of
//                            numbers at the state
//   base (with base)         {count, samples, tolerance,
//                             parameters: [{column, expression, value, exact}] (Y_b's columns),
//                             kept: [names], grouped: [{name, into: [names]}], vanish: [names],
//                             regressor: Y_b, one list per row (expressions, or numbers)}
#pragma once

#include <string>

#include "appell/model/model.hpp"
#include "appell/model/values.hpp"
#include "appell/numeric/regressor_numbers.hpp"
#include "appell/principles/regressor.hpp"

namespace appell::io {

enum class RegressorFormat { Text, Latex, Json };

/// Y of `model` (and with `base` the base parameters and the reduced regressor), readable as
/// `request` asks (whole entries, or through named intermediates: principles::readable_regressor),
/// the numbers with `values` bound. Throws what principles::readable_regressor and
/// num::base_parameters throw (model::ModelError for a model the regressor does not cover).
std::string write_regressor(const model::Model& model, const model::Values& values, bool base,
                            RegressorFormat format,
                            const principles::RegressorRequest& request = {});

/// Y at `state` as numbers (num::regressor_numbers' result `numbers`, with its base parameters
/// when it has them): text (a matrix a block of columns at a time, rows and columns named, π's
/// values under the names) or JSON (above). Throws std::invalid_argument for LaTeX.
std::string write_regressor_numbers(const model::Model& model, const num::RegressorState& state,
                                    const num::RegressorNumbers& numbers, RegressorFormat format);

}  // namespace appell::io
