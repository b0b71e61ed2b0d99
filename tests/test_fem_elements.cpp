// Finite elements of flexible bodies (appell::fem element.hpp): stiffness, mass and moving-frame
// integrals of Hex8, Tet4, Beam3D and Beam2D against closed forms and beam theory.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "appell/fem/element.hpp"
#include "appell/fem/element_kernels.hpp"
#include "appell/model/source_location.hpp"
#include "support/sanitizer_build.hpp"

namespace {

using namespace appell::fem;
using Eigen::MatrixXd;
using Eigen::Vector3d;
using Eigen::VectorXd;

const Material steel{210e9, 0.3, 7800.0};

Mesh single(ElementType type, std::vector<Vector3d> nodes) {
  Mesh mesh;
  mesh.nodes = std::move(nodes);
  Element element{type, {}};
  for (int a = 0; a < int(mesh.nodes.size()); ++a) element.nodes.push_back(a);
  mesh.elements.push_back(element);
  return mesh;
}

// A unit cube with every node moved by up to 0.2: a general (non-affine) hexahedron.
Mesh distorted_hex() {
  return single(ElementType::Hex8, {{0.1, -0.05, 0.0},
                                    {1.2, 0.1, -0.1},
                                    {1.0, 1.1, 0.05},
                                    {-0.1, 0.9, 0.1},
                                    {0.05, 0.1, 1.1},
                                    {0.9, -0.1, 0.95},
                                    {1.15, 1.0, 1.2},
                                    {0.0, 1.05, 0.9}});
}

// A frustum (bottom 2×2 at z = 0, top 1×1 at z = 1: V = 7/3, centroid z = 11/28) under an
// affine map: a non-parallelepiped hexahedron whose volume and centroid are known exactly.
struct Frustum {
  Mesh mesh;
  double volume;
  Vector3d centroid;
};
Frustum affine_frustum() {
  Eigen::Matrix3d A;
  A << 1.0, 0.3, 0.2, -0.1, 0.8, 0.1, 0.05, 0.2, 1.3;
  const Vector3d b(2.0, -1.0, 0.5);
  std::vector<Vector3d> x = {{-1, -1, 0},     {1, -1, 0},        {1, 1, 0},
                             {-1, 1, 0},      {-0.5, -0.5, 1.0}, {0.5, -0.5, 1.0},
                             {0.5, 0.5, 1.0}, {-0.5, 0.5, 1.0}};
  for (auto& p : x) p = A * p + b;
  return {single(ElementType::Hex8, x), 7.0 / 3.0 * A.determinant(),
          A * Vector3d(0, 0, 11.0 / 28.0) + b};
}

Mesh tet() {
  return single(ElementType::Tet4,
                {{0.1, 0.0, 0.2}, {1.3, 0.2, 0.0}, {0.2, 1.1, 0.1}, {0.3, 0.4, 1.5}});
}

Mesh beam(ElementType type, const Vector3d& a, const Vector3d& b) { return single(type, {a, b}); }

BeamSection rectangle(double b, double h) {
  // b along the element's y, h along its z.
  return {b * h, b * h * h * h / 12, h * b * b * b / 12, 0.141 * b * b * b * h};
}

int dofs_per_node(ElementType type) { return type == ElementType::Beam3D ? 6 : 3; }

// Element dofs of a rigid translation along k (translational components only).
VectorXd translation(ElementType type, int nodes, int k) {
  const int d = dofs_per_node(type);
  VectorXd t = VectorXd::Zero(nodes * d);
  if (k == 2 && type == ElementType::Beam2D) return t;
  for (int a = 0; a < nodes; ++a) t(a * d + k) = 1.0;
  return t;
}

double symmetry_error(const MatrixXd& m) { return (m - m.transpose()).norm() / m.norm(); }

// Eigenvalues of a symmetric matrix, ascending.
VectorXd eigenvalues(const MatrixXd& m) {
  return Eigen::SelfAdjointEigenSolver<MatrixXd>(m, Eigen::EigenvaluesOnly).eigenvalues();
}

void expect_rigid_modes(const MatrixXd& k, int zeros) {
  EXPECT_LT(symmetry_error(k), 1e-14);
  const VectorXd lambda = eigenvalues(k);
  const double top = lambda(lambda.size() - 1);
  EXPECT_GT(lambda(0), -1e-10 * top);  // positive semi-definite
  for (int i = 0; i < zeros; ++i) EXPECT_LT(std::abs(lambda(i)), 1e-10 * top) << i;
  EXPECT_GT(lambda(zeros), 1e-6 * top);
}

TEST(FemElement, StiffnessIsSymmetricSemiDefiniteWithSixRigidModes) {
  expect_rigid_modes(element_integrals(distorted_hex(), 0, steel, {}).stiffness, 6);
  expect_rigid_modes(element_integrals(tet(), 0, steel, {}).stiffness, 6);
  const BeamSection s = rectangle(0.02, 0.05);
  expect_rigid_modes(
      element_integrals(beam(ElementType::Beam3D, {0.1, 0.2, 0.3}, {1.0, 0.7, -0.4}), 0, steel, s)
          .stiffness,
      6);
  expect_rigid_modes(
      element_integrals(beam(ElementType::Beam2D, {0.1, 0.2, 0.3}, {-0.6, 0.9, 0.3}), 0, steel, s)
          .stiffness,
      3);
}

// Totals of the moving-frame integrals: ρV for the mass in every pair of directions and for the
// first moment, ρ∫x_l dV for the position integrals.
void expect_totals(const Mesh& mesh, const std::optional<BeamSection>& section, double volume,
                   const Vector3d& centroid) {
  const ElementType type = mesh.elements[0].type;
  const int n = int(mesh.nodes.size());
  const ElementIntegrals in = element_integrals(mesh, 0, steel, section);
  const double mass = steel.density * volume;
  const int directions = type == ElementType::Beam2D ? 2 : 3;
  for (int k = 0; k < 3; ++k) {
    const VectorXd tk = translation(type, n, k);
    const double expected = k < directions ? mass : 0.0;
    EXPECT_NEAR(tk.dot(in.mass * tk), expected, 1e-12 * mass) << k;
    EXPECT_NEAR(tk.dot(in.first_moment.col(k)), expected, 1e-12 * mass) << k;
    for (int l = 0; l < 3; ++l) {
      const VectorXd tl = translation(type, n, l);
      EXPECT_NEAR(tk.dot(in.inertia[std::size_t(3 * k + l)] * tl),
                  k < directions && l < directions ? mass : 0.0, 1e-12 * mass)
          << k << l;
      EXPECT_NEAR(tk.dot(in.position[std::size_t(3 * k + l)]),
                  k < directions ? mass * centroid(l) : 0.0, 1e-12 * mass * centroid.norm())
          << k << l;
    }
  }
  // A rigid translation moves every point the same way: the first moment is the mass times it.
  for (int k = 0; k < 3; ++k)
    EXPECT_LT(
        (in.first_moment.col(k) - in.inertia[std::size_t(3 * k + k)] * translation(type, n, k))
            .norm(),
        1e-12 * mass);
}

TEST(FemElement, MassFirstMomentAndPositionTotals) {
  const Frustum f = affine_frustum();
  expect_totals(f.mesh, {}, f.volume, f.centroid);
  const Mesh t = tet();
  const Vector3d e1 = t.nodes[1] - t.nodes[0], e2 = t.nodes[2] - t.nodes[0],
                 e3 = t.nodes[3] - t.nodes[0];
  expect_totals(t, {}, e1.dot(e2.cross(e3)) / 6,
                (t.nodes[0] + t.nodes[1] + t.nodes[2] + t.nodes[3]) / 4);
  const BeamSection s = rectangle(0.02, 0.05);
  const Vector3d a(0.1, 0.2, 0.3), b(1.0, 0.7, -0.4), c(-0.6, 0.9, 0.3);
  expect_totals(beam(ElementType::Beam3D, a, b), s, s.area * (b - a).norm(), (a + b) / 2);
  expect_totals(beam(ElementType::Beam3D, a, a + Vector3d(0, 2, 0)), s, 2 * s.area,
                a + Vector3d(0, 1, 0));
  expect_totals(beam(ElementType::Beam2D, a, c), s, s.area * (c - a).norm(), (a + c) / 2);
}

TEST(FemElement, SolidMassIsTheSumOfTheDiagonalInertiaIntegrals) {
  for (const Mesh& mesh : {distorted_hex(), tet()}) {
    const ElementIntegrals in = element_integrals(mesh, 0, steel, {});
    const MatrixXd sum = in.inertia[0] + in.inertia[4] + in.inertia[8];
    EXPECT_LT((in.mass - sum).norm(), 1e-14 * in.mass.norm());
    EXPECT_LT(symmetry_error(in.mass), 1e-15);
    EXPECT_GT(eigenvalues(in.mass)(0), 0.0);  // consistent mass: positive definite
  }
}

// Nodal displacements of u(x) = H x + c.
VectorXd linear_field(const Mesh& mesh, const Eigen::Matrix3d& H, const Vector3d& c) {
  VectorXd u(3 * Eigen::Index(mesh.nodes.size()));
  for (std::size_t a = 0; a < mesh.nodes.size(); ++a)
    u.segment<3>(3 * Eigen::Index(a)) = H * mesh.nodes[a] + c;
  return u;
}

TEST(FemElement, PatchTestGivesTheExactConstantStress) {
  Eigen::Matrix3d H;
  H << 1e-3, 2e-4, -3e-4, 5e-4, -2e-3, 1e-4, 7e-4, 4e-4, 1.5e-3;
  const Eigen::Matrix3d eps = (H + H.transpose()) / 2;
  Vector6d voigt;
  voigt << eps(0, 0), eps(1, 1), eps(2, 2), 2 * eps(0, 1), 2 * eps(1, 2), 2 * eps(2, 0);
  const Vector6d sigma = isotropic_elasticity(steel.youngs_modulus, steel.poisson_ratio) * voigt;
  for (const Mesh& mesh : {distorted_hex(), tet()}) {
    const VectorXd u = linear_field(mesh, H, Vector3d(0.1, -0.2, 0.3));
    const Vector6d s = element_stress(mesh, 0, steel, {}, u);
    EXPECT_LT((s - sigma).norm(), 1e-10 * sigma.norm()) << s.transpose();
    // The incompatible modes stay silent: the condensed stiffness does no work on the field
    // beyond the constant stress, k u = ∫ Bᵀσ dV, whose work on u is V σ:ε.
    const ElementIntegrals in = element_integrals(mesh, 0, steel, {});
    const double volume = in.first_moment.col(0).sum() / steel.density;
    EXPECT_NEAR(u.dot(in.stiffness * u), volume * sigma.dot(voigt),
                1e-9 * volume * sigma.dot(voigt));
    // Geometric stiffness of the constant stress on a linear field w = G x: V tr(G σ Gᵀ).
    Eigen::Matrix3d G;
    G << 0.3, -0.1, 0.2, 0.5, 0.1, -0.4, 0.0, 0.2, 0.7;
    Eigen::Matrix3d S;
    S << sigma(0), sigma(3), sigma(5), sigma(3), sigma(1), sigma(4), sigma(5), sigma(4), sigma(2);
    const VectorXd w = linear_field(mesh, G, Vector3d(1, 2, 3));
    const MatrixXd kg = geometric_stiffness(mesh, 0, steel, {}, u);
    EXPECT_LT(symmetry_error(kg), 1e-14);
    EXPECT_NEAR(w.dot(kg * w), volume * (G * S * G.transpose()).trace(),
                1e-9 * volume * S.norm() * G.squaredNorm());
  }
}

TEST(FemElement, RectangularHexInPureBendingHasTheBeamEnergy) {
  // One element L × b × h centred at the origin, bent about y with curvature κ. The exact
  // solution u = κxz, v = −νκyz, w = −κ(x² + ν(z² − y²))/2 has σxx = Eκz only, energy
  // ½ E Iy κ² L; its non-trilinear part is exactly the incompatible modes.
  const double L = 1.0, b = 0.1, h = 0.1, kappa = 1e-3, nu = steel.poisson_ratio;
  std::vector<Vector3d> x;
  for (double z : {-h / 2, h / 2})
    for (auto [sx, sy] : {std::pair{-1, -1}, {1, -1}, {1, 1}, {-1, 1}})
      x.emplace_back(sx * L / 2, sy * b / 2, z);
  const Mesh mesh = single(ElementType::Hex8, x);
  VectorXd u(24);
  for (int a = 0; a < 8; ++a) {
    const Vector3d& p = x[std::size_t(a)];
    u.segment<3>(3 * a) << kappa * p.x() * p.z(), -nu * kappa * p.y() * p.z(),
        -kappa / 2 * (p.x() * p.x() + nu * (p.z() * p.z() - p.y() * p.y()));
  }
  const double beam_energy = 0.5 * steel.youngs_modulus * (b * h * h * h / 12) * kappa * kappa * L;
  const ElementIntegrals in = element_integrals(mesh, 0, steel, {});
  EXPECT_NEAR(0.5 * u.dot(in.stiffness * u) / beam_energy, 1.0, 1e-10);
  Hex8Nodes nodes;
  for (int a = 0; a < 8; ++a) nodes.row(a) = x[std::size_t(a)];
  const Matrix6d D = isotropic_elasticity(steel.youngs_modulus, nu);
  const Eigen::Matrix<double, 24, 24> locking = hex8_stiffness(nodes, D, 0, false);
  const double ratio = 0.5 * u.dot(locking * u) / beam_energy;
  EXPECT_GT(ratio, 10.0);  // parasitic shear of the plain trilinear element (aspect 10)
  // The centre stress of pure bending is zero (neutral axis).
  EXPECT_LT(element_stress(mesh, 0, steel, {}, u).norm(), 1e-6 * steel.youngs_modulus * kappa * h);
}

TEST(FemElement, HexGeometricStiffnessUsesTheRecoveredIncompatibleModes) {
  // Pure bending again, the element now off the neutral axis (z in [z0, z1]): the stress is
  // σxx = Eκz everywhere only if the condensed amplitudes are recovered; the compatible field
  // alone carries parasitic shear and a wrong εzz. Tested on the trilinear field w = (0, 0, xyz),
  // whose gradient ∂w_z/∂x = yz gives wᵀ K_G w = ∫ Eκz (yz)² dV.
  const double L = 1.0, b = 0.1, z0 = 0.05, z1 = 0.15, kappa = 1e-3, nu = steel.poisson_ratio;
  std::vector<Vector3d> x;
  for (double z : {z0, z1})
    for (auto [sx, sy] : {std::pair{-1, -1}, {1, -1}, {1, 1}, {-1, 1}})
      x.emplace_back(sx * L / 2, sy * b / 2, z);
  const Mesh mesh = single(ElementType::Hex8, x);
  VectorXd u(24), w = VectorXd::Zero(24);
  for (int a = 0; a < 8; ++a) {
    const Vector3d& p = x[std::size_t(a)];
    u.segment<3>(3 * a) << kappa * p.x() * p.z(), -nu * kappa * p.y() * p.z(),
        -kappa / 2 * (p.x() * p.x() + nu * (p.z() * p.z() - p.y() * p.y()));
    w(3 * a + 2) = p.x() * p.y() * p.z();
  }
  const double E = steel.youngs_modulus;
  const double exact =
      E * kappa * L * (2 * std::pow(b / 2, 3) / 3) * (std::pow(z1, 4) - std::pow(z0, 4)) / 4;
  const MatrixXd kg = geometric_stiffness(mesh, 0, steel, {}, u);
  EXPECT_NEAR(w.dot(kg * w), exact, 1e-9 * exact);
  Vector6d centre = Vector6d::Zero();
  centre(0) = E * kappa * (z0 + z1) / 2;
  EXPECT_LT((element_stress(mesh, 0, steel, {}, u) - centre).norm(), 1e-9 * centre.norm());
}

// --- small dense assemblies ---

struct Dense {
  MatrixXd k, m, kg;
};

Dense assemble(const Mesh& mesh, const std::optional<BeamSection>& section,
               const VectorXd* displacement = nullptr) {
  const int d = mesh.dofs_per_node();
  const Eigen::Index n = Eigen::Index(mesh.dof_count());
  Dense r{MatrixXd::Zero(n, n), MatrixXd::Zero(n, n), MatrixXd::Zero(n, n)};
  for (std::size_t e = 0; e < mesh.elements.size(); ++e) {
    const auto& nodes = mesh.elements[e].nodes;
    const ElementIntegrals in = element_integrals(mesh, e, steel, section);
    VectorXd ue(Eigen::Index(nodes.size()) * d);
    if (displacement)
      for (std::size_t a = 0; a < nodes.size(); ++a)
        ue.segment(Eigen::Index(a) * d, d) = displacement->segment(nodes[a] * d, d);
    const MatrixXd kg =
        displacement ? geometric_stiffness(mesh, e, steel, section, ue) : MatrixXd();
    for (std::size_t a = 0; a < nodes.size(); ++a)
      for (std::size_t b = 0; b < nodes.size(); ++b) {
        const auto block = [&](const MatrixXd& m) {
          return m.block(Eigen::Index(a) * d, Eigen::Index(b) * d, d, d);
        };
        r.k.block(nodes[a] * d, nodes[b] * d, d, d) += block(in.stiffness);
        r.m.block(nodes[a] * d, nodes[b] * d, d, d) += block(in.mass);
        if (displacement) r.kg.block(nodes[a] * d, nodes[b] * d, d, d) += block(kg);
      }
  }
  return r;
}

std::vector<int> keep_except(Eigen::Index n, const std::vector<int>& fixed) {
  std::vector<int> keep;
  for (int i = 0; i < int(n); ++i)
    if (std::find(fixed.begin(), fixed.end(), i) == fixed.end()) keep.push_back(i);
  return keep;
}

MatrixXd sub(const MatrixXd& m, const std::vector<int>& keep) { return m(keep, keep); }

// Natural frequencies in Hz, ascending.
VectorXd frequencies(const MatrixXd& k, const MatrixXd& m) {
  Eigen::GeneralizedSelfAdjointEigenSolver<MatrixXd> solver(k, m, Eigen::EigenvaluesOnly);
  return solver.eigenvalues().cwiseMax(0.0).cwiseSqrt() / (2 * std::numbers::pi);
}

// The lowest eigenvalue of k x = λ m x by inverse iteration from `start` (large dense models).
double lowest_eigenvalue(const MatrixXd& k, const MatrixXd& m, VectorXd x) {
  const Eigen::LLT<MatrixXd> llt(k);
  for (int i = 0; i < 30; ++i) {
    x = llt.solve(m * x);
    x /= x.norm();
  }
  return x.dot(k * x) / x.dot(m * x);
}

Mesh beam_line(ElementType type, int elements, double length, const Vector3d& axis) {
  Mesh mesh;
  for (int i = 0; i <= elements; ++i) mesh.nodes.push_back(axis * (length * i / elements));
  for (int i = 0; i < elements; ++i) mesh.elements.push_back({type, {i, i + 1}});
  return mesh;
}

double bending_frequency(double beta_L, double L, double EI, double rhoA) {
  return beta_L * beta_L / (2 * std::numbers::pi * L * L) * std::sqrt(EI / rhoA);
}

TEST(FemElement, Beam3DCantileverFrequenciesMatchEulerBernoulli) {
  // Inclined cantilever with a 2:1 section: both bending planes, clamped at node 0.
  const double L = 1.0;
  const BeamSection s = rectangle(0.02, 0.04);
  const Mesh mesh = beam_line(ElementType::Beam3D, 10, L, Vector3d(1, 2, -1).normalized());
  const Dense a = assemble(mesh, s);
  const std::vector<int> keep = keep_except(a.k.rows(), {0, 1, 2, 3, 4, 5});
  const VectorXd f = frequencies(sub(a.k, keep), sub(a.m, keep));
  const double rhoA = steel.density * s.area;
  for (double I : {s.Iy, s.Iz})
    for (double beta : {1.8751, 4.6941, 7.8548}) {
      const double exact = bending_frequency(beta, L, steel.youngs_modulus * I, rhoA);
      double nearest = f(0);
      for (Eigen::Index i = 0; i < f.size(); ++i)
        if (std::abs(f(i) - exact) < std::abs(nearest - exact)) nearest = f(i);
      const double error = std::abs(nearest / exact - 1);
      EXPECT_LT(error, 1e-3) << "I " << I << " βL " << beta;
      RecordProperty("error_" + std::to_string(beta), std::to_string(error));
    }
}

TEST(FemElement, OneBeamElementGivesTheExactTipDeflection) {
  const double L = 2.0, P = 1000.0, E = steel.youngs_modulus;
  const BeamSection s = rectangle(0.03, 0.05);
  const Mesh mesh = beam(ElementType::Beam3D, {0, 0, 0}, {L, 0, 0});
  const MatrixXd k = element_integrals(mesh, 0, steel, s).stiffness.bottomRightCorner(6, 6);
  Eigen::Matrix<double, 6, 1> load;
  load << P, P, P, 0, 0, 0;
  const VectorXd u = k.ldlt().solve(load);
  EXPECT_NEAR(u(0), P * L / (E * s.area), 1e-12 * std::abs(u(0)));
  EXPECT_NEAR(u(1), P * L * L * L / (3 * E * s.Iz), 1e-10 * u(1));
  EXPECT_NEAR(u(2), P * L * L * L / (3 * E * s.Iy), 1e-10 * u(2));
  EXPECT_NEAR(u(5), P * L * L / (2 * E * s.Iz), 1e-10 * u(5));
  EXPECT_NEAR(u(4), -P * L * L / (2 * E * s.Iy), 1e-10 * std::abs(u(4)));  // w' = −θy
  // A tip torque twists by T L / (G J).
  Eigen::Matrix<double, 6, 1> torque;
  torque << 0, 0, 0, P, 0, 0;
  const double G = E / (2 * (1 + steel.poisson_ratio));
  EXPECT_NEAR(k.ldlt().solve(torque)(3), P * L / (G * s.J), 1e-10 * P * L / (G * s.J));
}

TEST(FemElement, SlenderHexBarBendsLikeABeam) {
  // L = 1, 0.02 × 0.02 section, 40 × 2 × 2 elements, clamped at x = 0.
  const double L = 1.0, h = 0.02;
  const int nx = 40, ny = 2, nz = 2;
  Mesh mesh;
  const auto id = [&](int i, int j, int k) { return (i * (ny + 1) + j) * (nz + 1) + k; };
  for (int i = 0; i <= nx; ++i)
    for (int j = 0; j <= ny; ++j)
      for (int k = 0; k <= nz; ++k)
        mesh.nodes.emplace_back(L * i / nx, h * (double(j) / ny - 0.5), h * (double(k) / nz - 0.5));
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < ny; ++j)
      for (int k = 0; k < nz; ++k)
        mesh.elements.push_back(
            {ElementType::Hex8,
             {id(i, j, k), id(i + 1, j, k), id(i + 1, j + 1, k), id(i, j + 1, k), id(i, j, k + 1),
              id(i + 1, j, k + 1), id(i + 1, j + 1, k + 1), id(i, j + 1, k + 1)}});
  // Prestress: uniaxial tension P (the patch test makes it exact in every element).
  const double E = steel.youngs_modulus, nu = steel.poisson_ratio, A = h * h;
  const double I = h * h * h * h / 12, P = 0.5 * E * I / (L * L);
  const double strain = P / (E * A);
  VectorXd u0(3 * Eigen::Index(mesh.nodes.size()));
  for (std::size_t a = 0; a < mesh.nodes.size(); ++a) {
    const Vector3d& p = mesh.nodes[a];
    u0.segment<3>(3 * Eigen::Index(a)) << strain * p.x(), -nu * strain * p.y(),
        -nu * strain * p.z();
  }
  const Dense a = assemble(mesh, {}, &u0);
  std::vector<int> fixed;
  for (int j = 0; j <= ny; ++j)
    for (int k = 0; k <= nz; ++k)
      for (int c = 0; c < 3; ++c) fixed.push_back(3 * id(0, j, k) + c);
  const std::vector<int> keep = keep_except(a.k.rows(), fixed);
  const MatrixXd k = sub(a.k, keep), m = sub(a.m, keep), kg = sub(a.kg, keep);
  VectorXd start = VectorXd::Zero(Eigen::Index(keep.size()));
  for (std::size_t r = 0; r < keep.size(); ++r)
    if (keep[r] % 3 == 1)
      start(Eigen::Index(r)) = std::pow(mesh.nodes[std::size_t(keep[r] / 3)].x(), 2);
  const double lambda = lowest_eigenvalue(k, m, start);
  const double f = std::sqrt(lambda) / (2 * std::numbers::pi);
  const double exact = bending_frequency(1.8751, L, E * I, steel.density * A);
  EXPECT_LT(std::abs(f / exact - 1), 0.02) << f << " vs " << exact;
  RecordProperty("hex_bar_frequency_error", std::to_string(f / exact - 1));

