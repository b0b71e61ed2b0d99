// The model `appell demo` runs: the planar 2-DOF robot of seed 000 (Fig. 4), as in
// MODEL_FORMAT.md and examples/planar_2r.yaml.
#pragma once

namespace demo {

inline constexpr const char* planar_2r_yaml = R"(name: planar-2r
description: Two homogeneous rods O1O2 and O2P joined by revolute joints, point force at P
parameters:
  M: 1.0
  l: 0.5
  M_S: 0.2
  g: 9.81
coordinates: [q1, q2]
frames:
  link1: {parent: world, rotation: rot_z(q1)}
  link2: {parent: link1, translation: [l, 0, 0], rotation: rot_z(q2)}
bodies:
  rod1: {frame: link1, mass: M, com: [l/2, 0, 0], inertia: {rod: {length: l, axis: x}}}
  rod2: {frame: link2, mass: M, com: [l/2, 0, 0], inertia: {rod: {length: l, axis: x}}}
gravity: [0, -g, 0]
loads:
  - {force: [0, -M_S*g, 0], on: link2, at: [l, 0, 0]}
)";

}  // namespace demo
