// When constraints count as redundant, and when redundant constraints count as inconsistent.
//
// Over-constrained mechanisms (Bricard's, a spatial four-bar) have constraint Jacobians of
// deficient row rank on the whole of their motion. Exactly on the constraints one singular value
// of A is 0 for each redundant constraint; at a state the integrator has moved off them by δ (its
// local error, or CVODE's difference-quotient increments of about √ε·|y| when it forms the
// Jacobian) that singular value is of the order of δ·|∂A/∂q|, and the redundant rows of A q̈ = b
// disagree by as much. A rank decided at rounding level then counts the redundant constraint as
// independent: the minimum-norm corrections lose every direction the mechanism can move in (the
// velocity projection stops it) and the multipliers grow like 1/δ. So both decisions are made with
// tolerances of the size of the state's error, relative to the matrix's largest singular value
// (rank) and to the sizes of the terms of the right-hand side (consistency).
#pragma once

namespace appell::num {

/// Relative tolerances for a constraint Jacobian J (m×n) and its equations J x = r.
struct ConstraintTolerances {
  /// Directions whose singular value (a pivot of a column-pivoted QR) is at most rank·‖J‖ count
  /// as null: the constraints there are combinations of the others and the solution leaves them
  /// out (minimum-norm least squares).
  double rank = 1e-5;
  /// The residual that leaving them out leaves, ‖J x − r‖, must be at most consistency times the
  /// size of the terms r is made of; more is inconsistency (redundant constraints that ask for
  /// different motions), not drift.
  double consistency = 1e-8;
};

/// The tolerances for a simulation at CVODE's relative and absolute tolerances (rtol, atol > 0):
/// both grow with rtol + atol (the state's error the integrator allows, for coordinates of order
/// one), never below what the difference-quotient Jacobian's increments cause (about 1e-8 of the
/// state) and never above 1e-3, so that constraints that disagree by more than a thousandth stay
/// an error whatever the tolerances.
ConstraintTolerances constraint_tolerances_for(double rtol, double atol);

}  // namespace appell::num