  // Under tension the first bending eigenvalue rises by the same amount as a beam's with the
  // same axial force: solid and beam geometric stiffnesses agree for a slender bar.
  const double lambda_p = lowest_eigenvalue(k + kg, m, start);
  const Mesh line = beam_line(ElementType::Beam2D, nx, L, Vector3d::UnitX());
  const BeamSection s{A, I, I, 0.141 * h * h * h * h};
  VectorXd ub = VectorXd::Zero(Eigen::Index(line.dof_count()));
  for (std::size_t i = 0; i < line.nodes.size(); ++i)
    ub(3 * Eigen::Index(i)) = strain * line.nodes[i].x();
  const Dense b = assemble(line, s, &ub);
  const std::vector<int> keep_b = keep_except(b.k.rows(), {0, 1, 2});
  const VectorXd fb0 = frequencies(sub(b.k, keep_b), sub(b.m, keep_b));
  const VectorXd fbp = frequencies(sub(b.k + b.kg, keep_b), sub(b.m, keep_b));
  const double beam_rise = std::pow(fbp(0) / fb0(0), 2) - 1;
  const double solid_rise = lambda_p / lambda - 1;
  EXPECT_GT(beam_rise, 0.05);
  EXPECT_NEAR(solid_rise / beam_rise, 1.0, 0.03) << solid_rise << " vs " << beam_rise;
  RecordProperty("tension_rise_ratio", std::to_string(solid_rise / beam_rise));
}

