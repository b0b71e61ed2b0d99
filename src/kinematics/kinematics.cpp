#include "appell/kinematics/kinematics.hpp"

#include "appell/kinematics/vector_algebra.hpp"
#include "appell/model/source_location.hpp"

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
                       sym::Differentiator& differentiator)
    : model_(std::move(model)), differentiator_(differentiator) {
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
        own = column(it->axis).mul_scalar(differentiator_.time_derivative(it->angle));
      } else if (!is_constant_matrix(it->matrix)) {
        const matrix w = it->matrix.transpose().mul(differentiator_.time_derivative(it->matrix));
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
  return epsilon_[index] = differentiator_.time_derivative(frame(index).omega);
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
    c.velocity = differentiator_.time_derivative(position(point));
    c.has_velocity = true;
  }
  return c.velocity;
}

const matrix& Kinematics::acceleration(const model::PointRef& point) {
  PointCache& c = cache(point);
  if (!c.has_acceleration) {
    c.acceleration = differentiator_.time_derivative(velocity(point));
    c.has_acceleration = true;
  }
  return c.acceleration;
}

matrix Kinematics::partial_velocity(const model::PointRef& point, std::size_t j) {
  return differentiator_.partial(velocity(point), model_->coordinate_symbol(j, 1));
}

matrix Kinematics::partial_angular_velocity(int frame_index, std::size_t j) {
  return differentiator_.partial(frame(frame_index).omega, model_->coordinate_symbol(j, 1));
}

matrix Kinematics::transform(const matrix& v, const std::string& from,
                             const std::string& to) const {
  if (from == to) return v;
  const matrix world = frame(from).rotation.mul(v);
  return frame(to).rotation.transpose().mul(world);
}

}  // namespace appell::kin
