#!/usr/bin/env bash
# The sanitizer build (docs/development.md): configures build-asan/ with clang, AddressSanitizer
# and UndefinedBehaviorSanitizer (APPELL_BUILD_FUZZERS=ON: also libFuzzer's instrumentation and
# the fuzz targets of fuzz/), builds only the library, the command line, the tests and the fuzz
# targets (no benchmarks, no Python), and runs the GoogleTest suite (the command-line tests
# included) under the sanitizers. Any report stops the program that made it (abort), so the test
# fails. Extra arguments go to ctest. Needs scripts/setup.sh's packages (clang, libclang-rt-14-dev).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

dir=${APPELL_SANITIZE_DIR:-build-asan}
# -O1 with line tables: reports name file and line, at a fraction of full debug information's
# compile time; no -DNDEBUG, so that assertions (Eigen's index checks among them) hold too.
# Precompiled GiNaC and Eigen headers: clang has none of the warnings that keep them off for GCC
# (CMakeLists.txt), and they are most of what each file compiles.
cmake -S . -B "$dir" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DAPPELL_PRECOMPILE_HEADERS=ON \
  -DAPPELL_WERROR=ON -DAPPELL_BUILD_FUZZERS=ON -DAPPELL_BUILD_BENCH=OFF -DAPPELL_BUILD_PYTHON=OFF \
  >/dev/null
cmake --build "$dir" -j"$(nproc)" --target appell_cli appell_tests \
  fuzz_model_reader fuzz_expression_parser fuzz_gmsh_reader fuzz_claims_reader fuzz_urdf_reader \
  fuzz_results_reader

if [ "${APPELL_SANITIZE_BUILD_ONLY:-0}" = 1 ]; then
  exit 0
fi
# The suite, but for the tests that repeat under the sanitizers, for minutes, what shorter tests
# already run there: the bicycle's verification through the CLI and its weave speeds (its
# derivation and linearization stay, in the other Bicycle tests), the determinism test (every
# command twice: the ordinary build runs it), the growth test (chains up to 60 links; the other
# CodegenRecursive tests keep shorter ones), every real robot read, evaluated and imported, and
# the 40-coordinate humanoid (Dynamics.UrdfRobotsAgreeWithTheFormedEquations and
# CodegenRecursive.UrdfRobotsAgreeWithTheEquations keep the robots). Together they were 40 % of the sanitized suite's time.
# Also the constrained sweep run again on 8 threads for its bits (90 s here; the sweep itself stays,
# in JitConstraints.AConstrainedSweepRunsEachCaseAsItsFormedEquations). APPELL_SANITIZE_ALL=1 runs them too.
heavy='^(BicycleCli\.VerifyAgrees|Bicycle\.WeaveAndCapsizeSpeedsAreTheBenchmarks|cli\.determinism|CodegenRecursive\.InverseDynamicsGrowsLinearly|UrdfExamples\.RealRobotsReadEvaluateAndImport|UrdfScale\..*|JitConstraints\.AConstrainedSweepOnThreadsGivesTheBitsOfOneThread)$'
exclude=()
if [ "${APPELL_SANITIZE_ALL:-0}" != 1 ]; then
  exclude=(-E "$heavy")
fi
ctest --test-dir "$dir" --output-on-failure -j"$(nproc)" "${exclude[@]}" "$@"
