// fem::box_mesh, fem::beam_mesh, fem::read_gmsh and io::write_vtu / write_pvd.
#include <gtest/gtest.h>
#include <unistd.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "appell/fem/mesh.hpp"
#include "appell/io/vtk_writer.hpp"
#include "appell/model/source_location.hpp"
#include "support/sanitizer_build.hpp"

namespace {

using namespace appell;
namespace fs = std::filesystem;

const std::string kData = APPELL_TEST_DATA_DIR;
const model::SourceLocation kModel{"model.yaml", 12, 7};

// Corners of the reference hexahedron in Gmsh's node order.
constexpr double kCorner[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                  {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};

// det J of the trilinear map of a hexahedron at reference point (r, s, t).
double hex_jacobian(const fem::Mesh& mesh, const fem::Element& e, double r, double s, double t) {
  Eigen::Matrix3d j = Eigen::Matrix3d::Zero();
  const double p[3] = {r, s, t};
  for (int a = 0; a < 8; ++a) {
    const Eigen::Vector3d& x = mesh.nodes[std::size_t(e.nodes[std::size_t(a)])];
    for (int d = 0; d < 3; ++d) {
      double dn = kCorner[a][d] / 8;
      for (int o = 0; o < 3; ++o)
        if (o != d) dn *= 1 + kCorner[a][o] * p[o];
      j.col(d) += dn * x;
    }
  }
  return j.determinant();
}

// Volume by 2×2×2 Gauss points (exact for a trilinear map); fails the test on a non-positive
// Jacobian at any Gauss point or corner.
double hex_volume(const fem::Mesh& mesh, const fem::Element& e) {
  const double g = 1 / std::sqrt(3.0);
  double volume = 0;
  for (double r : {-g, g})
    for (double s : {-g, g})
      for (double t : {-g, g}) {
        const double det = hex_jacobian(mesh, e, r, s, t);
        EXPECT_GT(det, 0);
        volume += det;
      }
  for (const auto& c : kCorner) EXPECT_GT(hex_jacobian(mesh, e, c[0], c[1], c[2]), 0);
  return volume;
}

double tet_volume(const fem::Mesh& mesh, const fem::Element& e) {
  const auto& x = [&](int a) { return mesh.nodes[std::size_t(e.nodes[std::size_t(a)])]; };
  Eigen::Matrix3d m;
  m << x(1) - x(0), x(2) - x(0), x(3) - x(0);
  return m.determinant() / 6;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// 1-based line of the first line of `path` that contains `needle`.
int line_of(const std::string& path, const std::string& needle) {
  std::ifstream in(path);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number)
    if (line.find(needle) != std::string::npos) return number;
  return -1;
}

class FemMeshFiles : public ::testing::Test {
 protected:
  FemMeshFiles() {
    dir_ = fs::temp_directory_path() / ("appell_fem_mesh_tests_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  ~FemMeshFiles() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

// Expects read_gmsh(path) to throw a ModelError located at line:column of the file.
model::ModelError gmsh_error(const std::string& path, int line, int column) {
  try {
    fem::read_gmsh(path, kModel);
  } catch (const model::ModelError& error) {
    EXPECT_EQ(error.where().file, path);
    EXPECT_EQ(error.where().line, line) << error.what();
    if (column > 0) {
      EXPECT_EQ(error.where().column, column) << error.what();
    }
    EXPECT_NE(std::string(error.what()).find(":" + std::to_string(line) + ":"), std::string::npos)
        << error.what();
    return error;
  }
  ADD_FAILURE() << "no ModelError for " << path;
  return model::ModelError({}, "none");
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// --- box_mesh -----------------------------------------------------------------------------------

TEST(FemMeshBox, CountsAndDofs) {
  const fem::Mesh mesh = fem::box_mesh({2.0, 0.5, 0.25}, {4, 3, 2});
  EXPECT_EQ(mesh.nodes.size(), 5u * 4u * 3u);
  EXPECT_EQ(mesh.elements.size(), 4u * 3u * 2u);
  EXPECT_EQ(mesh.dofs_per_node(), 3);
  EXPECT_EQ(mesh.dof_count(), 3u * 60u);
  EXPECT_FALSE(mesh.is_beam());
  EXPECT_TRUE(mesh.node_sets.empty());
  for (const auto& e : mesh.elements) {
    EXPECT_EQ(e.type, fem::ElementType::Hex8);
    ASSERT_EQ(e.nodes.size(), 8u);
    for (int n : e.nodes) {
      EXPECT_GE(n, 0);
      EXPECT_LT(n, int(mesh.nodes.size()));
    }
  }
}

TEST(FemMeshBox, CoordinatesSpanTheBoxExactly) {
  const double L = 1.3, b = 0.7, h = 0.1;
  const fem::Mesh mesh = fem::box_mesh({L, b, h}, {7, 3, 3});
  Eigen::Vector3d low = mesh.nodes.front(), high = low;
  for (const auto& x : mesh.nodes) {
    low = low.cwiseMin(x);
    high = high.cwiseMax(x);
  }
  EXPECT_EQ(low, Eigen::Vector3d(0, -b / 2, -h / 2));
  EXPECT_EQ(high, Eigen::Vector3d(L, b / 2, h / 2));
  // Every node is used and the nodes are distinct: a conforming structured grid.
  std::vector<int> used(mesh.nodes.size(), 0);
  for (const auto& e : mesh.elements)
    for (int n : e.nodes) used[std::size_t(n)] = 1;
  EXPECT_EQ(std::count(used.begin(), used.end(), 1), long(mesh.nodes.size()));
  for (std::size_t a = 0; a < mesh.nodes.size(); ++a)
    for (std::size_t c = a + 1; c < mesh.nodes.size(); ++c)
      ASSERT_GT((mesh.nodes[a] - mesh.nodes[c]).norm(), 1e-3);
}

TEST(FemMeshBox, VolumeIsTheSumOfPositiveHexVolumes) {
  const double L = 2.0, b = 0.3, h = 0.2;
  const fem::Mesh mesh = fem::box_mesh({L, b, h}, {5, 2, 3});
  double volume = 0;
  for (const auto& e : mesh.elements) {
    const double v = hex_volume(mesh, e);
    EXPECT_NEAR(v, L * b * h / 30, 1e-14);
    volume += v;
  }
  EXPECT_NEAR(volume, L * b * h, 1e-13);
}

TEST(FemMeshBox, NeighbouringHexesShareTheirFace) {
  // Element (0,0,0) and (1,0,0): the x+ face of the first is the x- face of the second.
  const fem::Mesh mesh = fem::box_mesh({2, 1, 1}, {2, 1, 1});
  const auto& a = mesh.elements[0].nodes;
  const auto& c = mesh.elements[1].nodes;
  EXPECT_EQ(a[1], c[0]);
  EXPECT_EQ(a[2], c[3]);
  EXPECT_EQ(a[5], c[4]);
  EXPECT_EQ(a[6], c[7]);
}

TEST(FemMeshBox, HundredThousandElementsAreQuick) {
  const auto start = std::chrono::steady_clock::now();
  const fem::Mesh mesh = fem::box_mesh({1, 1, 1}, {50, 40, 50});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(mesh.elements.size(), 100000u);
  EXPECT_EQ(mesh.nodes.size(), 51u * 41u * 51u);
  // Generous: a shared machine; the generator itself takes milliseconds. Not a measure under the
  // sanitizers.
  if (!test_support::kSanitizerBuild) {
    EXPECT_LT(seconds, 5.0);
  }
}

TEST(FemMeshBox, InvalidArgumentsThrow) {
  EXPECT_THROW(fem::box_mesh({0, 1, 1}, {1, 1, 1}), std::invalid_argument);
  EXPECT_THROW(fem::box_mesh({1, -1, 1}, {1, 1, 1}), std::invalid_argument);
  EXPECT_THROW(fem::box_mesh({1, 1, NAN}, {1, 1, 1}), std::invalid_argument);
  EXPECT_THROW(fem::box_mesh({1, 1, 1}, {1, 0, 1}), std::invalid_argument);
  EXPECT_THROW(fem::box_mesh({1, 1, 1}, {1, 1, -3}), std::invalid_argument);
  EXPECT_THROW(fem::box_mesh({1, 1, 1}, {100000, 100000, 1}), std::invalid_argument);
  try {
    fem::box_mesh({1, 1, 1}, {2, 0, 1});
  } catch (const std::invalid_argument& error) {
    EXPECT_TRUE(contains(error.what(), "divisions along y")) << error.what();
  }
}

// --- beam_mesh ----------------------------------------------------------------------------------

TEST(FemMeshBeam, NodesAlongXAndElementTypes) {
  const fem::Mesh beam = fem::beam_mesh(3.0, 6, false);
  ASSERT_EQ(beam.nodes.size(), 7u);
  ASSERT_EQ(beam.elements.size(), 6u);
  EXPECT_TRUE(beam.is_beam());
  EXPECT_EQ(beam.dofs_per_node(), 6);
  for (std::size_t i = 0; i < beam.nodes.size(); ++i)
    EXPECT_EQ(beam.nodes[i], Eigen::Vector3d(0.5 * double(i), 0, 0));
  for (std::size_t e = 0; e < beam.elements.size(); ++e) {
    EXPECT_EQ(beam.elements[e].type, fem::ElementType::Beam3D);
    EXPECT_EQ(beam.elements[e].nodes, (std::vector<int>{int(e), int(e) + 1}));
  }
  const fem::Mesh planar = fem::beam_mesh(1.0, 3, true);
  EXPECT_EQ(planar.elements.front().type, fem::ElementType::Beam2D);
  EXPECT_EQ(planar.dofs_per_node(), 3);
  EXPECT_EQ(planar.nodes.back(), Eigen::Vector3d(1, 0, 0));
}

TEST(FemMeshBeam, InvalidArgumentsThrow) {
  EXPECT_THROW(fem::beam_mesh(0, 3, false), std::invalid_argument);
  EXPECT_THROW(fem::beam_mesh(-1, 3, true), std::invalid_argument);
  EXPECT_THROW(fem::beam_mesh(INFINITY, 3, true), std::invalid_argument);
  EXPECT_THROW(fem::beam_mesh(1, 0, false), std::invalid_argument);
}

// --- read_gmsh ----------------------------------------------------------------------------------

TEST(FemMeshGmsh, TwoHexesWithPhysicalGroups) {
  const fem::Mesh mesh = fem::read_gmsh(kData + "/two_hexes.msh", kModel);
  // Nodes are numbered in order of appearance: tag 3 (a point entity) first, then 1, 4, 7, 10
  // (the surface), then the volume's 2, 5, 6, 8, 9, 11, 12.
  ASSERT_EQ(mesh.nodes.size(), 12u);
  const int tag_to_index[13] = {-1, 1, 5, 0, 2, 6, 7, 3, 8, 9, 4, 10, 11};
  const double xyz[13][3] = {{0, 0, 0}, {0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {0, 1, 0},
                             {1, 1, 0}, {2, 1, 0}, {0, 0, 1}, {1, 0, 1}, {2, 0, 1},
                             {0, 1, 1}, {1, 1, 1}, {2, 1, 1}};
  for (int tag = 1; tag <= 12; ++tag)
    EXPECT_EQ(mesh.nodes[std::size_t(tag_to_index[tag])],
              Eigen::Vector3d(xyz[tag][0], xyz[tag][1], xyz[tag][2]))
        << "tag " << tag;

  // Only the hexahedra are elements; the point and the quadrangle feed node sets.
  ASSERT_EQ(mesh.elements.size(), 2u);
  const auto index = [&](std::vector<int> tags) {
    for (int& t : tags) t = tag_to_index[t];
    return tags;
  };
  EXPECT_EQ(mesh.elements[0].type, fem::ElementType::Hex8);
  EXPECT_EQ(mesh.elements[0].nodes, index({1, 2, 5, 4, 7, 8, 11, 10}));
  EXPECT_EQ(mesh.elements[1].nodes, index({2, 3, 6, 5, 8, 9, 12, 11}));
  double volume = 0;
  for (const auto& e : mesh.elements) volume += hex_volume(mesh, e);
  EXPECT_NEAR(volume, 2.0, 1e-14);

  ASSERT_EQ(mesh.node_sets.size(), 3u);
  EXPECT_EQ(mesh.node_sets.at("root"), (std::vector<int>{1, 2, 3, 4}));
  for (int n : mesh.node_sets.at("root")) EXPECT_EQ(mesh.nodes[std::size_t(n)].x(), 0);
  // A physical group without a name is named by its tag.
  EXPECT_EQ(mesh.node_sets.at("physical_7"), (std::vector<int>{0}));
  // A physical volume names all its nodes, sorted.
  std::vector<int> all(12);
  for (int n = 0; n < 12; ++n) all[std::size_t(n)] = n;
  EXPECT_EQ(mesh.node_sets.at("body"), all);
}

TEST(FemMeshGmsh, SparseTagsAndTetrahedra) {
  const fem::Mesh mesh = fem::read_gmsh(kData + "/tets.msh", kModel);
  ASSERT_EQ(mesh.nodes.size(), 8u);
  ASSERT_EQ(mesh.elements.size(), 6u);
  EXPECT_TRUE(mesh.node_sets.empty());
  EXPECT_EQ(mesh.dofs_per_node(), 3);
  // Tags 100, 7, 42, 3, 1000, 8, 999, 15 in that order; the first block is parametric (its u, v
  // are skipped).
  EXPECT_EQ(mesh.nodes[0], Eigen::Vector3d(0, 0, 0));
  EXPECT_EQ(mesh.nodes[2], Eigen::Vector3d(1, 1, 0));
  EXPECT_EQ(mesh.nodes[3], Eigen::Vector3d(0, 1, 0));
  EXPECT_EQ(mesh.nodes[6], Eigen::Vector3d(1, 1, 1));
  EXPECT_EQ(mesh.elements[0].nodes, (std::vector<int>{0, 1, 2, 6}));  // 100 7 42 999
  EXPECT_EQ(mesh.elements[5].nodes, (std::vector<int>{0, 7, 4, 6}));  // 100 15 1000 999
  double volume = 0;
  for (const auto& e : mesh.elements) {
    EXPECT_EQ(e.type, fem::ElementType::Tet4);
    const double v = tet_volume(mesh, e);
    EXPECT_NEAR(v, 1.0 / 6, 1e-15);
    volume += v;
  }
  EXPECT_NEAR(volume, 1.0, 1e-14);
}

TEST(FemMeshGmsh, OldVersionIsRejectedAtItsVersionNumber) {
  const std::string path = kData + "/msh22.msh";
  const auto error = gmsh_error(path, 2, 1);
  EXPECT_TRUE(contains(error.what(), "only Gmsh MSH 4.1 ASCII is supported")) << error.what();
  EXPECT_TRUE(contains(error.what(), "version 2.2")) << error.what();
  EXPECT_EQ(error.offending(), "2.2");
}

TEST_F(FemMeshFiles, Version40AndBinaryAreRejected) {
  const auto v40 = gmsh_error(write("v40.msh", "$MeshFormat\n4 0 8\n$EndMeshFormat\n"), 2, 1);
  EXPECT_TRUE(contains(v40.what(), "version 4")) << v40.what();
  const char bytes[] = "$MeshFormat\n4.1 1 8\n\x01\x00\x00\x00\n$EndMeshFormat\n";
  const auto binary = gmsh_error(write("binary.msh", std::string(bytes, sizeof bytes - 1)), 2, 5);
  EXPECT_TRUE(contains(binary.what(), "binary")) << binary.what();
  const auto empty = gmsh_error(write("empty.msh", ""), 1, 1);
  EXPECT_TRUE(contains(empty.what(), "$MeshFormat")) << empty.what();
  const auto yaml = gmsh_error(write("yaml.msh", "\n\nname: pendulum\n"), 3, 1);
  EXPECT_TRUE(contains(yaml.what(), "not a Gmsh mesh file")) << yaml.what();
}

TEST(FemMeshGmsh, ElementNamingAMissingNodeTag) {
  const std::string path = kData + "/bad_node.msh";
  const int line = line_of(path, "2 1 2 57 4");
  ASSERT_GT(line, 0);
  const auto error = gmsh_error(path, line, 7);
  EXPECT_EQ(error.offending(), "57");
  EXPECT_TRUE(contains(error.what(), "node tag 57")) << error.what();
  EXPECT_TRUE(contains(error.what(), "out of range")) << error.what();
  EXPECT_TRUE(contains(error.what(), "element 2")) << error.what();
}

TEST(FemMeshGmsh, TruncatedFileSaysWhichSection) {
  const std::string path = kData + "/truncated.msh";
  // Just after the last token: the end of "1 0 0".
  const auto error = gmsh_error(path, line_of(path, "1 0 0"), 6);
  EXPECT_TRUE(contains(error.what(), "truncated $Nodes section")) << error.what();
  EXPECT_TRUE(contains(error.what(), "node coordinate")) << error.what();
}

TEST(FemMeshGmsh, MissingFileIsReportedWhereTheModelNamesIt) {
  const std::string path = kData + "/no_such_mesh.msh";
  try {
    fem::read_gmsh(path, kModel);
    FAIL() << "no error";
  } catch (const model::ModelError& error) {
    EXPECT_EQ(error.where().file, kModel.file);
    EXPECT_EQ(error.where().line, kModel.line);
    EXPECT_EQ(error.where().column, kModel.column);
    EXPECT_TRUE(contains(error.what(), path)) << error.what();
  }
  EXPECT_THROW(fem::read_gmsh(kData, kModel), model::ModelError);  // a directory
}

// Small MSH 4.1 texts with one defect each, and where the reader must point.
struct Defect {
  const char* name;
  std::string text;
  int line;
  int column;
  const char* message;
};

const std::string kHeader = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n";
const std::string kOneTetNodes =
    "$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n$EndNodes\n";

TEST_F(FemMeshFiles, MalformedSectionsArePinpointed) {
  const std::vector<Defect> defects = {
      {"letters_in_coordinate",
       kHeader + "$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 zero 0\n0 1 0\n0 0 1\n$EndNodes\n",
       12, 3, "malformed $Nodes section: expected a node coordinate, found 'zero'"},
      {"duplicate_node_tag",
       kHeader + "$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n2\n4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n$EndNodes\n", 9,
       1, "node tag 2 appears twice"},
      {"node_count_mismatch",
       kHeader + "$Nodes\n1 5 1 4\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n$EndNodes\n", 5,
       1, "announces 5 nodes but its blocks hold 4"},
      {"extra_node",
       kHeader + "$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n0 0 0\n"
                 "$EndNodes\n",
       15, 1, "expected $EndNodes, found '0'"},
      {"hex20",
       kHeader + kOneTetNodes +
           "$Elements\n1 1 1 1\n3 1 17 1\n1 1 2 3 4 1 2 3 4 1 2\n$EndElements\n",
       18, 5, "element type 17 (20-node hexahedron) is not supported"},
      {"too_few_nodes",
       kHeader + kOneTetNodes + "$Elements\n1 1 1 1\n3 1 4 1\n1 1 2 3\n$EndElements\n", 19, 8,
       "element 1 of type 4 lists 3 node tags, expected 4"},
      {"too_many_nodes",
       kHeader + kOneTetNodes + "$Elements\n1 1 1 1\n3 1 4 1\n1 1 2 3 4 2\n$EndElements\n", 19, 11,
       "lists more than 4 node tags"},
      {"negative_count", kHeader + kOneTetNodes + "$Elements\n-1 1 1 1\n$EndElements\n", 17, 1,
       "expected the number of element blocks, found '-1'"},
      {"huge_count", kHeader + "$Nodes\n1 99999999999 1 4\n", 5, 3, "expected the number of nodes"},
      {"elements_before_nodes", kHeader + "$Elements\n0 0 0 0\n$EndElements\n", 4, 1,
       "$Elements section comes before $Nodes"},
      {"no_volume_elements",
       kHeader + kOneTetNodes + "$Elements\n1 1 1 1\n2 1 2 1\n1 1 2 3\n$EndElements\n", 16, 1,
       "no 4-node tetrahedra (type 4) or 8-node hexahedra (type 5)"},
      {"no_elements_at_all", kHeader + kOneTetNodes, 1, 1, "no 4-node tetrahedra"},
      {"unclosed_unknown_section", kHeader + "$Comments\nhello\n", 4, 1,
       "$Comments is not closed by $EndComments"},
      {"stray_token", kHeader + "hello\n", 4, 1, "expected a section such as $Nodes"},
      {"unquoted_physical_name", kHeader + "$PhysicalNames\n1\n2 1 root\n$EndPhysicalNames\n", 6, 5,
       "expected a \"quoted\" name"},
      {"unterminated_physical_name", kHeader + "$PhysicalNames\n1\n2 1 \"root\n$EndPhysicalNames\n",
       6, 5, "not closed"},
      {"bad_entity_dimension", kHeader + "$PhysicalNames\n1\n4 1 \"x\"\n$EndPhysicalNames\n", 6, 1,
       "an entity dimension (0 to 3)"},
      {"truncated_entities", kHeader + "$Entities\n1 0 0 0\n1 0 0", 6, 6,
       "truncated $Entities section: expected a coordinate"},
      {"second_nodes", kHeader + kOneTetNodes + kOneTetNodes, 16, 1, "a second $Nodes section"},
      {"node_tag_zero", kHeader + "$Nodes\n1 1 0 0\n3 1 0 1\n0\n0 0 0\n$EndNodes\n", 7, 1,
       "a node tag"},
      {"nan_coordinate", kHeader + "$Nodes\n1 1 1 1\n3 1 0 1\n1\nnan 0 0\n$EndNodes\n", 8, 1,
       "a node coordinate"},
  };
  for (const Defect& defect : defects) {
    SCOPED_TRACE(defect.name);
    const auto error = gmsh_error(write(std::string(defect.name) + ".msh", defect.text),
                                  defect.line, defect.column);
    EXPECT_TRUE(contains(error.what(), defect.message)) << error.what();
  }
}

TEST_F(FemMeshFiles, UnknownLowerDimensionalTypesOnlyFeedNodeSets) {
  // A 3-node line (type 8) and an unknown type 99 in a named curve: read to their line ends.
  const std::string text = kHeader +
                           "$PhysicalNames\n1\n1 5 \"edge\"\n$EndPhysicalNames\n"
                           "$Entities\n0 1 0 1\n1 0 0 0 1 0 0 1 5 0\n1 0 0 0 1 1 1 0 0\n"
                           "$EndEntities\n" +
                           kOneTetNodes +
                           "$Elements\n3 3 1 3\n1 1 8 1\n1 1 2 3\n1 1 99 1\n2 4\n3 1 4 1\n"
                           "3 1 2 3 4\n$EndElements\n";
  const fem::Mesh mesh = fem::read_gmsh(write("lines.msh", text), kModel);
  EXPECT_EQ(mesh.elements.size(), 1u);
  EXPECT_EQ(mesh.node_sets.at("edge"), (std::vector<int>{0, 1, 2, 3}));
}

// Any prefix of a valid file, and any file with one token replaced by junk, is either read or
// rejected with a ModelError: nothing else escapes and nothing crashes.
TEST_F(FemMeshFiles, PrefixesAndMutationsNeverCrash) {
  const std::string text = slurp(kData + "/two_hexes.msh");
  ASSERT_FALSE(text.empty());
  const std::string path = this->path("fuzz.msh");
  const auto attempt = [&](const std::string& candidate) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << candidate;
    try {
      fem::read_gmsh(path, kModel);
      return true;
    } catch (const model::ModelError&) {
      return false;
    }
  };
  // Cut before $EndElements a file is incomplete; after it, only the unknown $NodeData (which
  // must still be closed) remains.
  const std::size_t complete = text.find("$EndElements") + std::string("$EndElements").size();
  for (std::size_t n = 0; n < text.size(); ++n)
    if (n < complete) {
      EXPECT_FALSE(attempt(text.substr(0, n))) << n;
    } else {
      attempt(text.substr(0, n));
    }
  EXPECT_TRUE(attempt(text));

  std::mt19937 random(12345);
  const std::vector<std::string> junk = {
      "-1", "0",  "99999999999999999999", "x", "1e400", "", "$Nodes", "\"", "4.1", "3", "\n", "5",
      "-0", "1.5"};
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (!std::isspace(static_cast<unsigned char>(text[i])) &&
        (i == 0 || std::isspace(static_cast<unsigned char>(text[i - 1]))))
      starts.push_back(i);
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t start = starts[random() % starts.size()];
    std::size_t end = start;
    while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
    std::string mutated = text;
    mutated.replace(start, end - start, junk[random() % junk.size()]);
    attempt(mutated);  // read or rejected: either is fine, an escaping exception is not
  }
  for (int trial = 0; trial < 50; ++trial) {
    std::string bytes(std::size_t(random() % 400), '\0');
    for (char& c : bytes) c = char(random() % 256);
    EXPECT_FALSE(attempt(random() % 2 ? bytes : kHeader + bytes));
  }
}

// --- write_vtu / write_pvd ----------------------------------------------------------------------

class VtkWriter : public FemMeshFiles {};

// Tags open and close in order (a small stand-in for an XML parser: no attributes with '>').
// Empty when well nested, else what is wrong.
std::string xml_nesting_error(const std::string& text) {
  std::vector<std::string> open;
  for (std::size_t at = text.find('<'); at != std::string::npos; at = text.find('<', at + 1)) {
    const std::size_t end = text.find('>', at);
    if (end == std::string::npos) return "unclosed '<'";
    const std::string tag = text.substr(at + 1, end - at - 1);
    if (tag.empty() || tag.front() == '?') continue;
    const bool closing = tag.front() == '/';
    const std::size_t name_end = tag.find_first_of(" />", 1);
    const std::string name =
        tag.substr(closing ? 1 : 0, name_end == std::string::npos ? std::string::npos
                                                                  : name_end - (closing ? 1 : 0));
    if (closing) {
      if (open.empty() || open.back() != name) return "mismatched </" + name + ">";
      open.pop_back();
    } else if (tag.back() != '/') {
      open.push_back(name);
    }
  }
  return open.empty() ? "" : "<" + open.back() + "> not closed";
}

// The whitespace-separated values of the DataArray named `name`.
std::vector<double> data_array(const std::string& text, const std::string& name) {
  const std::size_t at = text.find("Name=\"" + name + "\"");
  if (at == std::string::npos) return {};
  const std::size_t begin = text.find('>', at) + 1;
  const std::size_t end = text.find("</DataArray>", begin);
  std::istringstream in(text.substr(begin, end - begin));
  std::vector<double> values;
  for (double v; in >> v;) values.push_back(v);
  return values;
}

TEST_F(VtkWriter, BoxWithDisplacementAndStress) {
  const fem::Mesh mesh = fem::box_mesh({2, 1, 1}, {2, 1, 3});
  Eigen::VectorXd dofs(Eigen::Index(mesh.dof_count()));
  for (Eigen::Index i = 0; i < dofs.size(); ++i) dofs(i) = 0.1 * double(i) + 1.0 / 3;
  Eigen::MatrixXd stress(Eigen::Index(mesh.elements.size()), 6);
  for (Eigen::Index e = 0; e < stress.rows(); ++e)
    for (Eigen::Index k = 0; k < 6; ++k) stress(e, k) = 1e6 * double(e) - double(k);
  const std::string path = this->path("box.vtu");
  io::write_vtu(path, mesh, dofs, &stress);
  const std::string text = slurp(path);

  EXPECT_EQ(xml_nesting_error(text), "");
  EXPECT_TRUE(contains(text, "<VTKFile type=\"UnstructuredGrid\""));
  EXPECT_TRUE(contains(text, "NumberOfPoints=\"" + std::to_string(mesh.nodes.size()) + "\""));
  EXPECT_TRUE(contains(text, "NumberOfCells=\"6\""));
  EXPECT_TRUE(contains(text, "Name=\"displacement\" NumberOfComponents=\"3\""));

  // Values come back exactly (shortest round-trip form).
  const auto displacement = data_array(text, "displacement");
  ASSERT_EQ(displacement.size(), 3 * mesh.nodes.size());
  for (std::size_t i = 0; i < displacement.size(); ++i)
    EXPECT_EQ(displacement[i], dofs(Eigen::Index(i)));
  const auto points = data_array(text, "Points");
  ASSERT_EQ(points.size(), 3 * mesh.nodes.size());
  for (std::size_t n = 0; n < mesh.nodes.size(); ++n)
    for (std::size_t k = 0; k < 3; ++k)
      EXPECT_EQ(points[3 * n + k], mesh.nodes[n](Eigen::Index(k)));
  const auto cells = data_array(text, "stress");
  ASSERT_EQ(cells.size(), 36u);
  EXPECT_EQ(cells[6 * 5 + 2], stress(5, 2));
  const auto connectivity = data_array(text, "connectivity");
  ASSERT_EQ(connectivity.size(), 48u);
  for (std::size_t k = 0; k < 8; ++k) EXPECT_EQ(connectivity[8 * 4 + k], mesh.elements[4].nodes[k]);
  EXPECT_EQ(data_array(text, "offsets"), (std::vector<double>{8, 16, 24, 32, 40, 48}));
  EXPECT_EQ(data_array(text, "types"), std::vector<double>(6, 12));
}

TEST_F(VtkWriter, TetsBeamsAndUndeformed) {
  const fem::Mesh tets = fem::read_gmsh(kData + "/tets.msh", kModel);
  io::write_vtu(path("tets.vtu"), tets, Eigen::VectorXd());
  const std::string text = slurp(path("tets.vtu"));
  EXPECT_TRUE(contains(text, "NumberOfPoints=\"8\" NumberOfCells=\"6\""));
  EXPECT_FALSE(contains(text, "CellData"));
  EXPECT_EQ(data_array(text, "types"), std::vector<double>(6, 10));
  EXPECT_EQ(data_array(text, "displacement"), std::vector<double>(24, 0.0));

  // A planar beam's third dof is θz: the displacement is (u, v, 0).
  const fem::Mesh planar = fem::beam_mesh(1, 2, true);
  Eigen::VectorXd q(9);
  q << 1, 2, 3, 4, 5, 6, 7, 8, 9;
  io::write_vtu(path("planar.vtu"), planar, q);
  const std::string beam = slurp(path("planar.vtu"));
  EXPECT_EQ(data_array(beam, "displacement"), (std::vector<double>{1, 2, 0, 4, 5, 0, 7, 8, 0}));
  EXPECT_EQ(data_array(beam, "types"), (std::vector<double>{3, 3}));
  EXPECT_EQ(data_array(beam, "offsets"), (std::vector<double>{2, 4}));

  // A 3-D beam: the first three of six dofs.
  const fem::Mesh spatial = fem::beam_mesh(1, 1, false);
  Eigen::VectorXd r(12);
  r << 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12;
  io::write_vtu(path("spatial.vtu"), spatial, r);
  EXPECT_EQ(data_array(slurp(path("spatial.vtu")), "displacement"),
            (std::vector<double>{1, 2, 3, 7, 8, 9}));
}

TEST_F(VtkWriter, WrongInputsAndUnwritablePaths) {
  const fem::Mesh mesh = fem::box_mesh({1, 1, 1}, {1, 1, 1});
  EXPECT_THROW(io::write_vtu(path("a.vtu"), mesh, Eigen::VectorXd::Zero(5)), std::invalid_argument);
  const Eigen::MatrixXd stress = Eigen::MatrixXd::Zero(1, 3);
  EXPECT_THROW(io::write_vtu(path("a.vtu"), mesh, Eigen::VectorXd(), &stress),
               std::invalid_argument);
  const std::string nowhere = path("no/such/dir/a.vtu");
  try {
    io::write_vtu(nowhere, mesh, Eigen::VectorXd());
    FAIL() << "no error";
  } catch (const model::ComputationError& error) {
    EXPECT_TRUE(contains(error.what(), nowhere)) << error.what();
  }
  EXPECT_THROW(io::write_pvd(path("no/such/dir/a.pvd"), {}), model::ComputationError);
}

TEST_F(VtkWriter, PvdCollection) {
  io::write_pvd(path("run.pvd"), {{0.0, "run_0.vtu"}, {0.25, "run_1.vtu"}, {0.5, "a&b.vtu"}});
  const std::string text = slurp(path("run.pvd"));
  EXPECT_EQ(xml_nesting_error(text), "");
  EXPECT_TRUE(contains(text, "<VTKFile type=\"Collection\""));
  EXPECT_TRUE(contains(text, "timestep=\"0.25\" group=\"\" part=\"0\" file=\"run_1.vtu\""));
  EXPECT_TRUE(contains(text, "file=\"a&amp;b.vtu\""));
  std::size_t count = 0;
  for (std::size_t at = text.find("<DataSet"); at != std::string::npos;
       at = text.find("<DataSet", at + 1))
    ++count;
  EXPECT_EQ(count, 3u);
}

}  // namespace
