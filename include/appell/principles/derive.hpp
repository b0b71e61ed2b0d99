// Forming the equations of motion of a model by a chosen principle.
#pragma once

#include <memory>

#include "appell/model/model.hpp"
#include "appell/principles/equations.hpp"

namespace appell::principles {

/// M q̈ = f by `method`, unsimplified (the numeric path). Throws model::ModelError for models
/// the method cannot handle.
Equations derive(std::shared_ptr<const model::Model> model, Method method);

/// Gibbs–Appell equations of order m ≥ 1 (higher_order_gibbs_appell.hpp); order 1 = derive().
Equations derive_gibbs_appell(std::shared_ptr<const model::Model> model, int order);

/// The same equations made readable for people (sym::readable), with the simplification's cost
/// recorded in cost.size_after and cost.simplify_seconds.
Equations simplify(const Equations& equations);
/// The readable form of expressions of a model (coordinates and unspecified prescribed functions
/// as functions of t), all in one column so that what they share is simplified once. The step
/// shared by simplify() here and for the minimal form.
GiNaC::exvector readable_entries(const model::Model& model, const GiNaC::exvector& entries);

}  // namespace appell::principles
