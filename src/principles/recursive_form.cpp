#include "recursive_form.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <unordered_set>
#include <variant>

#include "appell/kinematics/kinematics.hpp"
#include "appell/kinematics/vector_algebra.hpp"
#include "appell/principles/readable_form.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/differentiator.hpp"
#include "appell/sym/tape.hpp"

namespace appell::principles::detail {

namespace {

using GiNaC::ex;
using GiNaC::matrix;

const char* const axes[3] = {"x", "y", "z"};

matrix zero3() { return matrix(3, 1); }

matrix transposed_times(const matrix& r, const matrix& v) { return r.transpose().mul(v); }

/// Too small to deserve a name: a number, a symbol, or a number times a symbol.
bool is_trivial(const ex& e) {
  if (GiNaC::is_a<GiNaC::numeric>(e) || GiNaC::is_a<GiNaC::symbol>(e)) return true;
  if (GiNaC::is_a<GiNaC::mul>(e) && e.nops() == 2)
    return (GiNaC::is_a<GiNaC::numeric>(e.op(0)) && GiNaC::is_a<GiNaC::symbol>(e.op(1))) ||
           (GiNaC::is_a<GiNaC::numeric>(e.op(1)) && GiNaC::is_a<GiNaC::symbol>(e.op(0)));
  return false;
}

/// Exact fractions of many digits (a URDF's decimals multiplied together: 9850206933/10^11) as
/// decimals; small fractions (1/2, 7/20) stay exact.
struct ShortNumbers : GiNaC::map_function {
  ex operator()(const ex& e) override {
    if (GiNaC::is_a<GiNaC::numeric>(e)) {
      const auto& n = GiNaC::ex_to<GiNaC::numeric>(e);
      if (n.is_rational() && !n.is_integer() &&
          (GiNaC::abs(n.denom()) > 10000 || GiNaC::abs(n.numer()) > 1000000))
        return n.evalf();
      return e;
    }
    return e.map(*this);
  }
};

ex short_numbers(const ex& e) {
  ShortNumbers shorten;
  return shorten(e);
}

/// One frame of the tree: how it sits in its parent and moves relative to it, with the cosines
/// and sines of its angles already named.
struct Joint {
  int parent = -1;
  matrix rotation{3, 3};                                                    // R_PF
  matrix translation{3, 1}, translation_dot{3, 1}, translation_ddot{3, 1};  // t_PF, P axes
  matrix omega{3, 1}, omega_dot{3, 1};      // ω of F relative to P (F axes), its rate at q̈ = 0
  std::vector<std::size_t> coordinates;     // those R_PF or t_PF depend on
  std::vector<matrix> omega_partial;        // ∂ω_rel/∂q̇_j, F axes
  std::vector<matrix> translation_partial;  // ∂t/∂q_j, P axes
};

struct Mass {
  ex mass;
  matrix com{3, 1};
  std::optional<matrix> inertia;  // about the centre of mass; particles have none
};

class Recursions {
 public:
  Recursions(const Equations& formed, const DerivationRequest& request, bool readable)
      : formed_(formed), model_(*formed.model), readable_(readable), d_(model_.time_functions) {
    if (!request.values.empty()) numbers_ = printed_numbers(model_, request.values);
    for (const auto& p : model_.parameters) taken_.insert(p.name);
    for (const auto& c : model_.coordinates) taken_.insert(c.name);
    for (const auto& p : model_.prescribed) taken_.insert(p.name);
    for (const auto& i : model_.inputs) taken_.insert(i.name);
  }

  Equations build(IntermediateForm& form) {
    joints();
    masses();
    const std::size_t n = model_.dof();
    mass_ = matrix(n, n);
    tau_ = matrix(n, 1);
    motion();
    forces();
    composite();
    columns();
    Equations result = formed_;
    result.mass_matrix = mass_;
    const matrix q = loads();
    for (unsigned j = 0; j < n; ++j) result.forcing(j, 0) = q(j, 0) - tau_(j, 0);
    result.simplified = false;
    prune(result);
    if (readable_) {
      // Each definition and entry in its shortest readable form (never longer than as built).
      GiNaC::exvector all;
      for (const auto& i : list_) all.push_back(i.value);
      const GiNaC::exvector entries = result.entries();
      all.insert(all.end(), entries.begin(), entries.end());
      const sym::BoundedReadable shown = readable_entries_within(model_, all);
      for (std::size_t k = 0; k < list_.size(); ++k) list_[k].value = shown.entries[k];
      result.set_entries(GiNaC::exvector(
          shown.entries.begin() + static_cast<std::ptrdiff_t>(list_.size()), shown.entries.end()));
    }
    form.intermediates = list_;
    form.groups = groups_;
    form.construction = IntermediateConstruction::Recursions;
    return result;
  }

