// The comparisons of equations in speeds (internal: num::compare chooses them by the forms).
#pragma once

#include <cstddef>

#include "appell/numeric/agreement.hpp"

namespace appell::num::detail {

/// Whether the equations in a model's speeds (principles::Form::Speeds) are those in its
/// coordinates projected: symbolically, M̃ = WᵀMW and f̃ = Wᵀ(f − Mγ) with q̇ = W u in f (with
/// constraints Ã = AW, b̃ = b − Aγ); numerically the same at random states (q, u in [−2, 2], t in
/// [0, 3]), every entry relative to max(1, the largest |entry| of M̃ and f̃ there), allowed up to
/// solve_bound(tolerance, κ(M̃)). first_difference names "M(k,l) in the speeds", "f(k) in the
/// speeds", "A(i,l) in the speeds" or "b(i) in the speeds".
Agreement compare_with_speeds(const principles::Equations& coordinates,
                              const principles::Equations& speeds, std::size_t states,
                              bool symbolic, double tolerance);

/// Two sets of equations in the same velocities (two principles' in a model's speeds, or two
/// minimal forms): the differences of M̃ and f̃ (and Ã, b̃) simplified to zero, and entry by
/// entry at random states (allowed up to `tolerance`: nothing is solved to compare them).
Agreement compare_in_speeds(const principles::Equations& a, const principles::Equations& b,
                            std::size_t states, bool symbolic, double tolerance);

}  // namespace appell::num::detail
