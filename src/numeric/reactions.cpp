#include "appell/numeric/reactions.hpp"

#include <stdexcept>
#include <type_traits>

#include "appell/kinematics/kinematics.hpp"
#include "appell/kinematics/vector_algebra.hpp"
#include "appell/model/source_location.hpp"
#include "appell/sym/differentiator.hpp"
#include "tape_layout.hpp"

namespace appell::num {

using GiNaC::ex;
using GiNaC::matrix;

namespace {

matrix zero3() { return matrix(3, 1); }

}  // namespace

CompiledReactions::CompiledReactions(std::shared_ptr<const model::Model> model,
                                     const model::Values& values)
    : n_(model->dof()) {
  const model::Model& m = *model;
  sym::Differentiator d(m.time_functions);
  kin::Kinematics kin(model, d);
  const std::size_t count = m.frames.size();
  // Per frame, what acts on the frame itself (not yet its children): Σ (m a − m g − F_ext) and its
  // moment about the world origin, plus the bodies' rate of angular momentum and −M_ext.
  std::vector<matrix> force(count, zero3()), moment(count, zero3());
  auto frame_of = [&](const std::string& name) { return *m.frame_index(name); };
  auto add_force = [&](int frame, const matrix& f, const matrix& at) {
    if (frame < 0) return;  // fixed in the world: no frame carries it
    const auto k = static_cast<std::size_t>(frame);
    force[k] = force[k].add(f);
    moment[k] = moment[k].add(kin::cross(at, f));
  };
  auto add_moment = [&](int frame, const matrix& mm) {
    if (frame < 0) return;
    const auto k = static_cast<std::size_t>(frame);
    moment[k] = moment[k].add(mm);
  };

  const matrix g = m.gravity ? kin::column(*m.gravity) : zero3();
  for (const auto& p : m.mass_points()) {
    const int frame = frame_of(p.point.frame);
    if (frame < 0) continue;
    const matrix demanded = kin.acceleration(p.point).sub(g).mul_scalar(p.mass);
    add_force(frame, demanded, kin.position(p.point));
  }
  for (const auto& b : m.bodies) {
    const int frame = frame_of(b.frame);
    if (frame < 0) continue;
    const auto& state = kin.frame(frame);
    const matrix& w = state.omega;
    const matrix iw = b.inertia.mul(w);
    const matrix rate = b.inertia.mul(kin.epsilon(frame)).add(kin::cross(w, iw));
    add_moment(frame, state.rotation.mul(rate));
  }
  for (const auto& load : m.loads) {
    std::visit(
        [&](const auto& l) {
          using T = std::decay_t<decltype(l)>;
          if constexpr (std::is_same_v<T, model::ForceLoad>) {
            const matrix f = kin.transform(kin::column(l.force), l.in, "world");
            add_force(frame_of(l.at.frame), f.mul_scalar(-1), kin.position(l.at));
          } else if constexpr (std::is_same_v<T, model::TorqueLoad>) {
            add_moment(frame_of(l.on),
                       kin.transform(kin::column(l.torque), l.in, "world").mul_scalar(-1));
          } else if constexpr (std::is_same_v<T, model::SpringLoad> ||
                               std::is_same_v<T, model::DamperLoad>) {
            // The force on the `to` end (generalized_forces.cpp): a spring's −k (d − L0) Δ/d, a
            // damper's −c (Δ·Δ̇) Δ/|Δ|², Δ = r_to − r_from; the `from` end gets its opposite.
            const matrix to = kin.position(l.to), from = kin.position(l.from);
            const matrix delta = to.sub(from);
            const ex length2 = kin::dot(delta, delta);
            ex factor;
            if constexpr (std::is_same_v<T, model::SpringLoad>) {
              factor = l.rest_length.is_zero()
                           ? -l.stiffness
                           : -l.stiffness * (1 - l.rest_length / GiNaC::sqrt(length2));
            } else {
              const matrix rate = kin.velocity(l.to).sub(kin.velocity(l.from));
              factor = -l.coefficient * kin::dot(delta, rate) / length2;
            }
            const matrix f = delta.mul_scalar(factor);
            add_force(frame_of(l.to.frame), f.mul_scalar(-1), to);
            add_force(frame_of(l.from.frame), f, from);
          }
          // Generalized loads and potentials act through the joints: part of the reactions.
        },
        load.kind);
  }

  // Children after parents in Model::frames: from the last frame back, each subtree is complete
  // when it is added to its parent's.
  for (std::size_t k = count; k-- > 0;) {
    const int parent = frame_of(m.frames[k].parent);
    if (parent < 0) continue;
    const auto p = static_cast<std::size_t>(parent);
    force[p] = force[p].add(force[k]);
    moment[p] = moment[p].add(moment[k]);
  }
  GiNaC::exvector outputs;
  for (std::size_t k = 0; k < count; ++k) {
    frames_.push_back(m.frames[k].name);
    const matrix& origin = kin.frame(static_cast<int>(k)).origin;
    const matrix about_origin = moment[k].sub(kin::cross(origin, force[k]));
    for (unsigned i = 0; i < 3; ++i) outputs.push_back(force[k](i, 0));
    for (unsigned i = 0; i < 3; ++i) outputs.push_back(about_origin(i, 0));
  }

  Layout layout = layout_of(m, outputs, values);
  tape_ = std::make_unique<Tape>(layout.entries, layout.variables);
  for (std::size_t j = 0; j < n_; ++j) {
    const GiNaC::symbol acceleration = m.coordinate_symbol(j, 2);
    std::size_t slot = std::string::npos;
    for (std::size_t v = 0; v < layout.variables.size(); ++v)
      if (layout.variables[v].is_equal(acceleration)) slot = v;
    acceleration_slots_.push_back(slot);
  }
  variables_.assign(1 + 2 * n_, 0.0);
  variables_.insert(variables_.end(), layout.fixed.begin(), layout.fixed.end());
  outputs_.assign(outputs.size(), 0.0);
}

std::vector<Reaction> CompiledReactions::evaluate(double t, const Eigen::VectorXd& q,
                                                  const Eigen::VectorXd& qd,
                                                  const Eigen::VectorXd& qdd) const {
  const auto n = static_cast<Eigen::Index>(n_);
  if (q.size() != n || qd.size() != n || qdd.size() != n)
    throw std::invalid_argument("CompiledReactions::evaluate: expected " + std::to_string(n_) +
                                " values of q, dot(q) and ddot(q)");
  variables_[0] = t;
  for (std::size_t j = 0; j < n_; ++j) {
    const auto k = static_cast<Eigen::Index>(j);
    variables_[1 + j] = q[k];
    variables_[1 + n_ + j] = qd[k];
    if (acceleration_slots_[j] != std::string::npos) variables_[acceleration_slots_[j]] = qdd[k];
  }
  tape_->evaluate(variables_.data(), outputs_.data(), workspace_);
  std::vector<Reaction> out;
  for (std::size_t k = 0; k < frames_.size(); ++k) {
    Reaction r;
    r.frame = frames_[k];
    for (Eigen::Index i = 0; i < 3; ++i) {
      r.force[i] = outputs_[6 * k + static_cast<std::size_t>(i)];
      r.moment[i] = outputs_[6 * k + 3 + static_cast<std::size_t>(i)];
    }
    out.push_back(r);
  }
  return out;
}

std::vector<Eigen::VectorXd> generalized_constraint_forces(const StateEvaluation& state) {
  std::vector<Eigen::VectorXd> forces;
  for (Eigen::Index c = 0; c < state.lambda.size(); ++c)
    forces.push_back(state.lambda[c] * state.constraint_matrix.row(c).transpose());
  return forces;
}

}  // namespace appell::num
