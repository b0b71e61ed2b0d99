// Symbolic equations of motion of finite elements in a moving frame, by Lagrange and by
// Gibbs–Appell: the measured version of seed 002's Table 1.
//
// A chain of `elements` equal elements lies along the frame's x axis (element e spans
// [eL, (e+1)L]). Nodal displacements δ_i(t) are coordinates; the frame's angular velocity ω_k(t)
// and its origin's velocity v_O,k(t), both in frame components, are unspecified time functions,
// so ε = ω̇ and a_O = v̇_O + ω×v_O. A material point is p = x + N(x)δ (frame components).
//
//   Lagrange:      T = ½∫ρ|v_O + ω×p + ṗ|² dV,   r_j = d/dt ∂T/∂δ̇_j − ∂T/∂δ_j + (kδ)_j
//   Gibbs–Appell:  S = ½∫ρ|a_O + ε×p + ω×(ω×p) + 2ω×ṗ + p̈|² dV,   r_j = ∂S/∂δ̈_j + (kδ)_j
//
// Both routes take v and a from the kinematic formulas above (neither differentiates positions),
// so what is counted is exactly the principle's own work. The integrands are polynomials in the
// element's local coordinates whose coefficients are kept unexpanded, and each monomial is
// integrated exactly, so the energies stay small shared DAGs. The elastic force kδ is the same
// expression on both routes and is not counted: bars and beams use ∫BᵀDB, the hexahedron the
// plain trilinear ∫BᵀDB (no incompatible modes, unlike fem::element_integrals).
//
// The kinds: Bar — 2 nodes, linear shape functions, 3 translations per node, area A, axial
// stiffness only; Beam2D — Euler–Bernoulli (u, v, θz per node), Beam3D — Euler–Bernoulli (u, v,
// w, θx, θy, θz per node; θy = −w', θz = v'), both with the displacement field of the centre line
// only (no rotary or torsional inertia: θx carries torsional stiffness GJ but no mass); Hex8 —
// trilinear brick L×b×h with y ∈ [−b/2, b/2], z ∈ [−h/2, h/2], Gmsh node order, 3 translations
// per node. Element dofs are node-major like fem::element_integrals.
#pragma once

#include <ginac/ginac.h>

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "appell/fem/mesh.hpp"
#include "appell/model/flexible.hpp"
#include "appell/sym/time_functions.hpp"

namespace appell::fem {

/// The element kinds derived symbolically (the file comment describes each).
enum class ElementKind { Bar, Beam2D, Beam3D, Hex8 };
/// The two principles compared: Lagrange's equations or Gibbs–Appell's.
enum class Route { Lagrange, GibbsAppell };

/// "bar", "beam2d", "beam3d", "hex8" / "lagrange", "gibbs-appell".
const char* kind_name(ElementKind kind);
const char* route_name(Route route);
/// The kind of the numeric element type (the tetrahedra have no symbolic counterpart: nullopt).
std::optional<ElementKind> derivation_kind(ElementType type);
/// The kind whose equations stand for `body`'s mesh: Beam2D for a planar beam, Beam3D for a beam,
/// Hex8 for a box, and Hex8 for a Gmsh mesh too (the hexahedron is the one solid element derived
/// symbolically; it stands for the tetrahedra as well). Never throws.
ElementKind element_kind_of(const model::FlexibleBody& body);
/// Parses a kind name as kind_name() writes it ("bar", "beam2d", "beam3d", "hex8"); nullopt for
/// anything else.
std::optional<ElementKind> parse_element_kind(const std::string& name);
/// Parses a route name as route_name() writes it ("lagrange", "gibbs-appell"); nullopt otherwise.
std::optional<Route> parse_route(const std::string& name);

/// The symbols of one chain: time functions, parameters and the undeformed geometry.
struct ElementChain {
  ElementKind kind = ElementKind::Bar;
  int elements = 1;
  int dofs_per_node = 3;
  std::shared_ptr<sym::TimeFunctions> functions;

  std::vector<GiNaC::symbol> dofs;           // δ_i, node-major
  std::vector<GiNaC::symbol> rates;          // δ̇_i
  std::vector<GiNaC::symbol> accelerations;  // δ̈_i
  std::vector<std::string> dof_names;        // u1, v1, w1, rx1, ... (1-based nodes)
  GiNaC::symbol omega[3], epsilon[3];        // ω_k and ω̇_k
  GiNaC::symbol origin_velocity[3];          // v_O,k
  GiNaC::symbol origin_velocity_dot[3];      // v̇_O,k (a_O = v̇_O + ω×v_O)

  /// Parameters by name: rho, L, E (every kind); A (bars and beams); Iz (beams); Iy, J, G
  /// (Beam3D: G J is the torsional stiffness); b, h, nu (Hex8).
  std::map<std::string, GiNaC::symbol> parameters;
  std::vector<GiNaC::symbol> parameter_order;

