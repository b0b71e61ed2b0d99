#include "appell/io/printed_numbers.hpp"

#include "appell/numeric/linearization.hpp"

namespace appell::io {

Eigen::MatrixXd without_rounding_noise(const Eigen::MatrixXd& m) {
  // With a NaN or an infinity there is no largest magnitude to measure noise against.
  Eigen::MatrixXd clean = m.allFinite() ? num::without_rounding_noise(m) : m;
  return clean.unaryExpr([](double v) { return v == 0.0 ? 0.0 : v; });
}

Eigen::VectorXd without_rounding_noise(const Eigen::VectorXd& v) {
  return without_rounding_noise(Eigen::MatrixXd(v)).col(0);
}

num::StateEvaluation without_rounding_noise(const num::StateEvaluation& state) {
  num::StateEvaluation out = state;
  out.mass_matrix = without_rounding_noise(state.mass_matrix);
  out.forcing = without_rounding_noise(state.forcing);
  out.constraint_matrix = without_rounding_noise(state.constraint_matrix);
  out.constraint_rhs = without_rounding_noise(state.constraint_rhs);
  out.qdd = without_rounding_noise(state.qdd);
  out.lambda = without_rounding_noise(state.lambda);
  return out;
}

num::CompiledEquations::State without_rounding_noise(const num::CompiledEquations::State& state) {
  num::CompiledEquations::State out = state;
  out.mass_matrix = without_rounding_noise(state.mass_matrix);
  out.forcing = without_rounding_noise(state.forcing);
  out.speed_matrix = without_rounding_noise(state.speed_matrix);
  out.acceleration_offset = without_rounding_noise(state.acceleration_offset);
  out.qd = without_rounding_noise(state.qd);
  out.vdot = without_rounding_noise(state.vdot);
  out.qdd = without_rounding_noise(state.qdd);
  out.constraint_matrix = without_rounding_noise(state.constraint_matrix);
  out.constraint_rhs = without_rounding_noise(state.constraint_rhs);
  out.velocity_residual = without_rounding_noise(state.velocity_residual);
  out.lambda = without_rounding_noise(state.lambda);
  return out;
}

num::SplitEvaluation without_rounding_noise(const num::SplitEvaluation& split) {
  num::SplitEvaluation out = split;
  out.mass_matrix = without_rounding_noise(split.mass_matrix);
  out.coriolis = without_rounding_noise(split.coriolis);
  out.gravity = without_rounding_noise(split.gravity);
  out.loads = without_rounding_noise(split.loads);
  out.mass_rate = without_rounding_noise(split.mass_rate);
  out.gyroscopic = without_rounding_noise(split.gyroscopic);
  out.prescribed_motion = without_rounding_noise(split.prescribed_motion);
  return out;
}

num::ForwardDynamicsDerivatives without_rounding_noise(const num::ForwardDynamicsDerivatives& d) {
  num::ForwardDynamicsDerivatives out = d;
  out.qdd = without_rounding_noise(d.qdd);
  out.dqdd_dq = without_rounding_noise(d.dqdd_dq);
  out.dqdd_dqd = without_rounding_noise(d.dqdd_dqd);
  out.dqdd_du = without_rounding_noise(d.dqdd_du);
  out.minv = without_rounding_noise(d.minv);
  return out;
}

num::InverseDynamicsDerivatives without_rounding_noise(const num::InverseDynamicsDerivatives& d) {
  num::InverseDynamicsDerivatives out = d;
  out.tau = without_rounding_noise(d.tau);
  out.dtau_dq = without_rounding_noise(d.dtau_dq);
  out.dtau_dqd = without_rounding_noise(d.dtau_dqd);
  out.dtau_du = without_rounding_noise(d.dtau_du);
  return out;
}

std::vector<num::Reaction> without_rounding_noise(const std::vector<num::Reaction>& reactions) {
  // One table, forces and moments together: where every moment is 0 (pins and point masses) the
  // moments are all noise, and only the forces they are made of (r × F) give the scale.
  const auto count = static_cast<Eigen::Index>(reactions.size());
  Eigen::MatrixXd table(6, count);
  for (Eigen::Index k = 0; k < count; ++k) {
    const num::Reaction& r = reactions[static_cast<std::size_t>(k)];
    table.col(k) << r.force, r.moment;
  }
  table = without_rounding_noise(table);
  std::vector<num::Reaction> out = reactions;
  for (Eigen::Index k = 0; k < count; ++k) {
    out[static_cast<std::size_t>(k)].force = table.col(k).head<3>();
    out[static_cast<std::size_t>(k)].moment = table.col(k).tail<3>();
  }
  return out;
}

std::vector<Eigen::VectorXd> without_rounding_noise(const std::vector<Eigen::VectorXd>& forces) {
  if (forces.empty()) return forces;
  const Eigen::Index rows = forces.front().size();
  Eigen::MatrixXd all(rows, static_cast<Eigen::Index>(forces.size()));
  for (std::size_t c = 0; c < forces.size(); ++c) {
    // Every constraint's force has the model's n entries; a caller's other shape is kept as is.
    if (forces[c].size() != rows) return forces;
    all.col(static_cast<Eigen::Index>(c)) = forces[c];
  }
  all = without_rounding_noise(all);
  std::vector<Eigen::VectorXd> out;
  for (Eigen::Index c = 0; c < all.cols(); ++c) out.push_back(all.col(c));
  return out;
}

}  // namespace appell::io
