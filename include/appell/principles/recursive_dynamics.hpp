// The dynamics of a tree of frames by the recursions over it, as a straight-line program: never
// through the formed equations M and f.
//
// For a model of frames, bodies, particles and loads (no carrier frame, no flexible body;
// constraints are left out: the tree's own dynamics) each frame's own motion in its parent
// (rotation, translation, their rates, ∂ω/∂q̇ and ∂t/∂q) is formed once in GiNaC, small and local,
// and everything else is built over sym::ScalarProgram nodes (DESIGN.md, "Generated code"):
//   inverse     Newton–Euler: τ_j = ∂P/∂u_j of the virtual power
//               P = Σ (m a − F)·v(u) + (Iε + ω×Iω − M)·ω(u), the backward force sweep (O(n));
//   bias        the same at q̈ = 0: C(q, q̇) q̇ + g(q) − Q_loads = −f;
//   gravity     at rest under gravity alone: g(q);
//   inertial    the accelerations' part linear in q̈ alone (no velocities, no rates of prescribed
//               motion, no gravity, no loads): exactly M(q, t) q̈, so that M's columns cost n
//               passes of O(n) and no symbolic M is formed;
//   mass        composite rigid bodies, M_ij = S_iᵀ X I^c S_j (O(n·depth) nodes);
//   energies    T = Σ ½ m |v_c|² + ½ ω·Iω and V of gravity, springs and potential loads;
//   forward     the articulated-body recursion (Featherstone's ABA, O(n)) where every coordinate
//               moves one frame and no frame more than one coordinate; M = Lᵀ D L otherwise.
// Constants fold as the nodes are built, so the zeros and ones of a model vanish; the program is
// the same every run (node indices in construction order).
//
// A model with generalized speeds u (q̇ = W(q, t) u, MODEL_FORMAT.md "Speeds") runs in u instead:
// each local motion is formed with every d/dt followed by q̇ = W u (a quaternion frame's ω is its
// speeds w, as kin::Rates::Speeds forms it), its partials are ∂ω/∂u_k and ∂ṫ/∂u_k, a
// coordinate's generalized force Q_j acts as W_jk Q_j on speed k, and u̇ takes q̈'s place: n is
// then p, the number of speeds, and the outputs are M̃ u̇ − f̃, −f̃, M̃ ... of
// principles::speed_form's equations. The articulated bodies need each speed to move one frame and
// no frame to move by more than one (a quaternion's three do not: M̃ = Lᵀ D L there).
#pragma once

#include <ginac/ginac.h>

#include <memory>
#include <string>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/sym/scalar_program.hpp"