 private:
  // ---- names ------------------------------------------------------------------------------

  ex raw(const ex& e) const { return numbers_.empty() ? e : sym::substitute(e, numbers_); }
  matrix raw(const model::Vector3& v) const {
    return matrix(3, 1, GiNaC::lst{raw(v[0]), raw(v[1]), raw(v[2])});
  }

  std::string unique(std::string name) {
    while (taken_.count(name) != 0) name += "_";
    taken_.insert(name);
    return name;
  }

  void open_group(const std::string& part) {
    groups_.push_back({section_, part, list_.size(), 0});
    section_.clear();
  }
  void close_group() {
    groups_.back().count = list_.size() - groups_.back().first;
    if (groups_.back().count == 0) {
      // Nothing named: a section heading waits for the next group.
      if (section_.empty()) section_ = groups_.back().section;
      groups_.pop_back();
    }
  }

  ex name(const std::string& stem, const ex& value) {
    const ex v = short_numbers(value.expand());
    if (is_trivial(v)) return v;
    GiNaC::symbol s(unique(stem));
    list_.push_back({s, v});
    return s;
  }
  matrix name3(const std::string& stem, const matrix& v, const std::string& part) {
    open_group(part);
    matrix out(3, 1);
    for (unsigned i = 0; i < 3; ++i) out(i, 0) = name(stem + axes[i], v(i, 0));
    close_group();
    return out;
  }
  matrix name_symmetric(const std::string& stem, const matrix& m, const std::string& part) {
    open_group(part);
    matrix out(3, 3);
    for (unsigned i = 0; i < 3; ++i)
      for (unsigned j = i; j < 3; ++j)
        out(i, j) = out(j, i) = name(stem + axes[i] + axes[j], m(i, j));
    close_group();
    return out;
  }

  std::string part(int k) const {
    if (k < 0) return "world";
    return model_.frames[static_cast<std::size_t>(k)].name + " (frame " + std::to_string(k + 1) +
           ")";
  }

  // ---- the tree ---------------------------------------------------------------------------

  int frame_index(const std::string& name) const { return *model_.frame_index(name); }

  ex at_rest_accelerations(const ex& e) const {
    GiNaC::exmap zero;
    for (std::size_t j = 0; j < model_.dof(); ++j) zero[model_.coordinate_symbol(j, 2)] = 0;
    return sym::substitute(e, zero);
  }
  matrix at_rest_accelerations(const matrix& m) const {
    matrix out(m.rows(), m.cols());
    for (unsigned i = 0; i < m.nops(); ++i)
      out(i / m.cols(), i % m.cols()) = at_rest_accelerations(m.op(i));
    return out;
  }

