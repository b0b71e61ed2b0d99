// The two-node Euler–Bernoulli beam: axial (linear u), torsion (linear θx) and bending in both
// section planes (cubic Hermite v, w), in the element's axes, rotated to the frame's.
//
// Element axes: x from node 0 to node 1; y the frame's y made orthogonal to x (the frame's z
// when the beam lies along y); z = x × y. Local dofs per node: u, v, w, θx, θy, θz. Bending in
// the x–y plane has v' = θz, in the x–z plane w' = −θy (right-handed rotation about y turns +x
// towards −z). Every matrix is integrated by 4-point Gauss, exact for the degree-6 products of
// the Hermite polynomials and the degree-4 ∫ N x.
//
// Mass: ∫ρA NᵀN dx over the centre-line field, plus the torsional inertia ρ(Iy + Iz)∫θxᵀθx dx
// of the section spinning about the axis (the polar moment; J is the torsion constant and differs
// from it for non-circular sections). Without it the θx dofs would have no mass. The rotary
// inertia of bending is neglected, as Euler–Bernoulli theory neglects it. J_kl, the first moment
// and the position integrals come from the centre-line field alone: they describe how the
// frame's motion drives translations of the axis.
//
// Beam2D is the Beam3D of a beam in the x–y plane (element z = frame z) restricted to the dofs
// u, v, θz of each node; those couple to nothing else, and its field has no z component.
#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "appell/fem/element_kernels.hpp"
#include "appell/fem/quadrature.hpp"
#include "appell/model/source_location.hpp"

