#!/usr/bin/env bash
# Installs what is missing, builds, and runs `appell demo`: the seed 000 robot by Lagrange II
# and Gibbs-Appell, their agreement, and what each cost.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/build.sh
./build/appell demo