  // R, t and the relative motion of every frame; cos and sin of every angle that is not a number
  // named c<k>, s<k> (c<k>_<i> for the i-th of several).
  void joints() {
    const std::size_t n = model_.dof();
    section_ = "the frames' rotations in their parents: cosines and sines of the angles";
    for (std::size_t k = 0; k < model_.frames.size(); ++k) {
      const auto& f = model_.frames[k];
      Joint joint;
      joint.parent = frame_index(f.parent);
      std::size_t named_angles = 0;
      for (const auto& factor : f.rotation)
        if (factor.kind == model::RotationFactor::Kind::Axis &&
            !GiNaC::is_a<GiNaC::numeric>(raw(factor.angle).evalf()))
          ++named_angles;
      // The factors with their numbers put in, and each one's matrix with cos and sin named, in
      // the order they are written.
      std::vector<model::RotationFactor> factors;
      std::vector<matrix> named_factors;
      GiNaC::exmap trig;  // cos(angle) -> c<k>, sin(angle) -> s<k>
      open_group("");
      for (model::RotationFactor factor : f.rotation) {
        if (factor.kind == model::RotationFactor::Kind::Axis)
          factor.angle = raw(factor.angle);
        else
          for (unsigned i = 0; i < 9; ++i) factor.matrix(i / 3, i % 3) = raw(factor.matrix.op(i));
        named_factors.push_back(named_rotation(factor, k, named_angles, factors.size(), trig));
        factors.push_back(factor);
      }
      close_group();
      matrix omega(3, 1);
      matrix tail = GiNaC::ex_to<matrix>(GiNaC::unit_matrix(3));  // raw, for ω_rel
      matrix named_tail = tail;                                   // with the names
      for (std::size_t i = factors.size(); i-- > 0;) {
        const model::RotationFactor& factor = factors[i];
        matrix own(3, 1);
        if (factor.kind == model::RotationFactor::Kind::Axis) {
          own = kin::column(factor.axis).mul_scalar(d_.time_derivative(factor.angle));
        } else {
          const matrix w = factor.matrix.transpose().mul(d_.time_derivative(factor.matrix));
          own = matrix(3, 1, GiNaC::lst{w(2, 1), w(0, 2), w(1, 0)});
        }
        omega = omega.add(tail.transpose().mul(own));
        tail = kin::rotation_matrix(factor).mul(tail);
        named_tail = named_factors[i].mul(named_tail);
      }
      // Several factors, or a matrix: the products are named as the rotation R_<k>_<ij>.
      open_group(part(static_cast<int>(k)));
      for (unsigned i = 0; i < 3; ++i)
        for (unsigned j = 0; j < 3; ++j)
          joint.rotation(i, j) = name(
              "R_" + std::to_string(k + 1) + "_" + std::to_string(i + 1) + std::to_string(j + 1),
              named_tail(i, j));
      close_group();
      const matrix t = raw(f.translation);
      const matrix t_dot = d_.time_derivative(t);
      auto named = [&](const matrix& m) {
        matrix out(m.rows(), m.cols());
        for (unsigned i = 0; i < m.nops(); ++i)
          out(i / m.cols(), i % m.cols()) = m.op(i).subs(trig).expand();
        return out;
      };
      joint.translation = named(t);
      joint.translation_dot = named(t_dot);
      joint.translation_ddot = named(at_rest_accelerations(d_.time_derivative(t_dot)));
      joint.omega = named(omega);
      joint.omega_dot = named(at_rest_accelerations(d_.time_derivative(omega)));
      for (std::size_t j = 0; j < n; ++j) {
        const GiNaC::symbol q = model_.coordinate_symbol(j, 0);
        bool depends = false;
        for (unsigned i = 0; i < 9 && !depends; ++i) depends = tail(i / 3, i % 3).has(q);
        for (unsigned i = 0; i < 3 && !depends; ++i) depends = t(i, 0).has(q);
        if (!depends) continue;
        joint.coordinates.push_back(j);
        joint.omega_partial.push_back(named(d_.partial(omega, model_.coordinate_symbol(j, 1))));
        joint.translation_partial.push_back(named(d_.partial(t, q)));
      }
      trig_.insert(trig.begin(), trig.end());
      joints_.push_back(std::move(joint));
    }
  }

  // One factor's matrix with cos and sin of its angle named (Rodrigues' formula).
  // The factor's matrix with the cos and sin of its angle named c<k> and s<k>, or c<k>_<i> and
  // s<k>_<i> for the i-th of the frame's `named_angles` factors (`index` is its place).
  matrix named_rotation(const model::RotationFactor& factor, std::size_t k,
                        std::size_t named_angles, std::size_t index, GiNaC::exmap& trig) {
    if (factor.kind == model::RotationFactor::Kind::Matrix ||
        GiNaC::is_a<GiNaC::numeric>(factor.angle.evalf()))
      return kin::rotation_matrix(factor);
    const std::string suffix =
        std::to_string(k + 1) + (named_angles > 1 ? "_" + std::to_string(index + 1) : "");
    const ex c = name("c" + suffix, GiNaC::cos(factor.angle));
    const ex s = name("s" + suffix, GiNaC::sin(factor.angle));
    trig[GiNaC::cos(factor.angle)] = c;
    trig[GiNaC::sin(factor.angle)] = s;
    const matrix u = kin::column(factor.axis);
    matrix r = GiNaC::ex_to<matrix>(GiNaC::unit_matrix(3)).mul_scalar(c);
    r = r.add(kin::skew(u).mul_scalar(s));
    r = r.add(u.mul(u.transpose()).mul_scalar(1 - c));
    for (unsigned i = 0; i < 9; ++i) r(i / 3, i % 3) = r(i / 3, i % 3).expand();
    return r;
  }

  void masses() {
    frame_masses_.assign(model_.frames.size(), {});
    for (const auto& b : model_.bodies) {
      const int k = frame_index(b.frame);
      if (k < 0) continue;  // fixed in the world: no partial velocity
      matrix inertia(3, 3);
      for (unsigned i = 0; i < 9; ++i) inertia(i / 3, i % 3) = raw(b.inertia.op(i));
      frame_masses_[static_cast<std::size_t>(k)].push_back({raw(b.mass), raw(b.com), inertia});
    }
    for (const auto& p : model_.particles) {
      const int k = frame_index(p.frame);
      if (k < 0) continue;
      frame_masses_[static_cast<std::size_t>(k)].push_back(
          {raw(p.mass), raw(p.position), std::nullopt});
    }
  }

  // ---- root to leaves ---------------------------------------------------------------------

  struct Motion {
    matrix omega{3, 1}, alpha{3, 1}, velocity{3, 1}, acceleration{3, 1};
  };

