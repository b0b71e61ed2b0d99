// The 8-node hexahedron: trilinear shape functions, 2×2×2 Gauss, and Wilson–Taylor incompatible
// modes so that it bends without locking.
//
// The plain trilinear element cannot represent the quadratic displacements of pure bending and
// shears instead (parasitic shear), which makes slender parts far too stiff. Wilson added the
// bubbles P_m = 1 − ξ_m² (m = ξ, η, ζ) to every displacement component: 9 internal amplitudes α
// condensed at element level. Taylor's fix evaluates their gradient with the centre Jacobian J0
// and scales by det J0 / det J, so that ∫ B_α dV = det J0 J0⁻¹ ∫ ∂P/∂ξ dξ = 0 for any shape:
// a constant stress then does no work on the modes and the element passes the patch test even
// when distorted.
#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <array>
#include <cmath>
#include <string>

#include "appell/fem/element_kernels.hpp"
#include "appell/model/source_location.hpp"
#include "strain_operator.hpp"

namespace appell::fem {
namespace {

using Mat38 = Eigen::Matrix<double, 3, 8>;
using Vec8 = Eigen::Matrix<double, 8, 1>;
using Mat24 = Eigen::Matrix<double, 24, 24>;
using Mat24x9 = Eigen::Matrix<double, 24, 9>;
using Mat9 = Eigen::Matrix<double, 9, 9>;
using Vec24 = Eigen::Matrix<double, 24, 1>;
using Vec9 = Eigen::Matrix<double, 9, 1>;

// Natural coordinates of the corners in Gmsh/VTK order: the bottom face (ζ = −1) counter-
// clockwise seen from +ζ, then the top face in the same order.
constexpr std::array<std::array<double, 3>, 8> kCorner = {{{-1, -1, -1},
                                                           {1, -1, -1},
                                                           {1, 1, -1},
                                                           {-1, 1, -1},
                                                           {-1, -1, 1},
                                                           {1, -1, 1},
                                                           {1, 1, 1},
                                                           {-1, 1, 1}}};

struct Shape {
  Vec8 N;
  Mat38 dN;  // ∂N_a/∂ξ_i at (i, a)
  Eigen::Vector3d xi;
};

Shape shape_at(const Eigen::Vector3d& xi) {
  Shape s;
  s.xi = xi;
  for (int a = 0; a < 8; ++a) {
    const auto& c = kCorner[std::size_t(a)];
    const double f0 = 1 + c[0] * xi(0), f1 = 1 + c[1] * xi(1), f2 = 1 + c[2] * xi(2);
    s.N(a) = f0 * f1 * f2 / 8;
    s.dN(0, a) = c[0] * f1 * f2 / 8;
    s.dN(1, a) = f0 * c[1] * f2 / 8;
    s.dN(2, a) = f0 * f1 * c[2] / 8;
  }
  return s;
}

// Shape functions at the 8 Gauss points (all weights 1) and at the centre, computed once:
// elements only differ by their node positions.
struct Tables {
  std::array<Shape, 8> gauss;
  Shape centre;
};

const Tables& tables() {
  static const Tables t = [] {
    Tables r;
    const double g = 1.0 / std::sqrt(3.0);
    for (std::size_t q = 0; q < 8; ++q)
      r.gauss[q] = shape_at(g * Eigen::Vector3d(kCorner[q][0], kCorner[q][1], kCorner[q][2]));
    r.centre = shape_at(Eigen::Vector3d::Zero());
    return r;
  }();
  return t;
}

struct Geometry {
  std::array<Mat38, 8> dNdx;  // physical gradients at the Gauss points
  std::array<double, 8> det;  // det J at the Gauss points (= dV per unit natural volume)
  Mat38 centre_dNdx;
  Eigen::Matrix3d centre_inverse;  // J0⁻¹
  double centre_det = 0.0;
};

void check_jacobian(double det, double scale, std::size_t element, const char* where) {
  // Relative to the element's size, so that a flattened element is caught despite round-off.
  if (!(det > 1e-12 * scale * scale * scale))
    throw model::ComputationError("element " + std::to_string(element) +
                                  " (hex8): non-positive Jacobian determinant " +
                                  std::to_string(det) + " at " + where +
                                  " (degenerate or inverted element, or nodes not in Gmsh order)");
}

Geometry geometry(const Hex8Nodes& x, std::size_t element) {
  const Tables& t = tables();
  const double scale = (x.colwise().maxCoeff() - x.colwise().minCoeff()).norm();
  Geometry g;
  // J_ij = ∂x_j/∂ξ_i, so ∂N/∂ξ = J ∂N/∂x.
  const Eigen::Matrix3d J0 = t.centre.dN * x;
  g.centre_det = J0.determinant();
  check_jacobian(g.centre_det, scale, element, "its centre");
  g.centre_inverse = J0.inverse();
  g.centre_dNdx = g.centre_inverse * t.centre.dN;
  for (std::size_t q = 0; q < 8; ++q) {
    const Eigen::Matrix3d J = t.gauss[q].dN * x;
    g.det[q] = J.determinant();
    check_jacobian(g.det[q], scale, element, "a Gauss point");
    g.dNdx[q] = J.inverse() * t.gauss[q].dN;
  }
  return g;
}

// Strain operators of the compatible field and of the incompatible modes at Gauss point q.
void strain_operators(const Geometry& g, std::size_t q, Eigen::Matrix<double, 6, 24>& Bc,
                      Eigen::Matrix<double, 6, 9>& Bi) {
  detail::strain_operator<8>(g.dNdx[q], Bc);
  const Eigen::Vector3d& xi = tables().gauss[q].xi;
  // ∂P_m/∂ξ = −2 ξ_m e_m, mapped with J0 and scaled by det J0 / det J (Taylor).
  Eigen::Matrix3d modes;
  const double ratio = g.centre_det / g.det[q];
  for (int m = 0; m < 3; ++m) modes.col(m) = (-2.0 * xi(m) * ratio) * g.centre_inverse.col(m);
  detail::strain_operator<3>(modes, Bi);
}

struct Parts {
  Mat24 cc = Mat24::Zero();
  Mat24x9 ci = Mat24x9::Zero();
  Mat9 ii = Mat9::Zero();
};

Parts stiffness_parts(const Geometry& g, const Matrix6d& D) {
  Parts k;
  Eigen::Matrix<double, 6, 24> Bc, DBc;
  Eigen::Matrix<double, 6, 9> Bi, DBi;
  for (std::size_t q = 0; q < 8; ++q) {
    strain_operators(g, q, Bc, Bi);
    DBc.noalias() = g.det[q] * D * Bc;
    DBi.noalias() = g.det[q] * D * Bi;
    k.cc.noalias() += Bc.transpose() * DBc;
    k.ci.noalias() += Bc.transpose() * DBi;
    k.ii.noalias() += Bi.transpose() * DBi;
  }
  return k;
}

Mat24 condensed(const Parts& k) {
  // Minimising the energy over the internal amplitudes: k = Kcc − Kci Kii⁻¹ Kic.
  Mat24 result = k.cc;
  result.noalias() -= k.ci * k.ii.llt().solve(k.ci.transpose());
  return 0.5 * (result + result.transpose());  // exact symmetry despite round-off
}

}  // namespace

Eigen::Matrix<double, 24, 24> hex8_stiffness(const Hex8Nodes& x, const Matrix6d& D,
                                             std::size_t element, bool incompatible_modes) {
  const Parts k = stiffness_parts(geometry(x, element), D);
  return incompatible_modes ? condensed(k) : Mat24(0.5 * (k.cc + k.cc.transpose()));
}

ElementIntegrals hex8_integrals(const Hex8Nodes& x, const Material& material, std::size_t element) {
  const Geometry g = geometry(x, element);
  const Matrix6d D = isotropic_elasticity(material.youngs_modulus, material.poisson_ratio);
  ElementIntegrals out;
  out.stiffness = condensed(stiffness_parts(g, D));
  // Consistent scalar mass; 2×2×2 Gauss integrates ∫ρ det J exactly (det J is at most quadratic
  // per direction), so the total mass and the first moments are exact for any shape.
  Eigen::Matrix<double, 8, 8> S = Eigen::Matrix<double, 8, 8>::Zero();
  const Tables& t = tables();
  for (std::size_t q = 0; q < 8; ++q)
    S.noalias() += (material.density * g.det[q]) * t.gauss[q].N * t.gauss[q].N.transpose();
  fill_solid_inertia(S, x, out);
  return out;
}

Eigen::MatrixXd hex8_geometric_stiffness(const Hex8Nodes& x, const Matrix6d& D,
                                         const Eigen::VectorXd& u, std::size_t element) {
  const Geometry g = geometry(x, element);
  const Parts k = stiffness_parts(g, D);
  const Vec24 ue = u;
  // The condensed amplitudes belong to the stress: α = −Kii⁻¹ Kic u.
  const Vec9 alpha = -k.ii.llt().solve(k.ci.transpose() * ue);
  Eigen::Matrix<double, 6, 24> Bc;
  Eigen::Matrix<double, 6, 9> Bi;
  Eigen::Matrix<double, 8, 8> H = Eigen::Matrix<double, 8, 8>::Zero();
  for (std::size_t q = 0; q < 8; ++q) {
    strain_operators(g, q, Bc, Bi);
    const Vector6d sigma = D * (Bc * ue + Bi * alpha);
    H.noalias() += g.det[q] * g.dNdx[q].transpose() * detail::stress_tensor(sigma) * g.dNdx[q];
  }
  return detail::expand_geometric(H);
}

Vector6d hex8_centre_stress(const Hex8Nodes& x, const Matrix6d& D, const Eigen::VectorXd& u,
                            std::size_t element) {
  const Geometry g = geometry(x, element);
  // The incompatible modes' gradients are proportional to ξ_m and vanish at the centre: the
  // centre stress needs no amplitudes.
  Eigen::Matrix<double, 6, 24> Bc;
  detail::strain_operator<8>(g.centre_dNdx, Bc);
  return D * (Bc * Vec24(u));
}

}  // namespace appell::fem
