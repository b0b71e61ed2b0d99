#include "appell/kinematics/kinematics.hpp"

#include "appell/kinematics/vector_algebra.hpp"
#include "appell/model/source_location.hpp"
#include "appell/sym/dag.hpp"

namespace appell::kin {

using GiNaC::ex;
using GiNaC::matrix;

namespace {

matrix identity3() { return GiNaC::ex_to<matrix>(GiNaC::unit_matrix(3)); }

bool is_constant_matrix(const matrix& m) {
  for (unsigned i = 0; i < m.rows(); ++i)
    for (unsigned j = 0; j < m.cols(); ++j)
      if (!GiNaC::is_a<GiNaC::numeric>(m(i, j))) return false;
  return true;
}

}  // namespace

matrix rotation_matrix(const model::RotationFactor& factor) {
  if (factor.kind == model::RotationFactor::Kind::Matrix) return factor.matrix;
  const matrix u = column(factor.axis);
  const ex c = GiNaC::cos(factor.angle), s = GiNaC::sin(factor.angle);
  // R = cos a·I + sin a·[u]× + (1 − cos a)·u uᵀ
  return identity3()
      .mul_scalar(c)
      .add(skew(u).mul_scalar(s))
      .add(u.mul(u.transpose()).mul_scalar(1 - c));
}

matrix rotation_matrix(const std::vector<model::RotationFactor>& factors) {
  matrix r = identity3();
  for (const auto& f : factors) r = r.mul(rotation_matrix(f));
  return r;
}

Kinematics::Kinematics(std::shared_ptr<const model::Model> model,
                       sym::Differentiator& differentiator, Rates rates)
    : model_(std::move(model)), differentiator_(differentiator), rates_(rates) {
  if (rates_ == Rates::Speeds) {
    const model::Model& m = *model_;
    const auto n = static_cast<unsigned>(m.dof()), p = static_cast<unsigned>(m.speeds.size());
    for (unsigned j = 0; j < n; ++j) {
      const GiNaC::symbol qd = m.coordinate_symbol(j, 1);
      ex rate = 0;
      for (unsigned k = 0; k < p; ++k) rate += m.speed_kinematics(j, k) * m.speed_symbol(k);
      if (!rate.is_equal(qd)) speeds_[qd] = rate;  // a coordinate's own rate stays dot(q)
    }
  }
  world_.rotation = identity3();
  world_.origin = matrix(3, 1);
  world_.omega = matrix(3, 1);
  frames_.reserve(model_->frames.size());
  for (const auto& f : model_->frames) {
    const auto parent_index = model_->frame_index(f.parent);
    if (!parent_index || *parent_index >= static_cast<int>(frames_.size()))
      throw model::ModelError(f.where, "parent frame must be defined before its child", f.parent);
    const FrameState& parent = frame(*parent_index);

    // Relative angular velocity, child components: ω_PF = Σ_i (F_{i+1}···F_k)ᵀ w_i, where w_i is
    // the own angular velocity of factor i (u·ȧ for an axis, vee(Fᵀ Ḟ) for a matrix).
    matrix omega_rel(3, 1);
    matrix tail = identity3();  // F_{i+1}···F_k, built from the last factor backwards
    for (auto it = f.rotation.rbegin(); it != f.rotation.rend(); ++it) {
      matrix own(3, 1);
      if (it->kind == model::RotationFactor::Kind::Axis) {
        own = column(it->axis).mul_scalar(rate(it->angle));
      } else if (it == f.rotation.rbegin() && rates_ == Rates::Speeds &&
                 model_->quaternion_of(f.name)) {
        // The quaternion's angular velocity in the frame's axes is the frame's speeds.
        for (std::size_t k = 0; k < model_->speeds.size(); ++k)
          if (model_->speeds[k].kind == model::Speed::Kind::Frame &&
              model_->speeds[k].frame == f.name)
            own(static_cast<unsigned>(model_->speeds[k].axis), 0) = model_->speed_symbol(k);
      } else if (!is_constant_matrix(it->matrix)) {
        const matrix w = it->matrix.transpose().mul(rate(it->matrix));
        own = matrix(3, 1, GiNaC::lst{w(2, 1), w(0, 2), w(1, 0)});
      }
      omega_rel = omega_rel.add(tail.transpose().mul(own));
      tail = rotation_matrix(*it).mul(tail);
    }
    const matrix local = tail;  // the whole R_PF

    FrameState state;
    state.rotation = parent.rotation.mul(local);
    state.origin = parent.origin.add(parent.rotation.mul(column(f.translation)));
    state.omega = local.transpose().mul(parent.omega).add(omega_rel);
    frames_.push_back(std::move(state));
  }
}

const FrameState& Kinematics::frame(int index) const {
  if (index < 0) return world_;
  return frames_.at(static_cast<std::size_t>(index));
}

const FrameState& Kinematics::frame(const std::string& name) const {
  auto index = model_->frame_index(name);
  if (!index) throw std::logic_error("unknown frame " + name);
  return frame(*index);
}

const matrix& Kinematics::epsilon(int index) {
  auto it = epsilon_.find(index);
  if (it != epsilon_.end()) return it->second;
  return epsilon_[index] = rate(frame(index).omega);
}

matrix Kinematics::position(const model::PointRef& point) const {
  const FrameState& f = frame(point.frame);
  return f.origin.add(f.rotation.mul(column(point.point)));
}

Kinematics::PointCache& Kinematics::cache(const model::PointRef& point) {
  auto index = model_->frame_index(point.frame);
  if (!index) throw std::logic_error("unknown frame " + point.frame);
  return points_[{*index, GiNaC::lst{point.point[0], point.point[1], point.point[2]}}];
}

const matrix& Kinematics::velocity(const model::PointRef& point) {
  PointCache& c = cache(point);
  if (!c.has_velocity) {
    c.velocity = rate(position(point));
    c.has_velocity = true;
  }
  return c.velocity;
}

const matrix& Kinematics::acceleration(const model::PointRef& point) {
  PointCache& c = cache(point);
  if (!c.has_acceleration) {
    c.acceleration = rate(velocity(point));
    c.has_acceleration = true;
  }
  return c.acceleration;
}

matrix Kinematics::partial_velocity(const model::PointRef& point, std::size_t j) {
  return differentiator_.partial(velocity(point), rate_symbol(j));
}

matrix Kinematics::partial_angular_velocity(int frame_index, std::size_t j) {
  return differentiator_.partial(frame(frame_index).omega, rate_symbol(j));
}

std::size_t Kinematics::rate_count() const {
  return rates_ == Rates::Speeds ? model_->speeds.size() : model_->dof();
}

GiNaC::symbol Kinematics::rate_symbol(std::size_t j) const {
  if (rates_ == Rates::Speeds) return model_->speed_symbol(j);
  return model_->coordinate_symbol(j, 1);
}

ex Kinematics::in_rates(const ex& e) const {
  return speeds_.empty() ? e : sym::substitute(e, speeds_);
}

matrix Kinematics::in_rates(const matrix& m) const {
  return speeds_.empty() ? m : sym::substitute(m, speeds_);
}

// d/dt, then q̇ = W u with Rates::Speeds: an expression of q and u (and t) stays one, its rate
// bringing in u̇ only.
ex Kinematics::rate(const ex& e) { return in_rates(differentiator_.time_derivative(e)); }

matrix Kinematics::rate(const matrix& m) { return in_rates(differentiator_.time_derivative(m)); }

matrix Kinematics::transform(const matrix& v, const std::string& from,
                             const std::string& to) const {
  if (from == to) return v;
  const matrix world = frame(from).rotation.mul(v);
  return frame(to).rotation.transpose().mul(world);
}

}  // namespace appell::kin
