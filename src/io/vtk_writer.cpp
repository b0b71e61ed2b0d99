#include "appell/io/vtk_writer.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>

#include "appell/io/markup_escape.hpp"
#include "appell/io/output_file.hpp"
#include "appell/model/source_location.hpp"

namespace appell::io {

namespace {

// Appending with to_chars keeps a 10^5-element mesh fast and locale-independent (a stream
// imbued with a German locale would write decimal commas that VTK cannot read).
void append(std::string& out, double value) {
  // Non-finite values come out as nan/inf, which VTK's ASCII reader may refuse: they mean a
  // failed computation, which zeros would hide.
  if (value == 0.0) value = 0.0;  // never "-0"
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, result.ptr);
}

void append(std::string& out, long long value) {
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, result.ptr);
}

int vtk_cell_type(fem::ElementType type) {
  switch (type) {
    case fem::ElementType::Hex8:
      return 12;
    case fem::ElementType::Tet4:
      return 10;
    case fem::ElementType::Tet10:
      return 24;  // VTK_QUADRATIC_TETRA
    case fem::ElementType::Beam3D:
    case fem::ElementType::Beam2D:
      return 3;
  }
  return 0;
}

void save(const std::string& path, const std::string& text) {
  try {
    write_file(path, text);
  } catch (const model::ModelError& e) {
    // These files go into a folder of many: not opening one is a failure of the run, not input.
    throw model::ComputationError(e.what());
  }
}

}  // namespace

void write_vtu(const std::string& path, const fem::Mesh& mesh, const Eigen::VectorXd& dofs,
               const Eigen::MatrixXd* cell_stress) {
  const std::size_t n_nodes = mesh.nodes.size();
  const std::size_t n_cells = mesh.elements.size();
  // A mesh without elements has no dofs per node; only the undeformed form makes sense then.
  const std::size_t per_node = n_cells == 0 ? 0 : std::size_t(mesh.dofs_per_node());
  if (dofs.size() != 0 && std::size_t(dofs.size()) != n_nodes * per_node)
    throw std::invalid_argument("write_vtu: " + std::to_string(dofs.size()) +
                                " dofs for a mesh of " + std::to_string(n_nodes * per_node));
  if (cell_stress && (std::size_t(cell_stress->rows()) != n_cells || cell_stress->cols() != 6))
    throw std::invalid_argument(
        "write_vtu: the stress must be elements×6 (" + std::to_string(n_cells) + "×6), got " +
        std::to_string(cell_stress->rows()) + "×" + std::to_string(cell_stress->cols()));
  const bool planar = n_cells > 0 && mesh.elements.front().type == fem::ElementType::Beam2D;

  std::string out;
  out.reserve(64 * n_nodes + 96 * n_cells + 1024);
  out +=
      "<?xml version=\"1.0\"?>\n"
      "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" "
      "header_type=\"UInt64\">\n"
      "  <UnstructuredGrid>\n"
      "    <Piece NumberOfPoints=\"";
  append(out, (long long)n_nodes);
  out += "\" NumberOfCells=\"";
  append(out, (long long)n_cells);
  out +=
      "\">\n"
      "      <PointData Vectors=\"displacement\">\n"
      "        <DataArray type=\"Float64\" Name=\"displacement\" NumberOfComponents=\"3\" "
      "format=\"ascii\">\n";
  for (std::size_t n = 0; n < n_nodes; ++n) {
    out += "         ";
    for (std::size_t k = 0; k < 3; ++k) {
      // Planar beams store (u, v, θz): the third dof is a rotation, not w.
      const bool present = dofs.size() != 0 && !(planar && k == 2);
      out += ' ';
      append(out, present ? dofs(Eigen::Index(n * per_node + k)) : 0.0);
    }
    out += '\n';
  }
  out +=
      "        </DataArray>\n"
      "      </PointData>\n";
  if (cell_stress) {
    out +=
        "      <CellData Tensors=\"stress\">\n"
        "        <DataArray type=\"Float64\" Name=\"stress\" NumberOfComponents=\"6\" "
        "ComponentName0=\"XX\" ComponentName1=\"YY\" ComponentName2=\"ZZ\" "
        "ComponentName3=\"XY\" ComponentName4=\"YZ\" ComponentName5=\"XZ\" format=\"ascii\">\n";
    for (std::size_t e = 0; e < n_cells; ++e) {
      out += "         ";
      for (Eigen::Index k = 0; k < 6; ++k) {
        out += ' ';
        append(out, (*cell_stress)(Eigen::Index(e), k));
      }
      out += '\n';
    }
    out +=
        "        </DataArray>\n"
        "      </CellData>\n";
  }
  out +=
      "      <Points>\n"
      "        <DataArray type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\" "
      "format=\"ascii\">\n";
  for (const Eigen::Vector3d& x : mesh.nodes) {
    out += "         ";
    for (Eigen::Index k = 0; k < 3; ++k) {
      out += ' ';
      append(out, x(k));
    }
    out += '\n';
  }
  out +=
      "        </DataArray>\n"
      "      </Points>\n"
      "      <Cells>\n"
      "        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n";
  // Gmsh's node order of hexahedra and linear tetrahedra is VTK's; the 10-node tetrahedron's
  // last two midside nodes (edges 3-2 and 3-1 in Gmsh) are swapped in VTK (edges 1-3, 2-3).
  constexpr std::array<int, 10> kTet10ToVtk{0, 1, 2, 3, 4, 5, 6, 7, 9, 8};
  for (const fem::Element& element : mesh.elements) {
    out += "         ";
    const bool tet10 = element.type == fem::ElementType::Tet10;
    for (std::size_t a = 0; a < element.nodes.size(); ++a) {
      out += ' ';
      append(out, (long long)element.nodes[tet10 ? std::size_t(kTet10ToVtk[a]) : a]);
    }
    out += '\n';
  }
  out +=
      "        </DataArray>\n"
      "        <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n";
  long long offset = 0;
  for (std::size_t e = 0; e < n_cells; ++e) {
    offset += (long long)mesh.elements[e].nodes.size();
    out += e % 16 == 0 ? "          " : " ";
    append(out, offset);
    if (e % 16 == 15 || e + 1 == n_cells) out += '\n';
  }
  out +=
      "        </DataArray>\n"
      "        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n";
  for (std::size_t e = 0; e < n_cells; ++e) {
    out += e % 16 == 0 ? "          " : " ";
    append(out, (long long)vtk_cell_type(mesh.elements[e].type));
    if (e % 16 == 15 || e + 1 == n_cells) out += '\n';
  }
  out +=
      "        </DataArray>\n"
      "      </Cells>\n"
      "    </Piece>\n"
      "  </UnstructuredGrid>\n"
      "</VTKFile>\n";
  save(path, out);
}

void write_pvd(const std::string& path, const std::vector<std::pair<double, std::string>>& steps) {
  std::string out =
      "<?xml version=\"1.0\"?>\n"
      "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
      "  <Collection>\n";
  for (const auto& [time, file] : steps) {
    out += "    <DataSet timestep=\"";
    append(out, time);
    out += "\" group=\"\" part=\"0\" file=\"" + markup_escape(file) + "\"/>\n";
  }
  out +=
      "  </Collection>\n"
      "</VTKFile>\n";
  save(path, out);
}

}  // namespace appell::io
