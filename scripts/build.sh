#!/usr/bin/env bash
# Installs what is missing, then configures and builds appell (Release, warnings as errors) in
# build/. Extra arguments go to the CMake configure step, e.g. -DAPPELL_BUILD_BENCH=OFF.
# ccache is used when installed (CMakeLists.txt picks it up).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh
# Tests, benchmarks and Python on explicitly: a build/ that scripts/demo.sh configured for the
# command alone gets them back.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DAPPELL_WERROR=ON -DAPPELL_BUILD_TESTS=ON \
  -DAPPELL_BUILD_BENCH=ON -DAPPELL_BUILD_PYTHON=ON "$@"
cmake --build build -j"$(nproc)"
