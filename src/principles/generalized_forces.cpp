#include "appell/principles/generalized_forces.hpp"

#include <type_traits>

#include "appell/kinematics/vector_algebra.hpp"

namespace appell::principles {

using GiNaC::ex;
using GiNaC::matrix;
using kin::column;
using kin::dot;

namespace {

// Adds F·∂v_P/∂q̇_j to every Q_j for a force F (world components) acting at point P.
void add_point_force(kin::Kinematics& kin, const model::PointRef& at, const matrix& force,
                     matrix& q) {
  for (std::size_t j = 0; j < kin.rate_count(); ++j)
    q(j, 0) += dot(force, kin.partial_velocity(at, j));
}

}  // namespace

matrix generalized_forces(kin::Kinematics& kin, Gravity gravity) {
  const model::Model& model = kin.model();
  const std::size_t n = kin.rate_count();
  matrix q(static_cast<unsigned>(n), 1);
  // In generalized speeds (kin::Rates::Speeds) a coordinate's force Q_j does the virtual work
  // Q_j δq_j = Q_j Σ_k W_jk δu_k, so that it adds W_jk Q_j to speed k's force.
  const bool speeds = kin.rates() == kin::Rates::Speeds;
  auto add_coordinate_force = [&](std::size_t j, const ex& force) {
    if (!speeds) {
      q(static_cast<unsigned>(j), 0) += force;
      return;
    }
    for (unsigned k = 0; k < n; ++k)
      q(k, 0) += model.speed_kinematics(static_cast<unsigned>(j), k) * force;
  };

  if (model.gravity && gravity == Gravity::Included) {
    const matrix g = column(*model.gravity);
    for (const auto& p : model.mass_points())
      add_point_force(kin, p.point, g.mul_scalar(p.mass), q);
  }

  auto& d = kin.differentiator();
  for (const auto& load : model.loads) {
    std::visit(
        [&](const auto& l) {
          using T = std::decay_t<decltype(l)>;
          if constexpr (std::is_same_v<T, model::ForceLoad>) {
            add_point_force(kin, l.at, kin.in_rates(kin.transform(column(l.force), l.in, "world")),
                            q);
          } else if constexpr (std::is_same_v<T, model::TorqueLoad>) {
            const matrix m = kin.in_rates(kin.transform(column(l.torque), l.in, l.on));
            const int index = *model.frame_index(l.on);
            for (std::size_t j = 0; j < n; ++j)
              q(j, 0) += dot(m, kin.partial_angular_velocity(index, j));
          } else if constexpr (std::is_same_v<T, model::SpringLoad>) {
            // F_to = −k (d − L0) Δ/d with Δ = r_to − r_from, d = |Δ|; F_from = −F_to.
            const matrix delta = kin.position(l.to).sub(kin.position(l.from));
            const ex length2 = dot(delta, delta);
            const ex factor = l.rest_length.is_zero()
                                  ? -l.stiffness
                                  : -l.stiffness * (1 - l.rest_length / GiNaC::sqrt(length2));
            const matrix f = delta.mul_scalar(factor);
            add_point_force(kin, l.to, f, q);
            add_point_force(kin, l.from, f.mul_scalar(-1), q);
          } else if constexpr (std::is_same_v<T, model::DamperLoad>) {
            // F_to = −c ḋ Δ/d = −c (Δ·Δ̇) Δ / |Δ|²
            const matrix delta = kin.position(l.to).sub(kin.position(l.from));
            const matrix rate = kin.velocity(l.to).sub(kin.velocity(l.from));
            const matrix f = delta.mul_scalar(-kin.in_rates(l.coefficient) * dot(delta, rate) /
                                              dot(delta, delta));
            add_point_force(kin, l.to, f, q);
            add_point_force(kin, l.from, f.mul_scalar(-1), q);
          } else if constexpr (std::is_same_v<T, model::GeneralizedLoad>) {
            add_coordinate_force(l.coordinate, kin.in_rates(l.value));
          } else if constexpr (std::is_same_v<T, model::PotentialLoad>) {
            for (std::size_t j = 0; j < model.dof(); ++j)
              add_coordinate_force(j, -d.partial(l.potential, model.coordinate_symbol(j)));
          }
        },
        load.kind);
  }
  return q;
}

}  // namespace appell::principles
