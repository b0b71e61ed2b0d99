// element_integrals, geometric_stiffness and element_stress (element.hpp): checks what the
// element is given and hands its node positions to the kernel of its type.
#include <stdexcept>
#include <string>

#include "appell/fem/element.hpp"
#include "appell/fem/element_kernels.hpp"
#include "appell/model/source_location.hpp"

namespace appell::fem {
namespace {

// Elements are named as the user numbers them (Mesh::element_number: the file's tag, or 1-based).
std::string label(const Mesh& mesh, std::size_t e, ElementType type) {
  return "element " + std::to_string(mesh.element_number(e)) + " (" + type_name(type) + ")";
}

// A degenerate element of a mesh read from a file is bad input, located at its line there; of a
// generated mesh, a failed computation.
template <class Kernel>
auto located(const Mesh& mesh, std::size_t e, Kernel&& kernel) -> decltype(kernel()) {
  try {
    return kernel();
  } catch (const model::ComputationError& error) {
    const model::SourceLocation where = mesh.element_where(e);
    if (where.line <= 0) throw;
    throw model::ModelError(where, error.what(), std::to_string(mesh.element_number(e)));
  }
}

const Element& checked_element(const Mesh& mesh, std::size_t e) {
  if (e >= mesh.elements.size())
    throw std::out_of_range("element index " + std::to_string(e) + " of a mesh of " +
                            std::to_string(mesh.elements.size()));
  const Element& element = mesh.elements[e];
  if (int(element.nodes.size()) != node_count(element.type))
    throw std::invalid_argument(label(mesh, e, element.type) + ": has " +
                                std::to_string(element.nodes.size()) + " nodes, needs " +
                                std::to_string(node_count(element.type)));
  for (int n : element.nodes)
    if (n < 0 || std::size_t(n) >= mesh.nodes.size())
      throw std::out_of_range(label(mesh, e, element.type) + ": node " + std::to_string(n) +
                              " does not exist");
  return element;
}

void check_material(const Material& m) {
  if (!(m.youngs_modulus > 0) || !(m.poisson_ratio > -1 && m.poisson_ratio < 0.5) ||
      !(m.density >= 0))
    throw std::invalid_argument(
        "material: needs Young's modulus > 0, Poisson's ratio in (-1, 0.5) and density >= 0");
}

const BeamSection& checked_section(const std::optional<BeamSection>& section, const Mesh& mesh,
                                   std::size_t e, ElementType type) {
  if (!section)
    throw std::invalid_argument(label(mesh, e, type) + ": a beam needs a cross-section");
  if (!(section->area > 0) || !(section->Iy >= 0) || !(section->Iz >= 0) || !(section->J >= 0))
    throw std::invalid_argument(label(mesh, e, type) +
                                ": the section needs area > 0 and Iy, Iz, J >= 0");
  return *section;
}

int dofs_per_node(ElementType type) { return type == ElementType::Beam3D ? 6 : 3; }

void check_displacement(const Eigen::VectorXd& u, const Mesh& mesh, std::size_t e,
                        ElementType type) {
  const Eigen::Index n = node_count(type) * dofs_per_node(type);
  if (u.size() != n)
    throw std::invalid_argument(label(mesh, e, type) + ": displacement has " +
                                std::to_string(u.size()) + " entries, needs " + std::to_string(n));
}

template <int N>
Eigen::Matrix<double, N, 3> positions(const Mesh& mesh, const Element& element) {
  Eigen::Matrix<double, N, 3> x;
  for (int a = 0; a < N; ++a) x.row(a) = mesh.nodes[std::size_t(element.nodes[std::size_t(a)])];
  return x;
}

const Eigen::Vector3d& node(const Mesh& mesh, const Element& element, std::size_t a) {
  return mesh.nodes[std::size_t(element.nodes[a])];
}

}  // namespace

ElementIntegrals element_integrals(const Mesh& mesh, std::size_t e, const Material& material,
                                   const std::optional<BeamSection>& section) {
  const Element& element = checked_element(mesh, e);
  check_material(material);
  const std::size_t n = mesh.element_number(e);
  return located(mesh, e, [&]() -> ElementIntegrals {
    switch (element.type) {
      case ElementType::Hex8:
        return hex8_integrals(positions<8>(mesh, element), material, n);
      case ElementType::Tet4:
        return tet4_integrals(positions<4>(mesh, element), material, n);
      case ElementType::Tet10:
        return tet10_integrals(positions<10>(mesh, element), material, n);
      case ElementType::Beam3D:
      case ElementType::Beam2D:
        return beam_integrals(node(mesh, element, 0), node(mesh, element, 1),
                              element.type == ElementType::Beam2D, material,
                              checked_section(section, mesh, e, element.type), n);
    }
    throw std::logic_error("element_integrals: unknown element type");
  });
}

Eigen::MatrixXd geometric_stiffness(const Mesh& mesh, std::size_t e, const Material& material,
                                    const std::optional<BeamSection>& section,
                                    const Eigen::VectorXd& displacement) {
  const Element& element = checked_element(mesh, e);
  check_material(material);
  check_displacement(displacement, mesh, e, element.type);
  const Matrix6d D = isotropic_elasticity(material.youngs_modulus, material.poisson_ratio);
  const std::size_t n = mesh.element_number(e);
  return located(mesh, e, [&]() -> Eigen::MatrixXd {
    switch (element.type) {
      case ElementType::Hex8:
        return hex8_geometric_stiffness(positions<8>(mesh, element), D, displacement, n);
      case ElementType::Tet4:
        return tet4_geometric_stiffness(positions<4>(mesh, element), D, displacement, n);
      case ElementType::Tet10:
        return tet10_geometric_stiffness(positions<10>(mesh, element), D, displacement, n);
      case ElementType::Beam3D:
      case ElementType::Beam2D:
        return beam_geometric_stiffness(
            node(mesh, element, 0), node(mesh, element, 1), element.type == ElementType::Beam2D,
            material, checked_section(section, mesh, e, element.type), displacement, n);
    }
    throw std::logic_error("geometric_stiffness: unknown element type");
  });
}

Eigen::Matrix<double, 6, 1> element_stress(const Mesh& mesh, std::size_t e,
                                           const Material& material,
                                           const std::optional<BeamSection>& section,
                                           const Eigen::VectorXd& displacement) {
  const Element& element = checked_element(mesh, e);
  check_material(material);
  check_displacement(displacement, mesh, e, element.type);
  const Matrix6d D = isotropic_elasticity(material.youngs_modulus, material.poisson_ratio);
  const std::size_t n = mesh.element_number(e);
  return located(mesh, e, [&]() -> Eigen::Matrix<double, 6, 1> {
    switch (element.type) {
      case ElementType::Hex8:
        return hex8_centre_stress(positions<8>(mesh, element), D, displacement, n);
      case ElementType::Tet4:
        return tet4_stress(positions<4>(mesh, element), D, displacement, n);
      case ElementType::Tet10:
        return tet10_mean_stress(positions<10>(mesh, element), D, displacement, n);
      case ElementType::Beam3D:
      case ElementType::Beam2D: {
        Vector6d s = Vector6d::Zero();
        s(0) = beam_axial_force(node(mesh, element, 0), node(mesh, element, 1),
                                element.type == ElementType::Beam2D, material,
                                checked_section(section, mesh, e, element.type), displacement, n);
        return s;
      }
    }
    throw std::logic_error("element_stress: unknown element type");
  });
}

}  // namespace appell::fem
