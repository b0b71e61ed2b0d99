#!/usr/bin/env bash
# The regressor in generated code against the inverse dynamics of the same header (issue 29:
# "regressor of the UR5 ≤ 2× the time of its inverse dynamics"): `appell codegen --regressor`
# for each URDF arm of examples/urdf (and any MODEL given), a small driver compiled against it,
# nanoseconds per call of inverse_dynamics and of regressor (calls cycling through 64 states;
# 15 rounds of 30 ms each, the two functions in turn, the fastest round of each: on a shared
# machine the other jobs only ever slow a round down), their ratio and the operation counts from
# the header's comment.
#
#   bash bench/run_regressor_bench.sh [BUILD_DIR] [MODEL ...]   # BUILD_DIR default: build
#   CXX=clang++ CXXFLAGS="-O3 -march=native" bash bench/run_regressor_bench.sh
#
# Needs the target appell_cli built in BUILD_DIR.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
shift || true
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
  models=("$root/examples/urdf/ur5_robot.urdf" "$root/examples/urdf/panda.urdf"
          "$root/examples/planar_2r.yaml" "$root/examples/three_link_arm.yaml")
fi
cxx=${CXX:-c++}
cxxflags=${CXXFLAGS:--O2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/driver.cpp" <<'DRIVER'
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include GENERATED_HEADER

namespace {

constexpr int n = gen::dof;
constexpr int states = 64;
double q[states][n], qd[states][n], qdd[states][n];

inline void escape(const void* p) { asm volatile("" : : "g"(p) : "memory"); }

template <class Call>
double nanoseconds_per_call(Call call) {
  using clock = std::chrono::steady_clock;
  long calls = 0;
  const auto start = clock::now();
  auto elapsed = clock::duration::zero();
  while (elapsed < std::chrono::milliseconds(30)) {
    for (int k = 0; k < 1000; ++k) call(k % states);
    calls += 1000;
    elapsed = clock::now() - start;
  }
  return std::chrono::duration<double, std::nano>(elapsed).count() / static_cast<double>(calls);
}

}  // namespace

int main() {
  for (int s = 0; s < states; ++s)
    for (int j = 0; j < n; ++j) {
      q[s][j] = std::sin(1.0 + s + 0.7 * j);
      qd[s][j] = std::cos(2.0 + 0.3 * s + j);
      qdd[s][j] = std::sin(0.5 * s - j);
    }
  const gen::Parameters p;
  const gen::Inputs in;
  static double tau[n], Y[n * REGRESSOR_COLUMNS];
  double inverse = 1e300, regressor = 1e300;
  for (int round = 0; round < 15; ++round) {
    inverse = std::min(inverse, nanoseconds_per_call([&](int s) {
      gen::inverse_dynamics(0.0, q[s], qd[s], qdd[s], p, in, tau);
      escape(tau);
    }));
    regressor = std::min(regressor, nanoseconds_per_call([&](int s) {
      gen::regressor(0.0, q[s], qd[s], qdd[s], p, in, Y);
      escape(Y);
    }));
  }
  std::printf("%10.1f %10.1f %8.2f\n", inverse, regressor, regressor / inverse);
  return 0;
}
DRIVER

printf '%-22s %4s %7s %10s %10s %8s %10s %10s\n' model dof columns "ID ns" "Y ns" "Y/ID" "ID ops" "Y ops"
for model in "${models[@]}"; do
  name=$(basename "$model")
  header="$work/${name%.*}.hpp"
  "$build/appell" codegen "$model" --regressor --namespace gen --out "$header" >/dev/null
  columns=$(grep -o "row-major dof x [0-9][0-9]*" "$header" | head -1 | awk "{print \$4}")
  id_ops=$(grep -E '^//   inverse_dynamics:' "$header" | awk '{print $3}')
  y_ops=$(grep -E '^//   regressor:' "$header" | awk '{print $3}')
  dof=$(grep -E '^constexpr int dof' "$header" | grep -o '[0-9]*')
  $cxx -std=c++17 $cxxflags -DGENERATED_HEADER="\"$header\"" -DREGRESSOR_COLUMNS="$columns" \
    "$work/driver.cpp" -o "$work/driver"
  read -r inverse regressor ratio < <("$work/driver")
  printf '%-22s %4s %7s %10s %10s %8s %10s %10s\n' "$name" "$dof" "$columns" "$inverse" \
    "$regressor" "$ratio" "$id_ops" "$y_ops"
done
