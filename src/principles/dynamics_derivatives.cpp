#include "appell/principles/dynamics_derivatives.hpp"

#include <stdexcept>
#include <unordered_map>

#include "appell/sym/program_derivatives.hpp"

namespace appell::principles {

namespace {

using sym::Node;

// Columns [first, first + count) of a row-major matrix with `cols` columns.
std::vector<Node> columns(const std::vector<Node>& m, std::size_t cols, std::size_t first,
                          std::size_t count) {
  std::vector<Node> out;
  const std::size_t rows = cols == 0 ? 0 : m.size() / cols;
  out.reserve(rows * count);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < count; ++j) out.push_back(m[i * cols + first + j]);
  return out;
}

// The upper triangle mirrored: M⁻¹ is symmetric, and its lower half then costs nothing.
void symmetrize(std::vector<Node>& m, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < i; ++j) m[i * n + j] = m[j * n + i];
}

// −a b for a (n×n) and b (n×cols), row-major.
std::vector<Node> negated_product(sym::ScalarProgram& p, const std::vector<Node>& a,
                                  const std::vector<Node>& b, std::size_t n, std::size_t cols) {
  std::vector<Node> out(n * cols);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < cols; ++j) {
      Node sum = p.constant(0.0);
      for (std::size_t k = 0; k < n; ++k) sum = p.add(sum, p.mul(a[i * n + k], b[k * cols + j]));
      out[i * cols + j] = p.neg(sum);
    }
  return out;
}

std::vector<Node> joined(std::initializer_list<const std::vector<Node>*> parts) {
  std::vector<Node> out;
  for (const auto* part : parts) out.insert(out.end(), part->begin(), part->end());
  return out;
}

}  // namespace

DynamicsDerivatives differentiate_dynamics(RecursiveDynamics& d, const DerivativeVariables& v) {
  sym::ScalarProgram& p = d.program;
  const std::size_t n = d.n, r = v.others.size();
  if (v.q.size() != n || v.qd.size() != n || v.qdd.size() != n || v.extra.size() != n ||
      d.inverse.size() != n)
    throw std::invalid_argument("differentiate_dynamics: " + std::to_string(n) +
                                " coordinates, other sizes given");
  const std::size_t cols = 2 * n + r;  // the directions q, q̇, then the others
  sym::Seeds state;
  sym::seed_directions(p, state, v.q, 0);
  sym::seed_directions(p, state, v.qd, static_cast<std::uint32_t>(n));
  sym::seed_directions(p, state, v.others, static_cast<std::uint32_t>(2 * n));

  DynamicsDerivatives out;
  const std::vector<Node> dtau = sym::jacobian(p, d.inverse, state, cols);
  out.dtau_dq = columns(dtau, cols, 0, n);
  out.dtau_dqd = columns(dtau, cols, n, n);
  out.dtau_dothers = columns(dtau, cols, 2 * n, r);
  if (d.forward.empty()) return out;

  // −M⁻¹ ∂τ at q̈ = forward: M⁻¹ from the solve's tangent along τ, ∂τ with its q̈ replaced.
  sym::Seeds forces;
  sym::seed_directions(p, forces, v.extra, 0);
  std::vector<Node> minv = sym::jacobian(p, d.forward, forces, n);
  symmetrize(minv, n);
  std::unordered_map<Node, Node> at_forward;
  for (std::size_t j = 0; j < n; ++j) at_forward.emplace(v.qdd[j], d.forward[j]);
  const std::vector<Node> dqdd =
      negated_product(p, minv, sym::substitute(p, dtau, at_forward), n, cols);

  // The forward recursion differentiated along q, q̇, the others and τ in one pass.
  sym::Seeds all = state;
  sym::seed_directions(p, all, v.extra, static_cast<std::uint32_t>(cols));
  const std::vector<Node> direct = sym::jacobian(p, d.forward, all, cols + n);
  std::vector<Node> direct_minv = columns(direct, cols + n, cols, n);
  symmetrize(direct_minv, n);
  const std::vector<Node> direct_dqdd = columns(direct, cols + n, 0, cols);

  // The cheaper of the two programs of forward dynamics and its derivatives (the count is
  // deterministic, so is the choice).
  const std::size_t through_inverse = p.operation_count(joined({&d.forward, &dqdd, &minv}));
  const std::size_t through_forward =
      p.operation_count(joined({&d.forward, &direct_dqdd, &direct_minv}));
  const bool use_direct = through_forward < through_inverse;
  const std::vector<Node>& chosen = use_direct ? direct_dqdd : dqdd;
  out.minv = use_direct ? direct_minv : minv;
  out.dqdd_dq = columns(chosen, cols, 0, n);
  out.dqdd_dqd = columns(chosen, cols, n, n);
  out.dqdd_dothers = columns(chosen, cols, 2 * n, r);
  out.forward_method = use_direct ? "through the forward recursion" : "-M^-1 dtau";
  return out;
}

}  // namespace appell::principles
