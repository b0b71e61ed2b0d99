// The 10-node tetrahedron, as Gmsh writes it (element type 11): its consistent mass against the
// exact barycentric integrals, rigid motions and constant strains, a slender cantilever meshed
// with it against Euler–Bernoulli (where the 4-node tetrahedron locks), Gmsh's node order
// checked on reading, and VTK's order on writing.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "appell/fem/element.hpp"
#include "appell/fem/element_kernels.hpp"
#include "appell/fem/flexible_body.hpp"
#include "appell/fem/frame_motion.hpp"
#include "appell/fem/mesh.hpp"
#include "appell/fem/modal_analysis.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/io/vtk_writer.hpp"

namespace {

using namespace appell;

// Gmsh's edges of a tetrahedron: midside node 4 + e is on kEdges[e].
constexpr int kEdges[6][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 0}, {3, 2}, {3, 1}};

fem::Mesh one_tet10(const std::array<Eigen::Vector3d, 4>& v) {
  fem::Mesh mesh;
  for (const auto& x : v) mesh.nodes.push_back(x);
  for (const auto& e : kEdges)
    mesh.nodes.push_back(0.5 * (v[std::size_t(e[0])] + v[std::size_t(e[1])]));
  mesh.elements.push_back({fem::ElementType::Tet10, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}});
  return mesh;
}

double factorial(int n) { return n <= 1 ? 1.0 : n * factorial(n - 1); }

// A polynomial in the barycentric coordinates: exponents (of L0..L3) -> coefficient.
using Polynomial = std::map<std::array<int, 4>, double>;

Polynomial product(const Polynomial& p, const Polynomial& q) {
  Polynomial r;
  for (const auto& [a, ca] : p)
    for (const auto& [b, cb] : q) {
      std::array<int, 4> e{};
      for (int i = 0; i < 4; ++i) e[std::size_t(i)] = a[std::size_t(i)] + b[std::size_t(i)];
      r[e] += ca * cb;
    }
  return r;
}

// ∫ L0^a L1^b L2^c L3^d dV = 6 V a! b! c! d! / (a + b + c + d + 3)!
double integral(const Polynomial& p, double volume) {
  double sum = 0;
  for (const auto& [e, c] : p)
    sum += c * 6 * volume * factorial(e[0]) * factorial(e[1]) * factorial(e[2]) * factorial(e[3]) /
           factorial(e[0] + e[1] + e[2] + e[3] + 3);
  return sum;
}

std::vector<Polynomial> tet10_shape_functions() {
  std::vector<Polynomial> N;
  for (int i = 0; i < 4; ++i) {  // L_i (2 L_i − 1)
    std::array<int, 4> square{}, linear{};
    square[std::size_t(i)] = 2;
    linear[std::size_t(i)] = 1;
    N.push_back({{square, 2.0}, {linear, -1.0}});
  }
  for (const auto& e : kEdges) {  // 4 L_a L_b
    std::array<int, 4> mixed{};
    mixed[std::size_t(e[0])] = 1;
    mixed[std::size_t(e[1])] = 1;
    N.push_back({{mixed, 4.0}});
  }
  return N;
}

const fem::Material kSteel{2.1e11, 0.3, 7850.0};

const std::array<Eigen::Vector3d, 4> kSkewed{
    Eigen::Vector3d(0.1, -0.2, 0.05), Eigen::Vector3d(1.3, 0.1, -0.1),
    Eigen::Vector3d(0.2, 0.9, 0.3), Eigen::Vector3d(0.4, 0.3, 1.1)};

double volume_of(const std::array<Eigen::Vector3d, 4>& v) {
  Eigen::Matrix3d m;
  m << v[1] - v[0], v[2] - v[0], v[3] - v[0];
  return m.determinant() / 6.0;
}