namespace appell::fem {
namespace {

using Mat12 = Eigen::Matrix<double, 12, 12>;
using Row12 = Eigen::Matrix<double, 1, 12>;
using Mat3x12 = Eigen::Matrix<double, 3, 12>;

constexpr std::array<int, 6> kPlanarDofs = {0, 1, 5, 6, 7, 11};  // u, v, θz of both nodes

struct Axes {
  Eigen::Matrix3d R;  // rows: element x, y, z in frame components (local = R · frame)
  double length = 0.0;
  Eigen::Vector3d origin;
};

Axes axes(const Eigen::Vector3d& a, const Eigen::Vector3d& b, bool planar, std::size_t element) {
  const char* name = planar ? " (beam2d)" : " (beam3d)";
  const Eigen::Vector3d d = b - a;
  const double L = d.norm();
  if (!(L > 1e-12 * std::max(a.norm(), b.norm())) || L == 0.0)
    throw model::ComputationError("element " + std::to_string(element) + name +
                                  ": zero length (coincident nodes)");
  const Eigen::Vector3d t = d / L;
  Eigen::Vector3d y;
  if (planar) {
    if (std::abs(t.z()) > 1e-9)
      throw model::ComputationError("element " + std::to_string(element) + name +
                                    ": a planar beam must lie in the x–y plane");
    y = Eigen::Vector3d::UnitZ().cross(t);
  } else {
    y = Eigen::Vector3d::UnitY() - t.y() * t;
    if (y.norm() < 1e-6) y = Eigen::Vector3d::UnitZ() - t.z() * t;
  }
  y.normalize();
  Axes r;
  r.R.row(0) = t;
  r.R.row(1) = y;
  r.R.row(2) = t.cross(y);
  r.length = L;
  r.origin = a;
  return r;
}

// The local fields and their derivatives at ξ = s/L, as rows over the 12 local dofs.
struct Fields {
  Mat3x12 N = Mat3x12::Zero();  // centre-line displacement (u, v, w)
  Row12 du = Row12::Zero(), dv = Row12::Zero(), dw = Row12::Zero();
  Row12 ddv = Row12::Zero(), ddw = Row12::Zero();
  Row12 tx = Row12::Zero(), dtx = Row12::Zero();
};

Fields fields(double xi, double L) {
  const double x2 = xi * xi, x3 = x2 * xi;
  const double H[4] = {1 - 3 * x2 + 2 * x3, L * (xi - 2 * x2 + x3), 3 * x2 - 2 * x3, L * (x3 - x2)};
  const double dH[4] = {(6 * x2 - 6 * xi) / L, 1 - 4 * xi + 3 * x2, (6 * xi - 6 * x2) / L,
                        3 * x2 - 2 * xi};
  const double ddH[4] = {(12 * xi - 6) / (L * L), (6 * xi - 4) / L, (6 - 12 * xi) / (L * L),
                         (6 * xi - 2) / L};
  Fields f;
  f.N(0, 0) = 1 - xi;
  f.N(0, 6) = xi;
  f.du(0) = -1 / L;
  f.du(6) = 1 / L;
  f.tx(3) = 1 - xi;
  f.tx(9) = xi;
  f.dtx(3) = -1 / L;
  f.dtx(9) = 1 / L;
  // v: dofs v0, θz0, v1, θz1; w: w0, −θy0, w1, −θy1.
  const int v_dofs[4] = {1, 5, 7, 11}, w_dofs[4] = {2, 4, 8, 10};
  const double w_sign[4] = {1, -1, 1, -1};
  for (int i = 0; i < 4; ++i) {
    f.N(1, v_dofs[i]) = H[i];
    f.dv(v_dofs[i]) = dH[i];
    f.ddv(v_dofs[i]) = ddH[i];
    f.N(2, w_dofs[i]) = w_sign[i] * H[i];
    f.dw(w_dofs[i]) = w_sign[i] * dH[i];
    f.ddw(w_dofs[i]) = w_sign[i] * ddH[i];
  }
  return f;
}

Mat12 transformation(const Eigen::Matrix3d& R) {
  Mat12 T = Mat12::Zero();
  for (int i = 0; i < 4; ++i) T.block<3, 3>(3 * i, 3 * i) = R;
  return T;
}

// 12 dofs → the element's dofs (all for Beam3D, u, v, θz for Beam2D).
Eigen::MatrixXd restrict(const Eigen::MatrixXd& m, bool planar) {
  if (!planar) return m;
  Eigen::MatrixXd r(6, m.cols() == 1 ? 1 : 6);
  for (int i = 0; i < 6; ++i)
    for (Eigen::Index j = 0; j < r.cols(); ++j)
      r(i, j) = m(kPlanarDofs[std::size_t(i)], r.cols() == 1 ? 0 : kPlanarDofs[std::size_t(j)]);
  return r;
}

Eigen::Matrix<double, 12, 1> expand(const Eigen::VectorXd& u, bool planar) {
  Eigen::Matrix<double, 12, 1> full = Eigen::Matrix<double, 12, 1>::Zero();
  if (!planar) return u;
  for (int i = 0; i < 6; ++i) full(kPlanarDofs[std::size_t(i)]) = u(i);
  return full;
}

template <class F>
void integrate(double L, F&& at) {
  const GaussRule& rule = gauss_legendre(4);
  for (int q = 0; q < rule.count; ++q) {
    const double xi = 0.5 * (1 + rule.points[std::size_t(q)]);
    at(xi, 0.5 * L * rule.weights[std::size_t(q)]);
  }
}

}  // namespace

ElementIntegrals beam_integrals(const Eigen::Vector3d& a, const Eigen::Vector3d& b, bool planar,
                                const Material& material, const BeamSection& section,
                                std::size_t element) {
  const Axes ax = axes(a, b, planar, element);
  const double L = ax.length, E = material.youngs_modulus, rho = material.density;
  const double G = E / (2 * (1 + material.poisson_ratio));
  const double rhoA = rho * section.area;
  const Mat12 T = transformation(ax.R);
  Mat12 k = Mat12::Zero(), m = Mat12::Zero();
  std::array<Mat12, 9> J;
  for (auto& j : J) j.setZero();
  Eigen::Matrix<double, 12, 3> first = Eigen::Matrix<double, 12, 3>::Zero();
  std::array<Eigen::Matrix<double, 12, 1>, 9> s;
  for (auto& v : s) v.setZero();
  integrate(L, [&](double xi, double w) {
    const Fields f = fields(xi, L);
    k.noalias() +=
        w *
        (E * section.area * f.du.transpose() * f.du + G * section.J * f.dtx.transpose() * f.dtx +
         E * section.Iz * f.ddv.transpose() * f.ddv + E * section.Iy * f.ddw.transpose() * f.ddw);
    m.noalias() += w * (rhoA * f.N.transpose() * f.N +
                        rho * (section.Iy + section.Iz) * f.tx.transpose() * f.tx);
    // Frame components of the centre-line field, on frame dofs.
    const Mat3x12 Nf = ax.R.transpose() * f.N * T;
    const Eigen::Vector3d x = ax.origin + (xi * L) * ax.R.row(0).transpose();
    for (int kk = 0; kk < 3; ++kk) {
      first.col(kk) += (w * rhoA) * Nf.row(kk).transpose();
      for (int l = 0; l < 3; ++l) {
        J[std::size_t(3 * kk + l)].noalias() += (w * rhoA) * Nf.row(kk).transpose() * Nf.row(l);
        s[std::size_t(3 * kk + l)] += (w * rhoA * x(l)) * Nf.row(kk).transpose();
      }
    }
  });
  ElementIntegrals out;
  out.stiffness = restrict(T.transpose() * k * T, planar);
  out.mass = restrict(T.transpose() * m * T, planar);
  for (std::size_t i = 0; i < 9; ++i) {
    out.inertia[i] = restrict(J[i], planar);
    out.position[i] = restrict(s[i], planar);
  }
  if (planar) {
    out.first_moment.resize(6, 3);
    for (int i = 0; i < 6; ++i) out.first_moment.row(i) = first.row(kPlanarDofs[std::size_t(i)]);
  } else {
    out.first_moment = first;
  }
  return out;
}

double beam_axial_force(const Eigen::Vector3d& a, const Eigen::Vector3d& b, bool planar,
                        const Material& material, const BeamSection& section,
                        const Eigen::VectorXd& u, std::size_t element) {
  const Axes ax = axes(a, b, planar, element);
  const Eigen::Matrix<double, 12, 1> full = expand(u, planar);
  const Eigen::Vector3d t = ax.R.row(0).transpose();
  const double elongation = t.dot(full.segment<3>(6) - full.segment<3>(0));
  return material.youngs_modulus * section.area * elongation / ax.length;
}

Eigen::MatrixXd beam_geometric_stiffness(const Eigen::Vector3d& a, const Eigen::Vector3d& b,
                                         bool planar, const Material& material,
                                         const BeamSection& section, const Eigen::VectorXd& u,
                                         std::size_t element) {
  const Axes ax = axes(a, b, planar, element);
  const double P = beam_axial_force(a, b, planar, material, section, u, element);
  const double L = ax.length;
  // The work of the axial force on the rotation of the axis: ½ P ∫ (v'² + w'²) dx.
  Mat12 kg = Mat12::Zero();
  integrate(L, [&](double xi, double w) {
    const Fields f = fields(xi, L);
    kg.noalias() += (w * P) * (f.dv.transpose() * f.dv + f.dw.transpose() * f.dw);
  });
  const Mat12 T = transformation(ax.R);
  return restrict(T.transpose() * kg * T, planar);
}

}  // namespace appell::fem
