// Models several test files share: the benchmarks' chains and a branching tree with every load.
#pragma once

#include <sstream>
#include <string>

namespace appell::test_support {

// n links, joints alternately about z and y (all about z when planar), rods along x: the
// benchmarks' chains.
inline std::string spatial_chain_yaml(int n, bool planar = false) {
  std::ostringstream y;
  y << "name: chain\nparameters: {m: 1.0, l: 0.5, g: 9.81}\ncoordinates: [";
  for (int i = 1; i <= n; ++i) y << (i > 1 ? ", " : "") << "q" << i;
  y << "]\nframes:\n";
  for (int i = 1; i <= n; ++i)
    y << "  link" << i << ": {parent: " << (i == 1 ? "world" : "link" + std::to_string(i - 1))
      << (i == 1 ? "" : ", translation: [l, 0, 0]") << ", rotation: rot_"
      << (planar || i % 2 ? 'z' : 'y') << "(q" << i << ")}\n";
  y << "bodies:\n";
  for (int i = 1; i <= n; ++i)
    y << "  rod" << i << ": {frame: link" << i
      << ", mass: m, com: [l/2, 0, 0], inertia: {rod: {length: l, axis: x}}}\n";
  y << "gravity: [0, 0, -g]\n";
  return y.str();
}

// A branching tree: a turntable carrying a prismatic slider and two arms, one with a joint of
// two rotation factors, a fixed offset frame, particles and every kind of load.
inline const char* const tree_yaml = R"(name: tree
parameters: {m: 1.3, l: 0.6, g: 9.81, k: 40.0, c: 0.7}
coordinates: [a, s, b1, b2, c1, c2]
inputs: [u]
frames:
  table: {parent: world, rotation: rot_z(a)}
  slider: {parent: table, translation: [0.2 + s, 0, 0.1]}
  arm1: {parent: slider, rotation: rot_y(b1)}
  arm1b: {parent: arm1, translation: [l, 0, 0], rotation: rot_x(b2) * rot_z(0.3*b2 + 0.2)}
  mount: {parent: table, translation: [0, 0.3, 0], rotation: rot_x(0.4)}
  arm2: {parent: mount, rotation: rot_z(c1)}
  arm2b: {parent: arm2, translation: [l, 0.1, 0], rotation: rot_y(c2)}
bodies:
  base: {frame: table, mass: 2*m, com: [0, 0, 0.05], inertia: {box: {size: [0.4, 0.4, 0.1]}}}
  carriage: {frame: slider, mass: m, com: [0, 0, 0], inertia: {sphere: {radius: 0.05}}}
  rod1: {frame: arm1, mass: m, com: [l/2, 0, 0], inertia: {rod: {length: l, axis: x}}}
  rod1b: {frame: arm1b, mass: 0.7*m, com: [l/2, 0.02, 0], inertia: {rod: {length: l, axis: x}}}
  rod2: {frame: arm2, mass: m, com: [l/2, 0, 0.01], inertia: {rod: {length: l, axis: x}}}
  rod2b: {frame: arm2b, mass: 0.5*m, com: [l/3, 0, 0], inertia: {rod: {length: l, axis: x}}}
particles:
  tip: {frame: arm2b, mass: 0.2, position: [l, 0, 0]}
gravity: [0, 0, -g]
loads:
  - {force: [1.5, -0.5, 2*u], on: arm1b, at: [l, 0, 0]}
  - {force: [0.3, 0.2, 0], on: arm2, at: [l/2, 0, 0], in: arm2}
  - {torque: [0, 0, 0.8], on: arm2b}
  - {spring: {from: [arm1b, [l, 0, 0]], to: [arm2b, [l, 0, 0]], stiffness: k, rest_length: 0.3}}
  - {damper: {from: [world, [0, 0, 1]], to: [arm1, [l, 0, 0]], coefficient: c}}
  - {generalized: {coordinate: s, value: -3*s - c*dot(s)}}
  - {potential: 0.5*k*(a - 0.1)^2}
)";

}  // namespace appell::test_support
