// Whether two sets of equations of one model are the same equations.
#pragma once

#include <cstddef>
#include <string>

#include "appell/principles/equations.hpp"
#include "appell/principles/minimal_form.hpp"
#include "appell/principles/speed_form.hpp"

namespace appell::num {

/// The outcome of a comparison of two sets of equations.
struct Agreement {
  /// The readable differences of M, f (and A, b) are all 0; stays false when the symbolic
  /// comparison was not asked for.
  bool symbolic = false;
  double max_numeric_error = 0.0;  // over the random states, relative (see compare()); inf when
                                   // the sizes differ or no state could be drawn
  std::size_t states = 0;          // states compared numerically
  /// The first entry that differs symbolically ("M(1,2)", "f(2)", "A(1,3)", "b(1)"; 1-based),
  /// else the one with the largest numeric difference when that exceeds 1e-12; empty otherwise.
  std::string first_difference;
};

/// Compares symbolically (the difference simplified by principles::simplify to zero) and
/// numerically at `states` random states with q, q̇ in [−2, 2] and t in [0, 3] (fixed seed, so
/// reruns agree), parameters at their defaults and inputs 0: every entry of M, f, A and b, each
/// difference relative to max(1, the largest |entry| of `a` at that state). Equations of a
/// different size (n or m) are reported as different (first_difference "number of coordinates
/// or constraints"), not thrown. Throws model::ComputationError, naming the entry and the state,
/// when an entry is not a finite number at a random state (an overflow or a pole: no verdict is
/// possible), and what CompiledEquations throws.
Agreement compare(const principles::Equations& a, const principles::Equations& b,
                  std::size_t states = 20, bool symbolic = true);

class CompiledEquations;

/// The numeric half of compare() on equations already compiled: a reference compiled once and
/// compared with several others (num::verify without the symbolic comparison) compiles each set
/// of equations once. `symbolic` stays false; first_difference names the entry with the largest
/// difference when it exceeds 1e-12. Throws as compare() for an entry that is not finite.
Agreement compare_numerically(const CompiledEquations& a, const CompiledEquations& b,
                              std::size_t states = 20);

/// Whether the minimal form gives the motion of the multiplier form (`multipliers`, of the same
/// model): symbolically, M̃ = BᵀMB and f̃ = Bᵀ(f − Mγ) with the dependent speeds of f replaced
/// (the projection of M q̈ = f + Aᵀλ on the null space of A, which B spans); numerically, q̈ =
/// B u̇ + γ against the multiplier form's q̈ at `states` random states (q, u in [−2, 2], t in
/// [0, 3]; the dependent speeds from the constraints), relative to max(1, max |q̈|). A state where
/// either form is singular is drawn again, up to 20·states draws in all (then first_difference
/// is "no state where both forms are regular").
Agreement compare_minimal(const principles::Equations& multipliers,
                          const principles::MinimalEquations& minimal, std::size_t states = 20,
                          bool symbolic = true);

/// Whether the equations in a model's speeds are those in its coordinates projected (a model
/// with declared speeds and no quaternion): symbolically, M̃ = WᵀMW and f̃ = Wᵀ(f − Mγ) with
/// q̇ = W u in f; numerically the same at `states` random states (q, u in [−2, 2], t in [0, 3]),
/// every entry relative to max(1, the largest |entry| of M̃ and f̃ there). A state where either
/// form is singular or not finite is drawn again, up to 20·states draws ("no state where both
/// forms are regular"). first_difference names "M(k,l) in the speeds" or "f(k) in the speeds".
Agreement compare_speeds(const principles::Equations& coordinates,
                         const principles::SpeedEquations& speeds, std::size_t states = 20,
                         bool symbolic = true);

/// Whether two sets of equations in the same model's speeds (Gibbs–Appell and Kane) are equal:
/// the differences of M̃ and f̃ simplified to zero, and at random states as above.
Agreement compare_speeds(const principles::SpeedEquations& a, const principles::SpeedEquations& b,
                         std::size_t states = 20, bool symbolic = true);

}  // namespace appell::num