  void motion() {
    Motion world;
    if (model_.gravity) world.acceleration = raw(*model_.gravity).mul_scalar(-1);
    section_ =
        "velocities and accelerations, root to leaves, each in its frame's axes: omega the "
        "angular velocity, alpha its rate, v and a the velocity and the acceleration of the "
        "origin, at ddot(q) = 0 and with gravity as an upward acceleration of the world";
    for (std::size_t k = 0; k < joints_.size(); ++k) {
      const Joint& j = joints_[k];
      const Motion& p = j.parent < 0 ? world : motion_[static_cast<std::size_t>(j.parent)];
      const std::string id = std::to_string(k + 1);
      const std::string here = part(static_cast<int>(k));
      const matrix parent_omega = transposed_times(j.rotation, p.omega);
      Motion m;
      m.omega = name3("omega_" + id, parent_omega.add(j.omega), here);
      m.alpha = name3("alpha_" + id,
                      transposed_times(j.rotation, p.alpha)
                          .add(j.omega_dot)
                          .add(kin::cross(parent_omega, j.omega)),
                      here);
      const matrix& t = j.translation;
      // The origin's velocity (only dampers read it; dropped when nothing does).
      m.velocity =
          name3("v_" + id,
                transposed_times(j.rotation,
                                 p.velocity.add(kin::cross(p.omega, t)).add(j.translation_dot)),
                here);
      matrix a = p.acceleration.add(kin::cross(p.alpha, t));
      a = a.add(kin::cross(p.omega, kin::cross(p.omega, t)));
      a = a.add(kin::cross(p.omega, j.translation_dot).mul_scalar(2));
      a = a.add(j.translation_ddot);
      m.acceleration = name3("a_" + id, transposed_times(j.rotation, a), here);
      motion_.push_back(m);
    }
  }

  // ---- leaves to root ---------------------------------------------------------------------

  void forces() {
    const std::size_t count = joints_.size();
    std::vector<matrix> force(count, zero3()), moment(count, zero3());
    applied_loads(force, moment);
    section_ =
        "forces, leaves to root: F and N, the force and the moment about the frame's origin "
        "that the bodies of its subtree need (m a less gravity and the loads, at ddot(q) = 0), "
        "its axes";
    for (std::size_t k = count; k-- > 0;) {
      const Motion& m = motion_[k];
      for (const Mass& mass : frame_masses_[k]) {
        const matrix& c = mass.com;
        const matrix a = m.acceleration.add(kin::cross(m.alpha, c))
                             .add(kin::cross(m.omega, kin::cross(m.omega, c)));
        const matrix f = a.mul_scalar(mass.mass);
        force[k] = force[k].add(f);
        moment[k] = moment[k].add(kin::cross(c, f));
        if (mass.inertia)
          moment[k] = moment[k]
                          .add(mass.inertia->mul(m.alpha))
                          .add(kin::cross(m.omega, mass.inertia->mul(m.omega)));
      }
      const std::string id = std::to_string(k + 1);
      const std::string here = part(static_cast<int>(k));
      force[k] = name3("F_" + id, force[k], here);
      moment[k] = name3("N_" + id, moment[k], here);
      const Joint& j = joints_[k];
      const matrix force_parent = j.rotation.mul(force[k]);
      for (std::size_t c = 0; c < j.coordinates.size(); ++c)
        tau_(static_cast<unsigned>(j.coordinates[c]), 0) +=
            kin::dot(j.omega_partial[c], moment[k]) +
            kin::dot(j.translation_partial[c], force_parent);
      if (j.parent < 0) continue;
      const auto p = static_cast<std::size_t>(j.parent);
      force[p] = force[p].add(force_parent);
      moment[p] =
          moment[p].add(j.rotation.mul(moment[k])).add(kin::cross(j.translation, force_parent));
    }
  }

  // ---- the loads ---------------------------------------------------------------------------

