#!/usr/bin/env bash
# Regenerates the user guide's pictures of the HTML report (docs/images/report.png: the motion
# part of examples/planar_2r.yaml's page; docs/images/report-flexible.png: the elastic response
# of examples/fem/cantilever_box.yaml) with the browser test itself: headless Chromium, network
# off, after every check of tests/browser/report_test.mjs has run on the pages.
# Usage: scripts/report_screenshot.sh [APPELL] (default build/appell), from anywhere.
set -euo pipefail
source=$(cd "$(dirname "$0")/.." && pwd)
appell=${1:-$source/build/appell}
work=$(mktemp -d "${TMPDIR:-/tmp}/appell-report-screenshot.XXXXXX")
trap 'rm -rf "$work"' EXIT
bash "$source/tests/browser/run.sh" "$appell" "$source" "$work" \
  --screenshot "$source/docs/images/report.png" \
  --flexible-screenshot "$source/docs/images/report-flexible.png"
ls -l "$source/docs/images/report.png" "$source/docs/images/report-flexible.png"
