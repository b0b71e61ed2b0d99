// A flexible body of a model (the `flexible:` list, docs/model-format.md): a mesh attached to a
// floating frame whose rigid motion comes from the model (kineto-elastodynamic hypothesis,
// seed 002 §1/§3: the elastic deformation does not alter the rigid motion).
#pragma once

#include <ginac/ginac.h>

#include <array>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "appell/model/source_location.hpp"

namespace appell::model {

/// A box of 8-node hexahedra, x in [0, L], y in [−b/2, b/2], z in [−h/2, h/2] (fem::box_mesh).
struct BoxMeshSpec {
  std::array<GiNaC::ex, 3> size;          // L, b, h in m (parameters allowed)
  std::array<int, 3> divisions{1, 1, 1};  // elements along x, y, z
};
/// `elements` equal Euler–Bernoulli beam elements along x from 0 to `length` (fem::beam_mesh).
struct BeamMeshSpec {
  GiNaC::ex length;  // m
  int elements = 1;
  GiNaC::ex area, Iy, Iz, J;  // m², m⁴; Iy and J unset (0) for a planar beam that omits them
  bool planar = false;        // Beam2D in the x–y plane
};
/// A Gmsh MSH 4.1 ASCII file (fem::read_gmsh).
struct GmshMeshSpec {
  std::string path;  // resolved against the model file's folder
};
using MeshSpec = std::variant<BoxMeshSpec, BeamMeshSpec, GmshMeshSpec>;

/// A set of nodes: the nodes on the planes x = X, y = Y, z = Z given (all given must hold, within
/// a tolerance relative to the mesh size), or explicit 0-based node indices, or a Gmsh physical
/// group by name. Matching no node is an error at `where`.
struct NodeSelection {
  std::array<std::optional<GiNaC::ex>, 3> plane;  // x, y, z
  std::vector<long> nodes;
  std::string group;
  SourceLocation where;
};

/// A prescribed displacement (components along the frame's axes; expressions of t) at nodes.
struct PrescribedDisplacement {
  NodeSelection at;
  std::array<GiNaC::ex, 3> displacement;
  SourceLocation where;
};

/// A force on each selected node (frame components; expressions of t), or a force per unit
/// volume on the whole body (`body_force`).
struct FlexibleLoad {
  std::optional<NodeSelection> at;  // nullopt: body force per unit volume
  std::array<GiNaC::ex, 3> force;
  SourceLocation where;
};

/// A flexible body as the builder validated it; fem::build_flexible_body makes it numeric.
struct FlexibleBody {
  std::string name;
  std::string frame;  // floating frame
  MeshSpec mesh;
  SourceLocation mesh_where;
  GiNaC::ex youngs_modulus, poisson_ratio, density;  // E (Pa), ν in (−1, 0.5), ρ (kg/m³)
  SourceLocation material_where;
  std::vector<NodeSelection> clamp;
  std::vector<PrescribedDisplacement> prescribed;
  std::vector<FlexibleLoad> loads;
  bool stiffening = true;  // geometric stiffening from centrifugal pre-stress
  GiNaC::ex rayleigh_alpha = 0, rayleigh_beta = 0;  // damping C = αM + βK
  SourceLocation where;
};

}  // namespace appell::model
