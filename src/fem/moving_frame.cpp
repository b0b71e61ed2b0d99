#include "appell/fem/moving_frame.hpp"

#include <vector>

#include "appell/model/source_location.hpp"
#include "sparse_solvers.hpp"

namespace appell::fem {

namespace {

// The 0/1 matrix whose column i picks dof dofs[i]. From triplets: reserve() and makeCompressed()
// on a matrix of no columns (a body with no prescribed dofs) read before Eigen's index array.
SparseMatrix selection(const FlexibleBodyInstance& body, const std::vector<int>& dofs) {
  std::vector<Eigen::Triplet<double, int>> ones;
  ones.reserve(dofs.size());
  for (std::size_t i = 0; i < dofs.size(); ++i) ones.emplace_back(dofs[i], int(i), 1.0);
  SparseMatrix s(Eigen::Index(body.assembled.dof_count()), Eigen::Index(dofs.size()));
  s.setFromTriplets(ones.begin(), ones.end());
  return s;
}

// The index pairs (k, l), k ≤ l, of the symmetric W = [ω][ω].
constexpr int kPairs[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {1, 2}, {0, 2}};

}  // namespace

SparseMatrix free_block(const FlexibleBodyInstance& body, const SparseMatrix& full) {
  const SparseMatrix s = selection(body, body.free_dofs);
  return SparseMatrix(s.transpose() * full * s);
}

SparseMatrix free_prescribed_block(const FlexibleBodyInstance& body, const SparseMatrix& full) {
  const SparseMatrix s = selection(body, body.free_dofs);
  const SparseMatrix p = selection(body, body.prescribed_dofs);
  return SparseMatrix(s.transpose() * full * p);
}

CentrifugalPrestress::CentrifugalPrestress(const FlexibleBodyInstance& body) : body_(body) {
  Cholesky cholesky;
  cholesky.compute(free_block(body, body.assembled.stiffness));
  if (cholesky.info() != Eigen::Success)
    throw model::ComputationError(
        "the stiffness of flexible body " + body.spec->name +
        " is singular on its free dofs: it needs supports (clamp) to carry a pre-stress");
  const Eigen::Index n = Eigen::Index(body.assembled.dof_count());
  auto solve = [&](const Eigen::VectorXd& load) {
    Eigen::VectorXd free(Eigen::Index(body.free_dofs.size()));
    for (std::size_t i = 0; i < body.free_dofs.size(); ++i)
      free(Eigen::Index(i)) = load(body.free_dofs[i]);
    const Eigen::VectorXd solution = cholesky.solve(free);
    Eigen::VectorXd u = Eigen::VectorXd::Zero(n);
    for (std::size_t i = 0; i < body.free_dofs.size(); ++i)
      u(body.free_dofs[i]) = solution(Eigen::Index(i));
    return u;
  };
  // Load −Σ W_kl s_kl for W the unit symmetric matrix of each pair; −m_Oi e_k for a_O.
  for (int p = 0; p < 6; ++p) {
    Eigen::Matrix3d w = Eigen::Matrix3d::Zero();
    w(kPairs[p][0], kPairs[p][1]) = 1.0;
    w(kPairs[p][1], kPairs[p][0]) = 1.0;
    unit_[std::size_t(p)] = solve(-body.assembled.load(w));
  }
  for (int k = 0; k < 3; ++k)
    unit_[std::size_t(6 + k)] = solve(-body.assembled.first_moment.col(k));
}

CentrifugalPrestress::~CentrifugalPrestress() = default;

Eigen::VectorXd CentrifugalPrestress::displacement(const FrameState& frame) const {
  const Eigen::Vector3d& w = frame.omega;
  const Eigen::Matrix3d W = w * w.transpose() - w.squaredNorm() * Eigen::Matrix3d::Identity();
  Eigen::VectorXd u = Eigen::VectorXd::Zero(unit_[0].size());
  for (int p = 0; p < 6; ++p) {
    // Off-diagonal pairs were solved with both (k, l) and (l, k) set: count W_kl once.
    const double value = W(kPairs[p][0], kPairs[p][1]);
    if (value != 0.0) u += value * unit_[std::size_t(p)];
  }
  for (int k = 0; k < 3; ++k)
    if (frame.origin_acceleration(k) != 0.0)
      u += frame.origin_acceleration(k) * unit_[std::size_t(6 + k)];
  return u;
}

SparseMatrix CentrifugalPrestress::geometric_stiffness(const FrameState& frame) const {
  return assemble_geometric_stiffness(body_.mesh, body_.assembled, body_.material, body_.section,
                                      displacement(frame));
}

InstantMatrices instant_matrices(const FlexibleBodyInstance& body, const FrameState& frame,
                                 double t, const CentrifugalPrestress* prestress) {
  const AssembledBody& a = body.assembled;
  const Eigen::Matrix3d omega = skew(frame.omega);
  const Eigen::Matrix3d epsilon = skew(frame.epsilon);
  const Eigen::Matrix3d omega2 = omega * omega;

  InstantMatrices m;
  m.damping = 2.0 * a.combine(omega);
  if (body.rayleigh_alpha != 0.0) m.damping += body.rayleigh_alpha * a.mass;
  if (body.rayleigh_beta != 0.0) m.damping += body.rayleigh_beta * a.stiffness;
  m.stiffness = a.stiffness + a.combine(epsilon + omega2);
  if (prestress) m.stiffness += prestress->geometric_stiffness(frame);

  m.force = instant_force(body, frame, t);
  return m;
}

Eigen::VectorXd instant_force(const FlexibleBodyInstance& body, const FrameState& frame, double t) {
  const AssembledBody& a = body.assembled;
  const Eigen::Matrix3d omega = skew(frame.omega);
  return body.loads_at(t).force + a.first_moment * (frame.gravity - frame.origin_acceleration) -
         a.load(skew(frame.epsilon) + omega * omega);
}

}  // namespace appell::fem
