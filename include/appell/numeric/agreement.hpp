// Whether two sets of equations of one model are the same equations.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "appell/principles/equations.hpp"

namespace appell::num {

/// What the symbolic comparison showed.
enum class SymbolicTest {
  NotRun,        // not asked for
  Zero,          // every simplified difference is 0: the equations are proved equal
  Inconclusive,  // some difference did not simplify to 0 within the budget (sym::ReadableBudget,
                 // and normal() only on expressions of at most kNormalOperations operations):
                 // that proves nothing either way, since a zero may be written in a form the
                 // simplification does not reduce
};

/// Differences of a symbolic comparison with more operations (sym::operation_count) than this are
/// not put over a common denominator (GiNaC's normal(), whose cost has no bound of its own: a
/// bicycle's minimal form spent 900 s and 5.3 GB in it); their symbolic test is Inconclusive.
inline constexpr std::size_t kNormalOperations = 4000;

/// A state where two sets of equations differ by more than the comparison allows there.
struct AgreementWitness {
  double t = 0.0;
  std::vector<double> q, qd;  // the coordinates and their rates (for the minimal form and the
                              // speeds, the rates of the state's speeds: B u + β, W u)
  std::string entry;          // "f(2)", "ddot(x) of the minimal form", "M(1,1) in the speeds"
  double reference = 0.0;     // the entry by the first set of equations (the reference)
  double other = 0.0;         // by the second
  double error = 0.0;         // |reference − other| relative to the state's scale
  double bound = 0.0;         // the largest relative difference the state allows
};

/// The outcome of a comparison of two sets of equations.
struct Agreement {
  /// symbolic_test == SymbolicTest::Zero: the readable differences of M, f (and A, b) are all 0.
  bool symbolic = false;
  SymbolicTest symbolic_test = SymbolicTest::NotRun;
  /// With SymbolicTest::Inconclusive, the first entry whose difference was not simplified to 0.
  std::string symbolic_unresolved;
  double max_numeric_error = 0.0;  // over the random states, relative (see compare()); inf when
                                   // the sizes differ or no state could be drawn
  /// The largest relative difference allowed at the state of max_numeric_error (so that
  /// max_numeric_error ≤ bound when the numbers agree): the tolerance, or for a comparison that
  /// solves (the minimal form, the speeds) max(tolerance, kRoundingFactor·κ·ε) (solve_bound()).
  double bound = 0.0;
  std::size_t states = 0;  // states compared numerically
  /// Random states drawn again because a matrix to be solved there had a reciprocal condition
  /// number below kMinReciprocalCondition.
  std::size_t ill_conditioned = 0;
  /// Where the numbers differ beyond the bound: the witness's entry, or "number of coordinates or
  /// constraints", or "no state where both forms are regular"; empty when they agree.
  std::string first_difference;
  /// The state where the difference exceeds its bound the most; none when the numbers agree.
  std::optional<AgreementWitness> witness;
};

/// A comparison's verdict (num::verdict()); num::Verdict is a claim's (claim_check.hpp).
enum class AgreementVerdict {
  Equal,             // proved symbolically (the simplified difference is 0), and the numbers agree
  AgreeNumerically,  // the numbers agree at every state; the symbolic test was inconclusive or
                     // not run
  Differ,            // the numbers differ beyond the bound (a witness), or the sizes differ, or
                     // no state could be compared and the symbolic test did not prove equality
};

/// "equal", "agree numerically" or "differ".
std::string verdict_name(AgreementVerdict verdict);

/// The verdict of `agreement`: Differ with a witness; else Equal when the symbolic test is Zero;
/// else Differ when first_difference is set (different sizes, no state compared); else
/// AgreeNumerically. A symbolic test that is not Zero never makes a Differ on its own.
AgreementVerdict verdict(const Agreement& agreement);

/// Random states of a comparison that solves a linear system are drawn again when a matrix to be
/// solved (equilibrated by its diagonal) has a reciprocal condition number σ_min/σ_max below this:
/// near a singular M (a rolling disk's reduced M at cos θ → 0) the solution carries κ·ε of
/// rounding, and would look different. After 10·states draws every regular state is compared,
/// held to its own bound, so that a model ill-conditioned everywhere still gets numbers.
inline constexpr double kMinReciprocalCondition = 1e-10;
/// How many times κ·ε of rounding a solve-based comparison allows (the solves, and the entries'
/// own rounding, each contribute a few ε·κ).
inline constexpr double kRoundingFactor = 1e3;

/// The largest relative difference allowed at a state whose solved matrices have condition number
/// `condition`: max(tolerance, kRoundingFactor · condition · ε).
double solve_bound(double tolerance, double condition);

/// The default `tolerance` of the comparisons: the largest relative difference that agrees at a
/// well-conditioned state.
inline constexpr double kDefaultTolerance = 1e-12;

/// Whether `b` is the same equations as `a` (the reference), whatever their forms
/// (principles::Form):
///
/// - both in the coordinates: symbolically (the difference simplified by principles::simplify,
///   within its budget, to zero) and numerically at `states` random states with q, q̇ in [−2, 2]
///   and t in [0, 3] (fixed seed, so reruns agree), parameters at their defaults and inputs 0:
///   every entry of M, f, A and b, each difference relative to max(1, the largest |entry| of `a`
///   at that state), allowed up to `tolerance` (nothing is solved, so conditioning does not
///   enter). Equations of a different size (n or m) are reported as different (first_difference
///   "number of coordinates or constraints"), not thrown.
/// - `a` in the coordinates with multipliers, `b` its minimal form: whether the minimal form
///   gives the same motion. Symbolically, M̃ = BᵀMB and f̃ = Bᵀ(f − Mγ) with the dependent speeds
///   of f replaced (the projection of M q̈ = f + Aᵀλ on the null space of A, which B spans);
///   numerically, q̈ = B u̇ + γ against the multiplier form's q̈ at random states (q, u in [−2, 2];
///   the dependent speeds from the constraints), relative to max(1, max |q̈|), allowed up to
///   solve_bound(tolerance, κ) with κ the larger condition number of M̃ and M there (each
///   equilibrated by its diagonal). A state where either form is singular, or (within the first
///   10·states draws) κ > 1/kMinReciprocalCondition, is drawn again, up to 20·states draws in all
///   (when none could be compared, first_difference is "no state where both forms are regular").
///   first_difference names "ddot(x) of the minimal form".
/// - `a` in the coordinates, `b` in the model's speeds: whether `b` is `a` projected (a model with
///   declared speeds and no quaternion): M̃ = WᵀMW and f̃ = Wᵀ(f − Mγ) with q̇ = W u in f, with
///   constraints Ã = AW and b̃ = b − Aγ; numerically the same at random states (q, u in [−2, 2]),
///   every entry relative to max(1, the largest |entry| of M̃ and f̃ there), allowed up to
///   solve_bound(tolerance, κ(M̃)), ill-conditioned states drawn again as above.
///   first_difference names "M(k,l) in the speeds", "f(k) in the speeds", "A(i,l) in the speeds"
///   or "b(i) in the speeds".
/// - both in the same speeds (two principles' in a model's speeds, or two minimal forms): the
///   differences of M̃ and f̃ (and Ã, b̃) simplified to zero, and entry by entry at random states
///   (up to `tolerance`: nothing is solved). A different size is reported ("number of speeds or
///   constraints").
///
/// Any other pair of forms throws std::invalid_argument. Throws model::ComputationError, naming
/// the entry and the state, when an entry is not a finite number at a random state where nothing
/// is solved (an overflow or a pole: no verdict is possible), and what CompiledEquations throws.
Agreement compare(const principles::Equations& a, const principles::Equations& b,
                  std::size_t states = 20, bool symbolic = true,
                  double tolerance = kDefaultTolerance);

class CompiledEquations;

/// The numeric half of compare() on equations already compiled: a reference compiled once and
/// compared with several others (num::verify without the symbolic comparison) compiles each set
/// of equations once. The symbolic test is NotRun. Throws as compare() for an entry that is not
/// finite.
Agreement compare_numerically(const CompiledEquations& a, const CompiledEquations& b,
                              std::size_t states = 20, double tolerance = kDefaultTolerance);

}  // namespace appell::num