namespace appell::principles {

/// Why the recursions do not cover `model` ("relative motion in a carrier frame", "flexible
/// bodies", a body or load that moves in its frame); empty when they do. Constraints are covered:
/// the recursions give the tree's M and f, and num::Dynamics adds the constraints' rows
/// (principles/constraint_rows.hpp) beside them; so are generalized speeds (the recursions in u,
/// the constraints' rows in u too).
std::string recursions_do_not_cover(const model::Model& model);

/// The same for what the tree's programs alone must cover (codegen, the JIT, the derivatives of
/// the dynamics, the regressor, inverse dynamics by Newton–Euler): "generalized speeds" (those are
/// written in q̇ and q̈), recursions_do_not_cover(), or "constraints", which those programs have
/// no rows for.
std::string recursions_alone_do_not_cover(const model::Model& model);

/// What the recursions build, and from what.
struct RecursiveDynamics {
  sym::ScalarProgram program;
  std::size_t n = 0;
  std::vector<sym::Node> inverse;        // τ = M q̈ − f
  std::vector<sym::Node> bias;           // −f: C(q, q̇) q̇ + g(q) − Q_loads
  std::vector<sym::Node> forcing;        // f
  std::vector<sym::Node> gravity;        // generalized gravity g(q)
  std::vector<sym::Node> inertial;       // M q̈ (only with RecursionOptions::inertial)
  std::vector<sym::Node> mass;           // n×n row-major, symmetric (only with mass_matrix)
  std::vector<sym::Node> forward;        // q̈ = M⁻¹ (f + Q_extra); empty when not built
  std::string forward_method;            // "articulated bodies" or "M = L^T D L"
  std::vector<sym::Node> pivots;         // D of the forward solve (positive where M is)
  std::vector<sym::Node> diagonal;       // the scale of each pivot's test
  sym::Node kinetic = 0, potential = 0;  // T and V (only with RecursionOptions::energies)
};

/// How the program reads the model's symbols.
struct RecursionInputs {
  /// Applied to the model's expressions first (e.g. functions driven by expressions of t).
  GiNaC::exmap substitution;
  /// Every symbol the model's expressions hold after the substitution, except q̈ (t, q, q̇,
  /// parameters, inputs and their derivatives ...), and the node each reads as: a variable of
  /// the program, or a constant (then everything it reaches folds).
  std::vector<GiNaC::symbol> symbols;
  std::vector<sym::Node> nodes;
  /// The nodes of q̈ and of the extra generalized forces of forward dynamics (n each).
  std::vector<sym::Node> qdd, extra;
};

/// Which outputs to build besides inverse, bias, forcing and gravity.
struct RecursionOptions {
  bool mass_matrix = true;  // mass (composite rigid bodies)
  bool inertial = false;    // inertial (Newton–Euler of the q̈ terms alone)
  bool energies = false;    // kinetic and potential (gravity, springs, potential loads)
  /// forward: the articulated bodies where they apply and need fewer operations than M = Lᵀ D L
  /// (which needs mass_matrix); without mass_matrix, only the articulated bodies.
  bool forward = true;
};

/// forward, pivots and diagonal of `d` by M = Lᵀ D L from d.mass and d.bias (eliminating leaves
/// first: no fill-in along a tree), with `extra` (n nodes) added to f.
void solve_by_ldlt(RecursiveDynamics& d, const std::vector<sym::Node>& extra);

/// A quantity the regressor's recursion forms on its way, by its nodes: what Y can be written
/// through, named after its frame (principles::readable_regressor). Frame k's own placement and
/// motion in its parent (Local: R, t, their rates, ω_rel and the partials, whose cosines and
/// sines get names), its ω, ε and the acceleration of its origin (gravity as a lift), and the
/// motion of coordinate j carried to frame k (AngularPartial ∂ω_k/∂q̇_j, LinearPartial
/// ∂v_k/∂q̇_j), each in frame k's axes.
struct RegressorQuantity {
  enum class Kind { Local, Omega, Epsilon, Acceleration, AngularPartial, LinearPartial };
  Kind kind = Kind::Local;
  std::size_t frame = 0;       // index into Model::frames
  std::size_t coordinate = 0;  // the partials' j
  std::vector<sym::Node> nodes;
};

/// Builds the recursions of one model. Construction collects each frame's local expressions in
/// GiNaC (small: one frame's joint at a time) and may add derivative symbols to the model's
/// time-function table, so construct it before model::bind when the values must know them.
class RecursionBuilder {
 public:
  /// Throws std::invalid_argument for a model recursions_do_not_cover(). A model with generalized
  /// speeds is built in them: RecursionInputs::qdd and extra then have p entries (u̇), and the
  /// symbols hold the speeds and not q̇ (but a coordinate's own rate, which is its speed).
  explicit RecursionBuilder(const model::Model& model);
  ~RecursionBuilder();
  RecursionBuilder(const RecursionBuilder&) = delete;
  RecursionBuilder& operator=(const RecursionBuilder&) = delete;

  /// The symbols the local expressions hold (before any substitution), each once, in a fixed
  /// order: what RecursionInputs must give a node.
  std::vector<GiNaC::symbol> symbols() const;

  /// Builds the outputs into `out.program` (whose nodes `inputs` names). Throws
  /// std::invalid_argument when an expression holds a symbol `inputs` has no node for, or
  /// cannot be evaluated numerically.
  void build(RecursiveDynamics& out, const RecursionInputs& inputs,
             const RecursionOptions& options = {});

  /// The inertial-parameter regressor Y (principles/regressor.hpp) over `program`'s nodes, which
  /// `inputs` names (their `extra` unused): n rows of 10 columns per body, then per particle, in
  /// the model's order (m, m·cx, m·cy, m·cz, Ixx, Ixy, Ixz, Iyy, Iyz, Izz about the frame's
  /// origin), row-major. Gravity is in Y; the loads are not. Throws as build(), and
  /// std::invalid_argument naming generalized speeds for a model with speeds. With `quantities`,
  /// also the quantities Y is formed from, in the order they are formed.
  std::vector<sym::Node> regressor(sym::ScalarProgram& program, const RecursionInputs& inputs,
                                   std::vector<RegressorQuantity>* quantities = nullptr);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace appell::principles
