// The 10-node tetrahedron: quadratic shape functions on barycentric coordinates, isoparametric,
// nodes in Gmsh's order (vertices 0–3, then the midside nodes of the edges 0-1, 1-2, 2-0, 3-0,
// 3-2, 3-1). Its strains are linear, so it bends without locking, which is why users mesh with
// it. The consistent mass (degree 4 on a straight-sided tetrahedron) uses a collapsed (Duffy)
// product of Gauss–Legendre rules, 4 points per direction, exact to degree 5; the stiffness, the
// geometric stiffness and the stresses (degree 2) use the symmetric 4-point rule, exact to
// degree 2, at a sixteenth of the cost.
#include <Eigen/LU>
#include <array>
#include <cmath>
#include <string>

#include "appell/fem/element_kernels.hpp"
#include "appell/fem/quadrature.hpp"
#include "appell/model/source_location.hpp"
#include "strain_operator.hpp"

namespace appell::fem {
namespace {

using Mat3x10 = Eigen::Matrix<double, 3, 10>;
using Vector10d = Eigen::Matrix<double, 10, 1>;

// Gmsh's edge list: midside node 4 + e lies on the edge between kEdges[e][0] and kEdges[e][1].
constexpr std::array<std::array<int, 2>, 6> kEdges{
    {{0, 1}, {1, 2}, {2, 0}, {3, 0}, {3, 2}, {3, 1}}};

struct Point {
  Eigen::Vector3d xi;  // (ξ, η, ζ) on the reference tetrahedron
  double weight;       // including the collapse's Jacobian; the weights sum to 1/6
};

// The conical product rule: (u, v, w) ∈ [0, 1]³ ↦ ξ = u, η = v(1 − u), ζ = w(1 − u)(1 − v), with
// Jacobian (1 − u)²(1 − v).
const std::vector<Point>& mass_rule() {
  static const std::vector<Point> points = [] {
    const GaussRule& g = gauss_legendre(4);
    std::vector<Point> out;
    for (int i = 0; i < g.count; ++i)
      for (int j = 0; j < g.count; ++j)
        for (int k = 0; k < g.count; ++k) {
          const double u = 0.5 * (g.points[std::size_t(i)] + 1.0);
          const double v = 0.5 * (g.points[std::size_t(j)] + 1.0);
          const double w = 0.5 * (g.points[std::size_t(k)] + 1.0);
          const double weight = 0.125 * g.weights[std::size_t(i)] * g.weights[std::size_t(j)] *
                                g.weights[std::size_t(k)] * (1 - u) * (1 - u) * (1 - v);
          out.push_back({Eigen::Vector3d(u, v * (1 - u), w * (1 - u) * (1 - v)), weight});
        }
    return out;
  }();
  return points;
}

// The 4-point rule: each point at barycentric (α, β, β, β) and its permutations, α = (5 + 3√5)/20,
// β = (5 − √5)/20, weight 1/24.
const std::vector<Point>& stiffness_rule() {
  static const std::vector<Point> points = [] {
    const double root5 = std::sqrt(5.0);
    const double alpha = (5.0 + 3.0 * root5) / 20.0, beta = (5.0 - root5) / 20.0;
    return std::vector<Point>{{Eigen::Vector3d(beta, beta, beta), 1.0 / 24.0},
                              {Eigen::Vector3d(alpha, beta, beta), 1.0 / 24.0},
                              {Eigen::Vector3d(beta, alpha, beta), 1.0 / 24.0},
                              {Eigen::Vector3d(beta, beta, alpha), 1.0 / 24.0}};
  }();
  return points;
}

// Shape functions and their reference gradients at ξ.
void shape(const Eigen::Vector3d& xi, Vector10d& N, Mat3x10& dN) {
  const std::array<double, 4> L{1.0 - xi.sum(), xi.x(), xi.y(), xi.z()};
  std::array<Eigen::Vector3d, 4> dL{Eigen::Vector3d(-1, -1, -1), Eigen::Vector3d(1, 0, 0),
                                    Eigen::Vector3d(0, 1, 0), Eigen::Vector3d(0, 0, 1)};
  for (int i = 0; i < 4; ++i) {
    N(i) = L[std::size_t(i)] * (2.0 * L[std::size_t(i)] - 1.0);
    dN.col(i) = (4.0 * L[std::size_t(i)] - 1.0) * dL[std::size_t(i)];
  }
  for (int e = 0; e < 6; ++e) {
    const auto a = std::size_t(kEdges[std::size_t(e)][0]),
               b = std::size_t(kEdges[std::size_t(e)][1]);
    N(4 + e) = 4.0 * L[a] * L[b];
    dN.col(4 + e) = 4.0 * (L[a] * dL[b] + L[b] * dL[a]);
  }
}

struct PointGeometry {
  Vector10d N;
  Mat3x10 dNdx;
  double dV;  // Jacobian determinant × weight
};

std::vector<PointGeometry> geometry(const Tet10Nodes& x, std::size_t element,
                                    const std::vector<Point>& rule) {
  const double scale = (x.colwise().maxCoeff() - x.colwise().minCoeff()).norm();
  std::vector<PointGeometry> out;
  out.reserve(rule.size());
  for (const Point& p : rule) {
    PointGeometry g;
    Mat3x10 dN;
    shape(p.xi, g.N, dN);
    const Eigen::Matrix3d J = dN * x;
    const double det = J.determinant();
    if (!(det > 1e-12 * scale * scale * scale))
      throw model::ComputationError(
          "element " + std::to_string(element) + " (tet10): non-positive Jacobian determinant " +
          std::to_string(det) +
          " (degenerate or inverted element, a midside node too far from its edge, or nodes not "
          "in Gmsh order)");
    g.dNdx = J.inverse() * dN;
    g.dV = det * p.weight;
    out.push_back(g);
  }
  return out;
}

}  // namespace

ElementIntegrals tet10_integrals(const Tet10Nodes& x, const Material& material,
                                 std::size_t element) {
  const Matrix6d D = isotropic_elasticity(material.youngs_modulus, material.poisson_ratio);
  ElementIntegrals out;
  out.stiffness = Eigen::MatrixXd::Zero(30, 30);
  Eigen::Matrix<double, 10, 10> S = Eigen::Matrix<double, 10, 10>::Zero();
  Eigen::Matrix<double, 6, 30> B;
  for (const PointGeometry& g : geometry(x, element, stiffness_rule())) {
    detail::strain_operator<10>(g.dNdx, B);
    out.stiffness += g.dV * B.transpose() * D * B;
  }
  for (const PointGeometry& g : geometry(x, element, mass_rule()))
    S += (material.density * g.dV) * g.N * g.N.transpose();
  fill_solid_inertia(S, x, out);
  return out;
}

Eigen::MatrixXd tet10_geometric_stiffness(const Tet10Nodes& x, const Matrix6d& D,
                                          const Eigen::VectorXd& u, std::size_t element) {
  Eigen::Matrix<double, 10, 10> H = Eigen::Matrix<double, 10, 10>::Zero();
  Eigen::Matrix<double, 6, 30> B;
  for (const PointGeometry& g : geometry(x, element, stiffness_rule())) {
    detail::strain_operator<10>(g.dNdx, B);
    const Vector6d sigma = D * (B * u);
    H += g.dV * g.dNdx.transpose() * detail::stress_tensor(sigma) * g.dNdx;
  }
  return detail::expand_geometric(H);
}

Vector6d tet10_mean_stress(const Tet10Nodes& x, const Matrix6d& D, const Eigen::VectorXd& u,
                           std::size_t element) {
  // The volume average: the stress varies linearly over the element.
  Vector6d sum = Vector6d::Zero();
  double volume = 0.0;
  Eigen::Matrix<double, 6, 30> B;
  for (const PointGeometry& g : geometry(x, element, stiffness_rule())) {
    detail::strain_operator<10>(g.dNdx, B);
    sum += g.dV * (D * (B * u));
    volume += g.dV;
  }
  return sum / volume;
}

}  // namespace appell::fem