TEST(FemElement, BeamGeometricStiffnessIsTheConsistentMatrix) {
  const double L = 0.7, E = steel.youngs_modulus;
  const BeamSection s = rectangle(0.02, 0.03);
  const double P = 1234.0;
  Eigen::Matrix4d standard;
  standard << 36, 3 * L, -36, 3 * L, 3 * L, 4 * L * L, -3 * L, -L * L, -36, -3 * L, 36, -3 * L,
      3 * L, -L * L, -3 * L, 4 * L * L;
  standard *= P / (30 * L);
  // Beam3D along x: (v, θz) as the standard matrix, (w, −θy) likewise, nothing else.
  VectorXd u = VectorXd::Zero(12);
  u(6) = P * L / (E * s.area);
  const Mesh b3 = beam(ElementType::Beam3D, {0, 0, 0}, {L, 0, 0});
  const MatrixXd kg = geometric_stiffness(b3, 0, steel, s, u);
  EXPECT_NEAR(element_stress(b3, 0, steel, s, u)(0), P, 1e-9 * P);
  const std::vector<int> v = {1, 5, 7, 11}, w = {2, 4, 8, 10};
  const Eigen::Vector4d sign(1, -1, 1, -1);
  EXPECT_LT((kg(v, v) - standard).norm(), 1e-12 * standard.norm());
  EXPECT_LT((kg(w, w) - sign.asDiagonal() * standard * sign.asDiagonal()).norm(),
            1e-12 * standard.norm());
  EXPECT_NEAR(kg.norm(), std::sqrt(2.0) * standard.norm(), 1e-12 * standard.norm());
  // Beam2D anywhere in the plane: the same matrix in its own axes.
  const Vector3d a(0.3, -0.2, 0.1), t(std::cos(0.4), std::sin(0.4), 0.0);
  const Mesh b2 = beam(ElementType::Beam2D, a, a + L * t);
  VectorXd u2 = VectorXd::Zero(6);
  u2.segment<2>(3) = (P * L / (E * s.area)) * t.head<2>();
  Eigen::Matrix<double, 6, 6> T = Eigen::Matrix<double, 6, 6>::Zero();
  for (int i = 0; i < 2; ++i) {
    T.block<2, 2>(3 * i, 3 * i) << t.x(), t.y(), -t.y(), t.x();
    T(3 * i + 2, 3 * i + 2) = 1;
  }
  const MatrixXd local = T * geometric_stiffness(b2, 0, steel, s, u2) * T.transpose();
  const std::vector<int> v2 = {1, 2, 4, 5};
  EXPECT_LT((local(v2, v2) - standard).norm(), 1e-12 * standard.norm());
  EXPECT_LT(local.row(0).norm() + local.row(3).norm(), 1e-12 * standard.norm());
}

