#include "appell/principles/recursive_dynamics.hpp"

#include <array>
#include <cmath>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <variant>

#include "appell/kinematics/kinematics.hpp"
#include "appell/kinematics/vector_algebra.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/differentiator.hpp"

namespace appell::principles {

using sym::Mat3;
using sym::Node;
using sym::Op;
using sym::Vec3;

namespace {

using GiNaC::ex;
using GiNaC::matrix;
using Index3 = std::array<std::size_t, 3>;
using Index9 = std::array<std::size_t, 9>;

// GiNaC expressions gathered for one tape, each remembered by its position.
class Expressions {
 public:
  std::size_t add(const ex& e) {
    list.push_back(in_rates.empty() ? e : sym::substitute(e, in_rates));
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
  // In generalized speeds, q̇ = W u put into every expression (empty: in the coordinates).
  GiNaC::exmap in_rates;
};

// One frame's placement in its parent and its local motion, as expressions.
struct LocalFrame {
  int parent = -1;
  Index9 rotation;                                        // R_PF
  Index3 translation, translation_dot, translation_ddot;  // t_PF and its time derivatives, P
  Index3 omega, omega_dot;  // ω of F relative to P and its time derivative, F components
  // The rates the frame's motion depends on: the coordinates R_PF or t_PF depend on, or in
  // generalized speeds the speeds ω and ṫ depend on.
  std::vector<std::size_t> coordinates;
  std::vector<Index3> omega_partial;        // ∂ω/∂q̇_j (∂ω/∂u_k), F components
  std::vector<Index3> translation_partial;  // ∂t/∂q_j = ∂ṫ/∂q̇_j (∂ṫ/∂u_k), P components
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
  Full,      // q̈ as given: inverse dynamics
  Bias,      // q̈ = 0: the nonlinear effects
  Static,    // no motion at all, gravity alone: generalized gravity
  Inertial,  // q̈ as given, no rates, no gravity, no loads: M q̈
};

}  // namespace

class RecursionBuilder::Impl {
 public:
  explicit Impl(const model::Model& m) : model_(m) { collect(); }

  std::vector<GiNaC::symbol> symbols() const {
    sym::SymbolSet accelerations;
    for (std::size_t j = 0; j < rate_count(); ++j) accelerations.insert(acceleration_symbol(j));
    std::vector<GiNaC::symbol> out;
    for (const auto& s : sym::symbols_in(expressions_.list))
      if (!accelerations.count(s)) out.push_back(GiNaC::ex_to<GiNaC::symbol>(s));
    return out;
  }

  void build(RecursiveDynamics& out, const RecursionInputs& inputs,
             const RecursionOptions& options) {
    out_ = &out;
    out.n = rate_count();
    // About 2,500 nodes a frame for everything built below (measured on spatial chains).
    prepare(out.program, inputs, 2500);
    out.inverse = newton_euler(Pass::Full);
    out.bias = newton_euler(Pass::Bias);
    out.forcing.clear();
    for (Node b : out.bias) out.forcing.push_back(program().neg(b));
    out.gravity = newton_euler(Pass::Static);
    if (options.inertial) out.inertial = newton_euler(Pass::Inertial);
    if (options.energies) energies(out);
    out.mass.clear();
    if (options.mass_matrix) out.mass = composite_inertia();
    out.forward.clear();
    out.pivots.clear();
    out.diagonal.clear();
    out.forward_method.clear();
    if (!options.forward) return;
    auto [aba_forward, aba_pivots] = articulated_body();
    if (options.mass_matrix) {
      solve_by_ldlt(out, inputs.extra);
      out.forward_method = "M = L^T D L";
      if (!aba_forward.empty()) {
        // Both are exact; keep the one with fewer operations (measured: also the faster one).
        std::vector<Node> ldlt = out.forward, aba = aba_forward;
        ldlt.insert(ldlt.end(), out.pivots.begin(), out.pivots.end());
        ldlt.insert(ldlt.end(), out.diagonal.begin(), out.diagonal.end());
        aba.insert(aba.end(), aba_pivots.begin(), aba_pivots.end());
        if (out.program.operation_count(aba) < out.program.operation_count(ldlt)) {
          out.forward = aba_forward;
          out.pivots = out.diagonal = aba_pivots;
          out.forward_method = "articulated bodies";
        }
      }
    } else if (!aba_forward.empty()) {
      out.forward = aba_forward;
      out.pivots = out.diagonal = aba_pivots;
      out.forward_method = "articulated bodies";
    }
  }

