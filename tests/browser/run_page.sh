#!/usr/bin/env bash
# The browser tests of the report page's layout and drawing (tests/browser/page_test.mjs):
#   equations  (ctest browser.equations) the UR5's and the rolling disk's pages at several widths:
#              no equation number over an equation, nothing out of view;
#   shapes     (ctest browser.shapes) a model with a body of every inertia shape: each drawn as
#              declared (a cube as a box, not a sphere; a square bar as a box, not a cylinder).
# Usage: run_page.sh equations|shapes APPELL SOURCE_DIR WORK_DIR
set -euo pipefail
mode=$1 appell=$2 source=$3 work=$4
mkdir -p "$work"
examples=$source/examples
case $mode in
  equations)
    "$appell" report "$examples/urdf/ur5_robot.urdf" --t-end 0.1 --out "$work/ur5.html" >/dev/null
    "$appell" report "$examples/rolling_disk.yaml" --t-end 0.5 --out "$work/rolling_disk.html" \
      >/dev/null
    exec node "$source/tests/browser/page_test.mjs" --equations "$work/ur5.html" \
      "$work/rolling_disk.html"
    ;;
  shapes)
    # Bodies whose shapes the principal moments alone cannot tell: a cube and a cylinder of
    # length r·√3 have three equal moments (a sphere's), a square bar two (a cylinder's).
    cat >"$work/shapes.yaml" <<'YAML'
name: shapes
description: A body of every inertia shape on one turning arm.
parameters: {m: 1, g: 9.81}
coordinates: [q]
frames:
  arm: {rotation: rot_z(q)}
bodies:
  cube: {frame: arm, mass: m, com: [0.3, 0, 0], inertia: {box: {size: [0.2, 0.2, 0.2]}}}
  square_bar: {frame: arm, mass: m, com: [0.6, 0, 0], inertia: {box: {size: [0.1, 0.1, 0.6]}}}
  even_cylinder:
    frame: arm
    mass: m
    com: [0.9, 0, 0]
    inertia: {cylinder: {radius: 0.1, length: 0.1*sqrt(3), axis: z}}
  rod_along_y: {frame: arm, mass: m, com: [1.2, 0, 0], inertia: {rod: {length: 0.8, axis: y}}}
  disk_about_x: {frame: arm, mass: m, com: [1.5, 0, 0], inertia: {disk: {radius: 0.25, axis: x}}}
  ball: {frame: arm, mass: m, com: [1.8, 0, 0], inertia: {sphere: {radius: 0.15}}}
  lumpy: {frame: arm, mass: m, com: [2.1, 0, 0], inertia: [0.01, 0.02, 0.025]}
gravity: [0, -g, 0]
YAML
    "$appell" report "$work/shapes.yaml" --t-end 0.5 --out "$work/shapes.html" >/dev/null
    exec node "$source/tests/browser/page_test.mjs" --shapes "$work/shapes.html"
    ;;
  *)
    echo "usage: run_page.sh equations|shapes APPELL SOURCE_DIR WORK_DIR" >&2
    exit 2
    ;;
esac
