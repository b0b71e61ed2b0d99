#!/usr/bin/env bash
# Per-call time of the code `appell codegen` writes: mass matrix, forcing, forward dynamics and
# inverse dynamics, for the seed 000 robot and the spatial chains of bench_numeric (the same
# models bench_numeric times through the in-process tape, so the two are comparable), and the
# URDF arms of bench_urdf (examples/urdf: UR5, Panda).
#
# Generated code cannot be compiled portably inside a Google Benchmark run, hence this script:
# it writes each header with the CLI, compiles a small timing driver against it and prints
# nanoseconds per call (the mean over about 0.3 s of calls cycling through 64 states).
#
#   bash bench/run_codegen_bench.sh [BUILD_DIR]      # BUILD_DIR default: build
#   CHAINS="2 7 30" bash bench/run_codegen_bench.sh  # chains to time (default: 7)
#   CXX=clang++ CXXFLAGS="-O3 -march=native" bash bench/run_codegen_bench.sh
#
# Needs the targets appell_cli and bench_numeric built in BUILD_DIR. The 30-link chain's header
# is large (about 10^5 statements) and takes minutes to compile.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
chains=${CHAINS:-7}
cxx=${CXX:-c++}
cxxflags=${CXXFLAGS:--O2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/driver.cpp" <<'DRIVER'
// Times each generated function at 64 fixed states, in turn, so that nothing is hoisted out of
// the loop. After each call escape() tells the compiler that the outputs are read (GCC and Clang
// syntax): otherwise, with the function inlined, it would drop the outputs nobody reads.
#include <chrono>
#include <cmath>
#include <cstdio>
#include GENERATED_HEADER

namespace {

constexpr int n = gen::dof;
constexpr int states = 64;
double q[states][n], qd[states][n], qdd[states][n];
volatile double sink = 0.0;

inline void escape(const void* p) { asm volatile("" : : "g"(p) : "memory"); }

template <class Call>
double nanoseconds_per_call(Call call) {
  using clock = std::chrono::steady_clock;
  long calls = 0;
  double sum = 0.0;
  const auto start = clock::now();
  auto elapsed = clock::duration::zero();
  while (elapsed < std::chrono::milliseconds(300)) {
    for (int k = 0; k < 1000; ++k) {
      sum += call(k % states);
    }
    calls += 1000;
    elapsed = clock::now() - start;
  }
  sink = sink + sum;
  return std::chrono::duration<double, std::nano>(elapsed).count() / static_cast<double>(calls);
}

}  // namespace

int main(int argc, char** argv) {
  for (int s = 0; s < states; ++s)
    for (int j = 0; j < n; ++j) {
      q[s][j] = 0.3 + 0.4 * std::sin(1.7 * j + 0.1 * s);
      qd[s][j] = 0.5 * std::cos(1.1 * j + 0.2 * s);
      qdd[s][j] = 0.2 - 0.1 * (j % 5) + 0.01 * s;
    }
  const gen::Parameters p;
  const gen::Inputs in;
  double M[n * n], f[n], out[n];
  const double mass = nanoseconds_per_call([&](int s) {
    gen::mass_matrix(0.1, q[s], qd[s], p, in, M);
    escape(M);
    return M[0];
  });
  const double forcing = nanoseconds_per_call([&](int s) {
    gen::forcing(0.1, q[s], qd[s], p, in, f);
    escape(f);
    return f[0];
  });
  const double both = nanoseconds_per_call([&](int s) {
    gen::mass_matrix_and_forcing(0.1, q[s], qd[s], p, in, M, f);
    escape(M);
    escape(f);
    return M[0] + f[0];
  });
  const double forward = nanoseconds_per_call([&](int s) {
    const bool ok = gen::forward_dynamics(0.1, q[s], qd[s], p, in, out);
    escape(out);
    return ok ? out[0] : 0.0;
  });
  const double inverse = nanoseconds_per_call([&](int s) {
    gen::inverse_dynamics(0.1, q[s], qd[s], qdd[s], p, in, out);
    escape(out);
    return out[0];
  });
  std::printf("%-8s dof %2d  mass_matrix %9.1f  forcing %9.1f  both %9.1f  forward %9.1f  "
              "inverse %9.1f  ns/call\n",
              argc > 1 ? argv[1] : "", n, mass, forcing, both, forward, inverse);
  return 0;
}
DRIVER

models=("robot:$root/examples/planar_2r.yaml")
for links in $chains; do
  "$build/bench_numeric" --chain-yaml "$links" >"$work/chain$links.yaml"
  models+=("chain$links:$work/chain$links.yaml")
done

models+=("ur5:$root/examples/urdf/ur5_robot.urdf" "panda:$root/examples/urdf/panda.urdf")

echo "generated code, $cxx $cxxflags:"
for entry in "${models[@]}"; do
  name=${entry%%:*}
  model=${entry#*:}
  "$build/appell" codegen "$model" --out "$work/$name.hpp" --namespace gen >/dev/null
  # shellcheck disable=SC2086  # CXXFLAGS is a list of flags
  "$cxx" -std=c++17 $cxxflags -DGENERATED_HEADER="\"$work/$name.hpp\"" -o "$work/$name" \
    "$work/driver.cpp"
  "$work/$name" "$name"
done
