// Relative motion in a carrier frame C (seed 003 §4–5, eqs. 30–34 and 55–57): with ρ the position
// of a mass point in C (C components), ρ̇ its relative velocity, a_O, ω and ω̇ the carrier's
// origin acceleration, angular velocity and angular acceleration (C components), the inertial
// forces of the carrier's motion are
//   Π_o = Σ m a_O·ρ                      (transport potential, eq. 31)
//   Π_ω = −½ Σ m |ω × ρ|²                (centrifugal potential, eq. 32)
//   Q^ω̇_s = −Σ m (ω̇ × ρ)·∂ρ/∂q_s        (rotational inertia force, eq. 33)
//   Γ_s = −2 Σ m (ω × ρ̇)·∂ρ/∂q_s        (gyroscopic force, eq. 34)
// and the equations of relative motion read, in Lagrange's form (eq. 56),
//   d/dt ∂T_r/∂q̇_s − ∂T_r/∂q_s = Q_s − ∂(Π_o + Π_ω)/∂q_s + Q^ω̇_s + Γ_s,
// T_r the kinetic energy of the relative motion. For a rigid body the sums become integrals: with
// y = ρ − ρ_C, I_C the inertia about the centre of mass in C components, J = ∫ y yᵀ dm =
// ½ tr(I_C) 1 − I_C, ω_r the body's angular velocity relative to C and ν_s = ∂ω_r/∂q̇_s,
//   Π_ω gains −½ ωᵀ I_C ω, Q^ω̇_s gains −ν_s·I_C ω̇, Γ_s gains 2 (ω_r × J ω)·ν_s, T_r gains
//   ½ ω_rᵀ I_C ω_r.
// The equations are the same as those formed in the inertial frame; this splits them.
#pragma once

#include <ginac/ginac.h>

#include "appell/kinematics/kinematics.hpp"

namespace appell::principles {

/// The inertial forces of a carrier frame's motion (file comment), expressions of q, q̇ and t;
/// n = model dof, coordinate order.
struct InertialForces {
  GiNaC::ex relative_kinetic_energy;  // T_r
  GiNaC::ex transport_potential;      // Π_o
  GiNaC::ex centrifugal_potential;    // Π_ω
  GiNaC::matrix rotational;           // Q^ω̇, n×1
  GiNaC::matrix gyroscopic;           // Γ, n×1
};

/// The inertial forces of the model's carrier frame. Throws std::logic_error when
/// Model::relative_to is not set.
InertialForces inertial_forces(kin::Kinematics& kinematics);

/// The acceleration energy of the relative motion (seed 003 eq. 10, with eq. 17's rigid-body
/// form generalised to 3-D), the carrier taken as if it were inertial:
///   S_r = Σ ½ m |ρ̈|² + Σ_bodies [½ ε_rᵀ I_C ε_r + ε_rᵀ (ω_r × I_C ω_r)],
/// ρ̈ the relative acceleration and ε_r = dω_r/dt relative to the carrier (carrier components,
/// where I_C varies with the body's orientation). Terms free of q̈ do not matter to ∂S_r/∂q̈ and
/// are kept only as they come. Appell's form of relative motion (eq. 55) is
///   ∂S_r/∂q̈_s = Q_s − ∂(Π_o + Π_ω)/∂q_s + Q^ω̇_s + Γ_s,
/// and Nielsen's (eq. 57) ∂Ṫ_r/∂q̇_s − 2 ∂T_r/∂q_s = the same right-hand side.
GiNaC::ex relative_acceleration_energy(kin::Kinematics& kinematics);

}  // namespace appell::principles