  // World rotation and origin of frame k (named R0_<k>_<ij>, r0_<k>x on first use).
  const matrix& world_rotation(int k) {
    static const matrix unit = GiNaC::ex_to<matrix>(GiNaC::unit_matrix(3));
    if (k < 0) return unit;
    const auto i = static_cast<std::size_t>(k);
    if (auto it = world_rotation_.find(i); it != world_rotation_.end()) return it->second;
    const Joint& j = joints_[i];
    const matrix r = j.parent < 0 ? j.rotation : world_rotation(j.parent).mul(j.rotation);
    open_group(part(k));
    matrix out(3, 3);
    for (unsigned a = 0; a < 3; ++a)
      for (unsigned b = 0; b < 3; ++b)
        out(a, b) = name(
            "R0_" + std::to_string(i + 1) + "_" + std::to_string(a + 1) + std::to_string(b + 1),
            r(a, b));
    close_group();
    return world_rotation_.emplace(i, out).first->second;
  }
  const matrix& world_origin(int k) {
    static const matrix origin(3, 1);
    if (k < 0) return origin;
    const auto i = static_cast<std::size_t>(k);
    if (auto it = world_origin_.find(i); it != world_origin_.end()) return it->second;
    const Joint& j = joints_[i];
    const matrix r = world_origin(j.parent).add(world_rotation(j.parent).mul(j.translation));
    return world_origin_.emplace(i, name3("r0_" + std::to_string(i + 1), r, part(k))).first->second;
  }
  // A point of frame k: its world position and velocity.
  matrix position(int k, const matrix& point) {
    if (k < 0) return point;
    return world_origin(k).add(world_rotation(k).mul(point));
  }
  matrix velocity(int k, const matrix& point) {
    if (k < 0) return zero3();
    const Motion& m = motion_[static_cast<std::size_t>(k)];
    return world_rotation(k).mul(m.velocity.add(kin::cross(m.omega, point)));
  }
  // `v` given in frame `in`'s axes, in frame k's.
  matrix in_frame(const matrix& v, int in, int k) {
    if (in == k) return v;
    return world_rotation(k).transpose().mul(world_rotation(in).mul(v));
  }

  // Forces, torques, springs and dampers on the frames' own wrenches (they count negative: the
  // wrenches hold m a − F); generalized loads and potentials go to f by themselves (loads()).
  void applied_loads(std::vector<matrix>& force, std::vector<matrix>& moment) {
    section_ =
        "loads: R0 and r0, the world rotation and origin of the frames they act on; for a "
        "spring or a damper the line d from one point to the other and the force p d it puts "
        "on the second";
    auto push = [&](int k, const matrix& point, const matrix& f) {
      if (k < 0) return;
      const auto i = static_cast<std::size_t>(k);
      force[i] = force[i].sub(f);
      moment[i] = moment[i].sub(kin::cross(point, f));
    };
    for (std::size_t index = 0; index < model_.loads.size(); ++index) {
      const model::Load& load = model_.loads[index];
      const std::string label =
          "load " + std::to_string(index + 1) + (load.name.empty() ? "" : " (" + load.name + ")");
      if (const auto* f = std::get_if<model::ForceLoad>(&load.kind)) {
        const int k = frame_index(f->at.frame);
        if (k >= 0) push(k, raw(f->at.point), in_frame(raw(f->force), frame_index(f->in), k));
      } else if (const auto* t = std::get_if<model::TorqueLoad>(&load.kind)) {
        const int k = frame_index(t->on);
        if (k >= 0) {
          const auto i = static_cast<std::size_t>(k);
          moment[i] = moment[i].sub(in_frame(raw(t->torque), frame_index(t->in), k));
        }
      } else if (std::holds_alternative<model::SpringLoad>(load.kind) ||
                 std::holds_alternative<model::DamperLoad>(load.kind)) {
        const auto* spring = std::get_if<model::SpringLoad>(&load.kind);
        const auto* damper = std::get_if<model::DamperLoad>(&load.kind);
        const model::PointRef& from = spring ? spring->from : damper->from;
        const model::PointRef& to = spring ? spring->to : damper->to;
        const int a = frame_index(from.frame), b = frame_index(to.frame);
        const matrix pa = raw(from.point), pb = raw(to.point);
        const std::string id = std::to_string(index + 1);
        const matrix line = name3("d_" + id, position(b, pb).sub(position(a, pa)), label);
        // The force on `to`: −k (|d| − L0) d/|d| for a spring, −c (d·ḋ) d/|d|² for a damper.
        ex per_length;
        if (spring) {
          const ex rest = raw(spring->rest_length);
          per_length = rest.is_zero() ? -raw(spring->stiffness)
                                      : -raw(spring->stiffness) *
                                            (1 - rest / GiNaC::sqrt(kin::dot(line, line)));
        } else {
          const matrix rate = velocity(b, pb).sub(velocity(a, pa));
          per_length = -raw(damper->coefficient) * kin::dot(line, rate) / kin::dot(line, line);
        }
        open_group(label);
        const ex p = name("p_" + id, per_length);
        close_group();
        const matrix on_to = line.mul_scalar(p);
        if (b >= 0) push(b, pb, world_rotation(b).transpose().mul(on_to));
        if (a >= 0) push(a, pa, world_rotation(a).transpose().mul(on_to).mul_scalar(-1));
      }
    }
  }

  // ---- composite bodies and the mass matrix ---------------------------------------------

