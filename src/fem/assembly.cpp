#include "appell/fem/assembly.hpp"

#include <algorithm>
#include <stdexcept>

namespace appell::fem {

BlockPattern::BlockPattern(const Mesh& mesh) {
  const std::size_t n = mesh.nodes.size();
  // Count, then fill, then sort and deduplicate each node's list: two passes over the elements
  // and no per-node containers.
  std::vector<int> count(n + 1, 0);
  for (const Element& element : mesh.elements)
    for (int b : element.nodes) count[std::size_t(b) + 1] += int(element.nodes.size());
  std::vector<int> start(n + 1, 0);
  for (std::size_t b = 0; b < n; ++b) start[b + 1] = start[b] + count[b + 1];
  std::vector<int> raw(static_cast<std::size_t>(start[n]));
  std::vector<int> fill(start.begin(), start.end() - 1);
  for (const Element& element : mesh.elements)
    for (int b : element.nodes)
      for (int a : element.nodes) raw[std::size_t(fill[std::size_t(b)]++)] = a;
  ptr_.assign(n + 1, 0);
  rows_.reserve(raw.size() / 2);
  for (std::size_t b = 0; b < n; ++b) {
    auto first = raw.begin() + start[b], last = raw.begin() + start[b + 1];
    std::sort(first, last);
    last = std::unique(first, last);
    // A node in no element still gets its own diagonal entry, so that the matrices stay square
    // with a structurally complete diagonal (its dofs are then reported as unsupported).
    if (first == last) rows_.push_back(int(b));
    rows_.insert(rows_.end(), first, last);
    ptr_[b + 1] = int(rows_.size());
  }
}

SparseMatrix BlockPattern::zero_matrix(int d) const {
  const int n = int(node_count());
  SparseMatrix m(n * d, n * d);
  m.resizeNonZeros(Eigen::Index(entries(d)));
  int* outer = m.outerIndexPtr();
  int* inner = m.innerIndexPtr();
  std::size_t k = 0;
  for (int b = 0; b < n; ++b) {
    for (int j = 0; j < d; ++j) {
      outer[b * d + j] = int(k);
      for (int r = ptr_[std::size_t(b)]; r < ptr_[std::size_t(b) + 1]; ++r)
        for (int i = 0; i < d; ++i) inner[k++] = rows_[std::size_t(r)] * d + i;
    }
  }
  outer[n * d] = int(k);
  std::fill(m.valuePtr(), m.valuePtr() + k, 0.0);
  return m;
}

std::size_t BlockPattern::position(int d, int a, int i, int b, int j) const {
  const auto first = rows_.begin() + ptr_[std::size_t(b)];
  const auto last = rows_.begin() + ptr_[std::size_t(b) + 1];
  const auto found = std::lower_bound(first, last, a);
  if (found == last || *found != a) throw std::logic_error("nodes are not neighbours");
  const std::size_t degree = std::size_t(last - first);
  return std::size_t(d) * std::size_t(d) * std::size_t(ptr_[std::size_t(b)]) +
         std::size_t(j) * std::size_t(d) * degree + std::size_t(found - first) * std::size_t(d) +
         std::size_t(i);
}

void BlockPattern::add(SparseMatrix& target, int d, const std::vector<int>& nodes,
                       const Eigen::MatrixXd& ke) const {
  double* values = target.valuePtr();
  const int count = int(nodes.size());
  for (int B = 0; B < count; ++B)
    for (int A = 0; A < count; ++A) {
      // One search per node pair; the d×d block is then contiguous by column.
      const std::size_t base = position(d, nodes[std::size_t(A)], 0, nodes[std::size_t(B)], 0);
      const std::size_t degree = std::size_t(ptr_[std::size_t(nodes[std::size_t(B)]) + 1] -
                                             ptr_[std::size_t(nodes[std::size_t(B)])]);
      for (int j = 0; j < d; ++j)
        for (int i = 0; i < d; ++i)
          values[base + std::size_t(j) * std::size_t(d) * degree + std::size_t(i)] +=
              ke(A * d + i, B * d + j);
    }
}

Eigen::Matrix3d skew(const Eigen::Vector3d& a) {
  Eigen::Matrix3d s;
  s << 0, -a.z(), a.y(), a.z(), 0, -a.x(), -a.y(), a.x(), 0;
  return s;
}

AssembledBody assemble(const Mesh& mesh, const Material& material,
                       const std::optional<BeamSection>& section) {
  const int d = mesh.dofs_per_node();
  AssembledBody body{d, BlockPattern(mesh), {}, {}, {}, {}, {}, {}, 0.0, 0.0};
  const bool solid = !mesh.is_beam();
  body.stiffness = body.pattern.zero_matrix(d);
  body.mass = body.pattern.zero_matrix(d);
  if (solid)
    body.scalar_mass = body.pattern.zero_matrix(1);
  else
    body.inertia.assign(9, body.pattern.zero_matrix(d));
  const Eigen::Index n = Eigen::Index(mesh.dof_count());
  body.first_moment = Eigen::MatrixXd::Zero(n, 3);
  for (auto& s : body.position) s = Eigen::VectorXd::Zero(n);

  Eigen::MatrixXd scalar;
  for (std::size_t e = 0; e < mesh.elements.size(); ++e) {
    const Element& element = mesh.elements[e];
    const ElementIntegrals integrals = element_integrals(mesh, e, material, section);
    body.pattern.add(body.stiffness, d, element.nodes, integrals.stiffness);
    body.pattern.add(body.mass, d, element.nodes, integrals.mass);
    const int count = int(element.nodes.size());
    if (solid) {
      // J_kl of a solid is the scalar mass matrix in the (k, l) components: keep only that.
      scalar.resize(count, count);
      for (int A = 0; A < count; ++A)
        for (int B = 0; B < count; ++B) scalar(A, B) = integrals.inertia[0](3 * A, 3 * B);
      body.pattern.add(body.scalar_mass, 1, element.nodes, scalar);
    } else {
      for (std::size_t kl = 0; kl < 9; ++kl)
        body.pattern.add(body.inertia[kl], d, element.nodes, integrals.inertia[kl]);
    }
    for (int A = 0; A < count; ++A)
      for (int i = 0; i < d; ++i) {
        const Eigen::Index global = Eigen::Index(element.nodes[std::size_t(A)]) * d + i;
        body.first_moment.row(global) += integrals.first_moment.row(A * d + i);
        for (std::size_t kl = 0; kl < 9; ++kl)
          body.position[kl](global) += integrals.position[kl](A * d + i);
      }
  }
  // ∫ρ dV along x is the x-column of m_Oi summed over the x-dofs: the body's mass.
  body.total_mass = body.first_moment.col(0).sum();
  body.volume = body.total_mass / material.density;
  return body;
}

SparseMatrix AssembledBody::combine(const Eigen::Matrix3d& W) const {
  SparseMatrix result = stiffness;  // same pattern
  double* values = result.valuePtr();
  if (!inertia.empty()) {
    std::fill(values, values + result.nonZeros(), 0.0);
    for (int k = 0; k < 3; ++k)
      for (int l = 0; l < 3; ++l) {
        const double w = W(k, l);
        if (w == 0.0) continue;
        const double* j = inertia[std::size_t(3 * k + l)].valuePtr();
        for (Eigen::Index p = 0; p < result.nonZeros(); ++p) values[p] += w * j[p];
      }
    return result;
  }
  // Solids: entry (a, i)–(b, j) is S_ab W_ij. Walk the pattern column by column: column (b, j)
  // lists, for each neighbour a of b, the rows (a, 0), (a, 1), (a, 2).
  const int d = dofs_per_node;
  const Eigen::Index nodes = scalar_mass.cols();
  const int* s_outer = scalar_mass.outerIndexPtr();
  const double* s_values = scalar_mass.valuePtr();
  Eigen::Index p = 0;
  for (Eigen::Index b = 0; b < nodes; ++b)
    for (int j = 0; j < d; ++j)
      for (int r = s_outer[b]; r < s_outer[b + 1]; ++r)
        for (int i = 0; i < d; ++i) values[p++] = s_values[r] * W(i, j);
  return result;
}

Eigen::VectorXd AssembledBody::load(const Eigen::Matrix3d& W) const {
  Eigen::VectorXd result = Eigen::VectorXd::Zero(Eigen::Index(dof_count()));
  for (int k = 0; k < 3; ++k)
    for (int l = 0; l < 3; ++l)
      if (W(k, l) != 0.0) result += W(k, l) * position[std::size_t(3 * k + l)];
  return result;
}

SparseMatrix assemble_geometric_stiffness(const Mesh& mesh, const AssembledBody& body,
                                          const Material& material,
                                          const std::optional<BeamSection>& section,
                                          const Eigen::VectorXd& u) {
  const int d = body.dofs_per_node;
  SparseMatrix kg = body.pattern.zero_matrix(d);
  Eigen::VectorXd ue;
  for (std::size_t e = 0; e < mesh.elements.size(); ++e) {
    const Element& element = mesh.elements[e];
    ue.resize(Eigen::Index(element.nodes.size()) * d);
    for (std::size_t A = 0; A < element.nodes.size(); ++A)
      ue.segment(Eigen::Index(A) * d, d) = u.segment(Eigen::Index(element.nodes[A]) * d, d);
    body.pattern.add(kg, d, element.nodes, geometric_stiffness(mesh, e, material, section, ue));
  }
  return kg;
}

}  // namespace appell::fem
