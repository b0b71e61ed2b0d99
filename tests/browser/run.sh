#!/usr/bin/env bash
# The browser test of appell's HTML report (ctest: browser.report): writes the reports of a planar
# robot, the heavy top, a constrained mechanism, the UR5, a free box in its speeds (a slider-crank closed by two constraints), a run
# of simulate --report, a run that fails, and the elastic responses of two flexible bodies (fem
# --response --report: a hexahedral bar and a mechanism's planar beam), then opens them in
# headless Chromium (report_test.mjs) with the network off. A flexible body whose rigid motion
# fails gives an incomplete page. Usage:
#   run.sh APPELL SOURCE_DIR WORK_DIR [--screenshot FILE] [--flexible-screenshot FILE]
set -euo pipefail
appell=$1 source=$2 work=$3
shift 3
mkdir -p "$work"
examples=$source/examples
"$appell" report "$examples/planar_2r.yaml" --t-end 2 --out "$work/planar_2r.html" >/dev/null
"$appell" report "$examples/heavy_top.yaml" --t-end 1 --out "$work/heavy_top.html" >/dev/null
"$appell" report "$examples/slider_crank.yaml" --t-end 2 --out "$work/slider_crank.html" >/dev/null
# A robot large enough for its equations to be written through the recursions' named quantities
# (one KaTeX block a section).
"$appell" report "$examples/urdf/ur5_robot.urdf" --t-end 0.2 --out "$work/ur5.html" >/dev/null
grep -q 'recursions over the frames' "$work/ur5.html"
# A model with generalized speeds: the free box flipping about its intermediate axis, drawn turning
# by its quaternion, with its speeds plotted.
"$appell" report "$examples/speeds/free_box_quaternion.yaml" --t-end 12 --u0 0,0,0,0.02,3,0.02 \
  --out "$work/free_box.html" >/dev/null
# A run that fails (the mass matrix m cos(x)^2 becomes singular): the page, marked incomplete.
cat >"$work/singular.yaml" <<'YAML'
name: singular-slider
parameters: {m: 1}
coordinates:
  - {name: x, initial: 0, velocity: 3}
frames:
  slide: {translation: [sin(x), 0, 0]}
particles:
  bob: {frame: slide, mass: m}
YAML
if "$appell" report "$work/singular.yaml" --t-end 2 --out "$work/singular.html" >/dev/null 2>&1; then
  echo "FAIL: the report of a failing simulation exited 0"
  exit 1
fi
grep -q '<b>INCOMPLETE</b>' "$work/singular.html"
# simulate --report: the same page for a run of `simulate`.
"$appell" simulate "$examples/double_pendulum.yaml" --t-end 2 --out "$work/double_pendulum.csv" \
  --report "$work/double_pendulum.html" >/dev/null
# Flexible bodies: the suddenly loaded bar and the flexible slider-crank's rod over two turns.
"$appell" fem "$examples/fem/cantilever_box.yaml" --response --t-end 0.1 --step 5e-4 \
  --csv "$work/bar.csv" --report "$work/bar.html" >/dev/null 2>&1
"$appell" fem "$examples/fem/flexible_slider_crank.yaml" --response --t-end 0.0838 --step 2e-5 \
  --nodes 6 --csv "$work/rod.csv" --report "$work/rod.html" >/dev/null 2>&1
# A flexible body on the singular slider: its rigid motion fails, the page says so.
cat "$work/singular.yaml" - >"$work/singular_flexible.yaml" <<'YAML'
flexible:
  - name: strip
    frame: slide
    mesh: {beam: {length: 0.5, elements: 4, planar: true, section: {area: 1e-4, Iz: 1e-9}}}
    material: {E: 2.1e11, nu: 0.3, rho: 7850}
    clamp: {x: 0}
YAML
if "$appell" fem "$work/singular_flexible.yaml" --response --t-end 2 --step 1e-3 --csv /dev/null \
  --report "$work/singular_flexible.html" >/dev/null 2>&1; then
  echo "FAIL: the flexible report of a failing rigid motion exited 0"
  exit 1
fi
grep -q '<b>INCOMPLETE</b>' "$work/singular_flexible.html"
exec node "$source/tests/browser/report_test.mjs" "$@" \
  "$work/planar_2r.html:q1,q2,dot(q1),dot(q2),T,V,E" \
  "$work/heavy_top.html:psi,theta,phi,dot(phi),T,V,E" \
  "$work/slider_crank.html:q1,q2,x,dot(x),E,|loop_x|,|loop_y|,lambda_loop_x,lambda_loop_y" \
  "$work/double_pendulum.html:T,V,E" \
  "$work/ur5.html:T,V,E" \
  "$work/free_box.html:e0,e1,e2,e3,w1,w2,w3,T,E" \
  "$work/singular.html:x,dot(x),T" \
  "$work/bar.html:n40_ux,n40_uy,n40_uz,max|u|" \
  "$work/rod.html:n6_ux,n6_uy,max|u|"
