// Element matrices of a finite element in a moving frame (seed 002 §4), numerically integrated.
//
// With the displacement field u(x) = N(x) δ of the element (3 translational components, in the
// floating frame's axes) and x the undeformed position, the acceleration of a material point in
// frame components is  a = a_O + ε×(x+u) + ω×(ω×(x+u)) + 2 ω×u̇ + ü, so ∂S/∂δ̈ = ∫ρ Nᵀ a dV gives
//   m δ̈ + c δ̇ + (k(ε) + k(ω)) δ + q_i(ε) + q_i(ω) + m_Oi a_O.
// Every time-varying matrix is a combination of constant inertia integrals computed once:
//   [a] = Σ_kl [a]_kl e_k e_lᵀ, so  ∫ρ Nᵀ[a]N dV = Σ_kl [a]_kl J_kl  with  J_kl = ∫ρ Nᵀ e_k e_lᵀ N
//   dV, ∫ρ Nᵀ[a] x dV = Σ_kl [a]_kl s_kl  with  s_kl = ∫ρ Nᵀ e_k x_l dV,
// and [ω][ω] = ωωᵀ − |ω|² I.  Element dofs are node-major: (node a, component i) -> a*dpn + i.
#pragma once

#include <Eigen/Core>
#include <array>
#include <optional>

#include "appell/fem/mesh.hpp"

namespace appell::fem {

/// Isotropic linear elasticity and density; the element functions require E > 0, ν in
/// (−1, 0.5) and ρ ≥ 0 (std::invalid_argument otherwise).
struct Material {
  double youngs_modulus = 0.0;  // E, Pa
  double poisson_ratio = 0.0;   // ν, in (-1, 0.5)
  double density = 0.0;         // ρ, kg/m³
};

/// Cross-section of a beam (section axes: y and z of the element; for beams along x, the frame's).
/// Required for beams: area > 0 and Iy, Iz, J ≥ 0 (std::invalid_argument otherwise).
struct BeamSection {
  double area = 0.0;  // A, m²
  double Iy = 0.0;    // second moment about y (bending in the x–z plane), m⁴
  double Iz = 0.0;    // second moment about z (bending in the x–y plane), m⁴
  double J = 0.0;     // torsion constant, m⁴
};

/// The constant integrals of one element; matrices are dofs×dofs with dofs = nodes × dofs per
/// node, node-major.
struct ElementIntegrals {
  Eigen::MatrixXd stiffness;  // k = ∫ BᵀDB dV (incompatible modes condensed for Hex8)
  Eigen::MatrixXd mass;       // m = ∫ ρ NᵀN dV (+ rotary/torsional inertia of beams)
  std::array<Eigen::MatrixXd, 9> inertia;   // J_kl = ∫ ρ Nᵀ e_k e_lᵀ N dV at index 3k + l
  Eigen::MatrixXd first_moment;             // dofs×3: m_Oi = ∫ ρ Nᵀ dV
  std::array<Eigen::VectorXd, 9> position;  // s_kl = ∫ ρ Nᵀ e_k x_l dV at index 3k + l
};

/// The integrals of element `e` of `mesh`. `section` is required for beams, ignored otherwise.
/// Throws std::out_of_range for an element or node index outside the mesh,
/// std::invalid_argument for a wrong node count, a bad material or a missing or bad section,
/// and model::ComputationError for a degenerate element (non-positive Jacobian determinant,
/// coincident beam nodes, a planar beam out of the x–y plane) — a model::ModelError located at
/// the element's line when the mesh was read from a file (Mesh::element_where). Elements are
/// named as Mesh::element_number gives them (the file's tag, or 1-based).
ElementIntegrals element_integrals(const Mesh& mesh, std::size_t e, const Material& material,
                                   const std::optional<BeamSection>& section);

/// Geometric (stress) stiffness of element `e` about the stress state of the element
/// displacements `displacement` (element dofs, node-major; std::invalid_argument for another
/// size): ∫ Gᵀ σ̂ G dV for solids, the axial-force matrix N ∫ N'ᵀN' dx (both bending planes) for
/// beams. Throws otherwise as element_integrals.
Eigen::MatrixXd geometric_stiffness(const Mesh& mesh, std::size_t e, const Material& material,
                                    const std::optional<BeamSection>& section,
                                    const Eigen::VectorXd& displacement);

/// Element stress (σxx, σyy, σzz, σxy, σyz, σzx; Pa) for solids — at the centre of a hexahedron,
/// the constant stress of a 4-node tetrahedron, the volume average of a 10-node one; for beams
/// the axial force (N, not a stress) in the first entry and zeros. Used for output. Throws as
/// geometric_stiffness.
Eigen::Matrix<double, 6, 1> element_stress(const Mesh& mesh, std::size_t e,
                                           const Material& material,
                                           const std::optional<BeamSection>& section,
                                           const Eigen::VectorXd& displacement);

}  // namespace appell::fem
