// Positions, velocities, accelerations, angular velocities and accelerations of every frame,
// body and point of a model, computed once and shared by every principle.
//
// Frames are composed parent-first like the O(n) recursive algorithms:
//   R_0F = R_0P · R_PF,   r_F = r_P + R_0P · t_PF,
//   ω_F = R_PFᵀ ω_P + ω_PF        (frame components; ω_PF from the rotation factors),
//   ε_F = d/dt ω_F                (frame components: Rᵀ d/dt(R ω) = ω̇ + ω × ω = ω̇).
// Linear velocities and accelerations are total time derivatives (sym::Differentiator) of the
// positions, memoised on the shared nodes, and made on demand: Lagrange never asks for an
// acceleration, so its cost record holds only what it used.
#pragma once

#include <ginac/ginac.h>

#include <map>
#include <memory>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/sym/differentiator.hpp"

namespace appell::kin {

struct FrameState {
  GiNaC::matrix rotation{3, 3};  // world components of the frame's axes (R_world_frame)
  GiNaC::matrix origin{3, 1};    // world components
  GiNaC::matrix omega{3, 1};     // angular velocity, frame components
};

class Kinematics {
 public:
  Kinematics(std::shared_ptr<const model::Model> model, sym::Differentiator& differentiator);

  const model::Model& model() const { return *model_; }
  sym::Differentiator& differentiator() { return differentiator_; }

  /// Frame by index into Model::frames, or -1 for world.
  const FrameState& frame(int index) const;
  const FrameState& frame(const std::string& name) const;
  /// Angular acceleration of a frame, frame components.
  const GiNaC::matrix& epsilon(int index);

  /// A point fixed in a frame: world position, velocity and acceleration.
  GiNaC::matrix position(const model::PointRef& point) const;
  const GiNaC::matrix& velocity(const model::PointRef& point);
  const GiNaC::matrix& acceleration(const model::PointRef& point);

  /// ∂v/∂q̇_j of a point (= ∂r/∂q_j) and ∂ω/∂q̇_j of a frame (frame components).
  GiNaC::matrix partial_velocity(const model::PointRef& point, std::size_t j);
  GiNaC::matrix partial_angular_velocity(int frame_index, std::size_t j);

  /// Components of a vector given in frame `from` expressed in frame `to`.
  GiNaC::matrix transform(const GiNaC::matrix& v, const std::string& from,
                          const std::string& to) const;

 private:
  struct PointCache {
    GiNaC::matrix velocity, acceleration;
    bool has_velocity = false, has_acceleration = false;
  };
  PointCache& cache(const model::PointRef& point);

  std::shared_ptr<const model::Model> model_;
  sym::Differentiator& differentiator_;
  FrameState world_;
  std::vector<FrameState> frames_;
  std::map<int, GiNaC::matrix> epsilon_;
  struct PointKeyLess {
    bool operator()(const std::pair<int, GiNaC::ex>& a, const std::pair<int, GiNaC::ex>& b) const {
      if (a.first != b.first) return a.first < b.first;
      return GiNaC::ex_is_less()(a.second, b.second);
    }
  };
  std::map<std::pair<int, GiNaC::ex>, PointCache, PointKeyLess> points_;
};

/// Rotation matrix of one factor (Rodrigues' formula for an axis).
GiNaC::matrix rotation_matrix(const model::RotationFactor& factor);
/// R_parent_child of a whole rotation (product of factors; identity when empty).
GiNaC::matrix rotation_matrix(const std::vector<model::RotationFactor>& factors);

}  // namespace appell::kin
