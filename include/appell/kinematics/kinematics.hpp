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

/// The motion of one frame, as expressions of the model's symbols.
struct FrameState {
  GiNaC::matrix rotation{3, 3};  // world components of the frame's axes (R_world_frame)
  GiNaC::matrix origin{3, 1};    // world components
  GiNaC::matrix omega{3, 1};     // angular velocity, frame components
};

/// What the velocities are expressed in: the coordinates' rates q̇ (every principle's
/// kinematics), or the model's generalized speeds u (Model::speeds, principles/speed_form.hpp):
/// then every d/dt is followed by q̇ = W(q, t) u, so that velocities are expressions of q, u, t
/// and accelerations of q, u, u̇, t, and a quaternion frame's own angular velocity is its speeds.
enum class Rates { Coordinates, Speeds };

/// The kinematics of one model, formed with one Differentiator (whose counts then include them).
/// Frame rotations, origins and angular velocities are formed in the constructor; velocities,
/// accelerations and angular accelerations on first request and cached (returned references
/// stay valid as long as the Kinematics). 3-vectors are 3×1 GiNaC matrices.
class Kinematics {
 public:
  /// `differentiator` must outlive the Kinematics and work on model->time_functions. Throws
  /// model::ModelError when a frame comes before its parent in Model::frames (the builder never
  /// makes such a model).
  Kinematics(std::shared_ptr<const model::Model> model, sym::Differentiator& differentiator,
             Rates rates = Rates::Coordinates);

  const model::Model& model() const { return *model_; }
  sym::Differentiator& differentiator() { return differentiator_; }

  /// Frame by index into Model::frames, or -1 for world (std::out_of_range beyond the frames).
  const FrameState& frame(int index) const;
  /// Frame by name ("world" included); std::logic_error for an unknown name.
  const FrameState& frame(const std::string& name) const;
  /// Angular acceleration ε = dω/dt of a frame (index as for frame()), frame components.
  const GiNaC::matrix& epsilon(int index);

  /// The world position r = r_F + R_0F p of a point p fixed in frame F (world components).
  GiNaC::matrix position(const model::PointRef& point) const;
  /// Its velocity dr/dt and acceleration d²r/dt² (world components), by total time derivative.
  /// std::logic_error for a point in an unknown frame.
  const GiNaC::matrix& velocity(const model::PointRef& point);
  const GiNaC::matrix& acceleration(const model::PointRef& point);

  /// ∂v/∂q̇_j of a point (= ∂r/∂q_j, world components) for coordinate j < n; with
  /// Rates::Speeds, ∂v/∂u_j for speed j < rate_count().
  GiNaC::matrix partial_velocity(const model::PointRef& point, std::size_t j);
  /// ∂ω/∂q̇_j of a frame (frame components) for coordinate j < n; ∂ω/∂u_j with Rates::Speeds.
  GiNaC::matrix partial_angular_velocity(int frame_index, std::size_t j);

  /// What the velocities are expressed in.
  Rates rates() const { return rates_; }
  /// n, or the number of speeds with Rates::Speeds.
  std::size_t rate_count() const;
  /// dot(q_j), or the speed u_j with Rates::Speeds.
  GiNaC::symbol rate_symbol(std::size_t j) const;
  /// `e` with q̇ = W u substituted (Rates::Speeds); `e` itself otherwise.
  GiNaC::ex in_rates(const GiNaC::ex& e) const;
  GiNaC::matrix in_rates(const GiNaC::matrix& m) const;

  /// Components of a 3×1 vector given in frame `from` expressed in frame `to` (R_0toᵀ R_0from v).
  GiNaC::matrix transform(const GiNaC::matrix& v, const std::string& from,
                          const std::string& to) const;

 private:
  struct PointCache {
    GiNaC::matrix velocity, acceleration;
    bool has_velocity = false, has_acceleration = false;
  };
  PointCache& cache(const model::PointRef& point);

  GiNaC::ex rate(const GiNaC::ex& e);
  GiNaC::matrix rate(const GiNaC::matrix& m);

  std::shared_ptr<const model::Model> model_;
  sym::Differentiator& differentiator_;
  Rates rates_;
  GiNaC::exmap speeds_;  // dot(q_j) -> (W u)_j with Rates::Speeds
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

/// Rotation matrix of one factor: R = cos a·1 + sin a·[u]× + (1 − cos a) u uᵀ for a unit axis u
/// and angle a (Rodrigues' formula), or the factor's matrix.
GiNaC::matrix rotation_matrix(const model::RotationFactor& factor);
/// R_parent_child of a whole rotation (product of factors; identity when empty).
GiNaC::matrix rotation_matrix(const std::vector<model::RotationFactor>& factors);

}  // namespace appell::kin
