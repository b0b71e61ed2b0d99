// Structured meshes generated from a few numbers: a box of hexahedra and a line of beam elements.
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "appell/fem/mesh.hpp"

namespace appell::fem {

namespace {

bool positive_finite(double value) { return std::isfinite(value) && value > 0; }

}  // namespace

Mesh box_mesh(const std::array<double, 3>& size, const std::array<int, 3>& divisions) {
  const char* axes[] = {"x", "y", "z"};
  for (std::size_t k = 0; k < 3; ++k) {
    if (!positive_finite(size[k]))
      throw std::invalid_argument(std::string("box_mesh: the size along ") + axes[k] +
                                  " must be positive and finite, got " + std::to_string(size[k]));
    if (divisions[k] <= 0)
      throw std::invalid_argument(std::string("box_mesh: the divisions along ") + axes[k] +
                                  " must be positive, got " + std::to_string(divisions[k]));
  }
  const std::int64_t nx = divisions[0], ny = divisions[1], nz = divisions[2];
  // Node indices are ints (Element::nodes); refuse a box whose indices would overflow rather
  // than wrap around silently.
  const std::int64_t limit = std::numeric_limits<int>::max();
  if ((nx + 1) * (ny + 1) > limit || (nx + 1) * (ny + 1) * (nz + 1) > limit)
    throw std::invalid_argument("box_mesh: " + std::to_string(nx) + "×" + std::to_string(ny) + "×" +
                                std::to_string(nz) + " divisions are too many nodes");

  const double length = size[0], width = size[1], height = size[2];
  Mesh mesh;
  mesh.nodes.reserve(std::size_t((nx + 1) * (ny + 1) * (nz + 1)));
  // Node (i, j, k) has index i + (nx+1)(j + (ny+1)k), so x runs fastest. Coordinates are computed
  // from the integer position, not accumulated, so the far faces land exactly on L and ±b/2.
  for (std::int64_t k = 0; k <= nz; ++k) {
    const double z = height * (double(k) / double(nz) - 0.5);
    for (std::int64_t j = 0; j <= ny; ++j) {
      const double y = width * (double(j) / double(ny) - 0.5);
      for (std::int64_t i = 0; i <= nx; ++i)
        mesh.nodes.emplace_back(length * (double(i) / double(nx)), y, z);
    }
  }

  const auto index = [&](std::int64_t i, std::int64_t j, std::int64_t k) {
    return int(i + (nx + 1) * (j + (ny + 1) * k));
  };
  mesh.elements.reserve(std::size_t(nx * ny * nz));
  for (std::int64_t k = 0; k < nz; ++k)
    for (std::int64_t j = 0; j < ny; ++j)
      for (std::int64_t i = 0; i < nx; ++i) {
        Element element;
        element.type = ElementType::Hex8;
        // Gmsh/VTK order: the z- face counterclockwise seen from +z, then the z+ face likewise;
        // with x, y, z right-handed this gives a positive Jacobian.
        element.nodes = {index(i, j, k),
                         index(i + 1, j, k),
                         index(i + 1, j + 1, k),
                         index(i, j + 1, k),
                         index(i, j, k + 1),
                         index(i + 1, j, k + 1),
                         index(i + 1, j + 1, k + 1),
                         index(i, j + 1, k + 1)};
        mesh.elements.push_back(std::move(element));
      }
  return mesh;
}

Mesh beam_mesh(double length, int elements, bool planar) {
  if (!positive_finite(length))
    throw std::invalid_argument("beam_mesh: the length must be positive and finite, got " +
                                std::to_string(length));
  if (elements <= 0 || elements == std::numeric_limits<int>::max())
    throw std::invalid_argument("beam_mesh: the number of elements must be positive, got " +
                                std::to_string(elements));
  Mesh mesh;
  mesh.nodes.reserve(std::size_t(elements) + 1);
  for (int i = 0; i <= elements; ++i)
    mesh.nodes.emplace_back(length * (double(i) / double(elements)), 0.0, 0.0);
  mesh.elements.reserve(std::size_t(elements));
  for (int i = 0; i < elements; ++i)
    mesh.elements.push_back({planar ? ElementType::Beam2D : ElementType::Beam3D, {i, i + 1}});
  return mesh;
}

}  // namespace appell::fem
