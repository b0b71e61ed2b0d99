// A finite-element mesh of one flexible body, in the axes of its floating frame (seed 002 §3).
//
// Nodes are undeformed positions x in the floating frame (m); an element lists its nodes in the
// order its shape functions expect (Gmsh's order for hexahedra and 4- and 10-node tetrahedra). A
// mesh is either solid (hexahedra and tetrahedra: 3 displacement dofs per node) or a beam mesh
// (Beam3D: 6 dofs
// per node u, v, w, θx, θy, θz; Beam2D: 3 dofs per node u, v, θz in the x–y plane). Global dof
// of (node n, component i) is n * dofs_per_node() + i.
#pragma once

#include <Eigen/Core>
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "appell/model/source_location.hpp"

namespace appell::fem {

/// The element types: 8-node hexahedron (trilinear, incompatible modes), 4-node and 10-node
/// tetrahedra (linear, quadratic), and 2-node Euler–Bernoulli beams in space and in the x–y plane.
enum class ElementType { Hex8, Tet4, Tet10, Beam3D, Beam2D };

/// Nodes per element of a type (8, 4, 10, 2, 2).
int node_count(ElementType type);
/// "hex8", "tet4", "tet10", "beam3d", "beam2d".
const char* type_name(ElementType type);

/// One element: its type and its node indices (node_count(type) of them); an element read from a
/// file also keeps its tag and where its line is, so that what is wrong with it points there.
struct Element {
  ElementType type = ElementType::Hex8;
  std::vector<int> nodes;  // indices into Mesh::nodes
  std::uint64_t tag = 0;   // the file's element tag (Gmsh's, from 1); 0 for a generated element
  int line = 0;            // 1-based line and column of the tag in Mesh::source; 0 when generated
  int column = 0;
};

/// Nodes, elements and named node sets of one body.
struct Mesh {
  std::vector<Eigen::Vector3d> nodes;  // undeformed positions, frame components (m)
  std::vector<Element> elements;
  /// Named node sets (Gmsh physical groups of any dimension), sorted node indices.
  std::map<std::string, std::vector<int>> node_sets;
  /// The file a read mesh came from ("" for a generated mesh).
  std::string source;

  /// Element `e` as a user numbers it: its tag in the file, else e + 1 (1-based, as Gmsh's).
  std::uint64_t element_number(std::size_t e) const;
  /// Where element `e` was written (Mesh::source, its line and column); line 0 when generated.
  model::SourceLocation element_where(std::size_t e) const;

  /// 3 for solids and planar beams, 6 for 3-D beams. Throws std::logic_error on an empty or
  /// mixed solid/beam mesh (the readers never make one).
  int dofs_per_node() const;
  /// Number of dofs, nodes × dofs_per_node(); throws as dofs_per_node().
  std::size_t dof_count() const { return nodes.size() * std::size_t(dofs_per_node()); }
  /// Whether the (first) element is a beam; false for a mesh without elements.
  bool is_beam() const;
};

/// Structured box of 8-node hexahedra: x in [0, L], y in [-b/2, b/2], z in [-h/2, h/2], `size`
/// = {L, b, h} (m), `divisions` elements along x, y, z. Node (i, j, k) has index
/// i + (nx+1)(j + (ny+1)k). Throws std::invalid_argument for a size that is not positive and
/// finite, a division count below 1, or more nodes than an int can index.
Mesh box_mesh(const std::array<double, 3>& size, const std::array<int, 3>& divisions);

/// Beam of `elements` equal two-node elements along x from 0 to `length` (m), nodes 0 ..
/// elements in order; planar: Beam2D, else Beam3D. Throws std::invalid_argument for a length
/// that is not positive and finite or fewer than one element.
Mesh beam_mesh(double length, int elements, bool planar);

/// Gmsh MSH 4.1 ASCII: 4-node tetrahedra (type 4), 10-node tetrahedra (type 11, each midside
/// node checked to lie near the middle of its edge in Gmsh's edge order) and 8-node hexahedra
/// (type 5) become elements; lower-dimensional elements only feed the named node sets of their
/// physical groups (unnamed groups as "physical_TAG"). A file with no such volume element,
/// another volume element type, anything else that is not MSH 4.1 ASCII, or a node tag out of
/// range is a model::ModelError located in the .msh file (FILE:LINE:COLUMN) — `referenced_from`
/// is where the model named it, used when the file cannot be opened or read.
Mesh read_gmsh(const std::string& path, const model::SourceLocation& referenced_from);

}  // namespace appell::fem
