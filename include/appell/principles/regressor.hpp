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

#include <string>
#include <vector>

#include "appell/model/model.hpp"

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

}  // namespace appell::principles
