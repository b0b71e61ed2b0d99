#include "dynamics_program.hpp"

#include <cmath>
#include <tuple>
#include <type_traits>
#include <variant>

#include "appell/kinematics/kinematics.hpp"
#include "appell/kinematics/vector_algebra.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/differentiator.hpp"

namespace appell::codegen::detail {

namespace {

using GiNaC::ex;
using GiNaC::matrix;
using Index3 = std::array<std::size_t, 3>;
using Index9 = std::array<std::size_t, 9>;

// GiNaC expressions gathered for one tape, each remembered by its position.
class Expressions {
 public:
  std::size_t add(const ex& e) {
    list.push_back(e);
    return list.size() - 1;
  }
  Index3 add(const matrix& v) { return {add(v(0, 0)), add(v(1, 0)), add(v(2, 0))}; }
  Index3 add(const model::Vector3& v) { return {add(v[0]), add(v[1]), add(v[2])}; }
  Index9 add9(const matrix& m) {
    Index9 r;
    for (unsigned i = 0; i < 9; ++i) r[i] = add(m(i / 3, i % 3));
    return r;
  }
  GiNaC::exvector list;
};

// One frame's placement in its parent and its local motion, as expressions.
struct LocalFrame {
  int parent = -1;
  Index9 rotation;                                        // R_PF
  Index3 translation, translation_dot, translation_ddot;  // t_PF and its time derivatives, P
  Index3 omega, omega_dot;  // ω of F relative to P and its time derivative, F components
  std::vector<std::size_t> coordinates;     // the coordinates R_PF or t_PF depend on
  std::vector<Index3> omega_partial;        // ∂ω/∂q̇_j, F components
  std::vector<Index3> translation_partial;  // ∂t/∂q_j, P components
};

struct LocalMass {
  int frame = -1;
  std::size_t mass = 0;
  Index3 com;
  std::optional<Index9> inertia;  // bodies; particles have none
};

// The loads, as expressions (the kinds the recursion applies; generalized loads and potentials
// go to τ directly).
struct LocalLoad {
  enum class Kind { Force, Torque, Spring, Damper } kind = Kind::Force;
  Index3 vector;         // force or torque
  int frame = -1;        // Force: the point's frame; Torque: the frame turned
  int in = -1;           // frame of the vector's components
  Index3 point, other;   // Force: the point; Spring/Damper: from, to
  int other_frame = -1;  // Spring/Damper: `to`'s frame (`frame` is `from`'s)
  std::size_t coefficient = 0, rest_length = 0;
  bool has_rest_length = false;
};

// ---- the nodes of one reading of the expressions -------------------------------------------

struct FrameNodes {
  int parent = -1;
  Mat3 rotation;
  Vec3 translation, translation_dot, translation_ddot, omega, omega_dot;
  std::vector<std::size_t> coordinates;
  std::vector<Vec3> omega_partial, translation_partial;
};

Vec3 vec(const std::vector<Node>& nodes, const Index3& i) {
  return {nodes[i[0]], nodes[i[1]], nodes[i[2]]};
}
Mat3 mat(const std::vector<Node>& nodes, const Index9& i) {
  Mat3 m;
  for (int k = 0; k < 9; ++k) m[k] = nodes[i[k]];
  return m;
}

std::vector<FrameNodes> frame_nodes(const std::vector<LocalFrame>& frames,
                                    const std::vector<Node>& nodes) {
  std::vector<FrameNodes> out;
  for (const auto& f : frames) {
    FrameNodes n;
    n.parent = f.parent;
    n.rotation = mat(nodes, f.rotation);
    n.translation = vec(nodes, f.translation);
    n.translation_dot = vec(nodes, f.translation_dot);
    n.translation_ddot = vec(nodes, f.translation_ddot);
    n.omega = vec(nodes, f.omega);
    n.omega_dot = vec(nodes, f.omega_dot);
    n.coordinates = f.coordinates;
    for (const auto& w : f.omega_partial) n.omega_partial.push_back(vec(nodes, w));
    for (const auto& t : f.translation_partial) n.translation_partial.push_back(vec(nodes, t));
    out.push_back(std::move(n));
  }
  return out;
}

// ω, ε, velocity and acceleration of a frame's origin, all in the frame's components.
struct Motion {
  Vec3 omega, epsilon, velocity, acceleration;
};
// Force and moment about the frame's origin, frame components.
struct Wrench {
  Vec3 force, moment;
};

enum class Pass {
  Full,    // q̈ as given: inverse dynamics
  Bias,    // q̈ = 0: the nonlinear effects
  Static,  // no motion at all, gravity alone: generalized gravity
};

class Builder {
 public:
  Builder(const model::Model& m, const Plan& plan, DynamicsProgram& out)
      : model_(m), plan_(plan), out_(out), p_(out.program) {}

  /// Fills `out` (inverse dynamics, bias, gravity, M) and gives the articulated-body forward
  /// dynamics, q̈ and the pivots D (both empty when the model's joints do not suit it).
  std::pair<std::vector<Node>, std::vector<Node>> build() {
    collect();
    std::vector<GiNaC::symbol> symbols;
    for (const auto& v : plan_.variables) symbols.push_back(v.symbol);
    const std::size_t n = model_.dof();
    for (std::size_t j = 0; j < n; ++j) symbols.push_back(model_.coordinate_symbol(j, 2));
    if (!plan_.bound.driven.empty())
      for (auto& e : expressions_.list) e = sym::substitute(e, plan_.bound.driven);
    const sym::Tape tape(expressions_.list, symbols);

    std::vector<Node> variables, still;
    for (std::size_t i = 0; i < symbols.size(); ++i)
      variables.push_back(p_.variable(static_cast<std::uint32_t>(i)));
    still = variables;
    for (std::size_t j = 0; j < n; ++j) still[out_.first_qdd + j] = p_.constant(0.0);
    full_ = p_.import(tape, variables);
    no_qdd_ = p_.import(tape, still);

    out_.inverse = newton_euler(Pass::Full);
    out_.bias = newton_euler(Pass::Bias);
    out_.gravity = newton_euler(Pass::Static);
    out_.mass = composite_inertia();
    return articulated_body();
  }

