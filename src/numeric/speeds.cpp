#include "appell/numeric/speeds.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <string>

#include "appell/model/source_location.hpp"
#include "appell/numeric/acceleration_solve.hpp"
#include "speed_tape.hpp"
#include "tape_layout.hpp"

namespace appell::num {

namespace {

constexpr std::size_t kUnused = std::numeric_limits<std::size_t>::max();

}  // namespace

SpeedTape::SpeedTape(const model::Model& m, const GiNaC::exvector& entries,
                     const model::Values& values)
    : n_(m.dof()), tape_([&] {
        // layout_of reads t, q, q̇ and the bound values; a speed that is not a coordinate's own
        // rate is one of the "other" symbols it appends (at 0), whose slot is found here.
        Layout layout = layout_of(m, entries, values);
        variables_.assign(1 + 2 * n_, 0.0);
        variables_.insert(variables_.end(), layout.fixed.begin(), layout.fixed.end());
        for (std::size_t k = 0; k < m.speeds.size(); ++k) {
          const GiNaC::symbol u = m.speed_symbol(k);
          std::size_t slot = kUnused;
          for (std::size_t i = 0; i < layout.variables.size() && slot == kUnused; ++i)
            if (layout.variables[i].is_equal(u)) slot = i;
          speed_slots_.push_back(slot);
        }
        return Tape(layout.entries, layout.variables);
      }()) {}

void SpeedTape::evaluate(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& u,
                         std::vector<double>& outputs) const {
  variables_[0] = t;
  for (std::size_t j = 0; j < n_; ++j) {
    variables_[1 + j] = q[static_cast<Eigen::Index>(j)];
    variables_[1 + n_ + j] = 0.0;
  }
  for (std::size_t k = 0; k < speed_slots_.size(); ++k)
    if (speed_slots_[k] != kUnused) variables_[speed_slots_[k]] = u[static_cast<Eigen::Index>(k)];
  outputs.resize(tape_.output_count());
  tape_.evaluate(variables_.data(), outputs.data(), workspace_);
}

void SpeedTape::evaluate_velocities(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                    std::vector<double>& outputs) const {
  for (std::size_t slot : speed_slots_)
    if (slot != kUnused && slot > 2 * n_) variables_[slot] = 0.0;
  variables_[0] = t;
  for (std::size_t j = 0; j < n_; ++j) {
    variables_[1 + j] = q[static_cast<Eigen::Index>(j)];
    variables_[1 + n_ + j] = qd[static_cast<Eigen::Index>(j)];
  }
  outputs.resize(tape_.output_count());
  tape_.evaluate(variables_.data(), outputs.data(), workspace_);
}

Eigen::VectorXd speeds_from_velocities(const model::Model& model, const model::Values& values,
                                       double t, const Eigen::VectorXd& q,
                                       const Eigen::VectorXd& qd) {
  GiNaC::exvector entries;
  for (const auto& speed : model.speeds) entries.push_back(speed.value);
  const SpeedTape tape(model, entries, values);
  std::vector<double> outputs;
  tape.evaluate_velocities(t, q, qd, outputs);
  return Eigen::Map<const Eigen::VectorXd>(outputs.data(),
                                           static_cast<Eigen::Index>(outputs.size()));
}

namespace {

// W(q, t) of `dynamics` factored: Householder QR with column pivoting (W has full column rank
// wherever Y is invertible). Throws model::ComputationError where W is not finite or singular.
Eigen::ColPivHouseholderQR<Eigen::MatrixXd> factor_speed_kinematics(const Dynamics& dynamics,
                                                                    DynamicsWorkspace& work,
                                                                    double t,
                                                                    const Eigen::VectorXd& q) {
  Eigen::MatrixXd W;
  dynamics.speed_kinematics(t, q, W, work);
  if (!W.allFinite())
    throw model::ComputationError("the kinematic equations are not finite at this state");
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(W);
  if (qr.rank() < W.cols())
    throw model::ComputationError(
        "the speeds of the velocities are not determined: W (q' = W u) is singular at this "
        "state");
  return qr;
}

}  // namespace

Eigen::VectorXd speeds_from_velocities(const Dynamics& dynamics,
                                       const std::vector<double>& parameters, double t,
                                       const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
  DynamicsWorkspace work;
  work.parameters = parameters;
  return factor_speed_kinematics(dynamics, work, t, q).solve(qd);
}

void speeds_of_motion(const Dynamics& dynamics, DynamicsWorkspace& work, double t,
                      const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                      const Eigen::VectorXd& qdd, Eigen::VectorXd& u, Eigen::VectorXd& udot) {
  const auto qr = factor_speed_kinematics(dynamics, work, t, q);
  u = qr.solve(qd);
  // γ(q, u) is q̈ at u̇ = 0.
  Eigen::VectorXd offset;
  dynamics.coordinate_accelerations(t, q, u, Eigen::VectorXd::Zero(u.size()), offset, work);
  udot = qr.solve(qdd - offset);
}

std::vector<std::array<Eigen::Index, 4>> quaternion_coordinates(const model::Model& model) {
  std::vector<std::array<Eigen::Index, 4>> groups;
  for (const auto& q : model.quaternions) {
    std::array<Eigen::Index, 4> group{};
    for (std::size_t i = 0; i < 4; ++i) group[i] = static_cast<Eigen::Index>(q.coordinates[i]);
    groups.push_back(group);
  }
  return groups;
}

void normalize_quaternions(const model::Model& model, Eigen::VectorXd& q,
                           const std::string& option) {
  for (const auto& quaternion : model.quaternions) {
    double norm2 = 0.0;
    for (std::size_t j : quaternion.coordinates)
      norm2 += q[static_cast<Eigen::Index>(j)] * q[static_cast<Eigen::Index>(j)];
    if (!(norm2 > 0.0) || !std::isfinite(norm2))
      throw model::ModelError({option, 0, 0},
                              "the quaternion of a frame must not be zero (it is normalized to "
                              "length 1)",
                              quaternion.frame);
    const double norm = std::sqrt(norm2);
    for (std::size_t j : quaternion.coordinates) q[static_cast<Eigen::Index>(j)] /= norm;
  }
}

Eigen::VectorXd independent_speeds(const model::Model& model, const std::vector<double>& speeds) {
  const std::size_t n = model.dof(), p = model.independent.size();
  if (!speeds.empty() && speeds.size() != n && speeds.size() != p) {
    std::string written;
    for (double v : speeds) {
      char buffer[32];
      const auto end = std::to_chars(buffer, buffer + sizeof buffer, v).ptr;
      written += (written.empty() ? "" : ",") + std::string(buffer, end);
    }
    throw model::ModelError(model::SourceLocation{"speeds", 0, 0},
                            "expected " + std::to_string(p) + " independent speeds or " +
                                std::to_string(n) + " speeds (one per coordinate), got " +
                                std::to_string(speeds.size()),
                            written);
  }
  Eigen::VectorXd u(static_cast<Eigen::Index>(p));
  for (std::size_t k = 0; k < p; ++k) {
    const std::size_t j = model.independent[k];
    u[static_cast<Eigen::Index>(k)] = speeds.empty()       ? model.coordinates[j].velocity
                                      : speeds.size() == p ? speeds[k]
                                                           : speeds[j];
  }
  return u;
}

CompiledEquations::State solve_in_speeds(const Dynamics& dynamics, double t,
                                         const Eigen::VectorXd& q, const Eigen::VectorXd& u) {
  DynamicsWorkspace work;
  CompiledEquations::State s;
  dynamics.mass_matrix_and_forcing(t, q, u, s.mass_matrix, s.forcing, work);
  dynamics.speed_kinematics(t, q, s.speed_matrix, work);
  dynamics.coordinate_velocities(t, q, u, s.qd, work);
  if (!s.speed_matrix.allFinite() || !s.qd.allFinite())
    throw model::ComputationError("the kinematics of the speeds are not finite at this state");
  if (dynamics.constraint_count() == 0) {
    s.vdot = solve_accelerations(s.mass_matrix, s.forcing);
  } else {
    dynamics.constraints(t, q, u, s.constraint_matrix, s.constraint_rhs, work);
    Eigen::MatrixXd A;
    dynamics.velocity_constraints(t, q, u, A, s.velocity_residual, work);
    solve_constrained_accelerations(s.mass_matrix, s.forcing, s.constraint_matrix, s.constraint_rhs,
                                    s.vdot, s.lambda, ConstraintTolerances{});
  }
  dynamics.coordinate_accelerations(t, q, u, s.vdot, s.qdd, work);
  if (!s.qdd.allFinite())
    throw model::ComputationError("the equations in the speeds are not finite at this state");
  s.acceleration_offset = s.qdd - s.speed_matrix * s.vdot;
  return s;
}

}  // namespace appell::num
