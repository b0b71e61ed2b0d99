// The inertial-parameter regressor: τ = Y(q, q̇, q̈) π.
//
// The generalized forces of the inverse dynamics (gravity included, the loads not: they are on
// the other side, τ = Y π − Q_loads) are linear in each body's ten standard inertial
// parameters, taken about the origin of the frame the body moves with, along its axes:
//   π_b = (m, m·c_x, m·c_y, m·c_z, I_xx, I_xy, I_xz, I_yy, I_yz, I_zz),
// I the inertia tensor about the origin, I = I_c + m (|c|² 1 − c cᵀ) (parallel axes), its
// off-diagonal entries the tensor's (I_xy = −∫xy dm, as the model file writes them). A particle
// is a body without inertia about its centre of mass: its ten parameters are those of a point
// mass m at c. Y's column of one parameter is the Newton–Euler recursion of that body alone with
// that parameter 1 and the others 0 (Khalil & Dombre, "Modeling, Identification and Control of
// Robots", 2002, ch. 12; Atkeson, An & Hollerbach 1986), built over the recursions' nodes
// (principles/recursive_dynamics.hpp), so that it costs O(n·depth) and is never formed from M
// and f. The base parameters are in numeric/base_parameters.hpp.
#pragma once

#include <ginac/ginac.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/principles/derivation.hpp"

namespace appell::principles {

/// One standard inertial parameter of a body or particle.
struct InertialParameter {
  std::string name;      // kind_owner: "m_rod1", "mx_rod1", ..., "Izz_rod1"
  std::string owner;     // the body's or particle's name
  std::string kind;      // m, mx, my, mz, Ixx, Ixy, Ixz, Iyy, Iyz, Izz
  GiNaC::symbol symbol;  // named `name` (the base parameters are written in these)
  GiNaC::ex value;       // its value in the model: an expression of the model's parameters
};

/// The ten kinds of a mass's standard parameters, in the order of Y's columns.
const std::vector<std::string>& inertial_parameter_kinds();

/// The standard parameters of every body, then every particle, in the model's order, ten each
/// (inertial_parameter_kinds()): Y's columns. Their values are exact (the parallel axis theorem
/// applied symbolically to the model's centre of mass and inertia about it).
std::vector<InertialParameter> standard_parameters(const model::Model& model);

/// Why the regressor does not cover `model` (the recursions' reasons:
/// principles::recursions_alone_do_not_cover); empty when it does.
std::string regressor_not_covered(const model::Model& model);

/// Y as expressions of t, q, q̇, q̈ and the model's parameters, n × 10·(bodies + particles),
/// entries as the recursion forms them (sym::readable makes them readable). Throws
/// std::invalid_argument for a model regressor_not_covered() names.
GiNaC::matrix regressor_matrix(const model::Model& model);

/// How the regressor is written for a person to read (`appell regressor`).
struct RegressorRequest {
  /// Through named intermediates, as `derive --intermediates`: the quantities the regressor's
  /// recursion forms, named after their frames (below).
  bool intermediates = false;
  /// Through named intermediates by itself when Y as formed has more than this many distinct
  /// nodes (sym::dag_size), or when an entry's readable form is over the simplification budget
  /// (sym::ReadableBudget): whole, such entries take seconds and print pages. Lower than
  /// derive's 1500: Y has ten columns a mass, each a product of motions, and the UR5's 783 nodes
  /// took 10 s to simplify whole into entries of up to 40,000 characters (the three-link arm's
  /// 148, 0.3 s and short entries). 0: never by size.
  std::size_t intermediates_above = 400;
};

/// Y made readable: each entry simplified whole, or written through named intermediates.
struct ReadableRegressor {
  GiNaC::matrix regressor;  // n × 10·masses; in terms of named->intermediates when named
  /// The names, defined in order, each in terms of those before it (construction Recursions,
  /// grouped by quantity and frame): c<k>, s<k> the cosines and sines of frame k's angles
  /// (c<k>_<i> for its i-th of several); omega_<k>, alpha_<k> and a_<k> (x, y, z) frame k's
  /// angular velocity, its rate and its origin's acceleration at the given q̈ with gravity as a
  /// lift; w_<j>_<k> and v_<j>_<k> the angular and linear velocity of frame k per unit q̇_j; all
  /// in frame k's axes, k and j counted from 1. Y's entry (j, p) is then a short sum over the
  /// frames q_j moves of w_j_k and v_j_k times a unit parameter's wrench (RecursionBuilder::
  /// regressor). Only what Y uses is named; each definition and entry is readable where that is
  /// shorter.
  std::optional<IntermediateForm> named;
};

/// Y of `model` as a person reads it (request: whole or through names). Throws as
/// regressor_matrix().
ReadableRegressor readable_regressor(const model::Model& model,
                                     const RegressorRequest& request = {});

}  // namespace appell::principles
