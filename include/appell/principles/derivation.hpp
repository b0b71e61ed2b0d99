// The equations a person asks to read: M q̈ = f by a principle (or Gibbs–Appell of order m, or the
// minimal form in the independent speeds), with given numbers substituted, made readable or left
// as formed, and on request what stands beside them: Gauss's compulsion Z (seed 003 eq. 11) or
// the inertial forces of a carrier frame's motion (seed 003 eqs. 31–34) in the form of the
// relative-motion equations that belongs to the principle (seed 003 eqs. 55–57).
//
//   principles::DerivationRequest request;
//   request.method = principles::Method::Gauss;
//   request.compulsion = true;
//   request.values.set("m", 2.0);
//   const principles::Derivation d = principles::derive(model, request);
//   std::cout << io::write_text(d);  // io/derivation_writer.hpp
//
// The numeric path never goes through here: it derives (derive.hpp) and binds values at
// evaluation (model::bind), keeping the shared DAG as formed.
#pragma once

#include <ginac/ginac.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/model/values.hpp"
#include "appell/principles/coriolis_split.hpp"
#include "appell/principles/equations.hpp"
#include "appell/principles/minimal_form.hpp"
#include "appell/principles/speed_form.hpp"
#include "appell/sym/intermediates.hpp"
#include "appell/sym/readable.hpp"