 private:
  // ---- expressions --------------------------------------------------------------------------

  int frame_index(const std::string& name) const { return *model_.frame_index(name); }

  void collect() {
    sym::Differentiator d(model_.time_functions);
    const std::size_t n = model_.dof();
    for (const auto& f : model_.frames) {
      LocalFrame local;
      local.parent = frame_index(f.parent);
      // ω of F relative to P, F components: Σ_i (F_{i+1}···F_k)ᵀ w_i with w_i the own angular
      // velocity of factor i (u ȧ about an axis, vee(Fᵀ Ḟ) for a matrix).
      matrix omega(3, 1);
      matrix tail = GiNaC::ex_to<matrix>(GiNaC::unit_matrix(3));
      for (auto it = f.rotation.rbegin(); it != f.rotation.rend(); ++it) {
        matrix own(3, 1);
        if (it->kind == model::RotationFactor::Kind::Axis) {
          own = kin::column(it->axis).mul_scalar(d.time_derivative(it->angle));
        } else {
          const matrix w = it->matrix.transpose().mul(d.time_derivative(it->matrix));
          own = matrix(3, 1, GiNaC::lst{w(2, 1), w(0, 2), w(1, 0)});
        }
        omega = omega.add(tail.transpose().mul(own));
        tail = kin::rotation_matrix(*it).mul(tail);
      }
      const matrix t = kin::column(f.translation);
      const matrix t_dot = d.time_derivative(t);
      local.rotation = expressions_.add9(tail);
      local.translation = expressions_.add(t);
      local.translation_dot = expressions_.add(t_dot);
      local.translation_ddot = expressions_.add(d.time_derivative(t_dot));
      local.omega = expressions_.add(omega);
      local.omega_dot = expressions_.add(d.time_derivative(omega));
      for (std::size_t j = 0; j < n; ++j) {
        const GiNaC::symbol q = model_.coordinate_symbol(j, 0);
        bool depends = false;
        for (unsigned k = 0; k < 9 && !depends; ++k) depends = tail(k / 3, k % 3).has(q);
        for (unsigned k = 0; k < 3 && !depends; ++k) depends = t(k, 0).has(q);
        if (!depends) continue;
        local.coordinates.push_back(j);
        local.omega_partial.push_back(
            expressions_.add(d.partial(omega, model_.coordinate_symbol(j, 1))));
        local.translation_partial.push_back(expressions_.add(d.partial(t, q)));
      }
      frames_.push_back(std::move(local));
    }
    for (const auto& b : model_.bodies) {
      const int k = frame_index(b.frame);
      if (k < 0) continue;  // fixed in the world: no partial velocity
      masses_.push_back(
          {k, expressions_.add(b.mass), expressions_.add(b.com), expressions_.add9(b.inertia)});
    }
    for (const auto& p : model_.particles) {
      const int k = frame_index(p.frame);
      if (k < 0) continue;
      masses_.push_back({k, expressions_.add(p.mass), expressions_.add(p.position), std::nullopt});
    }
    if (model_.gravity) gravity_ = expressions_.add(*model_.gravity);
    generalized_.assign(n, {});
    for (const auto& load : model_.loads) {
      std::visit(
          [&](const auto& l) {
            using T = std::decay_t<decltype(l)>;
            LocalLoad local;
            if constexpr (std::is_same_v<T, model::ForceLoad>) {
              local.kind = LocalLoad::Kind::Force;
              local.vector = expressions_.add(l.force);
              local.frame = frame_index(l.at.frame);
              local.in = frame_index(l.in);
              local.point = expressions_.add(l.at.point);
              loads_.push_back(local);
            } else if constexpr (std::is_same_v<T, model::TorqueLoad>) {
              local.kind = LocalLoad::Kind::Torque;
              local.vector = expressions_.add(l.torque);
              local.frame = frame_index(l.on);
              local.in = frame_index(l.in);
              loads_.push_back(local);
            } else if constexpr (std::is_same_v<T, model::SpringLoad> ||
                                 std::is_same_v<T, model::DamperLoad>) {
              local.frame = frame_index(l.from.frame);
              local.point = expressions_.add(l.from.point);
              local.other_frame = frame_index(l.to.frame);
              local.other = expressions_.add(l.to.point);
              if constexpr (std::is_same_v<T, model::SpringLoad>) {
                local.kind = LocalLoad::Kind::Spring;
                local.coefficient = expressions_.add(l.stiffness);
                local.has_rest_length = !l.rest_length.is_zero();
                local.rest_length = expressions_.add(l.rest_length);
              } else {
                local.kind = LocalLoad::Kind::Damper;
                local.coefficient = expressions_.add(l.coefficient);
              }
              loads_.push_back(local);
            } else if constexpr (std::is_same_v<T, model::GeneralizedLoad>) {
              generalized_[l.coordinate].push_back({expressions_.add(l.value), -1.0});
            } else if constexpr (std::is_same_v<T, model::PotentialLoad>) {
              for (std::size_t j = 0; j < n; ++j)
                generalized_[j].push_back(
                    {expressions_.add(d.partial(l.potential, model_.coordinate_symbol(j))), 1.0});
            }
          },
          load.kind);
    }
  }

