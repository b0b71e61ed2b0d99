#include "appell/report/scene.hpp"

#include <Eigen/Dense>
#include <cmath>
#include <optional>

#include "appell/kinematics/kinematics.hpp"
#include "appell/report/motion.hpp"

namespace appell::report {

namespace {

std::optional<double> number(const GiNaC::ex& e, const GiNaC::exmap& substitution) {
  const GiNaC::ex value = GiNaC::evalf(e.subs(substitution));
  if (!GiNaC::is_a<GiNaC::numeric>(value)) return std::nullopt;
  const auto& n = GiNaC::ex_to<GiNaC::numeric>(value);
  if (!n.is_real()) return std::nullopt;
  const double d = n.to_double();
  if (!std::isfinite(d)) return std::nullopt;
  return d;
}

std::optional<std::array<double, 3>> vector_of(const model::Vector3& v,
                                               const GiNaC::exmap& substitution) {
  std::array<double, 3> out{};
  for (std::size_t k = 0; k < 3; ++k) {
    const auto x = number(v[k], substitution);
    if (!x) return std::nullopt;
    out[k] = *x;
  }
  return out;
}

int frame_index(const model::Model& model, const std::string& name) {
  return model.frame_index(name).value_or(-1);
}

std::array<double, 4> quaternion_array(const Eigen::Matrix3d& r) {
  Eigen::Matrix<double, 3, 3, Eigen::RowMajor> rows = r;
  const auto q = quaternion_of(rows.data());
  return {q[0], q[1], q[2], q[3]};
}

// The solid of a body's inertia (file comment of scene.hpp): kind, size and orientation.
std::optional<SceneSolid> body_solid(const model::Body& body, const GiNaC::exmap& substitution) {
  const auto mass = number(body.mass, substitution);
  if (!mass || *mass <= 0) return std::nullopt;
  Eigen::Matrix3d inertia;
  for (unsigned r = 0; r < 3; ++r)
    for (unsigned c = 0; c < 3; ++c) {
      const auto x = number(body.inertia(r, c), substitution);
      if (!x) return std::nullopt;
      inertia(r, c) = *x;
    }
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eigen(0.5 * (inertia + inertia.transpose()));
  Eigen::Vector3d moments = eigen.eigenvalues().cwiseMax(0.0);  // ascending
  Eigen::Matrix3d axes = eigen.eigenvectors();
  if (axes.determinant() < 0) axes.col(2) = -axes.col(2);
  const double m = *mass;
  const double largest = moments(2);
  const double tolerance = 1e-6 * largest;
  auto equal = [&](double a, double b) { return std::abs(a - b) <= tolerance; };

  SceneSolid solid;
  solid.name = body.name;
  solid.source = "body";
  auto place = [&](const Eigen::Matrix3d& r) { solid.rotation = quaternion_array(r); };
  auto with_axis_last = [&](int odd) {
    // Columns (a, b, odd) of a right-handed frame: the solid's z along the odd principal axis.
    Eigen::Matrix3d r;
    const int a = (odd + 1) % 3, b = (odd + 2) % 3;
    r.col(0) = axes.col(a);
    r.col(1) = axes.col(b);
    r.col(2) = axes.col(odd);
    if (r.determinant() < 0) r.col(0) = -r.col(0);
    return r;
  };
  if (largest <= 0) {  // a point mass
    solid.kind = SceneSolid::Kind::Sphere;
    solid.size = {0, 0, 0};
    place(Eigen::Matrix3d::Identity());
  } else if (moments(0) <= tolerance && equal(moments(1), moments(2))) {
    solid.kind = SceneSolid::Kind::Rod;
    solid.size = {std::sqrt(12 * moments(1) / m), 0, 0};
    place(axes);  // the solid's x along the axis of the smallest moment
  } else if (equal(moments(0), moments(2))) {
    solid.kind = SceneSolid::Kind::Sphere;
    solid.size = {std::sqrt(5 * moments(1) / (2 * m)), 0, 0};
    place(Eigen::Matrix3d::Identity());
  } else if (equal(moments(0), moments(1)) || equal(moments(1), moments(2))) {
    const int odd = equal(moments(0), moments(1)) ? 2 : 0;
    const double axial = moments(odd), transverse = moments(1);
    const double r2 = 2 * axial / m;
    const double l2 = 12 * transverse / m - 3 * r2;
    place(with_axis_last(odd));
    if (equal(axial, 2 * transverse) || l2 <= 1e-9 * r2) {
      solid.kind = SceneSolid::Kind::Disk;
      solid.size = {std::sqrt(r2), std::sqrt(r2) / 20, 0};
    } else {
      solid.kind = SceneSolid::Kind::Cylinder;
      solid.size = {std::sqrt(r2), std::sqrt(l2), 0};
    }
  } else {
    solid.kind = SceneSolid::Kind::Box;
    for (int i = 0; i < 3; ++i) {
      const double e2 = 6 * (moments((i + 1) % 3) + moments((i + 2) % 3) - moments(i)) / m;
      solid.size[static_cast<std::size_t>(i)] = std::sqrt(std::max(e2, 0.0));
    }
    place(axes);
  }
  return solid;
}

// The solid of a body whose inertia was given as a shape: that shape, its sizes as given, its
// axis (a rod's x, a disk's or cylinder's z) along the frame's axis it names.
std::optional<SceneSolid> declared_solid(const model::Body& body,
                                         const GiNaC::exmap& substitution) {
  const auto& shape = *body.shape;
  SceneSolid solid;
  solid.name = body.name;
  solid.source = "body";
  for (std::size_t k = 0; k < shape.sizes.size() && k < 3; ++k) {
    const auto size = number(shape.sizes[k], substitution);
    if (!size) return std::nullopt;
    solid.size[k] = *size;
  }
  // Columns: the frame's components of the solid's x, y, z.
  const int a = shape.axis;
  Eigen::Matrix3d r = Eigen::Matrix3d::Identity();
  auto axes_with = [&](int solid_axis) {
    // The solid's `solid_axis` along the frame's axis a, the other two after it in cyclic order.
    for (int k = 0; k < 3; ++k)
      r.col((solid_axis + k) % 3) = Eigen::Matrix3d::Identity().col((a + k) % 3);
  };
  switch (shape.kind) {
    case model::BodyShape::Kind::Rod:
      solid.kind = SceneSolid::Kind::Rod;
      axes_with(0);
      break;
    case model::BodyShape::Kind::Disk:
      solid.kind = SceneSolid::Kind::Disk;
      solid.size[1] = solid.size[0] / 20;  // thin: a twentieth of its radius thick
      axes_with(2);
      break;
    case model::BodyShape::Kind::Cylinder:
      solid.kind = SceneSolid::Kind::Cylinder;
      axes_with(2);
      break;
    case model::BodyShape::Kind::Box:
      solid.kind = SceneSolid::Kind::Box;
      break;
    case model::BodyShape::Kind::Sphere:
      solid.kind = SceneSolid::Kind::Sphere;
      break;
  }
  solid.rotation = quaternion_array(r);
  return solid;
}

}  // namespace

Scene make_scene(const model::Model& model, const model::Values& values) {
  const model::BoundValues bound = model::bind(model, values);
  GiNaC::exmap substitution = bound.numbers;
  for (const auto& [symbol, value] : bound.unset) substitution[symbol] = value;
  Scene scene;
  for (const auto& frame : model.frames) {
    scene.frames.push_back(frame.name);
    scene.parents.push_back(frame_index(model, frame.parent));
  }
  for (const auto& body : model.bodies) {
    auto solid = body.shape ? declared_solid(body, substitution) : body_solid(body, substitution);
    const auto com = vector_of(body.com, substitution);
    if (!solid || !com) {
      scene.notes.push_back("body " + body.name + ": its mass or inertia has no number");
      continue;
    }
    solid->frame = frame_index(model, body.frame);
    solid->centre = *com;
    solid->stem = std::hypot((*com)[0], (*com)[1], (*com)[2]) > 0;
    scene.solids.push_back(*solid);
  }
  for (const auto& particle : model.particles) {
    const auto position = vector_of(particle.position, substitution);
    if (!position) {
      scene.notes.push_back("particle " + particle.name + ": its position has no number");
      continue;
    }
    SceneSolid solid;
    solid.name = particle.name;
    solid.source = "particle";
    solid.frame = frame_index(model, particle.frame);
    solid.centre = *position;
    solid.kind = SceneSolid::Kind::Sphere;
    scene.solids.push_back(solid);
  }
  for (std::size_t i = 0; i < model.visuals.size(); ++i) {
    const auto& visual = model.visuals[i];
    const std::string name = "visual " + std::to_string(i + 1) + " of " + visual.frame;
    const auto translation = vector_of(visual.translation, substitution);
    const GiNaC::matrix rotation = kin::rotation_matrix(visual.rotation);
    Eigen::Matrix3d r;
    bool numeric = translation.has_value();
    for (unsigned a = 0; a < 3 && numeric; ++a)
      for (unsigned b = 0; b < 3 && numeric; ++b) {
        const auto x = number(rotation(a, b), substitution);
        numeric = x.has_value();
        if (x) r(a, b) = *x;
      }
    if (visual.shape == model::Visual::Shape::Mesh || !numeric) {
      scene.notes.push_back(name + (numeric ? ": a mesh (" + visual.mesh + "), not drawn"
                                            : ": its placement has no number"));
      continue;
    }
    SceneSolid solid;
    solid.name = name;
    solid.source = "visual";
    solid.frame = frame_index(model, visual.frame);
    solid.centre = *translation;
    solid.rotation = quaternion_array(r);
    solid.size = visual.size;
    solid.kind = visual.shape == model::Visual::Shape::Box        ? SceneSolid::Kind::Box
                 : visual.shape == model::Visual::Shape::Cylinder ? SceneSolid::Kind::Cylinder
                                                                  : SceneSolid::Kind::Sphere;
    scene.solids.push_back(solid);
  }
  for (const auto& load : model.loads) {
    const model::PointRef *from = nullptr, *to = nullptr;
    std::string kind;
    if (const auto* spring = std::get_if<model::SpringLoad>(&load.kind)) {
      from = &spring->from;
      to = &spring->to;
      kind = "spring";
    } else if (const auto* damper = std::get_if<model::DamperLoad>(&load.kind)) {
      from = &damper->from;
      to = &damper->to;
      kind = "damper";
    } else {
      continue;
    }
    const auto a = vector_of(from->point, substitution), b = vector_of(to->point, substitution);
    if (!a || !b) {
      scene.notes.push_back("a " + kind + ": its end points have no number");
      continue;
    }
    scene.lines.push_back(
        {kind, frame_index(model, from->frame), frame_index(model, to->frame), *a, *b});
  }
  if (model.gravity) {
    if (const auto g = vector_of(*model.gravity, substitution)) scene.gravity = *g;
  }
  return scene;
}

}  // namespace appell::report