  struct Composite {
    ex mass = 0;
    matrix first_moment{3, 1};  // Σ m x, frame axes
    matrix inertia{3, 3};       // about the origin, frame axes
  };

  void composite() {
    const std::size_t count = joints_.size();
    std::vector<Composite> sum(count);
    section_ =
        "composite bodies, leaves to root: the mass mc, the first moment h and the inertia J "
        "about the frame's origin of the bodies of its subtree, its axes";
    const matrix unit = GiNaC::ex_to<matrix>(GiNaC::unit_matrix(3));
    for (std::size_t k = count; k-- > 0;) {
      Composite& c = sum[k];
      for (const Mass& mass : frame_masses_[k]) {
        const matrix& x = mass.com;
        c.mass += mass.mass;
        c.first_moment = c.first_moment.add(x.mul_scalar(mass.mass));
        matrix point = unit.mul_scalar(kin::dot(x, x)).sub(x.mul(x.transpose()));
        c.inertia = c.inertia.add(point.mul_scalar(mass.mass));
        if (mass.inertia) c.inertia = c.inertia.add(*mass.inertia);
      }
      const std::string id = std::to_string(k + 1);
      const std::string here = part(static_cast<int>(k));
      open_group(here);
      c.mass = name("mc_" + id, c.mass);
      close_group();
      c.first_moment = name3("h_" + id, c.first_moment, here);
      c.inertia = name_symmetric("J_" + id, c.inertia, here);
      composite_.push_back(c);  // in reverse order; reindexed below
      const Joint& j = joints_[k];
      if (j.parent < 0) continue;
      Composite& p = sum[static_cast<std::size_t>(j.parent)];
      const matrix& t = j.translation;
      const matrix h = j.rotation.mul(c.first_moment);
      p.mass += c.mass;
      p.first_moment = p.first_moment.add(h).add(t.mul_scalar(c.mass));
      matrix shift = unit.mul_scalar(kin::dot(t, t)).sub(t.mul(t.transpose())).mul_scalar(c.mass);
      shift = shift.add(unit.mul_scalar(2 * kin::dot(t, h)))
                  .sub(t.mul(h.transpose()))
                  .sub(h.mul(t.transpose()));
      p.inertia = p.inertia.add(j.rotation.mul(c.inertia).mul(j.rotation.transpose())).add(shift);
    }
    std::reverse(composite_.begin(), composite_.end());
  }

  // M_ij: the wrench a unit q̈_j needs at each frame b that q_j moves, (J S_ω + h × S_v,
  // mc S_v + S_ω × h), carried to the root; at each frame a on the way, S_a^iᵀ of it is M_ij
  // (and M_ji when a is above b).
  void columns() {
    const std::size_t n = model_.dof();
    section_ =
        "mass matrix columns: f_j_k and n_j_k, the force and the moment about frame k's origin "
        "(its axes) that a unit ddot(q_j) needs, carried from the frame q_j moves to the root";
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t b = 0; b < joints_.size(); ++b) {
        const Joint& joint = joints_[b];
        const auto at = std::find(joint.coordinates.begin(), joint.coordinates.end(), j);
        if (at == joint.coordinates.end()) continue;
        const auto c = static_cast<std::size_t>(at - joint.coordinates.begin());
        const Composite& body = composite_[b];
        const matrix s_omega = joint.omega_partial[c];
        const matrix s_velocity = transposed_times(joint.rotation, joint.translation_partial[c]);
        matrix force = s_velocity.mul_scalar(body.mass).add(kin::cross(s_omega, body.first_moment));
        matrix moment = body.inertia.mul(s_omega).add(kin::cross(body.first_moment, s_velocity));
        const std::string column = "the column of ddot(" + model_.coordinates[j].name + ")";
        for (int a = static_cast<int>(b); a >= 0;) {
          const auto k = static_cast<std::size_t>(a);
          const std::string stem = "_" + std::to_string(j + 1) + "_" + std::to_string(k + 1);
          force = name3("f" + stem, force, column);
          moment = name3("n" + stem, moment, column);
          const Joint& here = joints_[k];
          const matrix force_parent = here.rotation.mul(force);
          for (std::size_t ci = 0; ci < here.coordinates.size(); ++ci) {
            const auto i = static_cast<unsigned>(here.coordinates[ci]);
            const ex entry = kin::dot(here.omega_partial[ci], moment) +
                             kin::dot(here.translation_partial[ci], force_parent);
            mass_(i, static_cast<unsigned>(j)) += entry;
            if (k != b) mass_(static_cast<unsigned>(j), i) += entry;
          }
          if (here.parent < 0 || !has_coordinates_above(here.parent)) break;
          moment = here.rotation.mul(moment).add(kin::cross(here.translation, force_parent));
          force = force_parent;
          a = here.parent;
        }
      }
    }
    for (unsigned i = 0; i < mass_.nops(); ++i)
      mass_(i / static_cast<unsigned>(n), i % static_cast<unsigned>(n)) = mass_.op(i).expand();
  }