  // ---- Newton–Euler ---------------------------------------------------------------------------

  std::vector<Motion> motions(Pass pass, const std::vector<FrameNodes>& frames) {
    Motion world{zero3(p_), zero3(p_), zero3(p_), zero3(p_)};
    if (gravity_) {
      const Vec3 g = vec(full_, *gravity_);
      world.acceleration = {p_.neg(g[0]), p_.neg(g[1]), p_.neg(g[2])};  // gravity as a lift
    }
    std::vector<Motion> m;
    for (const auto& f : frames) {
      const Motion& parent = f.parent < 0 ? world : m[static_cast<std::size_t>(f.parent)];
      const Mat3& r = f.rotation;
      Motion here;
      if (pass == Pass::Static) {
        here = {zero3(p_), zero3(p_), zero3(p_), mul_transposed(p_, r, parent.acceleration)};
      } else {
        const Vec3 parent_omega = mul_transposed(p_, r, parent.omega);
        here.omega = add(p_, parent_omega, f.omega);
        here.epsilon = add(p_, add(p_, mul_transposed(p_, r, parent.epsilon), f.omega_dot),
                           cross(p_, parent_omega, f.omega));
        const Vec3 w_t = cross(p_, parent.omega, f.translation);
        here.velocity =
            mul_transposed(p_, r, add(p_, add(p_, parent.velocity, w_t), f.translation_dot));
        Vec3 a = add(p_, parent.acceleration, cross(p_, parent.epsilon, f.translation));
        a = add(p_, a, cross(p_, parent.omega, w_t));
        a = add(p_, a, scale(p_, p_.constant(2.0), cross(p_, parent.omega, f.translation_dot)));
        a = add(p_, a, f.translation_ddot);
        here.acceleration = mul_transposed(p_, r, a);
      }
      m.push_back(here);
    }
    return m;
  }

  // Each frame's m a − F of its bodies and particles (applied forces still to subtract): the
  // force and the moment about the origin, frame components.
  std::vector<Wrench> body_wrenches(const std::vector<Motion>& motion,
                                    const std::vector<Node>& nodes) {
    std::vector<Wrench> wrench(motion.size(), Wrench{zero3(p_), zero3(p_)});
    for (const auto& mass : masses_) {
      const Motion& m = motion[static_cast<std::size_t>(mass.frame)];
      const Node mm = nodes[mass.mass];
      const Vec3 c = vec(nodes, mass.com);
      const Vec3 a = add(p_, add(p_, m.acceleration, cross(p_, m.epsilon, c)),
                         cross(p_, m.omega, cross(p_, m.omega, c)));
      const Vec3 f = scale(p_, mm, a);
      Vec3 moment = cross(p_, c, f);
      if (mass.inertia) {
        const Mat3 inertia = mat(nodes, *mass.inertia);
        moment = add(p_, moment, mul(p_, inertia, m.epsilon));
        moment = add(p_, moment, cross(p_, m.omega, mul(p_, inertia, m.omega)));
      }
      Wrench& w = wrench[static_cast<std::size_t>(mass.frame)];
      w.force = add(p_, w.force, f);
      w.moment = add(p_, w.moment, moment);
    }
    return wrench;
  }

  std::vector<Node> newton_euler(Pass pass) {
    const std::vector<FrameNodes> frames =
        frame_nodes(frames_, pass == Pass::Full ? full_ : no_qdd_);
    const std::vector<Node>& nodes = pass == Pass::Full ? full_ : no_qdd_;
    const std::vector<Motion> motion = motions(pass, frames);
    std::vector<Wrench> wrench = body_wrenches(motion, nodes);
    const std::size_t n = model_.dof();
    std::vector<Node> tau(n, p_.constant(0.0));
    if (pass != Pass::Static) {
      apply_loads(frames, motion, nodes, wrench);
      for (std::size_t j = 0; j < n; ++j)
        for (const auto& [index, sign] : generalized_[j])
          tau[j] = sign > 0 ? p_.add(tau[j], nodes[index]) : p_.sub(tau[j], nodes[index]);
    }
    // The transpose of the velocity recursion: forces and moments back to the root.
    for (std::size_t k = frames.size(); k-- > 0;) {
      const FrameNodes& f = frames[k];
      const Vec3 force_parent = mul(p_, f.rotation, wrench[k].force);
      for (std::size_t c = 0; c < f.coordinates.size(); ++c) {
        const std::size_t j = f.coordinates[c];
        tau[j] = p_.add(tau[j], p_.add(dot(p_, f.omega_partial[c], wrench[k].moment),
                                       dot(p_, f.translation_partial[c], force_parent)));
      }
      if (f.parent < 0) continue;
      Wrench& w = wrench[static_cast<std::size_t>(f.parent)];
      w.force = add(p_, w.force, force_parent);
      w.moment = add(
          p_, w.moment,
          add(p_, mul(p_, f.rotation, wrench[k].moment), cross(p_, f.translation, force_parent)));
    }
    return tau;
  }

