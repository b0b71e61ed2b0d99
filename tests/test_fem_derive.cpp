// The symbolic element equations (fem/element_derivation): Lagrange and Gibbs–Appell give the
// same residuals, the matrices read off them rebuild them, and on one element they equal the
// numerically integrated fem::element_integrals ("numeric quadrature = symbolic integration").
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cmath>

#include "appell/fem/element.hpp"
#include "appell/fem/element_derivation.hpp"
#include "appell/fem/mesh.hpp"

namespace {

using namespace appell;
using GiNaC::ex;

TEST(FemDerive, RoutesIdenticalForEveryKind) {
  for (auto kind : {fem::ElementKind::Bar, fem::ElementKind::Beam2D, fem::ElementKind::Beam3D,
                    fem::ElementKind::Hex8}) {
    const auto c = fem::compare_routes(kind, 1);
    EXPECT_TRUE(c.identical) << fem::kind_name(kind) << ": " << c.first_difference;
    EXPECT_EQ(c.lagrange.residual.size(), c.chain.dofs.size());
  }
}

TEST(FemDerive, MatricesRebuildTheResidual) {
  for (auto [kind, n] : {std::pair{fem::ElementKind::Bar, 2}, {fem::ElementKind::Beam3D, 1}}) {
    const auto chain = fem::make_chain(kind, n);
    const auto d = fem::derive_element(chain, fem::Route::Lagrange);
    const auto rebuilt = fem::assemble_residual(chain, fem::extract_matrices(chain, d.residual));
    for (std::size_t j = 0; j < rebuilt.size(); ++j)
      EXPECT_TRUE((rebuilt[j] - d.residual[j]).expand().is_zero())
          << fem::kind_name(kind) << " dof " << chain.dof_names[j];
  }
}

TEST(FemDerive, BarMatricesInClosedForm) {
  const auto chain = fem::make_chain(fem::ElementKind::Bar, 1);
  const auto m =
      fem::extract_matrices(chain, fem::derive_element(chain, fem::Route::GibbsAppell).residual);
  const ex rho = chain.parameter("rho"), A = chain.parameter("A"), L = chain.parameter("L"),
           E = chain.parameter("E");
  // Consistent mass ρAL/6 [2 1; 1 2] per direction, axial stiffness EA/L [1 −1; −1 1].
  EXPECT_TRUE((m.mass(0, 0) - rho * A * L / 3).expand().is_zero());
  EXPECT_TRUE((m.mass(1, 4) - rho * A * L / 6).expand().is_zero());
  EXPECT_TRUE((m.stiffness(0, 3) + E * A / L).expand().is_zero());
  EXPECT_TRUE(m.stiffness(1, 1).is_zero());
  // Half the mass moves with the origin at each node.
  EXPECT_TRUE((m.first_moment(3, 0) - rho * A * L / 2).expand().is_zero());
}

TEST(FemDerive, CountsGrowWithElementsAndRoutesAgree) {
  std::size_t last_lagrange = 0, last_gibbs = 0, last_nodes = 0;
  for (int n : {1, 2, 5}) {
    const auto c = fem::compare_routes(fem::ElementKind::Bar, n);
    EXPECT_TRUE(c.identical) << "n = " << n << ": " << c.first_difference;
    const auto& l = c.lagrange.cost;
    const auto& g = c.gibbs_appell.cost;
    EXPECT_GT(l.differentiations, last_lagrange);
    EXPECT_GT(g.differentiations, last_gibbs);
    EXPECT_GT(l.derivative_nodes, last_nodes);
    // Lagrange: ∂/∂δ̇, d/dt and ∂/∂δ per dof; Gibbs–Appell: ∂/∂δ̈ only.
    EXPECT_EQ(l.differentiations, 3 * c.chain.dofs.size());
    EXPECT_EQ(g.differentiations, c.chain.dofs.size());
    last_lagrange = l.differentiations;
    last_gibbs = g.differentiations;
    last_nodes = l.derivative_nodes;
  }
}

// ----- symbolic = numeric on one element -------------------------------------------------------

Eigen::Matrix3d skew(const Eigen::Vector3d& a) {
  Eigen::Matrix3d s;
  s << 0, -a.z(), a.y(), a.z(), 0, -a.x(), -a.y(), a.x(), 0;
  return s;
}

Eigen::MatrixXd numeric(const GiNaC::matrix& m, const GiNaC::exmap& values) {
  Eigen::MatrixXd r(m.rows(), m.cols());
  for (unsigned i = 0; i < m.rows(); ++i)
    for (unsigned j = 0; j < m.cols(); ++j) {
      const ex v = m(i, j).subs(values).evalf();
      EXPECT_TRUE(GiNaC::is_a<GiNaC::numeric>(v)) << v;
      r(i, j) = GiNaC::is_a<GiNaC::numeric>(v) ? GiNaC::ex_to<GiNaC::numeric>(v).to_double() : NAN;
    }
  return r;
}

/// Σ_kl a_kl X_kl over the nine inertia-type integrals.
template <class T>
T combine(const Eigen::Matrix3d& a, const std::array<T, 9>& x) {
  T r = a(0, 0) * x[0];
  for (int k = 0; k < 3; ++k)
    for (int l = 0; l < 3; ++l)
      if (k || l) r += a(k, l) * x[std::size_t(3 * k + l)];
  return r;
}

struct Frame {
  Eigen::Vector3d omega{0.3, -0.7, 1.1}, epsilon{0.5, 0.2, -0.4};
};

/// Compares every inertia-type matrix; `perm[a]` is the symbolic dof of numeric dof a.
void expect_inertia_matches(const fem::ElementChain& chain, const fem::ElementMatrices& m,
                            GiNaC::exmap values, const fem::ElementIntegrals& num,
                            const std::vector<int>& perm, bool compare_mass) {
  const Frame f;
  for (int k = 0; k < 3; ++k) {
    values[chain.omega[k]] = f.omega[k];
    values[chain.epsilon[k]] = f.epsilon[k];
  }
  const Eigen::Matrix3d W = skew(f.omega), Eps = skew(f.epsilon);
  const std::size_t n = perm.size();
  // Square matrices are permuted in rows and columns, vectors and m_Oi (n×3) in rows only.
  auto permuted = [&](const GiNaC::matrix& s) {
    const Eigen::MatrixXd full = numeric(s, values);
    const bool square = full.cols() == Eigen::Index(n);
    Eigen::MatrixXd r(n, full.cols());
    for (std::size_t a = 0; a < n; ++a)
      for (Eigen::Index b = 0; b < r.cols(); ++b)
        r(Eigen::Index(a), b) = full(perm[a], square ? perm[std::size_t(b)] : b);
    return r;
  };
  auto expect_near = [](const Eigen::MatrixXd& sym, const Eigen::MatrixXd& num, const char* what) {
    ASSERT_EQ(sym.rows(), num.rows()) << what;
    ASSERT_EQ(sym.cols(), num.cols()) << what;
    const double scale = std::max(1.0, num.cwiseAbs().maxCoeff());
    EXPECT_LT((sym - num).cwiseAbs().maxCoeff(), 1e-10 * scale) << what << "\nsymbolic:\n"
                                                                << sym << "\nnumeric:\n"
                                                                << num;
  };
  if (compare_mass) expect_near(permuted(m.mass), num.mass, "m");
  expect_near(permuted(m.gyroscopic), 2 * combine(W, num.inertia), "c = 2 Σ[ω]_kl J_kl");
  expect_near(permuted(m.stiffness_epsilon), combine(Eps, num.inertia), "k(ε)");
  expect_near(permuted(m.stiffness_omega), combine(Eigen::Matrix3d(W * W), num.inertia), "k(ω)");
  expect_near(permuted(m.force_epsilon), combine(Eps, num.position), "q_i(ε)");
  expect_near(permuted(m.force_omega), combine(Eigen::Matrix3d(W * W), num.position), "q_i(ω)");
  expect_near(permuted(m.first_moment), num.first_moment, "m_Oi");
}

TEST(FemDerive, BeamMatricesEqualNumericIntegrals) {
  const double L = 0.8, rho = 7800, E = 2.1e11, nu = 0.3;
  const fem::Material material{E, nu, rho};
  for (bool planar : {false, true}) {
    const auto kind = planar ? fem::ElementKind::Beam2D : fem::ElementKind::Beam3D;
    const auto chain = fem::make_chain(kind, 1);
    const auto m =
        fem::extract_matrices(chain, fem::derive_element(chain, fem::Route::GibbsAppell).residual);
    const fem::Mesh mesh = fem::beam_mesh(L, 1, planar);
    ASSERT_EQ(mesh.elements[0].nodes, (std::vector<int>{0, 1}));
    std::vector<int> identity(chain.dofs.size());
    for (std::size_t i = 0; i < identity.size(); ++i) identity[i] = int(i);

    // The numeric beam adds the torsional inertia ρ(Iy + Iz)∫θx² to m, the symbolic one is the
    // centre line alone: with Iy = Iz = 0 the two masses must agree exactly.
    const fem::BeamSection massless_section{2e-3, 0.0, 0.0, 0.0};
    GiNaC::exmap values{{chain.parameter("L"), L},
                        {chain.parameter("rho"), rho},
                        {chain.parameter("E"), E},
                        {chain.parameter("A"), massless_section.area}};
    SCOPED_TRACE(fem::kind_name(kind));
    expect_inertia_matches(chain, m, values,
                           fem::element_integrals(mesh, 0, material, massless_section), identity,
                           /*compare_mass=*/true);

    const fem::BeamSection section{2e-3, 3e-7, 5e-7, 6e-7};
    values[chain.parameter("A")] = section.area;
    values[chain.parameter("Iz")] = section.Iz;
    if (!planar) {
      values[chain.parameter("Iy")] = section.Iy;
      values[chain.parameter("J")] = section.J;
      values[chain.parameter("G")] = E / (2 * (1 + nu));
    }
    const Eigen::MatrixXd k = numeric(m.stiffness, values);
    const Eigen::MatrixXd k_num = fem::element_integrals(mesh, 0, material, section).stiffness;
    ASSERT_EQ(k.rows(), k_num.rows());
    EXPECT_LT((k - k_num).cwiseAbs().maxCoeff(), 1e-9 * k_num.cwiseAbs().maxCoeff())
        << "symbolic:\n"
        << k << "\nnumeric:\n"
        << k_num;
  }
}

TEST(FemDerive, HexahedronInertiaEqualsNumericIntegrals) {
  const double L = 0.6, b = 0.25, h = 0.15, rho = 2700;
  const fem::Material material{7e10, 0.33, rho};
  const auto chain = fem::make_chain(fem::ElementKind::Hex8, 1);
  const auto m =
      fem::extract_matrices(chain, fem::derive_element(chain, fem::Route::Lagrange).residual);
  const fem::Mesh mesh = fem::box_mesh({L, b, h}, {1, 1, 1});
  ASSERT_EQ(mesh.elements.size(), 1u);
  // Symbolic node of each numeric element node, found by position: corner bits (ξ, η, ζ) give
  // node 4ξ + (0, 1, 2, 3 for (η, ζ) = (0,0), (1,0), (1,1), (0,1)).
  std::vector<int> perm;
  for (int node : mesh.elements[0].nodes) {
    const Eigen::Vector3d p = mesh.nodes[std::size_t(node)];
    const int xi = p.x() > L / 2, eta = p.y() > 0, zeta = p.z() > 0;
    const int symbolic = 4 * xi + (zeta == 0 ? eta : 3 - eta);
    for (int i = 0; i < 3; ++i) perm.push_back(3 * symbolic + i);
  }
  const GiNaC::exmap values{{chain.parameter("L"), L},
                            {chain.parameter("b"), b},
                            {chain.parameter("h"), h},
                            {chain.parameter("rho"), rho}};
  // The numeric hexahedron's stiffness has incompatible modes: only inertia-type integrals match.
  expect_inertia_matches(chain, m, values, fem::element_integrals(mesh, 0, material, std::nullopt),
                         perm, /*compare_mass=*/true);
}

}  // namespace