  // The regressor Y (n × 10 per mass, row-major, masses as standard_parameter_count() orders
  // them): τ_j = Σ_p Y_jp π_p with π a mass's m, m·c and inertia about its frame's origin. The
  // wrench of one unit parameter on frame k at q̈ as given (gravity as a lift, no loads),
  //   m:       f = a,                   n = 0
  //   m·c_i:   f = ε × e_i + ω × (ω × e_i),  n = e_i × a
  //   I_rs:    f = 0,                   n = E ε + ω × (E ω)   (E the symmetric unit of r, s),
  // is projected on the motion of every coordinate that moves frame k, that motion carried
  // down the tree to frame k once per (coordinate, frame): O(n·depth) nodes, shared by the ten
  // columns of every mass on the frame.
  std::vector<Node> regressor(sym::ScalarProgram& p, const RecursionInputs& inputs,
                              std::vector<RegressorQuantity>* quantities) {
    // Y's rows are the coordinates' (τ = Y π in q̈); in the speeds they would be the speeds'.
    if (model_.has_speeds())
      throw std::invalid_argument(
          "the recursions do not cover generalized speeds: the regressor is written in the "
          "coordinates' rates");
    prepare(p, inputs, 1500);
    const std::size_t n = rate_count();
    const std::vector<FrameNodes> frames = frame_nodes(frames_, full_);
    // The masses on each frame, by their place among the columns.
    std::vector<std::vector<std::size_t>> masses_on(frames.size());
    std::size_t masses = 0;
    for (const auto& b : model_.bodies) {
      if (const int k = frame_index(b.frame); k >= 0)  // fixed in the world: no effect
        masses_on[static_cast<std::size_t>(k)].push_back(masses);
      ++masses;
    }
    for (const auto& q : model_.particles) {
      if (const int k = frame_index(q.frame); k >= 0)
        masses_on[static_cast<std::size_t>(k)].push_back(masses);
      ++masses;
    }
    const std::size_t columns = 10 * masses;
    std::vector<Node> Y(n * columns, p.constant(0.0));
    // Frame by frame down the tree, each frame's motion, the coordinates' motions carried to it
    // and its masses' columns built together: the nodes come in the order the generated code
    // computes them, and what a frame needs is used soon after it is formed (short live ranges,
    // fewer values spilled to memory).
    const Motion world = world_motion(Pass::Full);
    std::vector<Motion> motion;
    // The coordinates that move each frame and their motion at its origin, its components.
    std::vector<std::vector<std::pair<std::size_t, Vec6>>> moved_by(frames.size());
    for (std::size_t k = 0; k < frames.size(); ++k) {
      const FrameNodes& f = frames[k];
      const bool root = f.parent < 0;
      const auto parent = static_cast<std::size_t>(root ? 0 : f.parent);
      motion.push_back(frame_motion(Pass::Full, f, root ? world : motion[parent]));
      if (!root)
        for (const auto& [j, s] : moved_by[parent])
          moved_by[k].push_back({j, motion_to_child(f, s)});
      for (std::size_t c = 0; c < f.coordinates.size(); ++c)
        moved_by[k].push_back(
            {f.coordinates[c],
             join(f.omega_partial[c], mul_transposed(p, f.rotation, f.translation_partial[c]))});
      if (quantities) record(*quantities, k, f, motion[k], moved_by[k]);
      if (masses_on[k].empty()) continue;
      const std::array<Vec6, 10> wrench = unit_wrenches(motion[k]);
      for (std::size_t b : masses_on[k])
        for (const auto& [j, s] : moved_by[k])
          for (std::size_t c = 0; c < 10; ++c) {
            Node& y = Y[j * columns + 10 * b + c];
            y = p.add(y, dot6(s, wrench[c]));
          }
    }
    return Y;
  }

 private:
  sym::ScalarProgram& program() { return *p_; }

  // Reads the local expressions into `p` (full_: with q̈ as given, no_qdd_: with q̈ = 0), with
  // room for `nodes_per_frame` more nodes a frame.
  void prepare(sym::ScalarProgram& p, const RecursionInputs& inputs, std::size_t nodes_per_frame) {
    p_ = &p;
    inputs_ = &inputs;
    const std::size_t n = rate_count();
    if (inputs.symbols.size() != inputs.nodes.size() || inputs.qdd.size() != n ||
        inputs.extra.size() != n)
      throw std::invalid_argument("recursions: inputs of the wrong size");
    std::vector<GiNaC::symbol> symbols = inputs.symbols;
    std::vector<Node> variables = inputs.nodes;
    for (std::size_t j = 0; j < n; ++j) {
      symbols.push_back(acceleration_symbol(j));
      variables.push_back(inputs.qdd[j]);
    }
    program().reserve(program().instructions().size() + nodes_per_frame * frames_.size());
    GiNaC::exvector expressions = expressions_.list;
    if (!inputs.substitution.empty())
      for (auto& e : expressions) e = sym::substitute(e, inputs.substitution);
    const sym::Tape tape(expressions, symbols);

    const std::size_t first_qdd = inputs.symbols.size();
    std::vector<Node> still = variables;
    for (std::size_t j = 0; j < n; ++j) still[first_qdd + j] = program().constant(0.0);
    full_ = program().import(tape, variables);
    no_qdd_ = program().import(tape, still);
  }

  // ---- expressions --------------------------------------------------------------------------

  int frame_index(const std::string& name) const { return *model_.frame_index(name); }

  // The rates the recursions run in: the velocities q̇ (n), or the model's generalized speeds u
  // (p, MODEL_FORMAT.md "Speeds"), whose rates u̇ take the place of q̈.
  std::size_t rate_count() const {
    return model_.has_speeds() ? model_.speeds.size() : model_.dof();
  }
  GiNaC::symbol acceleration_symbol(std::size_t k) const {
    return model_.has_speeds() ? model_.speed_symbol(k, 1) : model_.coordinate_symbol(k, 2);
  }