  // The loads on the frames' wrenches (applied forces count negative: P holds m a − F).
  void apply_loads(const std::vector<FrameNodes>& frames, const std::vector<Motion>& motion,
                   const std::vector<Node>& nodes, std::vector<Wrench>& wrench) {
    if (loads_.empty()) return;
    // World rotations and origins of every frame (only those a load reads reach the code).
    std::vector<Mat3> rotation;
    std::vector<Vec3> origin;
    for (const auto& f : frames) {
      if (f.parent < 0) {
        rotation.push_back(f.rotation);
        origin.push_back(f.translation);
      } else {
        const auto p = static_cast<std::size_t>(f.parent);
        rotation.push_back(mul(p_, rotation[p], f.rotation));
        origin.push_back(add(p_, origin[p], mul(p_, rotation[p], f.translation)));
      }
    }
    auto world_rotation = [&](int k) {
      return k < 0 ? identity3(p_) : rotation[static_cast<std::size_t>(k)];
    };
    auto position = [&](int k, const Vec3& point) {
      if (k < 0) return point;
      const auto i = static_cast<std::size_t>(k);
      return add(p_, origin[i], mul(p_, rotation[i], point));
    };
    auto velocity = [&](int k, const Vec3& point) {
      if (k < 0) return zero3(p_);
      const auto i = static_cast<std::size_t>(k);
      return mul(p_, rotation[i], add(p_, motion[i].velocity, cross(p_, motion[i].omega, point)));
    };
    // A force (world components) at a point of frame k.
    auto push = [&](int k, const Vec3& point, const Vec3& world_force) {
      if (k < 0) return;
      const auto i = static_cast<std::size_t>(k);
      const Vec3 f = mul_transposed(p_, rotation[i], world_force);
      wrench[i].force = sub(p_, wrench[i].force, f);
      wrench[i].moment = sub(p_, wrench[i].moment, cross(p_, point, f));
    };
    for (const auto& l : loads_) {
      switch (l.kind) {
        case LocalLoad::Kind::Force: {
          if (l.frame < 0) break;
          const Vec3 world = mul(p_, world_rotation(l.in), vec(nodes, l.vector));
          push(l.frame, vec(nodes, l.point), world);
          break;
        }
        case LocalLoad::Kind::Torque: {
          if (l.frame < 0) break;
          const auto i = static_cast<std::size_t>(l.frame);
          const Vec3 world = mul(p_, world_rotation(l.in), vec(nodes, l.vector));
          wrench[i].moment = sub(p_, wrench[i].moment, mul_transposed(p_, rotation[i], world));
          break;
        }
        case LocalLoad::Kind::Spring:
        case LocalLoad::Kind::Damper: {
          const Vec3 from = vec(nodes, l.point), to = vec(nodes, l.other);
          const Vec3 delta = sub(p_, position(l.other_frame, to), position(l.frame, from));
          const Node length2 = dot(p_, delta, delta);
          Node factor;
          if (l.kind == LocalLoad::Kind::Spring) {
            // F_to = −k (d − L0) Δ/d
            const Node k = nodes[l.coefficient];
            factor = l.has_rest_length
                         ? p_.neg(p_.mul(
                               k, p_.sub(p_.constant(1.0), p_.div(nodes[l.rest_length],
                                                                  p_.apply(Op::Sqrt, length2)))))
                         : p_.neg(k);
          } else {
            // F_to = −c (Δ·Δ̇) Δ / |Δ|²
            const Vec3 rate = sub(p_, velocity(l.other_frame, to), velocity(l.frame, from));
            factor = p_.neg(p_.div(p_.mul(nodes[l.coefficient], dot(p_, delta, rate)), length2));
          }
          const Vec3 f = scale(p_, factor, delta);
          push(l.other_frame, to, f);
          push(l.frame, from, {p_.neg(f[0]), p_.neg(f[1]), p_.neg(f[2])});
          break;
        }
      }
    }
  }

  // ---- articulated bodies ------------------------------------------------------------------

  using Vec6 = std::array<Node, 6>;   // (angular; linear) at the frame's origin, its components
  using Mat6 = std::array<Node, 36>;  // row-major, symmetric

  Vec6 join(const Vec3& a, const Vec3& b) { return {a[0], a[1], a[2], b[0], b[1], b[2]}; }
  Vec3 top(const Vec6& v) { return {v[0], v[1], v[2]}; }
  Vec3 bottom(const Vec6& v) { return {v[3], v[4], v[5]}; }

  // A motion of the parent's origin seen at the child's: (Rᵀ ω, Rᵀ (v + ω × t)).
  Vec6 motion_to_child(const FrameNodes& f, const Vec6& m) {
    return join(
        mul_transposed(p_, f.rotation, top(m)),
        mul_transposed(p_, f.rotation, add(p_, bottom(m), cross(p_, top(m), f.translation))));
  }
  // A force at the child's origin moved to the parent's: (R n + t × R f, R f).
  Vec6 force_to_parent(const FrameNodes& f, const Vec6& w) {
    const Vec3 force = mul(p_, f.rotation, bottom(w));
    return join(add(p_, mul(p_, f.rotation, top(w)), cross(p_, f.translation, force)), force);
  }
  Vec6 mul6(const Mat6& m, const Vec6& v) {
    Vec6 r;
    for (int i = 0; i < 6; ++i) {
      Node sum = p_.constant(0.0);
      for (int k = 0; k < 6; ++k) sum = p_.add(sum, p_.mul(m[6 * i + k], v[k]));
      r[i] = sum;
    }
    return r;
  }
  Node dot6(const Vec6& a, const Vec6& b) {
    Node sum = p_.constant(0.0);
    for (int k = 0; k < 6; ++k) sum = p_.add(sum, p_.mul(a[k], b[k]));
    return sum;
  }
  Vec6 add6(const Vec6& a, const Vec6& b) {
    Vec6 r;
    for (int k = 0; k < 6; ++k) r[k] = p_.add(a[k], b[k]);
    return r;
  }
  // Xᵀ I X: the child's articulated inertia seen from the parent (upper triangle, mirrored).
  Mat6 inertia_to_parent(const FrameNodes& f, const Mat6& inertia) {
    Mat6 out;
    for (int k = 0; k < 6; ++k) {
      Vec6 unit;
      for (int i = 0; i < 6; ++i) unit[i] = p_.constant(i == k ? 1.0 : 0.0);
      const Vec6 column = force_to_parent(f, mul6(inertia, motion_to_child(f, unit)));
      for (int i = 0; i <= k; ++i) out[6 * i + k] = out[6 * k + i] = column[i];
    }
    return out;
  }

