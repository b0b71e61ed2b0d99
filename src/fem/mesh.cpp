#include "appell/fem/mesh.hpp"

#include <stdexcept>

namespace appell::fem {

int node_count(ElementType type) {
  switch (type) {
    case ElementType::Hex8:
      return 8;
    case ElementType::Tet4:
      return 4;
    case ElementType::Tet10:
      return 10;
    case ElementType::Beam3D:
    case ElementType::Beam2D:
      return 2;
  }
  return 0;
}

const char* type_name(ElementType type) {
  switch (type) {
    case ElementType::Hex8:
      return "hex8";
    case ElementType::Tet4:
      return "tet4";
    case ElementType::Tet10:
      return "tet10";
    case ElementType::Beam3D:
      return "beam3d";
    case ElementType::Beam2D:
      return "beam2d";
  }
  return "?";
}

static int dofs_of(ElementType type) { return type == ElementType::Beam3D ? 6 : 3; }
static bool beam(ElementType type) {
  return type == ElementType::Beam3D || type == ElementType::Beam2D;
}

std::uint64_t Mesh::element_number(std::size_t e) const {
  return e < elements.size() && elements[e].tag > 0 ? elements[e].tag : e + 1;
}

model::SourceLocation Mesh::element_where(std::size_t e) const {
  if (e >= elements.size() || elements[e].line <= 0) return {source, 0, 0};
  return {source, elements[e].line, elements[e].column};
}

bool Mesh::is_beam() const { return !elements.empty() && beam(elements.front().type); }

int Mesh::dofs_per_node() const {
  if (elements.empty()) throw std::logic_error("a mesh without elements has no dofs");
  const ElementType first = elements.front().type;
  for (const Element& element : elements)
    if (beam(element.type) != beam(first) || dofs_of(element.type) != dofs_of(first))
      throw std::logic_error("a mesh mixes beam and solid elements");
  return dofs_of(first);
}

}  // namespace appell::fem