TEST(FemElement, TensionRaisesThePinnedBeamFrequencyAsTheoryPredicts) {
  // Pinned–pinned string-beam: ω² = (π/L)⁴ EI/(ρA) (1 + P L² / (π² EI)), mode sin(πx/L).
  const double L = 1.0, E = steel.youngs_modulus;
  const BeamSection s = rectangle(0.01, 0.01);
  const Mesh mesh = beam_line(ElementType::Beam2D, 20, L, Vector3d::UnitX());
  const double EI = E * s.Iz;
  const int last = 20;
  for (double factor : {0.5, 3.0}) {
    const double P = factor * std::numbers::pi * std::numbers::pi * EI / (L * L);
    VectorXd u = VectorXd::Zero(Eigen::Index(mesh.dof_count()));
    for (int i = 0; i <= last; ++i) u(3 * i) = P / (E * s.area) * mesh.nodes[std::size_t(i)].x();
    const Dense a = assemble(mesh, s, &u);
    const std::vector<int> keep = keep_except(a.k.rows(), {0, 1, 3 * last + 1});
    const VectorXd f0 = frequencies(sub(a.k, keep), sub(a.m, keep));
    const VectorXd fp = frequencies(sub(a.k + a.kg, keep), sub(a.m, keep));
    EXPECT_NEAR(fp(0) / f0(0), std::sqrt(1 + factor), 1e-4 * std::sqrt(1 + factor)) << factor;
    EXPECT_NEAR(f0(0), bending_frequency(std::numbers::pi, L, EI, steel.density * s.area),
                1e-4 * f0(0));
  }
}

