// Verification: the equations of one model by every principle, whether they are the same
// equations, and what each cost (what `appell verify` tabulates).
//
// Every principle (principles::all_methods: Lagrange II, Gibbs–Appell, D'Alembert, Gauss,
// Nielsen) forms M q̈ = f (and, with constraints, A q̈ = b); each is compared with the first,
// Lagrange II, by num::compare: symbolically (the simplified difference of M and f is zero) and
// numerically at random states. Agreement is an equivalence, so agreeing with one reference means
// agreeing with each other. With `independent:` speeds the minimal form M̃ u̇ = f̃ (Gibbs–Appell
// with quasi-accelerations) joins, compared by num::compare: M̃ = BᵀMB, f̃ = Bᵀ(f − Mγ)
// symbolically, and q̈ = B u̇ + γ against the reference's q̈ at consistent, well-conditioned random
// states.
//
// Each row gets one of three verdicts (num::AgreementVerdict): equal (the simplified difference is
// 0 and the numbers agree), agree numerically (the numbers agree at every state and the symbolic
// test, bounded by its budget, was inconclusive or not run) or differ (a witness state where the
// numbers differ by more than that state's conditioning allows). A symbolic difference that did
// not simplify to 0 is never a verdict of its own: simplification within a budget cannot prove
// that something is not zero.
//
// The cost of each row is the seeds' claim made measurable: Gibbs–Appell needs fewer
// differentiations than Lagrange (seed 000).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/numeric/agreement.hpp"
#include "appell/principles/equations.hpp"

namespace appell::num {

struct VerifyOptions {
  /// Random states of the numeric comparison (q, q̇ in [−2, 2], t in [0, 3], a fixed seed).
  std::size_t states = 20;
  /// Largest relative difference max|a − b| / max(1, |a|) that still agrees at a
  /// well-conditioned state; a comparison that solves (the minimal form, the speeds) allows
  /// num::solve_bound(tolerance, κ) at a state whose solved matrices have condition number κ.
  double tolerance = kDefaultTolerance;
  /// The symbolic comparison and the readable sizes (every principle's equations simplified).
  /// Bounded by sym::ReadableBudget and kNormalOperations: over them, a row's symbolic test is
  /// inconclusive. Off (`appell verify --numeric-only`): the numeric agreement alone — what a large
  /// model can afford (the Panda's 9 joints spend about two thirds of verify's time simplifying)
  /// — with every row's symbolic test NotRun, `size_after` 0, and no verdict "equal".
  bool symbolic = true;
};

/// One method of the table: its agreement with the reference and what it cost.
struct VerificationRow {
  /// principles::method_name of the method, or "minimal" for the minimal form.
  std::string method;
  /// The principle; nullopt for the minimal form.
  std::optional<principles::Method> principle;
  /// Equal, agree numerically or differ (num::verdict of the comparison).
  AgreementVerdict verdict = AgreementVerdict::Differ;
  bool symbolic = false;  // the simplified difference from the reference is zero
  SymbolicTest symbolic_test = SymbolicTest::NotRun;
  /// Largest relative difference from the reference over the random states.
  double max_error = 0.0;
  /// What the state of max_error allowed (Agreement::bound): max_error ≤ bound unless the row
  /// differs.
  double bound = 0.0;
  std::size_t states = 0;           // random states compared
  std::size_t ill_conditioned = 0;  // random states drawn again for their conditioning
  /// verdict != Differ.
  bool agrees = false;
  /// Where the equations differ from the reference, e.g. "M(1,2)"; empty unless they differ.
  std::string first_difference;
  /// The state where they differ the most beyond its bound (verdict Differ, when numbers were
  /// compared).
  std::optional<AgreementWitness> witness;
  std::size_t differentiations = 0;  // scalar d/dx and d/dt requested (DerivationCost)
  std::size_t derivative_nodes = 0;  // node-level derivative rules applied
  std::size_t size_before = 0;       // distinct nodes as formed
  std::size_t size_after = 0;        // distinct nodes after principles::simplify
  double derive_seconds = 0.0;       // forming the equations
  double simplify_seconds = 0.0;     // making them readable
};

struct VerificationReport {
  std::string model;  // the model's name
  std::size_t dof = 0;
  /// The reference every row is compared with (the first principle, Lagrange II).
  principles::Method reference = principles::Method::Lagrange;
  VerifyOptions options;
  /// One row per principle in the order of principles::all_methods, then the minimal form's row
  /// when the model lists independent speeds.
  std::vector<VerificationRow> rows;
  std::size_t methods = 0;   // rows of principles (the minimal form not counted)
  bool has_minimal = false;  // the last row is the minimal form's
  /// A model with generalized speeds: two more rows, "speeds-appell" and "speeds-kane", the
  /// equations in the speeds by Gibbs–Appell and Kane (principles::speed_form), each compared
  /// with the reference projected (num::compare). With a quaternion frame there are no
  /// equations in the coordinates: then these are the only rows, speeds-appell the reference
  /// (speeds_only).
  bool has_speeds = false;
  bool speeds_only = false;
  bool all_agree = false;  // no row differs
  /// "<method> differs from <reference> in <where>" for the first row whose verdict is differ,
  /// e.g. "gauss differs from lagrange in f(2)" or "minimal differs from lagrange in ..."; empty
  /// when none does.
  std::string first_disagreement;
};

/// Derives `model`'s equations by every principle (and its minimal form with independent
/// speeds, its equations in its generalized speeds with speeds), simplifies each to measure its
/// readable size, and compares each with the first (num::compare; the first
/// row compares Lagrange II with itself), giving each row its verdict.
/// Throws std::invalid_argument when options.states is 0 (no numbers, no verdict),
/// model::ModelError at "tolerance" when options.tolerance is not a finite number > 0 (as the
/// integrators' rtol and atol), and model::ModelError for a model a principle cannot handle (as
/// principles::derive and principles::minimal_form). A disagreement is a result (all_agree false,
/// first_disagreement), not an exception.
VerificationReport verify(std::shared_ptr<const model::Model> model,
                          const VerifyOptions& options = {});

}  // namespace appell::num
