// Simplification for people: equations of motion rewritten so that an engineer can read them.
//
// Never used by the numeric path, which keeps the shared DAG as formed (DESIGN.md, "Scale").
//
// The method is trigonometric canonicalisation through "Fourier form". Every angle atom θ_k
// found in a sin/cos argument (q1, omega*t, ...) gets a variable z_k = exp(i·θ_k/d_k), d_k being
// the least common denominator of that atom's coefficients. Bottom-up over the DAG (each shared
// node once), every node becomes an expanded Laurent polynomial in the z_k whose coefficients are
// free of trigonometry in those atoms; sin and cos are (z^a ∓ z^-a)/(2i or 2). Because products
// of exponentials only add exponents, identities such as sin² + cos² = 1 and the angle-sum
// formulas hold by construction. At the end z^α and z^-α are paired back into
// cos(α·θ) and sin(α·θ) with real coefficients (angles made of parameters only, a constant tilt
// β, inside the coefficients of the varying ones: cos(β)·cos(φ), not cos(φ − β) + cos(φ + β)),
// and the result is collected: a sum over monomials in the velocities and accelerations, each
// coefficient written as (common factors: parameter monomial, shared cos(q) ...) × (rest), e.g.
// M*l^2*(5/3 + cos(q2)).
//
// A coefficient with sums below (x^2 + y^2 of polar speeds, |e|^2 of a quaternion's) is also
// tried over one denominator with common factors cancelled (GiNaC's normal form), kept when
// shorter: terms that cancel only there vanish.
//
// What cannot be put in Fourier form (tan, exp, sqrt, 1/(2 + cos q), ...) is kept as an opaque
// factor with readable() applied to its arguments. Under a root a polynomial is factored and
// √(x²) becomes |x|, or x when the context says that x is positive (ReadableContext::positive).
//
// Multiple angles are one way of writing a Fourier form back; powers of sin and cos are another
// (m·l²·sin(θ)², not 1/2·m·l²·(1 − cos(2θ))). Each result is written three ways — multiple angles;
// powers of sin and cos of each single angle with sums of angles kept (cos(q1 + q2)); powers
// throughout — each power form with sin² or cos² eliminated angle by angle, whichever is shorter,
// and the shortest (operation_count()) is returned, multiple angles on a tie.
#pragma once

#include <ginac/ginac.h>

#include <cstddef>
#include <string>
#include <vector>

#include "appell/sym/time_functions.hpp"

namespace appell::sym {

/// What readable() needs to know about the symbols of a model. Orders matter: they are the
/// orders in which printers list factors.
struct ReadableContext {
  std::vector<GiNaC::symbol> accelerations;  // ddot(x) of coordinates, then unspecified prescribed
  std::vector<GiNaC::symbol> velocities;     // dot(x), same functions and order
  std::vector<GiNaC::symbol> parameters;     // model order
  std::vector<GiNaC::symbol> coordinates;    // x of the same functions: angles are listed in
                                             // this order (cos(q1 - q2), not cos(q2 - q1))
  std::vector<GiNaC::symbol> positive;       // known to be positive: √(x²) = x, |x| = x

  /// The context of the time functions `names` (coordinates first, then unspecified prescribed
  /// functions) of `functions`, with `parameters` in model order: their symbols of order 0, 1
  /// and 2. Throws std::logic_error for a name `functions` has not declared.
  static ReadableContext for_functions(TimeFunctions& functions,
                                       const std::vector<std::string>& names,
                                       std::vector<GiNaC::symbol> parameters);
};

/// `e` trigonometrically simplified and collected for reading (see the file comment). The result
/// is mathematically equal to `e`; readable(a - b) is 0 when a and b are equal up to polynomial
/// and sin/cos identities. `context` decides how terms are grouped and ordered, not the value.
GiNaC::ex readable(const GiNaC::ex& e, const ReadableContext& context);

/// Every entry made readable (same size as `m`), sharing the work on nodes common to several
/// entries.
GiNaC::matrix readable(const GiNaC::matrix& m, const ReadableContext& context);

/// How much work readable_within() may spend. The Fourier form of a chain's entry can have
/// exponentially many terms (every product of rotations multiplied out); these bounds stop it
/// early, deterministically (counted in terms formed, not in seconds), so that the same input
/// always gives the same output.
struct ReadableBudget {
  std::size_t max_terms = 3000;         // terms of any one subexpression's Fourier form
  std::size_t max_entry_work = 60000;   // terms formed for one entry (what it shares with entries
                                        // made readable before it is free)
  std::size_t max_total_work = 600000;  // terms formed for all entries together
};

/// What became of an entry in readable_within().
enum class EntryForm {
  Readable,    // its readable form
  Smaller,     // as given: the readable form would have had more operations
  OverBudget,  // as given: making it readable would have taken more than the budget
};

/// readable_within()'s result: the entries, in order, and what became of each.
struct BoundedReadable {
  GiNaC::exvector entries;
  std::vector<EntryForm> forms;
  /// Entries left as given, because their readable form was larger (Smaller) or over budget.
  std::size_t count(EntryForm form) const;
};

/// Every entry made readable (sharing the work on common nodes) within `budget`, and never
/// larger than given: an entry whose readable form has more operations (operation_count()) than
/// the entry itself, or whose simplification would exceed the budget, is returned as given. Each
/// entry is mathematically equal to the one given.
BoundedReadable readable_within(const GiNaC::exvector& entries, const ReadableContext& context,
                                const ReadableBudget& budget = {});

}  // namespace appell::sym
