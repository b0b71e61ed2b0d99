#!/usr/bin/env bash
# The browser test of appell's HTML report (ctest: browser.report): writes the reports of a planar
# robot, the heavy top, a constrained mechanism (a slider-crank closed by two constraints), a run
# of simulate --report and a run that fails, then opens them in headless Chromium (report_test.mjs) with the network
# off. Usage: run.sh APPELL SOURCE_DIR WORK_DIR [--screenshot FILE]
set -euo pipefail
appell=$1 source=$2 work=$3
shift 3
mkdir -p "$work"
examples=$source/examples
"$appell" report "$examples/planar_2r.yaml" --t-end 2 --out "$work/planar_2r.html" >/dev/null
"$appell" report "$examples/heavy_top.yaml" --t-end 1 --out "$work/heavy_top.html" >/dev/null
"$appell" report "$examples/slider_crank.yaml" --t-end 2 --out "$work/slider_crank.html" >/dev/null
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
exec node "$source/tests/browser/report_test.mjs" "$@" \
  "$work/planar_2r.html:q1,q2,dot(q1),dot(q2),T,V,E" \
  "$work/heavy_top.html:psi,theta,phi,dot(phi),T,V,E" \
  "$work/slider_crank.html:q1,q2,x,dot(x),E,|loop_x|,|loop_y|,lambda_loop_x,lambda_loop_y" \
  "$work/double_pendulum.html:T,V,E" \
  "$work/singular.html:x,dot(x),T"