  bool has_coordinates_above(int k) const {
    for (; k >= 0; k = joints_[static_cast<std::size_t>(k)].parent)
      if (!joints_[static_cast<std::size_t>(k)].coordinates.empty()) return true;
    return false;
  }

  // The generalized loads and the potentials' −∂V/∂q_j (the other loads are in the
  // recursions), readable, with the named cosines and sines.
  matrix loads() {
    const std::size_t n = model_.dof();
    matrix q(static_cast<unsigned>(n), 1);
    for (const auto& load : model_.loads) {
      if (const auto* g = std::get_if<model::GeneralizedLoad>(&load.kind)) {
        q(static_cast<unsigned>(g->coordinate), 0) += raw(g->value);
      } else if (const auto* v = std::get_if<model::PotentialLoad>(&load.kind)) {
        for (std::size_t j = 0; j < n; ++j)
          q(static_cast<unsigned>(j), 0) -=
              d_.partial(raw(v->potential), model_.coordinate_symbol(j));
      }
    }
    const auto context = readable_context(model_);
    for (unsigned j = 0; j < q.rows(); ++j)
      q(j, 0) = (readable_ ? sym::readable(q(j, 0), context) : q(j, 0)).subs(trig_);
    return q;
  }

  // ---- what nothing uses --------------------------------------------------------------------

  void prune(Equations& result) {
    std::set<std::string> used;
    auto mark = [&](const ex& e) {
      for (GiNaC::const_preorder_iterator it = e.preorder_begin(); it != e.preorder_end(); ++it)
        if (GiNaC::is_a<GiNaC::symbol>(*it))
          used.insert(GiNaC::ex_to<GiNaC::symbol>(*it).get_name());
    };
    for (const ex& e : result.entries()) mark(e);
    std::vector<bool> keep(list_.size(), false);
    for (std::size_t k = list_.size(); k-- > 0;) {
      if (used.count(list_[k].name.get_name()) == 0) continue;
      keep[k] = true;
      mark(list_[k].value);
    }
    std::vector<sym::Intermediate> list;
    std::vector<IntermediateGroup> groups;
    std::string pending;
    for (const auto& g : groups_) {
      IntermediateGroup kept{g.section.empty() ? pending : g.section, g.part, list.size(), 0};
      for (std::size_t k = g.first; k < g.first + g.count; ++k)
        if (keep[k]) list.push_back(list_[k]);
      kept.count = list.size() - kept.first;
      if (kept.count == 0) {
        if (!g.section.empty()) pending = g.section;
        continue;
      }
      pending.clear();
      groups.push_back(kept);
    }
    list_ = std::move(list);
    groups_ = std::move(groups);
  }

  const Equations& formed_;
  const model::Model& model_;
  bool readable_;
  sym::Differentiator d_;
  GiNaC::exmap numbers_;
  GiNaC::exmap trig_;
  std::set<std::string> taken_;
  std::vector<sym::Intermediate> list_;
  std::vector<IntermediateGroup> groups_;
  std::string section_;
  std::vector<Joint> joints_;
  std::vector<std::vector<Mass>> frame_masses_;
  std::vector<Motion> motion_;
  std::vector<Composite> composite_;
  std::map<std::size_t, matrix> world_rotation_, world_origin_;
  matrix mass_, tau_;
};

// ---- the check against the equations as formed ----------------------------------------------

// Two random states of every symbol (parameters included), at which the recursions' M and f must
// give the formed ones: a wrong sign or a missing term shows.
constexpr int kTrials = 2;

bool close(const std::vector<double>& expected, const std::vector<double>& got) {
  double scale = 1.0;
  for (double v : expected) scale = std::max(scale, std::abs(v));
  for (std::size_t k = 0; k < expected.size(); ++k)
    if (!(std::abs(expected[k] - got[k]) <= 1e-9 * scale)) return false;
  return true;
}

// The check on tapes, with the names put back: what the evaluation on the DAGs cannot compute
// (a function the Tape knows no more of, two symbols of one name) is reported as the Tape
// reports it, the same in every run.
bool agrees_on_tapes(const Equations& formed, const Equations& written,
                     const IntermediateForm& named) {
  const GiNaC::exvector expected = formed.entries(),
                        got = with_names_put_back(written, named).entries();
  GiNaC::exvector all = expected;
  all.insert(all.end(), got.begin(), got.end());
  const auto symbols = sym::symbols_by_name(all);
  std::vector<GiNaC::symbol> variables;
  for (const auto& [name, s] : symbols) variables.push_back(s);
  const sym::Tape want(expected, variables), have(got, variables);
  std::mt19937 rng(20261124);
  std::uniform_real_distribution<double> value(0.3, 1.3);
  std::vector<double> x(variables.size()), a(expected.size()), b(got.size()), work;
  for (int trial = 0; trial < kTrials; ++trial) {
    for (double& v : x) v = value(rng);
    want.evaluate(x.data(), a.data(), work);
    have.evaluate(x.data(), b.data(), work);
    if (!close(a, b)) return false;
  }
  return true;
}