  // Forward dynamics by the articulated-body recursion (Featherstone's ABA), for models whose
  // every coordinate moves exactly one frame and no frame more than one coordinate; the result
  // gives q̈ and the pivots D (empty otherwise).
  std::pair<std::vector<Node>, std::vector<Node>> articulated_body() {
    const std::vector<FrameNodes> frames = frame_nodes(frames_, no_qdd_);
    const std::size_t count = frames.size(), n = model_.dof();
    std::vector<int> owner(n, -1);
    for (std::size_t k = 0; k < count; ++k) {
      if (frames[k].coordinates.size() > 1) return {};
      for (std::size_t j : frames[k].coordinates) {
        if (owner[j] >= 0) return {};
        owner[j] = static_cast<int>(k);
      }
    }
    for (int o : owner)
      if (o < 0) return {};
    // Velocities and the bias accelerations c (the motion at q̈ = 0 less the parent's carried
    // over), from the Newton–Euler pass at q̈ = 0.
    const std::vector<Motion> bias = motions(Pass::Bias, frames);
    Motion world{zero3(p_), zero3(p_), zero3(p_), zero3(p_)};
    if (gravity_) {
      const Vec3 g = vec(full_, *gravity_);
      world.acceleration = {p_.neg(g[0]), p_.neg(g[1]), p_.neg(g[2])};
    }
    std::vector<Vec6> c(count);
    for (std::size_t k = 0; k < count; ++k) {
      const Motion& parent =
          frames[k].parent < 0 ? world : bias[static_cast<std::size_t>(frames[k].parent)];
      const Vec6 carried = motion_to_child(frames[k], join(parent.epsilon, parent.acceleration));
      c[k] = {
          p_.sub(bias[k].epsilon[0], carried[0]),      p_.sub(bias[k].epsilon[1], carried[1]),
          p_.sub(bias[k].epsilon[2], carried[2]),      p_.sub(bias[k].acceleration[0], carried[3]),
          p_.sub(bias[k].acceleration[1], carried[4]), p_.sub(bias[k].acceleration[2], carried[5])};
    }
    // Rigid inertias about the origins, and the bias forces: the Newton–Euler wrench of the
    // motion without accelerations, less the loads.
    std::vector<Motion> still = bias;
    for (auto& m : still) m.epsilon = m.acceleration = zero3(p_);
    std::vector<Wrench> wrench = body_wrenches(still, no_qdd_);
    apply_loads(frames, still, no_qdd_, wrench);
    std::vector<Mat6> I(count);
    std::vector<Vec6> pa(count);
    const Node z = p_.constant(0.0);
    std::vector<Node> m(count, z);
    std::vector<Vec3> h(count, zero3(p_));
    std::vector<Mat3> J(count, Mat3{z, z, z, z, z, z, z, z, z});
    rigid_inertias(m, h, J);
    for (std::size_t k = 0; k < count; ++k) {
      Mat6& r = I[k];
      r.fill(z);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r[6 * i + j] = J[k][3 * i + j];
      // n = J ω + h × v: the block [h]×; f = m v − h × ω: the block −[h]× = [h]×ᵀ.
      const Vec3& hk = h[k];
      const Node hx[9] = {z, p_.neg(hk[2]), hk[1], hk[2], z, p_.neg(hk[0]), p_.neg(hk[1]), hk[0],
                          z};
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          r[6 * i + 3 + j] = hx[3 * i + j];
          r[6 * (3 + j) + i] = hx[3 * i + j];
        }
      for (int i = 0; i < 3; ++i) r[6 * (3 + i) + 3 + i] = m[k];
      pa[k] = join(wrench[k].moment, wrench[k].force);
    }
    // The applied generalized forces: extra forces, generalized loads, potentials.
    std::vector<Node> tau(n);
    for (std::size_t j = 0; j < n; ++j) {
      tau[j] = p_.variable(static_cast<std::uint32_t>(out_.first_extra + j));
      for (const auto& [index, sign] : generalized_[j])
        tau[j] = sign > 0 ? p_.sub(tau[j], no_qdd_[index]) : p_.add(tau[j], no_qdd_[index]);
    }
    std::vector<Vec6> S(count), U(count);
    std::vector<Node> D(count, z), u(count, z);
    for (std::size_t k = count; k-- > 0;) {
      const FrameNodes& f = frames[k];
      Mat6 Ia = I[k];
      Vec6 pk = add6(pa[k], mul6(I[k], c[k]));
      if (!f.coordinates.empty()) {
        const std::size_t j = f.coordinates[0];
        S[k] = join(f.omega_partial[0], mul_transposed(p_, f.rotation, f.translation_partial[0]));
        U[k] = mul6(I[k], S[k]);
        D[k] = dot6(S[k], U[k]);
        u[k] = p_.sub(tau[j], dot6(S[k], pa[k]));
        const Node inverse = p_.div(p_.constant(1.0), D[k]);
        for (int a = 0; a < 6; ++a)
          for (int b = a; b < 6; ++b)
            Ia[6 * a + b] = Ia[6 * b + a] =
                p_.sub(I[k][6 * a + b], p_.mul(p_.mul(U[k][a], U[k][b]), inverse));
        pk = add6(pa[k], mul6(Ia, c[k]));
        const Node ratio = p_.mul(u[k], inverse);
        for (int a = 0; a < 6; ++a) pk[a] = p_.add(pk[a], p_.mul(U[k][a], ratio));
      }
      if (f.parent < 0) continue;
      const auto parent = static_cast<std::size_t>(f.parent);
      const Mat6 moved = inertia_to_parent(f, Ia);
      for (int a = 0; a < 36; ++a) I[parent][a] = p_.add(I[parent][a], moved[a]);
      pa[parent] = add6(pa[parent], force_to_parent(f, pk));
    }
    std::vector<Vec6> acceleration(count);
    std::vector<Node> qdd(n), pivots(n);
    for (std::size_t k = 0; k < count; ++k) {
      const FrameNodes& f = frames[k];
      const Vec6 parent = f.parent < 0 ? join(zero3(p_), world.acceleration)
                                       : acceleration[static_cast<std::size_t>(f.parent)];
      Vec6 a = add6(motion_to_child(f, parent), c[k]);
      if (!f.coordinates.empty()) {
        const std::size_t j = f.coordinates[0];
        qdd[j] = p_.div(p_.sub(u[k], dot6(U[k], a)), D[k]);
        pivots[j] = D[k];
        for (int e = 0; e < 6; ++e) a[e] = p_.add(a[e], p_.mul(S[k][e], qdd[j]));
      }
      acceleration[k] = a;
    }
    return {qdd, pivots};
  }
  // ---- composite rigid bodies ----------------------------------------------------------------

