// The per-type element kernels behind element_integrals, geometric_stiffness and element_stress
// (element.hpp), on node positions already taken from the mesh. `element` is the element's number
// as the user knows it (Mesh::element_number: its tag in the file, or 1-based), only used to name
// it in errors. A non-positive Jacobian determinant (a degenerate, inverted or
// misnumbered element) is a model::ComputationError.
#pragma once

#include <Eigen/Core>
#include <cstddef>

#include "appell/fem/element.hpp"

namespace appell::fem {

using Matrix6d = Eigen::Matrix<double, 6, 6>;
using Vector6d = Eigen::Matrix<double, 6, 1>;
using Hex8Nodes = Eigen::Matrix<double, 8, 3>;  // row a: position of node a
using Tet4Nodes = Eigen::Matrix<double, 4, 3>;
using Tet10Nodes = Eigen::Matrix<double, 10, 3>;

/// Isotropic linear elasticity σ = D ε in Voigt order (xx, yy, zz, xy, yz, zx), engineering
/// shear strains (γxy = ∂u/∂y + ∂v/∂x).
Matrix6d isotropic_elasticity(double youngs_modulus, double poisson_ratio);

/// Fills the mass, J_kl, first moment and position integrals of a solid element (3 dofs per
/// node) from its scalar mass matrix S_ab = ∫ρ N_a N_b dV and its node positions (rows): with
/// x = Σ N_b x_b (isoparametric) and Σ N_b = 1, every integral is a linear map of S.
void fill_solid_inertia(const Eigen::Ref<const Eigen::MatrixXd>& scalar_mass,
                        const Eigen::Ref<const Eigen::MatrixXd>& nodes, ElementIntegrals& out);

// --- Hex8: trilinear, 2×2×2 Gauss, Wilson–Taylor incompatible modes condensed. ---

/// The integrals of element.hpp for one element from its node positions (rows, Gmsh order).
ElementIntegrals hex8_integrals(const Hex8Nodes& x, const Material& material, std::size_t element);
/// The stiffness alone; `incompatible_modes = false` gives the plain (bending-locking) trilinear
/// element, kept to show what the modes buy.
Eigen::Matrix<double, 24, 24> hex8_stiffness(const Hex8Nodes& x, const Matrix6d& D,
                                             std::size_t element, bool incompatible_modes = true);
/// The geometric stiffness (24×24) about the element displacements u (24, node-major), D from
/// isotropic_elasticity().
Eigen::MatrixXd hex8_geometric_stiffness(const Hex8Nodes& x, const Matrix6d& D,
                                         const Eigen::VectorXd& u, std::size_t element);
/// The stress (Voigt order) at the element's centre.
Vector6d hex8_centre_stress(const Hex8Nodes& x, const Matrix6d& D, const Eigen::VectorXd& u,
                            std::size_t element);

// --- Tet4: linear, constant strain, exact integration. ---

/// The same three for the 4-node tetrahedron (12 dofs; its stress is constant).
ElementIntegrals tet4_integrals(const Tet4Nodes& x, const Material& material, std::size_t element);
Eigen::MatrixXd tet4_geometric_stiffness(const Tet4Nodes& x, const Matrix6d& D,
                                         const Eigen::VectorXd& u, std::size_t element);
Vector6d tet4_stress(const Tet4Nodes& x, const Matrix6d& D, const Eigen::VectorXd& u,
                     std::size_t element);

// --- Tet10: quadratic, isoparametric, Gmsh node order; the mass by a collapsed Gauss rule (exact
// to degree 5), the stiffness, geometric stiffness and stresses by the symmetric 4-point rule. ---
/// The same for the 10-node tetrahedron (30 dofs).
ElementIntegrals tet10_integrals(const Tet10Nodes& x, const Material& material,
                                 std::size_t element);
Eigen::MatrixXd tet10_geometric_stiffness(const Tet10Nodes& x, const Matrix6d& D,
                                          const Eigen::VectorXd& u, std::size_t element);
/// The stress averaged over the element's volume (it varies linearly inside).
Vector6d tet10_mean_stress(const Tet10Nodes& x, const Matrix6d& D, const Eigen::VectorXd& u,
                           std::size_t element);

// --- Beams: Euler–Bernoulli between nodes a and b; planar = Beam2D (u, v, θz per node). ---

/// The integrals of a beam between node positions a and b (12 dofs for Beam3D, 6 for Beam2D),
/// its geometric stiffness about element displacements u, and its axial force. A zero length,
/// or a planar beam not in the x–y plane, is a model::ComputationError.
ElementIntegrals beam_integrals(const Eigen::Vector3d& a, const Eigen::Vector3d& b, bool planar,
                                const Material& material, const BeamSection& section,
                                std::size_t element);
Eigen::MatrixXd beam_geometric_stiffness(const Eigen::Vector3d& a, const Eigen::Vector3d& b,
                                         bool planar, const Material& material,
                                         const BeamSection& section, const Eigen::VectorXd& u,
                                         std::size_t element);
/// Axial force EA (u1 − u0)/L, u the displacements along the axis.
double beam_axial_force(const Eigen::Vector3d& a, const Eigen::Vector3d& b, bool planar,
                        const Material& material, const BeamSection& section,
                        const Eigen::VectorXd& u, std::size_t element);

}  // namespace appell::fem