TEST(FemElement, PlanarBeamFieldHasNoOutOfPlaneComponent) {
  const BeamSection s = rectangle(0.02, 0.05);
  const ElementIntegrals in =
      element_integrals(beam(ElementType::Beam2D, {0, 0, 0}, {0.3, 0.4, 0}), 0, steel, s);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(in.inertia[std::size_t(3 * k + 2)].norm(), 0.0);
    EXPECT_EQ(in.inertia[std::size_t(6 + k)].norm(), 0.0);
    EXPECT_EQ(in.position[std::size_t(6 + k)].norm(), 0.0);
  }
  EXPECT_EQ(in.first_moment.col(2).norm(), 0.0);
  EXPECT_EQ(in.stiffness.rows(), 6);
  // Without rotary inertia the beam mass is the centre-line mass.
  const BeamSection thin{s.area, 0.0, 0.0, s.J};
  const ElementIntegrals b3 =
      element_integrals(beam(ElementType::Beam3D, {0, 0, 0}, {0.3, 0.4, 0.5}), 0, steel, thin);
  EXPECT_LT((b3.mass - b3.inertia[0] - b3.inertia[4] - b3.inertia[8]).norm(),
            1e-14 * b3.mass.norm());
}

TEST(FemElement, DegenerateElementsAndMissingSectionsAreRejected) {
  Mesh mesh = distorted_hex();
  // A second hexahedron with its top face collapsed onto its bottom face.
  Element flat{ElementType::Hex8, {0, 1, 2, 3, 0, 1, 2, 3}};
  mesh.elements.push_back(flat);
  EXPECT_NO_THROW(element_integrals(mesh, 0, steel, {}));
  try {
    element_integrals(mesh, 1, steel, {});
    ADD_FAILURE() << "flat hexahedron accepted";
  } catch (const appell::model::ComputationError& error) {
    // Named 1-based, as Gmsh numbers elements: the second element is element 2.
    EXPECT_NE(std::string(error.what()).find("element 2 (hex8)"), std::string::npos)
        << error.what();
  }
  // Nodes of a hexahedron in the wrong order (top face first) invert it.
  Mesh inverted = distorted_hex();
  inverted.elements[0].nodes = {4, 5, 6, 7, 0, 1, 2, 3};
  EXPECT_THROW(element_integrals(inverted, 0, steel, {}), appell::model::ComputationError);
  EXPECT_THROW(geometric_stiffness(inverted, 0, steel, {}, VectorXd::Zero(24)),
               appell::model::ComputationError);
  Mesh swapped = tet();
  swapped.elements[0].nodes = {0, 2, 1, 3};
  EXPECT_THROW(element_integrals(swapped, 0, steel, {}), appell::model::ComputationError);
  const Mesh b = beam(ElementType::Beam3D, {0, 0, 0}, {1, 0, 0});
  EXPECT_THROW(element_integrals(b, 0, steel, std::nullopt), std::invalid_argument);
  EXPECT_THROW(element_integrals(beam(ElementType::Beam3D, {1, 1, 1}, {1, 1, 1}), 0, steel,
                                 rectangle(0.1, 0.1)),
               appell::model::ComputationError);
  EXPECT_THROW(geometric_stiffness(b, 0, steel, rectangle(0.1, 0.1), VectorXd::Zero(6)),
               std::invalid_argument);
}

TEST(FemElement, TenThousandHexahedraIntegrateQuickly) {
  const Mesh mesh = distorted_hex();
  const auto start = std::chrono::steady_clock::now();
  double trace = 0.0;
  for (int i = 0; i < 10000; ++i) trace += element_integrals(mesh, 0, steel, {}).stiffness(0, 0);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GT(trace, 0.0);
  // ~10⁵ per few seconds on a shared 2-core machine; not a measure under the sanitizers.
  if (!appell::test_support::kSanitizerBuild) {
    EXPECT_LT(seconds, 5.0);
  }
  RecordProperty("seconds_per_10k_hex8", std::to_string(seconds));
  std::printf("element_integrals: 10^4 hex8 in %.3f s\n", seconds);
}

}  // namespace
