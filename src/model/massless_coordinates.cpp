#include "appell/model/massless_coordinates.hpp"

#include <optional>
#include <string>

namespace appell::model {

namespace {

bool all_zero(const GiNaC::matrix& m) {
  for (unsigned i = 0; i < m.rows(); ++i)
    for (unsigned k = 0; k < m.cols(); ++k)
      if (!m(i, k).is_zero()) return false;
  return true;
}

}  // namespace

std::vector<std::size_t> coordinates_moving_no_mass(const Model& model) {
  if (!model.flexible.empty()) return {};
  const std::size_t n = model.dof();
  std::vector<bool> moves(n, false);
  const auto mark = [&](const GiNaC::ex& e) {
    for (std::size_t j = 0; j < n; ++j)
      if (!moves[j] && e.has(model.coordinate_symbol(j))) moves[j] = true;
  };
  const auto mark_vector = [&](const Vector3& v) {
    for (const auto& component : v) mark(component);
  };
  std::vector<bool> frame_marked(model.frames.size(), false);
  // A frame and its ancestors: every coordinate in their placements moves what the frame holds.
  const auto mark_frames = [&](const std::string& name) {
    for (std::optional<int> index = model.frame_index(name); index && *index >= 0;) {
      const auto k = static_cast<std::size_t>(*index);
      if (frame_marked[k]) return;  // its ancestors were marked with it
      frame_marked[k] = true;
      const Frame& frame = model.frames[k];
      mark_vector(frame.translation);
      for (const auto& factor : frame.rotation) {
        if (factor.kind == RotationFactor::Kind::Axis)
          mark(factor.angle);
        else
          mark(GiNaC::ex(factor.matrix));
      }
      index = model.frame_index(frame.parent);
    }
  };
  for (const Body& body : model.bodies) {
    if (body.mass.is_zero() && all_zero(body.inertia)) continue;
    mark_vector(body.com);
    mark_frames(body.frame);
  }
  for (const Particle& particle : model.particles) {
    if (particle.mass.is_zero()) continue;
    mark_vector(particle.position);
    mark_frames(particle.frame);
  }
  std::vector<std::size_t> still;
  for (std::size_t j = 0; j < n; ++j)
    if (!moves[j]) still.push_back(j);
  return still;
}

}  // namespace appell::model