// A symbol's number in [0.3, 1.3) in one trial, from its name alone (no walk to collect the
// symbols first): FNV-1a of the name and splitmix64, the same in every run.
double trial_value(const std::string& name, int trial) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : name) h = (h ^ c) * 0x100000001b3ull;
  std::uint64_t z = h + static_cast<std::uint64_t>(trial + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return 0.3 + static_cast<double>(z >> 11) * 0x1.0p-53;
}

// The check on the DAGs themselves, at both states in one visit of each node, the written side
// through its names as it reads (each defined once): a tape would first put both sides in the
// structural order, which cost more than forming the equations did, for a yes or a no within a
// tolerance. Throws sym::DagEvaluator::Unsupported for what it cannot compute.
bool agrees_on_dags(const Equations& formed, const Equations& written,
                    const IntermediateForm& named) {
  const auto given = [](const GiNaC::symbol& s, double* out) {
    for (int trial = 0; trial < kTrials; ++trial) out[trial] = trial_value(s.get_name(), trial);
  };
  // The names' numbers in order of definition (each uses only those before it).
  std::map<GiNaC::ex, std::vector<double>, GiNaC::ex_is_less> names;
  sym::DagEvaluator have(kTrials, [&](const GiNaC::symbol& s, double* out) {
    const auto it = names.find(s);
    if (it == names.end()) return given(s, out);
    std::copy(it->second.begin(), it->second.end(), out);
  });
  for (const sym::Intermediate& i : named.intermediates) {
    std::vector<double> value(kTrials);
    have(i.value, value.data());
    names.emplace(i.name, std::move(value));
  }
  sym::DagEvaluator want(kTrials, given);
  const GiNaC::exvector expected = formed.entries(), got = written.entries();
  std::vector<std::vector<double>> a(kTrials, std::vector<double>(expected.size())),
      b(kTrials, std::vector<double>(got.size()));
  double values[kTrials];
  for (std::size_t k = 0; k < expected.size(); ++k) {
    want(expected[k], values);
    for (int trial = 0; trial < kTrials; ++trial) a[trial][k] = values[trial];
  }
  for (std::size_t k = 0; k < got.size(); ++k) {
    have(got[k], values);
    for (int trial = 0; trial < kTrials; ++trial) b[trial][k] = values[trial];
  }
  for (int trial = 0; trial < kTrials; ++trial)
    if (!close(a[trial], b[trial])) return false;
  return true;
}

bool agrees(const Equations& formed, const Equations& written, const IntermediateForm& named) {
  try {
    return agrees_on_dags(formed, written, named);
  } catch (const sym::DagEvaluator::Unsupported&) {
    return agrees_on_tapes(formed, written, named);
  }
}

}  // namespace

std::optional<Equations> through_recursions(const Equations& formed,
                                            const DerivationRequest& request, bool readable,
                                            IntermediateForm& form, std::string& why) {
  const model::Model& m = *formed.model;
  if (formed.method != Method::GibbsAppell && formed.method != Method::Dalembert)
    why = "the recursions are Gibbs-Appell's and D'Alembert's equations";
  else if (formed.order != 1)
    why = "the recursions give equations of order 1";
  else if (formed.constraint_count() > 0)
    why = "the model has constraints";
  else if (m.relative_to)
    why = "the model moves relative to a carrier frame";
  else if (!m.flexible.empty())
    why = "the model has flexible bodies";
  else if (m.has_speeds())
    why = "the model has generalized speeds";
  else if (m.frames.empty())
    why = "the model has no frames";
  if (!why.empty()) return std::nullopt;
  IntermediateForm candidate;
  try {
    Equations written = Recursions(formed, request, readable).build(candidate);
    if (!agrees(formed, written, candidate)) {
      why = "the recursions disagreed with the equations as formed";
      return std::nullopt;
    }
    candidate.automatic = form.automatic;
    candidate.threshold = form.threshold;
    candidate.over_budget = form.over_budget;
    form = std::move(candidate);
    return written;
  } catch (const std::exception& e) {
    why = std::string("the recursions could not be checked: ") + e.what();
    return std::nullopt;
  }
}

}  // namespace appell::principles::detail