  /// a_O = v̇_O + ω×v_O in frame components (3×1).
  GiNaC::matrix origin_acceleration() const;
  /// The parameter called `name`; std::logic_error when this kind has none of that name.
  const GiNaC::symbol& parameter(const std::string& name) const;
};

/// The symbols of a chain of `elements` ≥ 1 elements of `kind` (std::invalid_argument for
/// fewer), with a time table of its own.
ElementChain make_chain(ElementKind kind, int elements);

/// What a route cost.
struct RouteCost {
  std::size_t differentiations = 0;  // scalar ∂/∂x and d/dt requested (sym::Differentiator)
  std::size_t derivative_nodes = 0;  // node-level derivative rules applied (shared nodes once)
  std::size_t energy_nodes = 0;      // distinct nodes of T or S
  std::size_t residual_nodes = 0;    // distinct nodes of all residuals together
  double energy_seconds = 0.0;       // forming and integrating T or S
  double differentiation_seconds = 0.0;
  double seconds() const { return energy_seconds + differentiation_seconds; }
};

/// The equations of one chain by one route: one residual per dof, node-major.
struct ElementDerivation {
  Route route = Route::GibbsAppell;
  GiNaC::ex energy;          // T (Lagrange) or S (Gibbs–Appell)
  GiNaC::exvector inertial;  // the principle's part of r: d/dt ∂T/∂δ̇ − ∂T/∂δ, or ∂S/∂δ̈
  GiNaC::matrix stiffness;   // elastic k (assembled, symbolic), identical on both routes
  GiNaC::exvector residual;  // inertial + kδ = 0 are the equations of motion
  RouteCost cost;
};

/// The equations of `chain` by `route` (a fresh Differentiator: its counts are this route's),
/// residual r_j = 0 for every dof j (the file comment's formulas).
ElementDerivation derive_element(const ElementChain& chain, Route route);

/// m δ̈ + c δ̇ + (k + k(ε) + k(ω)) δ + q_i(ε) + q_i(ω) + m_Oi a_O = 0, read off a residual.
struct ElementMatrices {
  GiNaC::matrix mass;               // m = ∂r/∂δ̈                    (dofs × dofs)
  GiNaC::matrix gyroscopic;         // c = ∂r/∂δ̇, = 2Σ[ω]_kl J_kl
  GiNaC::matrix stiffness;          // k: ∂r/∂δ at ω = ε = 0
  GiNaC::matrix stiffness_epsilon;  // k(ε): the part of ∂r/∂δ linear in ε
  GiNaC::matrix stiffness_omega;    // k(ω): the part of ∂r/∂δ quadratic in ω
  GiNaC::matrix force_epsilon;  // q_i(ε): r at δ = δ̇ = δ̈ = 0, linear in ε      (dofs × 1)
  GiNaC::matrix force_omega;    // q_i(ω): the same, quadratic in ω, without m_Oi a_O
  GiNaC::matrix first_moment;   // m_Oi = ∂r/∂v̇_O                (dofs × 3)
};

/// The matrices of `residual` (from derive_element on `chain`; one entry per dof), every entry
/// expanded. The residual must be of the form above (linear in δ, δ̇, δ̈, v̇_O and ε once
/// expanded); what is left over is not reported.
ElementMatrices extract_matrices(const ElementChain& chain, const GiNaC::exvector& residual);

/// m δ̈ + c δ̇ + ... + m_Oi a_O rebuilt from the matrices: equals the residual it came from.
GiNaC::exvector assemble_residual(const ElementChain& chain, const ElementMatrices& matrices);

/// Whether a square matrix equals its transpose (Symmetric; the zero matrix is), its negative
/// transpose (Skew), or neither (None; also every non-square matrix). Entries are compared after
/// expansion.
enum class MatrixSymmetry { Symmetric, Skew, None };
MatrixSymmetry symmetry_of(const GiNaC::matrix& m);

/// An entry of the element matrices as people read it: over one denominator and factored
/// (ρAL/6·(ω_y² + ω_z²) rather than two terms). Zero stays zero.
GiNaC::ex readable_entry(const GiNaC::ex& e);

/// Both routes on one chain and whether they agree.
struct ElementComparison {
  ElementChain chain;
  ElementDerivation lagrange, gibbs_appell;
  bool identical = false;        // every residual difference expands (or normalises) to 0
  std::string first_difference;  // "dof u2: ..." when not identical
  double compare_seconds = 0.0;
};

/// Both routes on a chain of `elements` elements of `kind` (make_chain), and whether their
/// residuals are symbolically identical (each difference expanded, then normalised, to 0).
/// Throws as make_chain. The comparison's time is compare_seconds; each route's cost is its own.
ElementComparison compare_routes(ElementKind kind, int elements);

}  // namespace appell::fem