TEST(FemTet10, ConsistentMassIsTheExactBarycentricIntegral) {
  const fem::Mesh mesh = one_tet10(kSkewed);
  const double V = volume_of(kSkewed);
  ASSERT_GT(V, 0);
  const auto integrals = fem::element_integrals(mesh, 0, kSteel, std::nullopt);
  const auto N = tet10_shape_functions();
  double total = 0;
  for (int a = 0; a < 10; ++a)
    for (int b = 0; b < 10; ++b) {
      const double exact =
          kSteel.density * integral(product(N[std::size_t(a)], N[std::size_t(b)]), V);
      EXPECT_NEAR(integrals.mass(3 * a, 3 * b), exact, 1e-12 * kSteel.density * V)
          << "S(" << a << ", " << b << ")";
      EXPECT_NEAR(integrals.mass(3 * a + 2, 3 * b + 2), exact, 1e-12 * kSteel.density * V);
      total += integrals.mass(3 * a, 3 * b);
    }
  EXPECT_NEAR(total, kSteel.density * V, 1e-12 * kSteel.density * V);
  // The corner nodes carry negative lumped mass: ∫ρ N_corner dV = −ρV/20, the edges ρV/5.
  EXPECT_NEAR(integrals.first_moment(0, 0), -kSteel.density * V / 20, 1e-12 * kSteel.density * V);
  EXPECT_NEAR(integrals.first_moment(3 * 4, 0), kSteel.density * V / 5, 1e-12 * kSteel.density * V);
}

TEST(FemTet10, RigidMotionsAreStressFreeAndConstantStrainHasItsExactEnergy) {
  const fem::Mesh mesh = one_tet10(kSkewed);
  const double V = volume_of(kSkewed);
  const Eigen::MatrixXd K = fem::element_integrals(mesh, 0, kSteel, std::nullopt).stiffness;
  const double scale = K.cwiseAbs().maxCoeff();
  std::mt19937 random(7);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  auto field = [&](const Eigen::Matrix3d& G, const Eigen::Vector3d& c) {
    Eigen::VectorXd u(30);
    for (int a = 0; a < 10; ++a) u.segment<3>(3 * a) = G * mesh.nodes[std::size_t(a)] + c;
    return u;
  };
  for (int trial = 0; trial < 5; ++trial) {
    const Eigen::Vector3d c(uniform(random), uniform(random), uniform(random));
    const Eigen::Vector3d w(uniform(random), uniform(random), uniform(random));
    Eigen::Matrix3d W;  // u = w × x + c
    W << 0, -w.z(), w.y(), w.z(), 0, -w.x(), -w.y(), w.x(), 0;
    EXPECT_LT((K * field(W, c)).cwiseAbs().maxCoeff(), 1e-12 * scale);
    // A linear field: ε constant, energy ½ V εᵀ D ε.
    Eigen::Matrix3d G;
    for (int i = 0; i < 9; ++i) G(i / 3, i % 3) = 1e-3 * uniform(random);
    const Eigen::VectorXd u = field(G, Eigen::Vector3d::Zero());
    fem::Vector6d strain;
    strain << G(0, 0), G(1, 1), G(2, 2), G(0, 1) + G(1, 0), G(1, 2) + G(2, 1), G(2, 0) + G(0, 2);
    const fem::Matrix6d D = fem::isotropic_elasticity(kSteel.youngs_modulus, kSteel.poisson_ratio);
    const double exact = 0.5 * V * strain.dot(D * strain);
    EXPECT_NEAR(0.5 * u.dot(K * u), exact, 1e-8 * exact);
    const fem::Vector6d stress = fem::element_stress(mesh, 0, kSteel, std::nullopt, u);
    EXPECT_LT((stress - D * strain).cwiseAbs().maxCoeff(),
              1e-9 * (D * strain).cwiseAbs().maxCoeff());
  }
}

