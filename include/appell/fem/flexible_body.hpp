// A flexible body of a model made numeric: its mesh, material, assembled matrices, supports and
// loads, ready for modal analysis and time response.
#pragma once

#include <Eigen/Core>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "appell/fem/assembly.hpp"
#include "appell/fem/element.hpp"
#include "appell/fem/mesh.hpp"
#include "appell/model/model.hpp"
#include "appell/model/values.hpp"
#include "appell/numeric/tape.hpp"

namespace appell::fem {

/// The loads and prescribed displacements of the body as numbers at time t, every vector over all
/// dofs (frame components, N and m).
struct BodyLoads {
  Eigen::VectorXd force;         // all dofs: nodal forces + body forces (∫Nᵀ b dV)
  Eigen::VectorXd displacement;  // prescribed dofs: value, velocity, acceleration (0 elsewhere)
  Eigen::VectorXd velocity, acceleration;
};

/// A flexible body made numeric (build_flexible_body). It points at its model's FlexibleBody
/// (`spec`): keep the model alive while it is used.
struct FlexibleBodyInstance {
  const model::FlexibleBody* spec = nullptr;
  Mesh mesh;
  Material material;
  std::optional<BeamSection> section;
  AssembledBody assembled;
  double rayleigh_alpha = 0.0, rayleigh_beta = 0.0;

  /// Partition of the dofs: free ones are solved for; fixed ones are clamped (0) or prescribed.
  std::vector<int> free_dofs;
  std::vector<int> free_index;       // dof -> index among free dofs, or -1
  std::vector<int> prescribed_dofs;  // subset of the fixed dofs that move with time
  bool has_supports() const { return free_dofs.size() < std::size_t(assembled.dof_count()); }

  /// Nodal loads, body forces and prescribed displacements at t (s; compiled expressions of t).
  BodyLoads loads_at(double t) const;

  // Compiled pieces of loads_at: outputs are per-dof contributions.
  std::shared_ptr<num::Tape> load_tape;
  // (dof, tape output), summed; dof −1 − k: component k of a body force per unit volume
  std::vector<std::pair<int, int>> load_targets;
  std::vector<std::array<int, 3>> prescribed_outputs;  // per prescribed dof: d, ḋ, d̈ outputs
};

/// The default limit on a flexible body's elements (build_flexible_body, `appell fem
/// --max-elements`): a million 8-node hexahedra assemble into about 3·10⁶ dofs and 8 GB.
inline constexpr std::size_t default_max_elements = 1000000;

/// Builds body `index` of `model.flexible` with the parameters of `values` (model::bind):
/// meshes (reading Gmsh files), selects nodes, integrates and assembles. Bad values throw what
/// bind throws (model::ModelError naming an unknown name, ...); bad input (a selection that
/// matches no node, a node index out of range, an unknown Gmsh group, a material or size that is
/// not positive at these values, loads or prescribed displacements that use anything but t and
/// parameters, a planar beam given a z displacement, every dof fixed) throws model::ModelError at
/// its place in the model file; so does an unreadable or invalid Gmsh file (fem::read_gmsh). A
/// degenerate element is a model::ComputationError (element_integrals); an `index` beyond
/// model.flexible std::out_of_range.
///
/// A mesh of more than `max_elements` elements (a box's nx·ny·nz, a beam's count, a Gmsh file's
/// elements) is refused with a model::ModelError at the mesh, before anything is allocated: a
/// typo in `divisions` should not fill the memory. Raise the limit for a mesh known to fit.
FlexibleBodyInstance build_flexible_body(const model::Model& model, std::size_t index,
                                         const model::Values& values,
                                         std::size_t max_elements = default_max_elements);

/// The nodes a selection picks (sorted): on every plane given (within 1e-6 of the mesh's extent),
/// among the listed indices and in the named group, all that are given. `numbers` gives the
/// planes' parameters (model::BoundValues::numbers). Throws model::ModelError at the selection
/// when it picks none, lists an index out of range, names a group the mesh lacks, or a plane is
/// not a real number.
std::vector<int> select_nodes(const Mesh& mesh, const model::NodeSelection& selection,
                              const GiNaC::exmap& numbers);

}  // namespace appell::fem
