#include "appell/report/mesh_surface.hpp"

#include <algorithm>
#include <map>

namespace appell::report {

namespace {

// The faces of an element as corner lists, in Gmsh's node order: a hexahedron's six
// quadrilaterals, a tetrahedron's four triangles (a 10-node one by its corners).
std::vector<std::vector<int>> element_faces(const fem::Element& e) {
  const auto& n = e.nodes;
  switch (e.type) {
    case fem::ElementType::Hex8:
      return {{n[0], n[3], n[2], n[1]}, {n[4], n[5], n[6], n[7]}, {n[0], n[1], n[5], n[4]},
              {n[1], n[2], n[6], n[5]}, {n[2], n[3], n[7], n[6]}, {n[3], n[0], n[4], n[7]}};
    case fem::ElementType::Tet4:
    case fem::ElementType::Tet10:
      return {{n[0], n[2], n[1]}, {n[0], n[1], n[3]}, {n[1], n[2], n[3]}, {n[0], n[3], n[2]}};
    case fem::ElementType::Beam3D:
    case fem::ElementType::Beam2D:
      return {};
  }
  return {};
}

std::vector<int> sorted(std::vector<int> corners) {
  std::sort(corners.begin(), corners.end());
  return corners;
}

}  // namespace

MeshSurface mesh_surface(const fem::Mesh& mesh) {
  MeshSurface surface;
  std::vector<std::vector<int>> faces;
  std::vector<std::array<int, 2>> segments;
  if (mesh.is_beam()) {
    for (const auto& e : mesh.elements) segments.push_back({e.nodes[0], e.nodes[1]});
  } else {
    std::map<std::vector<int>, int> count;
    for (const auto& e : mesh.elements)
      for (const auto& f : element_faces(e)) ++count[sorted(f)];
    for (const auto& e : mesh.elements)
      for (const auto& f : element_faces(e))
        if (count[sorted(f)] == 1) faces.push_back(f);
  }
  // The nodes used, ascending, and each one's place among them.
  std::vector<int> place(mesh.nodes.size(), -1);
  for (const auto& f : faces)
    for (int n : f) place[std::size_t(n)] = 0;
  for (const auto& s : segments)
    for (int n : s) place[std::size_t(n)] = 0;
  for (std::size_t n = 0; n < mesh.nodes.size(); ++n)
    if (place[n] == 0) {
      place[n] = int(surface.nodes.size());
      surface.nodes.push_back(int(n));
    }
  for (const auto& f : faces) {
    surface.triangles.push_back(
        {place[std::size_t(f[0])], place[std::size_t(f[1])], place[std::size_t(f[2])]});
    if (f.size() == 4)
      surface.triangles.push_back(
          {place[std::size_t(f[0])], place[std::size_t(f[2])], place[std::size_t(f[3])]});
  }
  for (const auto& s : segments)
    surface.segments.push_back({place[std::size_t(s[0])], place[std::size_t(s[1])]});
  surface.faces = faces.size();
  return surface;
}

std::array<double, 3> node_translation(const fem::Mesh& mesh, const Eigen::VectorXd& dofs,
                                       int node) {
  const Eigen::Index per_node = mesh.dofs_per_node();
  const Eigen::Index first = Eigen::Index(node) * per_node;
  const bool planar =
      !mesh.elements.empty() && mesh.elements.front().type == fem::ElementType::Beam2D;
  return {dofs(first), dofs(first + 1), planar ? 0.0 : dofs(first + 2)};
}

}  // namespace appell::report