// A box [0, L] × [−b/2, b/2] × [−h/2, h/2] of nx × ny × nz cubes, each cut into six tetrahedra
// around its main diagonal (the same cut in every cube, so the faces match), written as a Gmsh
// MSH 4.1 file of 4-node (type 4) or 10-node (type 11) tetrahedra.
void write_box_tets(const std::string& path, double L, double b, double h, int nx, int ny, int nz,
                    bool quadratic) {
  std::vector<Eigen::Vector3d> nodes;
  auto grid = [&](int i, int j, int k) { return (i * (ny + 1) + j) * (nz + 1) + k; };
  for (int i = 0; i <= nx; ++i)
    for (int j = 0; j <= ny; ++j)
      for (int k = 0; k <= nz; ++k)
        nodes.emplace_back(L * i / nx, b * (double(j) / ny - 0.5), h * (double(k) / nz - 0.5));
  std::map<std::pair<int, int>, int> midside;
  auto middle = [&](int p, int q) {
    const auto key = std::minmax(p, q);
    const auto it = midside.find(key);
    if (it != midside.end()) return it->second;
    nodes.push_back(0.5 * (nodes[std::size_t(p)] + nodes[std::size_t(q)]));
    return midside[key] = int(nodes.size()) - 1;
  };
  // The six paths from corner (0,0,0) to (1,1,1) along the cube's edges.
  const int paths[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  std::vector<std::vector<int>> elements;
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < ny; ++j)
      for (int k = 0; k < nz; ++k)
        for (const auto& path : paths) {
          std::array<int, 3> at{i, j, k};
          std::array<int, 4> v{};
          v[0] = grid(at[0], at[1], at[2]);
          for (int s = 0; s < 3; ++s) {
            ++at[std::size_t(path[s])];
            v[std::size_t(s + 1)] = grid(at[0], at[1], at[2]);
          }
          Eigen::Matrix3d m;
          m << nodes[std::size_t(v[1])] - nodes[std::size_t(v[0])],
              nodes[std::size_t(v[2])] - nodes[std::size_t(v[0])],
              nodes[std::size_t(v[3])] - nodes[std::size_t(v[0])];
          if (m.determinant() < 0) std::swap(v[1], v[2]);
          std::vector<int> element(v.begin(), v.end());
          if (quadratic)
            for (const auto& e : kEdges)
              element.push_back(middle(v[std::size_t(e[0])], v[std::size_t(e[1])]));
          elements.push_back(element);
        }
  std::ofstream out(path);
  out.precision(17);
  out << "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 " << nodes.size() << " 1 " << nodes.size()
      << "\n3 1 0 " << nodes.size() << "\n";
  for (std::size_t n = 0; n < nodes.size(); ++n) out << n + 1 << "\n";
  for (const auto& x : nodes) out << x.x() << ' ' << x.y() << ' ' << x.z() << "\n";
  out << "$EndNodes\n$Elements\n1 " << elements.size() << " 1 " << elements.size() << "\n3 1 "
      << (quadratic ? 11 : 4) << ' ' << elements.size() << "\n";
  for (std::size_t e = 0; e < elements.size(); ++e) {
    out << e + 1;
    for (int n : elements[e]) out << ' ' << n + 1;
    out << "\n";
  }
  out << "$EndElements\n";
}

std::vector<double> cantilever_frequencies(const std::string& mesh_file, int count) {
  const std::string yaml =
      "name: tet-bar\ncoordinates: []\nflexible:\n  - name: bar\n"
      "    frame: world\n    mesh: {gmsh: " +
      mesh_file + "}\n    material: {E: 2.1e11, nu: 0.3, rho: 7850}\n    clamp: {x: 0}\n";
  const auto model = io::parse_model(yaml, "tet_bar.yaml");
  const auto body = fem::build_flexible_body(*model, 0, {});
  const fem::FrameMotion motion(model, "world", {}, 0.0, 1e-3, {});
  fem::ModalOptions options;
  options.modes = count;
  return fem::modal_analysis(body, motion.at(0.0), options).frequencies_hz;
}

