#!/usr/bin/env bash
# The browser test of appell's HTML report (ctest: browser.report): writes the reports of a planar
# robot, the heavy top and a constrained mechanism (a slider-crank closed by two constraints) and
# of a run that fails, then opens them in headless Chromium (report_test.mjs) with the network
# off. Usage: run.sh APPELL SOURCE_DIR WORK_DIR [--screenshot FILE]
set -euo pipefail
appell=$1 source=$2 work=$3
shift 3
mkdir -p "$work"
examples=$source/examples
"$appell" report "$examples/planar_2r.yaml" --t-end 2 --out "$work/planar_2r.html" >/dev/null
"$appell" report "$examples/heavy_top.yaml" --t-end 1 --out "$work/heavy_top.html" >/dev/null
"$appell" report "$examples/slider_crank.yaml" --t-end 2 --out "$work/slider_crank.html" >/dev/null
# simulate --report: the same page for a run of `simulate`.
"$appell" simulate "$examples/double_pendulum.yaml" --t-end 2 --out "$work/double_pendulum.csv" \
  --report "$work/double_pendulum.html" >/dev/null
exec node "$source/tests/browser/report_test.mjs" "$@" \
  "$work/planar_2r.html:q1,q2,dot(q1),dot(q2),T,V,E" \
  "$work/heavy_top.html:psi,theta,phi,dot(phi),T,V,E" \
  "$work/slider_crank.html:q1,q2,x,dot(x),E,|loop_x|,|loop_y|,lambda_loop_x,lambda_loop_y" \
  "$work/double_pendulum.html:T,V,E"