namespace appell::principles {

/// The form of the equations of relative motion (seed 003): Appell's ∂S_r/∂q̈_s (eq. 55),
/// Lagrange's d/dt ∂T_r/∂q̇_s − ∂T_r/∂q_s (eq. 56), Nielsen's ∂Ṫ_r/∂q̇_s − 2 ∂T_r/∂q_s (eq. 57),
/// each = Q_s − ∂(Π_o + Π_ω)/∂q_s + Q^ω̇_s + Γ_s.
enum class RelativeForm { Appell, Lagrange, Nielsen };

/// The relative-motion form of a principle: Gibbs–Appell → Appell, Lagrange → Lagrange,
/// Nielsen → Nielsen; nullopt for the others (D'Alembert, Gauss).
std::optional<RelativeForm> relative_form(Method method);
/// "appell", "lagrange", "nielsen".
std::string relative_form_name(RelativeForm form);

/// What to form.
struct DerivationRequest {
  Method method = Method::GibbsAppell;
  /// m ≥ 1: Gibbs–Appell equations of order m (M q⁽ᵐ⁺¹⁾ = f); m > 1 only with GibbsAppell.
  int order = 1;
  /// The minimal form in the model's independent speeds (Form::Minimal) instead of
  /// M q̈ = f (+ Aᵀλ): only with GibbsAppell, order 1, and a model with `independent:` speeds.
  bool minimal = false;
  /// Made readable for people (simplify(), sym::readable) or left as formed.
  bool readable = true;
  /// Numbers substituted into everything formed (see with_values()); the names model::bind
  /// accepts. Expressions of t (Values::drive) are not substituted here.
  model::Values values;
  /// Also Gauss's compulsion Z: only with Method::Gauss.
  bool compulsion = false;
  /// Also the inertial forces of the carrier frame: only for a model with `relative_to` and a
  /// method that has a relative-motion form (relative_form()).
  bool inertial_forces = false;
  /// Also the split M q̈ + C q̇ + g = Q (coriolis_split.hpp): only for equations of order 1 in the
  /// coordinates (no minimal form, no generalized speeds).
  bool split = false;
  /// The equations written through named intermediates (sym::named_intermediates; each
  /// definition and entry then made readable where that is shorter) instead of simplified whole.
  bool intermediates = false;
  /// A readable request switches to named intermediates by itself when the equations as formed
  /// have more than this many distinct nodes (DerivationCost::size_before), or when an entry's
  /// readable form is over the simplification budget (sym::ReadableBudget): simplified whole they
  /// would take long and print pages. 0: never.
  std::size_t intermediates_above = 1500;
};

/// How the named intermediates were found.
enum class IntermediateConstruction {
  /// The common subexpressions of M and f as formed (sym::named_intermediates: z1, z2, ...).
  CommonSubexpressions,
  /// The recursions over the frame tree, each quantity named after its frame (Robotran's and
  /// MotionGenesis's way): ω, α and the origin's acceleration root to leaves at q̈ = 0, the
  /// force and moment each subtree needs leaves to root (f), composite bodies and the wrench a
  /// unit q̈_j needs carried to the root (M). Only for Gibbs–Appell's and D'Alembert's (Kane's)
  /// equations of a tree without constraints, carrier frame or flexible body; always checked
  /// against the equations as formed before it is used.
  Recursions,
};
/// "common subexpressions" or "recursions".
std::string construction_name(IntermediateConstruction construction);

/// Consecutive intermediates that are one quantity (the three components of a frame's ω, the six
/// of a composite inertia), printed on one line.
struct IntermediateGroup {
  std::string section;  // non-empty: a section starts with this group, and this says what it holds
  std::string part;     // what the quantity belongs to ("link3 (frame 3)"), printed when it changes
  std::size_t first = 0, count = 0;  // intermediates[first, first + count)
};

/// The names in terms of which a derivation's equations are written (DerivationRequest::
/// intermediates), defined in order, each in terms of those before it.
struct IntermediateForm {
  std::vector<sym::Intermediate> intermediates;
  IntermediateConstruction construction = IntermediateConstruction::CommonSubexpressions;
  /// With Recursions: the intermediates grouped, in order, every one in exactly one group;
  /// empty with CommonSubexpressions (each is its own line).
  std::vector<IntermediateGroup> groups;
  /// With CommonSubexpressions for equations of M q̈ = f: why the recursions were not used ("the
  /// model has constraints", ...); empty otherwise.
  std::string recursions_not_used;
  bool automatic = false;       // chosen by size, or because entries were over budget
  std::size_t threshold = 0;    // DerivationRequest::intermediates_above, when chosen by size
  std::size_t over_budget = 0;  // entries whose readable form was over the budget
};

/// The inertial forces of the carrier frame's motion, named and in the order they are shown:
/// S_r (Appell's form only), T_r, Tdot_r (Nielsen's form only), Pi_o, Pi_omega, then
/// Q_omegadot_<q> and Gamma_<q> for each coordinate q in model order (seed 003 eqs. 31–34;
/// relative_motion.hpp).
struct InertialForceTerms {
  std::string carrier;  // Model::relative_to
  RelativeForm form = RelativeForm::Lagrange;
  std::vector<std::pair<std::string, GiNaC::ex>> terms;
};

/// What derive(model, request) formed.
struct Derivation {
  std::shared_ptr<const model::Model> model;
  /// The equations: in the model's speeds (Form::Speeds) for a model with generalized speeds
  /// (Model::has_speeds()), the minimal form (Form::Minimal) when request.minimal, M q̈ = f
  /// (+ Aᵀλ) in the coordinates otherwise. Always set by derive().
  std::optional<Equations> equations;
  std::optional<GiNaC::ex> compulsion;                // Z, when request.compulsion
  std::optional<InertialForceTerms> inertial_forces;  // when request.inertial_forces
  /// When request.split: formed from the equations as formed, the given numbers substituted,
  /// each entry readable when request.readable (sym::readable_within: an entry whose readable
  /// form is larger or over the budget stays as formed).
  std::optional<CoriolisSplit> split;
  /// With the split and request.readable: whether split_residual() simplified to zero within
  /// sym::readable_within's budget (true: the split is proved to reproduce f; false: not proved
  /// within the budget, which is no disproof: then it was checked at split_states_checked
  /// numeric states instead, and derive() throws model::ComputationError if it missed there).
  std::optional<bool> split_proved;
  std::size_t split_states_checked = 0;
  /// When the equations (or the minimal form) are written through named intermediates.
  std::optional<IntermediateForm> named;
};

/// `written` (Derivation::equations when Derivation::named is set: M and f in terms of the names)
/// with every name put back, in reverse order of definition: expressions of the model's symbols
/// again, to evaluate (num::CompiledEquations) or compare what was printed. The DAG stays shared:
/// each name's value is substituted once.
Equations with_names_put_back(const Equations& written, const IntermediateForm& named);

/// Forms what `request` asks for, in this order: the equations (derive(), derive_gibbs_appell()
/// or minimal_form()), the given numbers substituted (with_values()), made readable when
/// request.readable (simplify(); Z and each inertial-force term by sym::readable on its own), or
/// written through named intermediates (request.intermediates, or automatically beyond
/// request.intermediates_above nodes when readable; Derivation::named).
///
/// Throws model::ModelError, before anything is formed, located at the request's field that is
/// at fault ({"inertial_forces"}, {"compulsion"}, {"order"}, {"method"}, {"minimal"}; line and
/// column 0) for: inertial forces of a model without `relative_to` (naming the model); the
/// compulsion with another method than Gauss (naming the method); order < 1 (naming it); order
/// > 1 with another method than Gibbs–Appell (naming the method); the split ({"split"}) of a
/// model with generalized speeds, with the minimal form or of order > 1; inertial forces with a
/// method without a relative-motion form (naming the method); the minimal form of a model without
/// independent speeds (naming its file, or its name when built in code), by another method
/// (naming it) or of order > 1 (naming it). Then whatever forming throws (derive(),
/// minimal_form(): ModelError for models a method cannot handle) and model::bind's ModelError
/// for a bad value. A model with generalized speeds is formed in them (speed_form()): then the
/// method must be gibbs-appell or dalembert ({"method"}), the order 1 ({"order"}) and no minimal
/// form asked ({"minimal"});
/// for a bad value, located where the value was given.
/// (Name the request's type: derive(model, {}) is derive(model, Method{}), Lagrange's equations.)
Derivation derive(std::shared_ptr<const model::Model> model, const DerivationRequest& request);

/// The printing context of a model's expressions: its coordinates, then its unspecified
/// prescribed functions (their dot and ddot symbols), and its parameters in model order — the
/// context every readable form of the model uses.
sym::ReadableContext readable_context(const model::Model& model);

/// The numbers of `values` that were given (model::BoundValues::given: parameter overrides and
/// constant values of inputs and unspecified prescribed functions, nothing defaulted), symbol ->
/// number. A whole number below 10¹⁵ in magnitude becomes an exact integer, so that equations
/// printed after substitution keep rational coefficients (1/2*m, not 0.5*m). Throws what
/// model::bind throws.
GiNaC::exmap printed_numbers(const model::Model& model, const model::Values& values);

/// The equations with printed_numbers() substituted into every entry (Equations::entries(): M, f,
/// the speed map and the constraint rows alike); unchanged when `values` is empty (then nothing is
/// bound). Throws what model::bind throws.
Equations with_values(const Equations& equations, const model::Values& values);

}  // namespace appell::principles
