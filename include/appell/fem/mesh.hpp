// A finite-element mesh of one flexible body, in the axes of its floating frame (seed 002 §3).
//
// Nodes are undeformed positions x in the floating frame; an element lists its nodes in the
// order its shape functions expect (Gmsh's order for hexahedra and tetrahedra). A mesh is either
// solid (hexahedra and tetrahedra: 3 displacement dofs per node) or a beam mesh (Beam3D: 6 dofs
// per node u, v, w, θx, θy, θz; Beam2D: 3 dofs per node u, v, θz in the x–y plane). Global dof
// of (node n, component i) is n * dofs_per_node() + i.
#pragma once

#include <Eigen/Core>
#include <array>
#include <map>
#include <string>
#include <vector>

#include "appell/model/source_location.hpp"

namespace appell::fem {

enum class ElementType { Hex8, Tet4, Tet10, Beam3D, Beam2D };

/// Nodes per element of a type (8, 4, 2, 2).
int node_count(ElementType type);
/// "hex8", "tet4", "beam3d", "beam2d".
const char* type_name(ElementType type);

struct Element {
  ElementType type = ElementType::Hex8;
  std::vector<int> nodes;  // indices into Mesh::nodes
};

struct Mesh {
  std::vector<Eigen::Vector3d> nodes;
  std::vector<Element> elements;
  /// Named node sets (Gmsh physical groups of any dimension), sorted node indices.
  std::map<std::string, std::vector<int>> node_sets;

  /// 3 for solids and planar beams, 6 for 3-D beams. Throws std::logic_error on an empty or
  /// mixed solid/beam mesh (the readers never make one).
  int dofs_per_node() const;
  std::size_t dof_count() const { return nodes.size() * std::size_t(dofs_per_node()); }
  bool is_beam() const;
};

/// Structured box of 8-node hexahedra: x in [0, L], y in [-b/2, b/2], z in [-h/2, h/2].
Mesh box_mesh(const std::array<double, 3>& size, const std::array<int, 3>& divisions);

/// Beam of `elements` equal two-node elements along x from 0 to `length`; planar: Beam2D.
Mesh beam_mesh(double length, int elements, bool planar);

/// Gmsh MSH 4.1 ASCII: 4-node tetrahedra (type 4) and 8-node hexahedra (type 5) become
/// elements; lower-dimensional elements only feed the named node sets of their physical groups.
/// Anything else that is not MSH 4.1 ASCII, or a node tag out of range, is a model::ModelError
/// located in the .msh file (FILE:LINE:COLUMN) — `referenced_from` is where the model named it,
/// used when the file cannot be opened.
Mesh read_gmsh(const std::string& path, const model::SourceLocation& referenced_from);

}  // namespace appell::fem
