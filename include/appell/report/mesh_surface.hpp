// What the report draws of a flexible body's mesh: the outer surface of a solid mesh as
// triangles, a beam mesh as its segments, and only the nodes these use (a solid's interior nodes
// are never seen, so the page does not carry their displacements).
//
// A face of a hexahedron (four corners) or a tetrahedron (three corners; a 10-node tetrahedron
// by its corners) is on the surface when no other element has it. Quadrilaterals are split into
// two triangles. The order follows the elements and their faces, so the same mesh gives the same
// surface.
#pragma once

#include <array>
#include <vector>

#include "appell/fem/mesh.hpp"

namespace appell::report {

struct MeshSurface {
  std::vector<int> nodes;                     // mesh node indices drawn, ascending
  std::vector<std::array<int, 3>> triangles;  // solids: indices into `nodes`
  std::vector<std::array<int, 2>> segments;   // beams: indices into `nodes`
  std::size_t faces = 0;                      // surface faces before splitting into triangles
};

/// The surface of `mesh` (elements of one family: solids or beams).
MeshSurface mesh_surface(const fem::Mesh& mesh);

/// The translation (ux, uy, uz) of node `node` from a dof vector of `mesh` (fem::Mesh's order):
/// the first three dofs of a solid's or a 3-D beam's node, (u, v, 0) for a planar beam.
std::array<double, 3> node_translation(const fem::Mesh& mesh, const Eigen::VectorXd& dofs,
                                       int node);

}  // namespace appell::report
