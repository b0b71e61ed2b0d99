#include "appell/numeric/compiled_speed_form.hpp"

#include <cmath>
#include <limits>
#include <sstream>

#include "appell/model/source_location.hpp"
#include "appell/numeric/dynamics_evaluator.hpp"
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

CompiledSpeedForm::CompiledSpeedForm(const principles::SpeedEquations& eq,
                                     const model::Values& values)
    : n_(eq.model->dof()),
      p_(eq.size()),
      m_(eq.constraint_count()),
      tape_(*eq.model, eq.entries(), values) {}

CompiledSpeedForm::State CompiledSpeedForm::solve(double t, const Eigen::VectorXd& q,
                                                  const Eigen::VectorXd& u,
                                                  const ConstraintTolerances& tolerances) const {
  tape_.evaluate(t, q, u, outputs_);
  const auto n = static_cast<Eigen::Index>(n_), p = static_cast<Eigen::Index>(p_),
             m = static_cast<Eigen::Index>(m_);
  State s;
  s.mass_matrix.resize(p, p);
  s.forcing.resize(p);
  s.kinematics.resize(n, p);
  Eigen::VectorXd gamma(n);
  std::size_t k = 0;
  for (Eigen::Index i = 0; i < p; ++i)
    for (Eigen::Index j = 0; j < p; ++j) s.mass_matrix(i, j) = outputs_[k++];
  for (Eigen::Index i = 0; i < p; ++i) s.forcing[i] = outputs_[k++];
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < p; ++j) s.kinematics(i, j) = outputs_[k++];
  for (Eigen::Index i = 0; i < n; ++i) gamma[i] = outputs_[k++];
  s.constraint_matrix.resize(m, p);
  s.constraint_rhs.resize(m);
  Eigen::VectorXd velocity_offset(m);
  for (Eigen::Index i = 0; i < m; ++i)
    for (Eigen::Index j = 0; j < p; ++j) s.constraint_matrix(i, j) = outputs_[k++];
  for (Eigen::Index i = 0; i < m; ++i) s.constraint_rhs[i] = outputs_[k++];
  for (Eigen::Index i = 0; i < m; ++i) velocity_offset[i] = outputs_[k++];
  if (!s.mass_matrix.allFinite() || !s.forcing.allFinite() || !s.kinematics.allFinite() ||
      !gamma.allFinite())
    throw model::ComputationError("the equations in the speeds are not finite at this state");
  s.qd = s.kinematics * u;
  s.velocity_residual = s.constraint_matrix * u + velocity_offset;
  if (m == 0) {
    s.udot =
        factor_mass_matrix(s.mass_matrix, "singular mass matrix of the equations in the speeds")
            .solve(s.forcing);
  } else {
    solve_constrained_accelerations(s.mass_matrix, s.forcing, s.constraint_matrix, s.constraint_rhs,
                                    s.udot, s.lambda, tolerances);
  }
  s.qdd = s.kinematics * s.udot + gamma;
  return s;
}

Eigen::VectorXd CompiledSpeedForm::velocities(double t, const Eigen::VectorXd& q,
                                              const Eigen::VectorXd& u) const {
  tape_.evaluate(t, q, u, outputs_);
  const auto n = static_cast<Eigen::Index>(n_), p = static_cast<Eigen::Index>(p_);
  // W follows M̃ and f̃ in the outputs.
  const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>
      kinematics(outputs_.data() + p * p + p, n, p);
  if (!kinematics.allFinite())
    throw model::ComputationError("the kinematics of the speeds are not finite at this state");
  return kinematics * u;
}

void CompiledSpeedForm::velocity_constraints(double t, const Eigen::VectorXd& q,
                                             const Eigen::VectorXd& u, Eigen::MatrixXd& A,
                                             Eigen::VectorXd& residual) const {
  const auto n = static_cast<Eigen::Index>(n_), p = static_cast<Eigen::Index>(p_),
             m = static_cast<Eigen::Index>(m_);
  A.resize(m, p);
  residual.resize(m);
  if (m == 0) return;
  tape_.evaluate(t, q, u, outputs_);
  // Ã, b̃ and ã0 follow M̃, f̃, W and γ in the outputs.
  std::size_t k = static_cast<std::size_t>(p * p + p + n * p + n);
  for (Eigen::Index i = 0; i < m; ++i)
    for (Eigen::Index j = 0; j < p; ++j) A(i, j) = outputs_[k++];
  k += static_cast<std::size_t>(m);
  for (Eigen::Index i = 0; i < m; ++i) residual[i] = outputs_[k++];
  if (!A.allFinite() || !residual.allFinite())
    throw model::ComputationError("the constraints in the speeds are not finite at this state");
  residual += A * u;
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

}  // namespace appell::num
