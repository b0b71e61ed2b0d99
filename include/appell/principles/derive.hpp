// Forming the equations of motion of a model by a chosen principle.
#pragma once

#include <memory>

#include "appell/model/model.hpp"
#include "appell/principles/equations.hpp"

namespace appell::principles {

/// M q̈ = f by `method` (M n×n, f n×1, n = model->dof(), rows and columns in coordinate order;
/// with constraints also A m×n and b m×1 of A q̈ = b, m = constraints), unsimplified (the
/// numeric path), with its cost. Every method gives the same equations up to simplification.
/// Throws model::ModelError (require_coordinates) for a model without coordinates.
Equations derive(std::shared_ptr<const model::Model> model, Method method);

/// Throws model::ModelError for a model without coordinates (flexible bodies on prescribed frames
/// only): it has no rigid-body equations, equilibria or trajectories. Located at its first
/// flexible body (else at the model's file, Model::source, no line; "" when built in code). Every
/// computation on the rigid equations calls it first. Throws as well, located at the frame, for
/// a model with a frame turned by rot_quat: its equations exist only in the speeds
/// (speed_form.hpp).
void require_coordinates(const model::Model& model);

/// Gibbs–Appell equations of order m ≥ 1 (higher_order_gibbs_appell.hpp), M q⁽ᵐ⁺¹⁾ = f⁽ᵐ⁾;
/// order 1 = derive(model, Method::GibbsAppell). Throws model::ModelError for a model without
/// coordinates (as derive()) or with constraints when m > 1 (at the first constraint), and
/// std::invalid_argument when m < 1.
Equations derive_gibbs_appell(std::shared_ptr<const model::Model> model, int order);

/// The same equations made readable for people (sym::readable, mathematically equal), with
/// simplified = true and the simplification's cost recorded in cost.size_after and
/// cost.simplify_seconds. M, f, A and b are simplified together.
Equations simplify(const Equations& equations);
/// The readable form of expressions of a model (coordinates and unspecified prescribed functions
/// as functions of t), all in one column so that what they share is simplified once; the result
/// has entries.size() entries in the same order. The step shared by simplify() here and for the
/// minimal form.
GiNaC::exvector readable_entries(const model::Model& model, const GiNaC::exvector& entries);

}  // namespace appell::principles