  // Mass, first moment and rotational inertia about each frame's origin of its own bodies and
  // particles (added to m, h, J), frame components.
  void rigid_inertias(std::vector<Node>& m, std::vector<Vec3>& h, std::vector<Mat3>& J) {
    for (const auto& mass : masses_) {
      const auto k = static_cast<std::size_t>(mass.frame);
      const Node mm = full_[mass.mass];
      const Vec3 c = vec(full_, mass.com);
      m[k] = p_.add(m[k], mm);
      h[k] = add(p_, h[k], scale(p_, mm, c));
      Mat3 about_origin = shift(mm, c);  // m (|c|² 1 − c cᵀ)
      if (mass.inertia) about_origin = add(p_, about_origin, mat(full_, *mass.inertia));
      J[k] = add(p_, J[k], about_origin);
    }
  }

  std::vector<Node> composite_inertia() {
    const std::vector<FrameNodes> frames = frame_nodes(frames_, full_);
    const std::size_t count = frames.size(), n = model_.dof();
    // Mass, first moment and rotational inertia about the frame's origin, frame components.
    std::vector<Node> m(count, p_.constant(0.0));
    std::vector<Vec3> h(count, zero3(p_));
    const Node z = p_.constant(0.0);
    std::vector<Mat3> J(count, Mat3{z, z, z, z, z, z, z, z, z});
    rigid_inertias(m, h, J);
    for (std::size_t k = count; k-- > 0;) {
      const FrameNodes& f = frames[k];
      if (f.parent < 0) continue;
      const auto p = static_cast<std::size_t>(f.parent);
      const Vec3 rh = mul(p_, f.rotation, h[k]);
      m[p] = p_.add(m[p], m[k]);
      h[p] = add(p_, h[p], add(p_, scale(p_, m[k], f.translation), rh));
      // J_O = R J Rᵀ − m[t]×[t]× − [t]×[h]× − [h]×[t]× for the body moved by t from O.
      const Vec3& t = f.translation;
      Mat3 moved = add(p_, congruence(p_, f.rotation, J[k]), shift(m[k], t));
      const Node th2 = p_.mul(p_.constant(2.0), dot(p_, t, rh));
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          Node e = p_.add(p_.mul(rh[i], t[j]), p_.mul(t[i], rh[j]));
          if (i == j)
            e = p_.sub(th2, e);
          else
            e = p_.neg(e);
          moved[3 * i + j] = p_.add(moved[3 * i + j], e);
        }
      J[p] = add(p_, J[p], moved);
    }
    std::vector<Node> M(n * n, p_.constant(0.0));
    for (std::size_t g = 0; g < count; ++g) {
      const FrameNodes& G = frames[g];
      for (std::size_t c = 0; c < G.coordinates.size(); ++c) {
        const std::size_t j = G.coordinates[c];
        // The composite's momentum-rate under the motion S_j: n = J W + h × V, f = m V − h × W.
        const Vec3& w = G.omega_partial[c];
        const Vec3 v = mul_transposed(p_, G.rotation, G.translation_partial[c]);
        Vec3 moment = add(p_, mul(p_, J[g], w), cross(p_, h[g], v));
        Vec3 force = sub(p_, scale(p_, m[g], v), cross(p_, h[g], w));
        std::size_t k = g;
        while (true) {
          const FrameNodes& F = frames[k];
          const Vec3 force_parent = mul(p_, F.rotation, force);
          for (std::size_t e = 0; e < F.coordinates.size(); ++e) {
            const std::size_t i = F.coordinates[e];
            const Node value = p_.add(dot(p_, F.omega_partial[e], moment),
                                      dot(p_, F.translation_partial[e], force_parent));
            M[i * n + j] = p_.add(M[i * n + j], value);
            if (k != g) M[j * n + i] = p_.add(M[j * n + i], value);
          }
          if (F.parent < 0) break;
          moment = add(p_, mul(p_, F.rotation, moment), cross(p_, F.translation, force_parent));
          force = force_parent;
          k = static_cast<std::size_t>(F.parent);
        }
      }
    }
    // One value for M_ij and M_ji (the same sum, possibly in two orders).
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j) M[j * n + i] = M[i * n + j];
    return M;
  }

  // m (|c|² 1 − c cᵀ): a mass m at c seen from the origin.
  Mat3 shift(Node mass, const Vec3& c) {
    const Node c2 = dot(p_, c, c);
    Mat3 r;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        Node e = p_.mul(c[i], c[j]);
        e = i == j ? p_.sub(c2, e) : p_.neg(e);
        r[3 * i + j] = p_.mul(mass, e);
      }
    return r;
  }

  const model::Model& model_;
  const Plan& plan_;
  DynamicsProgram& out_;
  ScalarProgram& p_;
  Expressions expressions_;
  std::vector<LocalFrame> frames_;
  std::vector<LocalMass> masses_;
  std::vector<LocalLoad> loads_;
  std::optional<Index3> gravity_;
  std::vector<std::vector<std::pair<std::size_t, double>>> generalized_;  // (expr, sign) per j
  std::vector<Node> full_, no_qdd_;
};

