// What the report's 3-D animation draws, from what the model knows: the frames (parent first), a
// solid for each rigid body, a sphere for each particle, a line for each spring and damper, the
// visual geometry of a URDF, and gravity's direction. Numbers with the parameters bound.
//
// A body whose inertia was given as a shape (MODEL_FORMAT.md: rod, disk, cylinder, box, sphere;
// model::Body::shape) is drawn as that shape, its sizes and axis as given. Otherwise (a matrix, the
// tensor's entries, a URDF's inertial) its solid is read back from the principal moments of the
// inertia about the centre of mass, I₁ ≤ I₂ ≤ I₃ (m the mass):
//   I₁ ≈ 0, I₂ ≈ I₃            thin rod along the first axis, length √(12 I₂/m);
//   I₁ ≈ I₂ ≈ I₃               sphere of radius √(5 I/(2m));
//   two equal, the third twice  thin disk (axis the odd one), radius √(2 I_axis/m);
//   two equal, I_a the odd one  cylinder of radius √(2 I_a/m), length √(12 I_t/m − 3 r²) (> 0);
//   otherwise                   the box of the same inertia, edges √(6 (I_j + I_k − I_i)/m).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/model/values.hpp"

namespace appell::report {

/// A solid drawn with a frame, placed in it by a centre and a rotation (quaternion x, y, z, w).
struct SceneSolid {
  enum class Kind { Rod, Disk, Cylinder, Box, Sphere };
  std::string name;    // the body's, particle's or "visual N"
  std::string source;  // "body", "particle" or "visual"
  int frame = -1;      // index into Model::frames, -1 for world
  std::array<double, 3> centre{0, 0, 0};
  std::array<double, 4> rotation{0, 0, 0, 1};  // frame from solid
  Kind kind = Kind::Sphere;
  /// Rod: length (along the solid's x); Disk: radius, thickness (axis z); Cylinder: radius,
  /// length (axis z); Box: edges along x, y, z; Sphere: radius.
  std::array<double, 3> size{0, 0, 0};
  /// A body whose centre of mass is away from its frame's origin is drawn with a stem from the
  /// origin to the centre (a pendulum's arm, a top's axis).
  bool stem = false;
};

/// A spring or damper drawn as a line between two points fixed in frames.
struct SceneLine {
  std::string kind;  // "spring" or "damper"
  int from_frame = -1, to_frame = -1;
  std::array<double, 3> from{0, 0, 0}, to{0, 0, 0};
};

struct Scene {
  std::vector<std::string> frames;  // Model::frames' names, in order
  std::vector<int> parents;         // each frame's parent index (-1 world)
  std::vector<SceneSolid> solids;
  std::vector<SceneLine> lines;
  std::array<double, 3> gravity{0, 0, 0};  // world components; zero without gravity
  /// Things the scene could not draw (a mesh visual, a size that does not evaluate), one line each.
  std::vector<std::string> notes;
};

/// The scene of `model` with `values` bound (model::bind; its errors propagate). A solid whose
/// sizes do not evaluate to finite numbers (a symbolic inertia given no value) is left out with a
/// note; a mesh visual is left out with a note (meshes are not read).
Scene make_scene(const model::Model& model, const model::Values& values);

}  // namespace appell::report
