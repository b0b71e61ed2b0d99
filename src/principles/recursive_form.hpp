// The equations of a tree written through its recursions (internal to principles): what
// `derive --intermediates` prints for Gibbs–Appell's and D'Alembert's (Kane's) equations.
//
// Both principles project m a − F on the partial velocities, Σ (m a − F)·∂v/∂q̇_j +
// (Iα + ω × Iω − M)·∂ω/∂q̇_j (∂a/∂q̈_j = ∂v/∂q̇_j for Gibbs–Appell's ∂S/∂q̈_j), and that sum is
// what the recursions over the frame tree compute body by body (DESIGN.md, "Generated code"):
//   root to leaves   ω_k = Rᵀ ω_p + ω_rel,  α_k = Rᵀ α_p + ω̇_rel + (Rᵀ ω_p) × ω_rel,
//                    a_k = Rᵀ (a_p + α_p × t + ω_p × (ω_p × t) + 2 ω_p × ṫ + ẗ), at q̈ = 0,
//                    with gravity as an upward acceleration of the world;
//   leaves to root   F_k, N_k: the force and the moment about frame k's origin that its subtree
//                    needs, m a − (gravity) and the children's carried over; f_j = Q_j − τ_j;
//   mass matrix      composite bodies (mass, first moment, inertia about the origin) and the
//                    wrench a unit q̈_j needs, carried to the root: M_ij = S_iᵀ (that wrench).
// Each quantity is named after its frame (omega_3x, F_3y, J_3xz, ...) and defined once in terms
// of those before it; what nothing uses is dropped.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "appell/principles/derivation.hpp"

namespace appell::principles::detail {

/// `formed` (the equations by Gibbs–Appell or D'Alembert, order 1, with request.values already
/// substituted) written through the recursions: M and f in terms of `form.intermediates`,
/// grouped in `form.groups` (construction Recursions). Nullopt, with the reason in `why`, when
/// the model is not a tree the recursions cover (constraints, a carrier frame, flexible bodies,
/// generalized speeds, another method or order) or when the recursions disagree with `formed`
/// at two random states (they never should; the caller then names common subexpressions).
std::optional<Equations> through_recursions(const Equations& formed,
                                            const DerivationRequest& request, bool readable,
                                            IntermediateForm& form, std::string& why);

}  // namespace appell::principles::detail