// M = Lᵀ D L, eliminating from the last coordinate to the first (leaves first when parents come
// first: no fill-in), then Lᵀ D L q̈ = b. Zeros of M fold away, so a tree costs what its branches
// induce.
void solve_ldlt(DynamicsProgram& d) {
  ScalarProgram& p = d.program;
  const std::size_t n = d.n;
  std::vector<Node> H = d.mass;
  for (std::size_t k = n; k-- > 0;) {
    const Node inverse = p.div(p.constant(1.0), H[k * n + k]);
    for (std::size_t i = k; i-- > 0;) {
      if (p.is_zero(H[k * n + i])) continue;
      const Node a = p.mul(H[k * n + i], inverse);
      for (std::size_t j = i + 1; j-- > 0;)
        H[i * n + j] = p.sub(H[i * n + j], p.mul(H[k * n + j], a));
      H[k * n + i] = a;
    }
  }
  std::vector<Node> x(n);
  for (std::size_t i = 0; i < n; ++i)
    x[i] = p.sub(p.variable(static_cast<std::uint32_t>(d.first_extra + i)), d.bias[i]);
  for (std::size_t i = n; i-- > 0;)  // Lᵀ y = b
    for (std::size_t k = i + 1; k < n; ++k) x[i] = p.sub(x[i], p.mul(H[k * n + i], x[k]));
  for (std::size_t i = 0; i < n; ++i) x[i] = p.div(x[i], H[i * n + i]);  // D z = y
  for (std::size_t i = 0; i < n; ++i)                                    // L x = z
    for (std::size_t j = 0; j < i; ++j) x[i] = p.sub(x[i], p.mul(H[i * n + j], x[j]));
  d.forward = x;
  d.pivots.clear();
  d.diagonal.clear();
  for (std::size_t i = 0; i < n; ++i) {
    d.pivots.push_back(H[i * n + i]);
    d.diagonal.push_back(d.mass[i * n + i]);
  }
}

// The program from the tape of M and f: inverse dynamics M q̈ − f.
void build_from_tape(const Plan& plan, DynamicsProgram& d) {
  ScalarProgram& p = d.program;
  const std::size_t n = d.n;
  std::vector<Node> variables, at_rest;
  for (std::size_t i = 0; i < plan.variables.size(); ++i) {
    variables.push_back(p.variable(static_cast<std::uint32_t>(i)));
    at_rest.push_back(plan.variables[i].argument == Argument::Qd ? p.constant(0.0)
                                                                 : variables.back());
  }
  const std::vector<Node> all = p.import(*plan.tape, variables);
  const std::vector<Node> rest = p.import(*plan.tape, at_rest);
  const bool symmetric = mass_matrix_is_symmetric(plan);
  d.mass.assign(n * n, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < n; ++k)
      d.mass[i * n + k] = all[symmetric && k < i ? k * n + i : i * n + k];
  d.bias.clear();
  d.gravity.clear();
  d.inverse.clear();
  for (std::size_t i = 0; i < n; ++i) {
    d.bias.push_back(p.neg(all[n * n + i]));
    d.gravity.push_back(p.neg(rest[n * n + i]));
    Node tau = d.bias[i];
    for (std::size_t k = 0; k < n; ++k)
      tau = p.add(
          tau, p.mul(d.mass[i * n + k], p.variable(static_cast<std::uint32_t>(d.first_qdd + k))));
    d.inverse.push_back(tau);
  }
}