TEST(FemTet10, SlenderCantileverMeshedByGmshTet10MatchesEulerBernoulliWhereTet4Locks) {
  const std::string dir = testing::TempDir();
  write_box_tets(dir + "bar_tet10.msh", 1.0, 0.02, 0.02, 20, 2, 2, true);
  write_box_tets(dir + "bar_tet4.msh", 1.0, 0.02, 0.02, 20, 2, 2, false);
  const double a = 0.02, ratio = 2.1e11 * a * a / (12 * 7850.0);
  const double beta[] = {1.8751040687, 4.6940911330, 7.8547574382};
  const auto quadratic = cantilever_frequencies(dir + "bar_tet10.msh", 6);
  const auto linear = cantilever_frequencies(dir + "bar_tet4.msh", 2);
  for (int i = 0; i < 3; ++i) {
    const double f = beta[i] * beta[i] / (2 * std::numbers::pi) * std::sqrt(ratio);
    // A square section: each bending frequency twice (y and z).
    EXPECT_NEAR(quadratic[std::size_t(2 * i)] / f, 1.0, 0.02) << "mode " << 2 * i + 1;
    EXPECT_NEAR(quadratic[std::size_t(2 * i + 1)] / f, 1.0, 0.02) << "mode " << 2 * i + 2;
  }
  const double f1 = beta[0] * beta[0] / (2 * std::numbers::pi) * std::sqrt(ratio);
  EXPECT_GT(linear[0] / f1, 1.2) << "the constant-strain tetrahedron should lock in bending";
}

TEST(FemTet10, MidsideNodesOutOfGmshOrderAreALocatedError) {
  const std::string path = testing::TempDir() + "swapped_tet10.msh";
  std::ofstream out(path);
  // Nodes 9 and 10 (edges 4-3 and 4-2) written in VTK's order instead of Gmsh's.
  out << "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 10 1 10\n3 1 0 10\n1\n2\n3\n4\n5\n6\n7\n"
         "8\n9\n10\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n0.5 0 0\n0.5 0.5 0\n0 0.5 0\n0 0 0.5\n"
         "0 0.5 0.5\n0.5 0 0.5\n$EndNodes\n$Elements\n1 1 1 1\n3 1 11 1\n"
         "1 1 2 3 4 5 6 7 8 10 9\n$EndElements\n";
  out.close();
  try {
    fem::read_gmsh(path, {"model.yaml", 3, 5});
    FAIL() << "expected a ModelError";
  } catch (const model::ModelError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path + ":31:1:"), std::string::npos) << message;
    EXPECT_NE(message.find("not near the middle of the edge between its nodes 4 and 3"),
              std::string::npos)
        << message;
  }
  // In Gmsh's order the same element is read.
  std::ofstream good(path);
  good << "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 10 1 10\n3 1 0 10\n1\n2\n3\n4\n5\n6\n"
          "7\n8\n9\n10\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n0.5 0 0\n0.5 0.5 0\n0 0.5 0\n0 0 0.5\n"
          "0 0.5 0.5\n0.5 0 0.5\n$EndNodes\n$Elements\n1 1 1 1\n3 1 11 1\n"
          "1 1 2 3 4 5 6 7 8 9 10\n$EndElements\n";
  good.close();
  const fem::Mesh mesh = fem::read_gmsh(path, {"model.yaml", 3, 5});
  ASSERT_EQ(mesh.elements.size(), 1u);
  EXPECT_EQ(mesh.elements[0].type, fem::ElementType::Tet10);
}

TEST(FemTet10, VtuWritesQuadraticTetrahedraInVtkOrder) {
  const fem::Mesh mesh = one_tet10(kSkewed);
  const std::string path = testing::TempDir() + "tet10.vtu";
  io::write_vtu(path, mesh, Eigen::VectorXd::Zero(30), nullptr);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  // VTK_QUADRATIC_TETRA = 24; its edges 8 and 9 are 1-3 and 2-3, Gmsh's 3-1 and 3-2 swapped.
  EXPECT_NE(text.str().find("0 1 2 3 4 5 6 7 9 8"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("24"), std::string::npos);
}

}  // namespace
