// The 4-node tetrahedron: linear shape functions (barycentric coordinates), constant strain;
// every integral is exact in closed form.
#include <Eigen/LU>
#include <string>

#include "appell/fem/element_kernels.hpp"
#include "appell/model/source_location.hpp"
#include "strain_operator.hpp"

namespace appell::fem {
namespace {

using Mat34 = Eigen::Matrix<double, 3, 4>;

struct Geometry {
  Mat34 dNdx;
  double volume = 0.0;
};

Geometry geometry(const Tet4Nodes& x, std::size_t element) {
  // N0 = 1 − ξ − η − ζ, N1 = ξ, N2 = η, N3 = ζ (Gmsh's reference tetrahedron).
  Mat34 dN;
  dN << -1, 1, 0, 0, -1, 0, 1, 0, -1, 0, 0, 1;
  const Eigen::Matrix3d J = dN * x;
  const double det = J.determinant();
  const double scale = (x.colwise().maxCoeff() - x.colwise().minCoeff()).norm();
  if (!(det > 1e-12 * scale * scale * scale))
    throw model::ComputationError(
        "element " + std::to_string(element) + " (tet4): non-positive Jacobian determinant " +
        std::to_string(det) + " (degenerate or inverted element, or nodes not in Gmsh order)");
  return {J.inverse() * dN, det / 6.0};
}

}  // namespace

ElementIntegrals tet4_integrals(const Tet4Nodes& x, const Material& material, std::size_t element) {
  const Geometry g = geometry(x, element);
  const Matrix6d D = isotropic_elasticity(material.youngs_modulus, material.poisson_ratio);
  Eigen::Matrix<double, 6, 12> B;
  detail::strain_operator<4>(g.dNdx, B);
  ElementIntegrals out;
  out.stiffness = g.volume * B.transpose() * D * B;
  // ∫ N_a N_b dV = V (1 + δ_ab) / 20 (the standard barycentric integral a! b! 3! / (a+b+3)!).
  Eigen::Matrix4d S = Eigen::Matrix4d::Constant(1.0);
  S.diagonal().setConstant(2.0);
  S *= material.density * g.volume / 20.0;
  fill_solid_inertia(S, x, out);
  return out;
}

Eigen::MatrixXd tet4_geometric_stiffness(const Tet4Nodes& x, const Matrix6d& D,
                                         const Eigen::VectorXd& u, std::size_t element) {
  const Geometry g = geometry(x, element);
  Eigen::Matrix<double, 6, 12> B;
  detail::strain_operator<4>(g.dNdx, B);
  const Vector6d sigma = D * (B * u);
  const Eigen::Matrix4d H = g.volume * g.dNdx.transpose() * detail::stress_tensor(sigma) * g.dNdx;
  return detail::expand_geometric(H);
}

Vector6d tet4_stress(const Tet4Nodes& x, const Matrix6d& D, const Eigen::VectorXd& u,
                     std::size_t element) {
  const Geometry g = geometry(x, element);
  Eigen::Matrix<double, 6, 12> B;
  detail::strain_operator<4>(g.dNdx, B);
  return D * (B * u);
}

}  // namespace appell::fem