// Whether the recursive inverse dynamics equals M q̈ − f of the equations at two states.
bool agrees_with_tape(const Plan& plan, const DynamicsProgram& d) {
  const std::size_t n = d.n;
  std::vector<double> work, outputs(plan.tape->output_count()), tau(n);
  for (int s = 0; s < 2; ++s) {
    std::vector<double> q(n), qd(n), qdd(n), extra(n, 0.0);
    for (std::size_t j = 0; j < n; ++j) {
      const double k = static_cast<double>(j) + 1.0 + s;
      q[j] = 0.3 + 0.5 * std::sin(1.9 * k);
      qd[j] = 0.7 * std::cos(1.3 * k);
      qdd[j] = 0.4 - 0.25 * std::sin(0.7 * k);
    }
    const std::vector<double> v =
        program_variables(plan, 0.37 + s, q.data(), qd.data(), qdd.data(), extra.data());
    plan.tape->evaluate(v.data(), outputs.data(), work);
    d.program.evaluate(v.data(), d.inverse, tau.data(), work);
    double scale = 0.0;
    std::vector<double> want(n);
    for (std::size_t i = 0; i < n; ++i) {
      want[i] = -outputs[n * n + i];
      for (std::size_t k = 0; k < n; ++k) want[i] += outputs[i * n + k] * qdd[k];
      scale = std::max(scale, std::fabs(want[i]));
      for (std::size_t k = 0; k < n; ++k)
        scale = std::max(scale, std::fabs(outputs[i * n + k] * qdd[k]));
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (!std::isfinite(want[i])) continue;  // a singular state of the model: no verdict
      if (!(std::fabs(tau[i] - want[i]) <= 1e-8 * std::max(scale, 1e-12))) return false;
    }
  }
  return true;
}

}  // namespace

std::size_t operation_count(const ScalarProgram& program, const std::vector<Node>& targets) {
  const auto& code = program.instructions();
  std::vector<bool> live(code.size(), false);
  for (Node t : targets) live[t] = true;
  std::size_t count = 0;
  for (std::size_t i = code.size(); i-- > 0;) {
    if (!live[i] || code[i].op == Op::Constant || code[i].op == Op::Variable) continue;
    ++count;
    live[code[i].a] = true;
    if (code[i].op == Op::Add || code[i].op == Op::Sub || code[i].op == Op::Mul ||
        code[i].op == Op::Div || code[i].op == Op::Pow || code[i].op == Op::Atan2)
      live[code[i].b] = true;
  }
  return count;
}

std::vector<double> program_variables(const Plan& plan, double t, const double* q, const double* qd,
                                      const double* qdd, const double* extra) {
  const std::size_t n = plan.n;
  std::vector<double> v;
  v.reserve(plan.variables.size() + 2 * n);
  std::size_t parameter = 0;
  for (const auto& var : plan.variables) {
    switch (var.argument) {
      case Argument::Time:
        v.push_back(t);
        break;
      case Argument::Q:
        v.push_back(q[v.size() - 1]);
        break;
      case Argument::Qd:
        v.push_back(qd[v.size() - 1 - n]);
        break;
      case Argument::Parameters:
        v.push_back(plan.parameters[parameter++].default_value);
        break;
      case Argument::Inputs:
        v.push_back(
            plan.input_candidates[static_cast<std::size_t>(var.input_field)].field.default_value);
        break;
      case Argument::Qdd:
      case Argument::Extra:
        break;
    }
  }
  for (std::size_t j = 0; j < n; ++j) v.push_back(qdd ? qdd[j] : 0.0);
  for (std::size_t j = 0; j < n; ++j) v.push_back(extra ? extra[j] : 0.0);
  return v;
}

DynamicsProgram build_dynamics(const principles::Equations& eq, const Plan& plan) {
  const model::Model& m = *eq.model;
  DynamicsProgram d;
  d.n = plan.n;
  d.first_qdd = plan.variables.size();
  d.first_extra = d.first_qdd + d.n;
  if (eq.order != 1)
    d.fallback_reason = "equations of order " + std::to_string(eq.order);
  else if (m.relative_to)
    d.fallback_reason = "relative motion in a carrier frame";
  else if (!m.flexible.empty())
    d.fallback_reason = "flexible bodies";
  else if (eq.constraint_count() > 0)
    d.fallback_reason = "constraints";
  std::vector<Node> aba_forward, aba_pivots;
  if (d.fallback_reason.empty()) {
    Builder builder(m, plan, d);
    std::tie(aba_forward, aba_pivots) = builder.build();
    d.recursive = true;
    if (!agrees_with_tape(plan, d)) {
      d = DynamicsProgram{};
      d.n = plan.n;
      d.first_qdd = plan.variables.size();
      d.first_extra = d.first_qdd + d.n;
      d.fallback_reason = "the recursions disagreed with the equations";
    }
  }
  if (!d.recursive) build_from_tape(plan, d);
  d.forcing.clear();
  for (Node b : d.bias) d.forcing.push_back(d.program.neg(b));
  solve_ldlt(d);
  d.forward_method = "M = L^T D L";
  if (d.recursive && !aba_forward.empty()) {
    // Both are exact; keep the one with fewer operations (measured: also the faster one).
    std::vector<Node> ldlt = d.forward, aba = aba_forward;
    ldlt.insert(ldlt.end(), d.pivots.begin(), d.pivots.end());
    ldlt.insert(ldlt.end(), d.diagonal.begin(), d.diagonal.end());
    aba.insert(aba.end(), aba_pivots.begin(), aba_pivots.end());
    if (operation_count(d.program, aba) < operation_count(d.program, ldlt)) {
      d.forward = aba_forward;
      d.pivots = d.diagonal = aba_pivots;
      d.forward_method = "articulated bodies";
    }
  }
  return d;
}

}  // namespace appell::codegen::detail
