#!/usr/bin/env bash
# Installs what the `appell` command needs (scripts/setup.sh --tool: not the tests' packages),
# builds the command alone (not the tests, benchmarks or the Python package) and runs
# `appell demo`: the seed 000 robot by Lagrange II and Gibbs-Appell, their agreement, and what
# each cost. A build/ configured before (by scripts/build.sh or test.sh) keeps its configuration.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh --tool
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DAPPELL_WERROR=ON -DAPPELL_BUILD_TESTS=OFF \
    -DAPPELL_BUILD_BENCH=OFF -DAPPELL_BUILD_PYTHON=OFF
fi
cmake --build build -j"$(nproc)" --target appell_cli
./build/appell demo
