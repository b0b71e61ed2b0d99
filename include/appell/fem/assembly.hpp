// Assembly of a mesh's element integrals into sparse matrices (seed 002's system matrices).
//
// Every matrix shares one block pattern: dof (a, i) couples with dof (b, j) when nodes a and b
// share an element. Element matrices are added straight into the values of that pattern (a
// binary search per node pair, no triplet lists): a 10⁵-hexahedron body then needs the pattern
// once and 12 bytes per stored entry, instead of the 16 bytes per element entry that triplets
// would take before compression.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <array>
#include <optional>
#include <vector>

#include "appell/fem/element.hpp"
#include "appell/fem/mesh.hpp"

namespace appell::fem {

using SparseMatrix = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

/// Which nodes share an element, and where each (a, i)–(b, j) entry lives in a matrix with d
/// dofs per node. Column (b, j) holds the rows (a, 0..d−1) of each neighbour a of b, in order.
class BlockPattern {
 public:
  BlockPattern() = default;
  /// The pattern of `mesh`'s elements.
  explicit BlockPattern(const Mesh& mesh);

  /// A matrix with the pattern and all values zero (d dofs per node: nodes·d square).
  SparseMatrix zero_matrix(int d) const;
  /// Adds the dense element matrix `ke` (nodes.size()·d square, node-major element dofs) of the
  /// element with `nodes` to `target`, a matrix made by zero_matrix(d). Throws std::logic_error
  /// when two of the nodes are not neighbours in the pattern.
  void add(SparseMatrix& target, int d, const std::vector<int>& nodes,
           const Eigen::MatrixXd& ke) const;
  /// Index into the values of entry (a, i)–(b, j); the nodes must be neighbours
  /// (std::logic_error otherwise).
  std::size_t position(int d, int a, int i, int b, int j) const;

  /// Number of nodes of the mesh it was made from.
  std::size_t node_count() const { return ptr_.size() - 1; }
  /// Stored entries of a matrix with d dofs per node.
  std::size_t entries(int d) const { return rows_.size() * std::size_t(d * d); }

 private:
  std::vector<int> ptr_;   // neighbours of node b: rows_[ptr_[b] .. ptr_[b+1])
  std::vector<int> rows_;  // sorted, each node its own neighbour
};

/// The constant matrices of a flexible body: everything the moving-frame terms need (all dofs,
/// frame components, SI units).
struct AssembledBody {
  int dofs_per_node = 3;
  BlockPattern pattern;
  SparseMatrix stiffness;  // k
  SparseMatrix mass;       // m
  /// Solids: the scalar mass matrix S_ab = ∫ρ N_a N_b dV (node level), so J_kl = S ⊗ e_k e_lᵀ.
  SparseMatrix scalar_mass;
  /// Beams: the nine J_kl (dof level, index 3k + l); empty for solids.
  std::vector<SparseMatrix> inertia;
  Eigen::MatrixXd first_moment;             // dofs×3: m_Oi
  std::array<Eigen::VectorXd, 9> position;  // s_kl
  double volume = 0.0;                      // m³ (total_mass / ρ)
  double total_mass = 0.0;                  // kg

  /// Number of dofs, nodes × dofs_per_node.
  std::size_t dof_count() const { return std::size_t(stiffness.rows()); }
  /// Σ_kl W_kl J_kl = ∫ρ Nᵀ W N dV with the stiffness pattern (W in frame components): c =
  /// 2·combine([ω]), k(ε) = combine([ε]), k(ω) = combine([ω][ω]).
  SparseMatrix combine(const Eigen::Matrix3d& W) const;
  /// Σ_kl W_kl s_kl = ∫ρ Nᵀ W x dV: q_i(ε) = load([ε]), q_i(ω) = load([ω][ω]).
  Eigen::VectorXd load(const Eigen::Matrix3d& W) const;
};

/// Integrates and assembles every element of `mesh` (section required for a beam mesh). Throws
/// what element_integrals throws, and std::logic_error for a mesh without elements or mixing
/// beams and solids.
AssembledBody assemble(const Mesh& mesh, const Material& material,
                       const std::optional<BeamSection>& section);

/// The geometric stiffness of the whole body about the displacement `u` (all dofs, dof_count()
/// entries), with the stiffness pattern. Throws what geometric_stiffness throws.
SparseMatrix assemble_geometric_stiffness(const Mesh& mesh, const AssembledBody& body,
                                          const Material& material,
                                          const std::optional<BeamSection>& section,
                                          const Eigen::VectorXd& u);

/// The skew matrix [a] with [a] x = a × x.
Eigen::Matrix3d skew(const Eigen::Vector3d& a);

}  // namespace appell::fem