  void collect() {
    sym::Differentiator d(model_.time_functions);
    const std::size_t n = model_.dof();
    // In generalized speeds every d/dt is followed by q̇ = W u (as kin::Rates::Speeds forms the
    // kinematics), so that the local motion is an expression of q, u and u̇, never of q̇ or q̈.
    const bool speeds = model_.has_speeds();
    if (speeds)
      for (unsigned j = 0; j < n; ++j) {
        const GiNaC::symbol qd = model_.coordinate_symbol(j, 1);
        ex rate = 0;
        for (unsigned k = 0; k < model_.speeds.size(); ++k)
          rate += model_.speed_kinematics(j, k) * model_.speed_symbol(k);
        if (!rate.is_equal(qd)) expressions_.in_rates[qd] = rate;  // an own rate stays dot(q)
      }
    const GiNaC::exmap& in_rates = expressions_.in_rates;
    auto rate = [&](const ex& e) {
      return in_rates.empty() ? d.time_derivative(e)
                              : sym::substitute(d.time_derivative(e), in_rates);
    };
    auto rates = [&](const matrix& m) {
      return in_rates.empty() ? d.time_derivative(m)
                              : sym::substitute(d.time_derivative(m), in_rates);
    };
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
          own = kin::column(it->axis).mul_scalar(rate(it->angle));
        } else if (speeds && it == f.rotation.rbegin() && model_.quaternion_of(f.name)) {
          // A quaternion's angular velocity in the frame's axes is the frame's speeds w.
          for (std::size_t k = 0; k < model_.speeds.size(); ++k)
            if (model_.speeds[k].kind == model::Speed::Kind::Frame &&
                model_.speeds[k].frame == f.name)
              own(static_cast<unsigned>(model_.speeds[k].axis), 0) = model_.speed_symbol(k);
        } else {
          const matrix w = it->matrix.transpose().mul(rates(it->matrix));
          own = matrix(3, 1, GiNaC::lst{w(2, 1), w(0, 2), w(1, 0)});
        }
        omega = omega.add(tail.transpose().mul(own));
        tail = kin::rotation_matrix(*it).mul(tail);
      }
      const matrix t = kin::column(f.translation);
      const matrix t_dot = rates(t);
      local.rotation = expressions_.add9(tail);
      local.translation = expressions_.add(t);
      local.translation_dot = expressions_.add(t_dot);
      local.translation_ddot = expressions_.add(rates(t_dot));
      local.omega = expressions_.add(omega);
      local.omega_dot = expressions_.add(rates(omega));
      // In the speeds: the speeds ω and ṫ depend on (both linear in u), and ∂ω/∂u_k, ∂ṫ/∂u_k.
      for (std::size_t k = 0; speeds && k < model_.speeds.size(); ++k) {
        const GiNaC::symbol u = model_.speed_symbol(k);
        bool depends = false;
        for (unsigned i = 0; i < 3 && !depends; ++i)
          depends = omega(i, 0).has(u) || t_dot(i, 0).has(u);
        if (!depends) continue;
        local.coordinates.push_back(k);
        local.omega_partial.push_back(expressions_.add(d.partial(omega, u)));
        local.translation_partial.push_back(expressions_.add(d.partial(t_dot, u)));
      }
      for (std::size_t j = 0; !speeds && j < n; ++j) {
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
    generalized_.assign(rate_count(), {});
    // A coordinate's force Q_j: in the speeds its virtual work Q_j δq_j = Σ_k W_jk Q_j δu_k.
    auto add_generalized = [&](std::size_t j, const ex& force, double sign) {
      if (!speeds) {
        generalized_[j].push_back({expressions_.add(force), sign});
        return;
      }
      for (unsigned k = 0; k < model_.speeds.size(); ++k) {
        const ex w = model_.speed_kinematics(static_cast<unsigned>(j), k);
        if (!w.is_zero()) generalized_[k].push_back({expressions_.add(w * force), sign});
      }
    };
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
              add_generalized(l.coordinate, l.value, -1.0);
            } else if constexpr (std::is_same_v<T, model::PotentialLoad>) {
              for (std::size_t j = 0; j < n; ++j)
                add_generalized(j, d.partial(l.potential, model_.coordinate_symbol(j)), 1.0);
            }
          },
          load.kind);
    }
    // What only the energies read, last, so that the expressions before keep their places.
    for (const auto& b : model_.bodies)
      if (frame_index(b.frame) < 0)
        world_masses_.push_back({-1, expressions_.add(b.mass), expressions_.add(b.com), {}});
    for (const auto& p : model_.particles)
      if (frame_index(p.frame) < 0)
        world_masses_.push_back(
            {-1, expressions_.add(p.mass), expressions_.add(p.position), std::nullopt});
    for (const auto& load : model_.loads)
      if (const auto* potential = std::get_if<model::PotentialLoad>(&load.kind))
        potentials_.push_back(expressions_.add(potential->potential));
  }

  // T and V at (t, q, q̇): T = Σ ½ m |v + ω × c|² + ½ ω·Iω over the masses, V of gravity
  // (−Σ m g·r over every mass, fixed ones too), of the springs (½ k (|Δ| − L0)², ½ k |Δ|² without
  // a rest length: the potentials of their forces) and of the potential loads, as
  // principles::potential_energy forms them.
  void energies(RecursiveDynamics& out) {
    sym::ScalarProgram& p = program();
    const std::vector<FrameNodes> frames = frame_nodes(frames_, no_qdd_);
    const std::vector<Motion> motion = motions(Pass::Bias, frames);
    const Placements placed = placements(frames);
    const Node half = p.constant(0.5);
    Node kinetic = p.constant(0.0), potential = p.constant(0.0);
    std::optional<Vec3> g;
    if (gravity_) g = vec(no_qdd_, *gravity_);
    for (const auto& mass : masses_) {
      const auto k = static_cast<std::size_t>(mass.frame);
      const Node m = no_qdd_[mass.mass];
      const Vec3 c = vec(no_qdd_, mass.com);
      const Vec3 v = add(p, motion[k].velocity, cross(p, motion[k].omega, c));
      kinetic = p.add(kinetic, p.mul(half, p.mul(m, dot(p, v, v))));
      if (mass.inertia) {
        const Vec3& w = motion[k].omega;
        kinetic = p.add(kinetic, p.mul(half, dot(p, w, mul(p, mat(no_qdd_, *mass.inertia), w))));
      }
      if (g) potential = p.sub(potential, p.mul(m, dot(p, *g, placed.position(p, mass.frame, c))));
    }
    if (g)
      for (const auto& mass : world_masses_)
        potential = p.sub(potential, p.mul(no_qdd_[mass.mass], dot(p, *g, vec(no_qdd_, mass.com))));
    for (const auto& l : loads_) {
      if (l.kind != LocalLoad::Kind::Spring) continue;
      const Vec3 delta = sub(p, placed.position(p, l.other_frame, vec(no_qdd_, l.other)),
                             placed.position(p, l.frame, vec(no_qdd_, l.point)));
      Node stretch2 = dot(p, delta, delta);
      if (l.has_rest_length) {
        const Node stretch = p.sub(p.apply(Op::Sqrt, stretch2), no_qdd_[l.rest_length]);
        stretch2 = p.mul(stretch, stretch);
      }
      potential = p.add(potential, p.mul(half, p.mul(no_qdd_[l.coefficient], stretch2)));
    }
    for (std::size_t index : potentials_) potential = p.add(potential, no_qdd_[index]);
    out.kinetic = kinetic;
    out.potential = potential;
  }

  // World rotations and origins of every frame (only what an output reads reaches its code).
  struct Placements {
    std::vector<Mat3> rotation;
    std::vector<Vec3> origin;
    Vec3 position(sym::ScalarProgram& p, int k, const Vec3& point) const {
      if (k < 0) return point;
      const auto i = static_cast<std::size_t>(k);
      return add(p, origin[i], mul(p, rotation[i], point));
    }
  };
  Placements placements(const std::vector<FrameNodes>& frames) {
    Placements out;
    for (const auto& f : frames) {
      if (f.parent < 0) {
        out.rotation.push_back(f.rotation);
        out.origin.push_back(f.translation);
      } else {
        const auto p = static_cast<std::size_t>(f.parent);
        out.rotation.push_back(mul(program(), out.rotation[p], f.rotation));
        out.origin.push_back(
            add(program(), out.origin[p], mul(program(), out.rotation[p], f.translation)));
      }
    }
    return out;
  }

  // ---- Newton–Euler ---------------------------------------------------------------------------

  std::vector<Motion> motions(Pass pass, const std::vector<FrameNodes>& frames) {
    const Motion world = world_motion(pass);
    std::vector<Motion> m;
    for (const auto& f : frames)
      m.push_back(
          frame_motion(pass, f, f.parent < 0 ? world : m[static_cast<std::size_t>(f.parent)]));
    return m;
  }

  // The world's motion: at rest, gravity as a lift (but not in Pass::Inertial).
  Motion world_motion(Pass pass) {
    Motion world{zero3(program()), zero3(program()), zero3(program()), zero3(program())};
    if (gravity_ && pass != Pass::Inertial) {
      const Vec3 g = vec(full_, *gravity_);
      world.acceleration = {program().neg(g[0]), program().neg(g[1]),
                            program().neg(g[2])};  // gravity as a lift
    }
    return world;
  }

  // The motion of frame `f` from its parent's.
  Motion frame_motion(Pass pass, const FrameNodes& f, const Motion& parent) {
    const Mat3& r = f.rotation;
    Motion here;
    if (pass == Pass::Static) {
      here = {zero3(program()), zero3(program()), zero3(program()),
              mul_transposed(program(), r, parent.acceleration)};
    } else if (pass == Pass::Inertial) {
      // Only what is linear in q̈: the local ε and a of q̈ alone (∂ω/∂q̇ q̈, ∂t/∂q q̈), carried
      // from the parent without any velocity (prescribed motion's rates included).
      Vec3 epsilon = mul_transposed(program(), r, parent.epsilon);
      Vec3 a = add(program(), parent.acceleration, cross(program(), parent.epsilon, f.translation));
      for (std::size_t c = 0; c < f.coordinates.size(); ++c) {
        const Node qdd = inputs_->qdd[f.coordinates[c]];
        epsilon = add(program(), epsilon, scale(program(), qdd, f.omega_partial[c]));
        a = add(program(), a, scale(program(), qdd, f.translation_partial[c]));
      }
      here = {zero3(program()), epsilon, zero3(program()), mul_transposed(program(), r, a)};
    } else {
      const Vec3 parent_omega = mul_transposed(program(), r, parent.omega);
      here.omega = add(program(), parent_omega, f.omega);
      here.epsilon =
          add(program(), add(program(), mul_transposed(program(), r, parent.epsilon), f.omega_dot),
              cross(program(), parent_omega, f.omega));
      const Vec3 w_t = cross(program(), parent.omega, f.translation);
      here.velocity = mul_transposed(
          program(), r, add(program(), add(program(), parent.velocity, w_t), f.translation_dot));
      Vec3 a = add(program(), parent.acceleration, cross(program(), parent.epsilon, f.translation));
      a = add(program(), a, cross(program(), parent.omega, w_t));
      a = add(program(), a,
              scale(program(), program().constant(2.0),
                    cross(program(), parent.omega, f.translation_dot)));
      a = add(program(), a, f.translation_ddot);
      here.acceleration = mul_transposed(program(), r, a);
    }
    return here;
  }

  // Each frame's m a − F of its bodies and particles (applied forces still to subtract): the
  // force and the moment about the origin, frame components.
  std::vector<Wrench> body_wrenches(const std::vector<Motion>& motion,
                                    const std::vector<Node>& nodes) {
    std::vector<Wrench> wrench(motion.size(), Wrench{zero3(program()), zero3(program())});
    for (const auto& mass : masses_) {
      const Motion& m = motion[static_cast<std::size_t>(mass.frame)];
      const Node mm = nodes[mass.mass];
      const Vec3 c = vec(nodes, mass.com);
      const Vec3 a = add(program(), add(program(), m.acceleration, cross(program(), m.epsilon, c)),
                         cross(program(), m.omega, cross(program(), m.omega, c)));
      const Vec3 f = scale(program(), mm, a);
      Vec3 moment = cross(program(), c, f);
      if (mass.inertia) {
        const Mat3 inertia = mat(nodes, *mass.inertia);
        moment = add(program(), moment, mul(program(), inertia, m.epsilon));
        moment =
            add(program(), moment, cross(program(), m.omega, mul(program(), inertia, m.omega)));
      }
      Wrench& w = wrench[static_cast<std::size_t>(mass.frame)];
      w.force = add(program(), w.force, f);
      w.moment = add(program(), w.moment, moment);
    }
    return wrench;
  }

  std::vector<Node> newton_euler(Pass pass) {
    const std::vector<Node>& nodes = pass == Pass::Full ? full_ : no_qdd_;
    const std::vector<FrameNodes> frames = frame_nodes(frames_, nodes);
    const std::vector<Motion> motion = motions(pass, frames);
    std::vector<Wrench> wrench = body_wrenches(motion, nodes);
    const std::size_t n = rate_count();
    std::vector<Node> tau(n, program().constant(0.0));
    if (pass == Pass::Full || pass == Pass::Bias) {
      apply_loads(frames, motion, nodes, wrench);
      for (std::size_t j = 0; j < n; ++j)
        for (const auto& [index, sign] : generalized_[j])
          tau[j] =
              sign > 0 ? program().add(tau[j], nodes[index]) : program().sub(tau[j], nodes[index]);
    }
    // The transpose of the velocity recursion: forces and moments back to the root.
    for (std::size_t k = frames.size(); k-- > 0;) {
      const FrameNodes& f = frames[k];
      const Vec3 force_parent = mul(program(), f.rotation, wrench[k].force);
      for (std::size_t c = 0; c < f.coordinates.size(); ++c) {
        const std::size_t j = f.coordinates[c];
        tau[j] = program().add(
            tau[j], program().add(dot(program(), f.omega_partial[c], wrench[k].moment),
                                  dot(program(), f.translation_partial[c], force_parent)));
      }
      if (f.parent < 0) continue;
      Wrench& w = wrench[static_cast<std::size_t>(f.parent)];
      w.force = add(program(), w.force, force_parent);
      w.moment = add(program(), w.moment,
                     add(program(), mul(program(), f.rotation, wrench[k].moment),
                         cross(program(), f.translation, force_parent)));
    }
    return tau;
  }

  // The loads on the frames' wrenches (applied forces count negative: P holds m a − F).
  void apply_loads(const std::vector<FrameNodes>& frames, const std::vector<Motion>& motion,
                   const std::vector<Node>& nodes, std::vector<Wrench>& wrench) {
    if (loads_.empty()) return;
    const Placements placed = placements(frames);
    const std::vector<Mat3>& rotation = placed.rotation;
    const std::vector<Vec3>& origin = placed.origin;
    auto world_rotation = [&](int k) {
      return k < 0 ? identity3(program()) : rotation[static_cast<std::size_t>(k)];
    };
    auto position = [&](int k, const Vec3& point) {
      if (k < 0) return point;
      const auto i = static_cast<std::size_t>(k);
      return add(program(), origin[i], mul(program(), rotation[i], point));
    };
    auto velocity = [&](int k, const Vec3& point) {
      if (k < 0) return zero3(program());
      const auto i = static_cast<std::size_t>(k);
      return mul(program(), rotation[i],
                 add(program(), motion[i].velocity, cross(program(), motion[i].omega, point)));
    };
    // A force (world components) at a point of frame k.
    auto push = [&](int k, const Vec3& point, const Vec3& world_force) {
      if (k < 0) return;
      const auto i = static_cast<std::size_t>(k);
      const Vec3 f = mul_transposed(program(), rotation[i], world_force);
      wrench[i].force = sub(program(), wrench[i].force, f);
      wrench[i].moment = sub(program(), wrench[i].moment, cross(program(), point, f));
    };
    for (const auto& l : loads_) {
      switch (l.kind) {
        case LocalLoad::Kind::Force: {
          if (l.frame < 0) break;
          const Vec3 world = mul(program(), world_rotation(l.in), vec(nodes, l.vector));
          push(l.frame, vec(nodes, l.point), world);
          break;
        }
        case LocalLoad::Kind::Torque: {
          if (l.frame < 0) break;
          const auto i = static_cast<std::size_t>(l.frame);
          const Vec3 world = mul(program(), world_rotation(l.in), vec(nodes, l.vector));
          wrench[i].moment =
              sub(program(), wrench[i].moment, mul_transposed(program(), rotation[i], world));
          break;
        }
        case LocalLoad::Kind::Spring:
        case LocalLoad::Kind::Damper: {
          const Vec3 from = vec(nodes, l.point), to = vec(nodes, l.other);
          const Vec3 delta = sub(program(), position(l.other_frame, to), position(l.frame, from));
          const Node length2 = dot(program(), delta, delta);
          Node factor;
          if (l.kind == LocalLoad::Kind::Spring) {
            // F_to = −k (d − L0) Δ/d
            const Node k = nodes[l.coefficient];
            factor = l.has_rest_length
                         ? program().neg(program().mul(
                               k, program().sub(program().constant(1.0),
                                                program().div(nodes[l.rest_length],
                                                              program().apply(Op::Sqrt, length2)))))
                         : program().neg(k);
          } else {
            // F_to = −c (Δ·Δ̇) Δ / |Δ|²
            const Vec3 rate = sub(program(), velocity(l.other_frame, to), velocity(l.frame, from));
            factor = program().neg(program().div(
                program().mul(nodes[l.coefficient], dot(program(), delta, rate)), length2));
          }
          const Vec3 f = scale(program(), factor, delta);
          push(l.other_frame, to, f);
          push(l.frame, from, {program().neg(f[0]), program().neg(f[1]), program().neg(f[2])});
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

  // What regressor() formed for frame k, for the readable regressor to name.
  static void record(std::vector<RegressorQuantity>& out, std::size_t k, const FrameNodes& f,
                     const Motion& m, const std::vector<std::pair<std::size_t, Vec6>>& moved_by) {
    using Kind = RegressorQuantity::Kind;
    RegressorQuantity local{Kind::Local, k, 0, {}};
    auto append = [&](const auto& nodes) {
      local.nodes.insert(local.nodes.end(), nodes.begin(), nodes.end());
    };
    append(f.rotation);
    append(f.translation);
    append(f.translation_dot);
    append(f.translation_ddot);
    append(f.omega);
    append(f.omega_dot);
    for (const auto& w : f.omega_partial) append(w);
    for (const auto& t : f.translation_partial) append(t);
    out.push_back(std::move(local));
    out.push_back({Kind::Omega, k, 0, {m.omega.begin(), m.omega.end()}});
    out.push_back({Kind::Epsilon, k, 0, {m.epsilon.begin(), m.epsilon.end()}});
    out.push_back({Kind::Acceleration, k, 0, {m.acceleration.begin(), m.acceleration.end()}});
    for (const auto& [j, s] : moved_by) {
      out.push_back({Kind::AngularPartial, k, j, {s[0], s[1], s[2]}});
      out.push_back({Kind::LinearPartial, k, j, {s[3], s[4], s[5]}});
    }
  }

  // A motion of the parent's origin seen at the child's: (Rᵀ ω, Rᵀ (v + ω × t)).
  Vec6 motion_to_child(const FrameNodes& f, const Vec6& m) {
    return join(mul_transposed(program(), f.rotation, top(m)),
                mul_transposed(program(), f.rotation,
                               add(program(), bottom(m), cross(program(), top(m), f.translation))));
  }
  // A force at the child's origin moved to the parent's: (R n + t × R f, R f).
  Vec6 force_to_parent(const FrameNodes& f, const Vec6& w) {
    const Vec3 force = mul(program(), f.rotation, bottom(w));
    return join(
        add(program(), mul(program(), f.rotation, top(w)), cross(program(), f.translation, force)),
        force);
  }
  Vec6 mul6(const Mat6& m, const Vec6& v) {
    Vec6 r;
    for (int i = 0; i < 6; ++i) {
      Node sum = program().constant(0.0);
      for (int k = 0; k < 6; ++k) sum = program().add(sum, program().mul(m[6 * i + k], v[k]));
      r[i] = sum;
    }
    return r;
  }
  Node dot6(const Vec6& a, const Vec6& b) {
    Node sum = program().constant(0.0);
    for (int k = 0; k < 6; ++k) sum = program().add(sum, program().mul(a[k], b[k]));
    return sum;
  }
  // The wrenches (moment; force) about the origin of a frame moving as `m` of the ten unit
  // parameters of a mass on it (the regressor's columns), written out from the six products
  // ω_r ω_s (formed once, in one operand order, so that the columns share them) and the
  // components of ε and a.
  std::array<Vec6, 10> unit_wrenches(const Motion& m) {
    sym::ScalarProgram& p = program();
    const Node z = p.constant(0.0);
    const Vec3& w = m.omega;
    const Vec3& e = m.epsilon;
    const Vec3& a = m.acceleration;
    const Node xx = p.mul(w[0], w[0]), yy = p.mul(w[1], w[1]), zz = p.mul(w[2], w[2]);
    const Node xy = p.mul(w[0], w[1]), xz = p.mul(w[0], w[2]), yz = p.mul(w[1], w[2]);
    return {join(zero3(p), a),                                                  // m
            join({z, p.neg(a[2]), a[1]},                                        // m·c_x
                 {p.neg(p.add(yy, zz)), p.add(xy, e[2]), p.sub(xz, e[1])}),     //
            join({a[2], z, p.neg(a[0])},                                        // m·c_y
                 {p.sub(xy, e[2]), p.neg(p.add(xx, zz)), p.add(yz, e[0])}),     //
            join({p.neg(a[1]), a[0], z},                                        // m·c_z
                 {p.add(xz, e[1]), p.sub(yz, e[0]), p.neg(p.add(xx, yy))}),     //
            join({e[0], xz, p.neg(xy)}, zero3(p)),                              // I_xx
            join({p.sub(e[1], xz), p.add(e[0], yz), p.sub(xx, yy)}, zero3(p)),  // I_xy
            join({p.add(e[2], xy), p.sub(zz, xx), p.sub(e[0], yz)}, zero3(p)),  // I_xz
            join({p.neg(yz), e[1], xy}, zero3(p)),                              // I_yy
            join({p.sub(yy, zz), p.sub(e[2], xy), p.add(e[1], xz)}, zero3(p)),  // I_yz
            join({yz, p.neg(xz), e[2]}, zero3(p))};                             // I_zz
  }
  Vec6 add6(const Vec6& a, const Vec6& b) {
    Vec6 r;
    for (int k = 0; k < 6; ++k) r[k] = program().add(a[k], b[k]);
    return r;
  }
  // Xᵀ I X: the child's articulated inertia seen from the parent (upper triangle, mirrored).
  Mat6 inertia_to_parent(const FrameNodes& f, const Mat6& inertia) {
    Mat6 out;
    for (int k = 0; k < 6; ++k) {
      Vec6 unit;
      for (int i = 0; i < 6; ++i) unit[i] = program().constant(i == k ? 1.0 : 0.0);
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
    const std::size_t count = frames.size(), n = rate_count();
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
    Motion world{zero3(program()), zero3(program()), zero3(program()), zero3(program())};
    if (gravity_) {
      const Vec3 g = vec(full_, *gravity_);
      world.acceleration = {program().neg(g[0]), program().neg(g[1]), program().neg(g[2])};
    }
    std::vector<Vec6> c(count);
    for (std::size_t k = 0; k < count; ++k) {
      const Motion& parent =
          frames[k].parent < 0 ? world : bias[static_cast<std::size_t>(frames[k].parent)];
      const Vec6 carried = motion_to_child(frames[k], join(parent.epsilon, parent.acceleration));
      c[k] = {program().sub(bias[k].epsilon[0], carried[0]),
              program().sub(bias[k].epsilon[1], carried[1]),
              program().sub(bias[k].epsilon[2], carried[2]),
              program().sub(bias[k].acceleration[0], carried[3]),
              program().sub(bias[k].acceleration[1], carried[4]),
              program().sub(bias[k].acceleration[2], carried[5])};
    }
    // Rigid inertias about the origins, and the bias forces: the Newton–Euler wrench of the
    // motion without accelerations, less the loads.
    std::vector<Motion> still = bias;
    for (auto& m : still) m.epsilon = m.acceleration = zero3(program());
    std::vector<Wrench> wrench = body_wrenches(still, no_qdd_);
    apply_loads(frames, still, no_qdd_, wrench);
    std::vector<Mat6> I(count);
    std::vector<Vec6> pa(count);
    const Node z = program().constant(0.0);
    std::vector<Node> m(count, z);
    std::vector<Vec3> h(count, zero3(program()));
    std::vector<Mat3> J(count, Mat3{z, z, z, z, z, z, z, z, z});
    rigid_inertias(m, h, J);
    for (std::size_t k = 0; k < count; ++k) {
      Mat6& r = I[k];
      r.fill(z);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r[6 * i + j] = J[k][3 * i + j];
      // n = J ω + h × v: the block [h]×; f = m v − h × ω: the block −[h]× = [h]×ᵀ.
      const Vec3& hk = h[k];
      const Node hx[9] = {z,
                          program().neg(hk[2]),
                          hk[1],
                          hk[2],
                          z,
                          program().neg(hk[0]),
                          program().neg(hk[1]),
                          hk[0],
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
      tau[j] = inputs_->extra[j];
      for (const auto& [index, sign] : generalized_[j])
        tau[j] = sign > 0 ? program().sub(tau[j], no_qdd_[index])
                          : program().add(tau[j], no_qdd_[index]);
    }
    std::vector<Vec6> S(count), U(count);
    std::vector<Node> D(count, z), u(count, z);
    for (std::size_t k = count; k-- > 0;) {
      const FrameNodes& f = frames[k];
      Mat6 Ia = I[k];
      Vec6 pk = add6(pa[k], mul6(I[k], c[k]));
      if (!f.coordinates.empty()) {
        const std::size_t j = f.coordinates[0];
        S[k] = join(f.omega_partial[0],
                    mul_transposed(program(), f.rotation, f.translation_partial[0]));
        U[k] = mul6(I[k], S[k]);
        D[k] = dot6(S[k], U[k]);
        u[k] = program().sub(tau[j], dot6(S[k], pa[k]));
        const Node inverse = program().div(program().constant(1.0), D[k]);
        for (int a = 0; a < 6; ++a)
          for (int b = a; b < 6; ++b)
            Ia[6 * a + b] = Ia[6 * b + a] = program().sub(
                I[k][6 * a + b], program().mul(program().mul(U[k][a], U[k][b]), inverse));
        pk = add6(pa[k], mul6(Ia, c[k]));
        const Node ratio = program().mul(u[k], inverse);
        for (int a = 0; a < 6; ++a) pk[a] = program().add(pk[a], program().mul(U[k][a], ratio));
      }
      if (f.parent < 0) continue;
      const auto parent = static_cast<std::size_t>(f.parent);
      const Mat6 moved = inertia_to_parent(f, Ia);
      for (int a = 0; a < 36; ++a) I[parent][a] = program().add(I[parent][a], moved[a]);
      pa[parent] = add6(pa[parent], force_to_parent(f, pk));
    }
    std::vector<Vec6> acceleration(count);
    std::vector<Node> qdd(n), pivots(n);
    for (std::size_t k = 0; k < count; ++k) {
      const FrameNodes& f = frames[k];
      const Vec6 parent = f.parent < 0 ? join(zero3(program()), world.acceleration)
                                       : acceleration[static_cast<std::size_t>(f.parent)];
      Vec6 a = add6(motion_to_child(f, parent), c[k]);
      if (!f.coordinates.empty()) {
        const std::size_t j = f.coordinates[0];
        qdd[j] = program().div(program().sub(u[k], dot6(U[k], a)), D[k]);
        pivots[j] = D[k];
        for (int e = 0; e < 6; ++e) a[e] = program().add(a[e], program().mul(S[k][e], qdd[j]));
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
      m[k] = program().add(m[k], mm);
      h[k] = add(program(), h[k], scale(program(), mm, c));
      Mat3 about_origin = shift(mm, c);  // m (|c|² 1 − c cᵀ)
      if (mass.inertia) about_origin = add(program(), about_origin, mat(full_, *mass.inertia));
      J[k] = add(program(), J[k], about_origin);
    }
  }

  std::vector<Node> composite_inertia() {
    const std::vector<FrameNodes> frames = frame_nodes(frames_, full_);
    const std::size_t count = frames.size(), n = rate_count();
    // Mass, first moment and rotational inertia about the frame's origin, frame components.
    std::vector<Node> m(count, program().constant(0.0));
    std::vector<Vec3> h(count, zero3(program()));
    const Node z = program().constant(0.0);
    std::vector<Mat3> J(count, Mat3{z, z, z, z, z, z, z, z, z});
    rigid_inertias(m, h, J);
    for (std::size_t k = count; k-- > 0;) {
      const FrameNodes& f = frames[k];
      if (f.parent < 0) continue;
      const auto p = static_cast<std::size_t>(f.parent);
      const Vec3 rh = mul(program(), f.rotation, h[k]);
      m[p] = program().add(m[p], m[k]);
      h[p] = add(program(), h[p], add(program(), scale(program(), m[k], f.translation), rh));
      // J_O = R J Rᵀ − m[t]×[t]× − [t]×[h]× − [h]×[t]× for the body moved by t from O.
      const Vec3& t = f.translation;
      Mat3 moved = add(program(), congruence(program(), f.rotation, J[k]), shift(m[k], t));
      const Node th2 = program().mul(program().constant(2.0), dot(program(), t, rh));
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          Node e = program().add(program().mul(rh[i], t[j]), program().mul(t[i], rh[j]));
          if (i == j)
            e = program().sub(th2, e);
          else
            e = program().neg(e);
          moved[3 * i + j] = program().add(moved[3 * i + j], e);
        }
      J[p] = add(program(), J[p], moved);
    }
    std::vector<Node> M(n * n, program().constant(0.0));
    for (std::size_t g = 0; g < count; ++g) {
      const FrameNodes& G = frames[g];
      for (std::size_t c = 0; c < G.coordinates.size(); ++c) {
        const std::size_t j = G.coordinates[c];
        // The composite's momentum-rate under the motion S_j: n = J W + h × V, f = m V − h × W.
        const Vec3& w = G.omega_partial[c];
        const Vec3 v = mul_transposed(program(), G.rotation, G.translation_partial[c]);
        Vec3 moment = add(program(), mul(program(), J[g], w), cross(program(), h[g], v));
        Vec3 force = sub(program(), scale(program(), m[g], v), cross(program(), h[g], w));
        std::size_t k = g;
        while (true) {
          const FrameNodes& F = frames[k];
          const Vec3 force_parent = mul(program(), F.rotation, force);
          for (std::size_t e = 0; e < F.coordinates.size(); ++e) {
            const std::size_t i = F.coordinates[e];
            const Node value =
                program().add(dot(program(), F.omega_partial[e], moment),
                              dot(program(), F.translation_partial[e], force_parent));
            M[i * n + j] = program().add(M[i * n + j], value);
            if (k != g) M[j * n + i] = program().add(M[j * n + i], value);
          }
          if (F.parent < 0) break;
          moment = add(program(), mul(program(), F.rotation, moment),
                       cross(program(), F.translation, force_parent));
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
    const Node c2 = dot(program(), c, c);
    Mat3 r;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        Node e = program().mul(c[i], c[j]);
        e = i == j ? program().sub(c2, e) : program().neg(e);
        r[3 * i + j] = program().mul(mass, e);
      }
    return r;
  }

  const model::Model& model_;
  RecursiveDynamics* out_ = nullptr;
  sym::ScalarProgram* p_ = nullptr;
  const RecursionInputs* inputs_ = nullptr;
  Expressions expressions_;
  std::vector<LocalFrame> frames_;
  std::vector<LocalMass> masses_;
  std::vector<LocalMass> world_masses_;  // fixed in the world: their potential only
  std::vector<std::size_t> potentials_;  // the potential loads' V
  std::vector<LocalLoad> loads_;
  std::optional<Index3> gravity_;
  std::vector<std::vector<std::pair<std::size_t, double>>> generalized_;  // (expr, sign) per j
  std::vector<Node> full_, no_qdd_;
};

// M = Lᵀ D L, eliminating from the last coordinate to the first (leaves first when parents
// come first: no fill-in), then Lᵀ D L q̈ = b. Zeros of M fold away, so a tree costs what its
// branches induce.
void solve_by_ldlt(RecursiveDynamics& d, const std::vector<sym::Node>& extra) {
  sym::ScalarProgram& p = d.program;
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
  for (std::size_t i = 0; i < n; ++i) x[i] = p.sub(extra[i], d.bias[i]);
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

namespace {

// Whether `e` holds a symbol that is not a parameter: a coordinate, t or a function of time.
bool moves(const GiNaC::ex& e, const sym::SymbolSet& parameters) {
  for (const auto& s : sym::symbols_in({e}))
    if (!parameters.count(s)) return true;
  return false;
}
bool moves(const model::Vector3& v, const sym::SymbolSet& parameters) {
  return moves(v[0], parameters) || moves(v[1], parameters) || moves(v[2], parameters);
}

}  // namespace

std::string recursions_do_not_cover(const model::Model& model) {
  if (model.relative_to) return "relative motion in a carrier frame";
  if (!model.flexible.empty()) return "flexible bodies";
  // In generalized speeds the recursions run in u (num::Dynamics); their constraint rows are
  // still formed in the speeds (principles::speed_form).
  // The recursions carry masses and points rigidly with their frames: a mass, a centre of mass,
  // an inertia or a point of a load that moves in its frame needs the formed equations.
  sym::SymbolSet parameters;
  for (const auto& p : model.parameters) parameters.insert(p.symbol);
  for (const auto& b : model.bodies) {
    bool inertia = false;
    for (unsigned k = 0; k < 9 && !inertia; ++k)
      inertia = moves(b.inertia(k / 3, k % 3), parameters);
    if (moves(b.mass, parameters) || moves(b.com, parameters) || inertia)
      return "body " + b.name + ", which moves or changes in its frame";
  }
  for (const auto& p : model.particles)
    if (moves(p.mass, parameters) || moves(p.position, parameters))
      return "particle " + p.name + ", which moves in its frame";
  for (const auto& load : model.loads) {
    const bool moving = std::visit(
        [&](const auto& l) {
          using T = std::decay_t<decltype(l)>;
          if constexpr (std::is_same_v<T, model::ForceLoad>) return moves(l.at.point, parameters);
          if constexpr (std::is_same_v<T, model::SpringLoad> ||
                        std::is_same_v<T, model::DamperLoad>)
            return moves(l.from.point, parameters) || moves(l.to.point, parameters);
          return false;
        },
        load.kind);
    if (moving) return "a load whose point moves in its frame";
  }
  return "";
}

std::string recursions_alone_do_not_cover(const model::Model& model) {
  // Codegen, the JIT, the derivatives and the regressor are written in q̇ and q̈ (n of each).
  if (model.has_speeds()) return "generalized speeds";
  std::string reason = recursions_do_not_cover(model);
  if (reason.empty() && !model.constraints.empty()) reason = "constraints";
  return reason;
}

RecursionBuilder::RecursionBuilder(const model::Model& model) {
  const std::string reason = recursions_do_not_cover(model);
  if (!reason.empty()) throw std::invalid_argument("the recursions do not cover " + reason);
  impl_ = std::make_unique<Impl>(model);
}

RecursionBuilder::~RecursionBuilder() = default;

std::vector<GiNaC::symbol> RecursionBuilder::symbols() const { return impl_->symbols(); }

void RecursionBuilder::build(RecursiveDynamics& out, const RecursionInputs& inputs,
                             const RecursionOptions& options) {
  impl_->build(out, inputs, options);
}

std::vector<sym::Node> RecursionBuilder::regressor(sym::ScalarProgram& program,
                                                   const RecursionInputs& inputs,
                                                   std::vector<RegressorQuantity>* quantities) {
  return impl_->regressor(program, inputs, quantities);
}

}  // namespace appell::principles
