#!/usr/bin/env bash
# The code `appell codegen` writes, measured: per-call time of every generated function, its
# operation counts (from the header's own comment), the header's size and its compile time, for
# the seed 000 robot, spatial chains (joints alternately about z and y, the chains of
# bench_numeric), planar chains (every joint about z) and the URDF arms of examples/urdf.
#
# Generated code cannot be compiled portably inside a Google Benchmark run, hence this script:
# it writes each header with the CLI, compiles a small timing driver against it (the compile
# time is that of the driver, i.e. of the header with every function used) and prints
# nanoseconds per call (the mean over about 0.3 s of calls cycling through 64 states).
#
#   bash bench/run_codegen_bench.sh [BUILD_DIR]          # BUILD_DIR default: build
#   CHAINS="2 7 10 30" PLANAR="10 30" bash bench/run_codegen_bench.sh
#   CXX=clang++ CXXFLAGS="-O3 -march=native" bash bench/run_codegen_bench.sh
#   LANGUAGE=c bash bench/run_codegen_bench.sh           # the C99 output (compiled as C++)
#
# Needs the target appell_cli built in BUILD_DIR. Deriving the 30-link chains' equations (which
# `appell codegen` does first) takes about a minute each.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
chains=${CHAINS:-2 7 10 30}
planar=${PLANAR:-10 30}
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
  GEN_SETUP
  double M[n * n], f[n], out[n];
  const double mass = nanoseconds_per_call([&](int s) {
    GEN(mass_matrix)(0.1, q[s], qd[s], P, IN, M);
    escape(M);
    return M[0];
  });
  const double forcing = nanoseconds_per_call([&](int s) {
    GEN(forcing)(0.1, q[s], qd[s], P, IN, f);
    escape(f);
    return f[0];
  });
  const double nonlinear = nanoseconds_per_call([&](int s) {
    GEN(nonlinear_effects)(0.1, q[s], qd[s], P, IN, f);
    escape(f);
    return f[0];
  });
  const double gravity = nanoseconds_per_call([&](int s) {
    GEN(gravity)(0.1, q[s], P, IN, f);
    escape(f);
    return f[0];
  });
  const double forward = nanoseconds_per_call([&](int s) {
    const bool ok = GEN(forward_dynamics)(0.1, q[s], qd[s], P, IN, out, nullptr);
    escape(out);
    return ok ? out[0] : 0.0;
  });
  const double inverse = nanoseconds_per_call([&](int s) {
    GEN(inverse_dynamics)(0.1, q[s], qd[s], qdd[s], P, IN, out);
    escape(out);
    return out[0];
  });
  std::printf("%-9s dof %2d  ns/call: mass_matrix %8.1f  forcing %8.1f  nonlinear_effects %8.1f"
              "  gravity %8.1f  forward %8.1f  inverse %8.1f\n",
              argc > 1 ? argv[1] : "", n, mass, forcing, nonlinear, gravity, forward, inverse);
  return 0;
}
DRIVER

# n rods in a chain, each along its frame's x axis; joints about z (planar) or alternately about
# z and y (spatial, as bench_numeric's chains).
chain_yaml() {
  local links=$1 kind=$2 i parent axis
  echo "name: $kind-chain-$links"
  echo "parameters: {m: 1.0, l: 0.5, g: 9.81}"
  printf 'coordinates: ['
  for ((i = 1; i <= links; ++i)); do printf '%sq%d' "$([ "$i" -gt 1 ] && echo ', ')" "$i"; done
  echo "]"
  echo "frames:"
  for ((i = 1; i <= links; ++i)); do
    parent=world
    [ "$i" -gt 1 ] && parent="link$((i - 1)), translation: [l, 0, 0]"
    axis=z
    [ "$kind" = spatial ] && [ $((i % 2)) -eq 0 ] && axis=y
    echo "  link$i: {parent: $parent, rotation: rot_$axis(q$i)}"
  done
  echo "bodies:"
  for ((i = 1; i <= links; ++i)); do
    echo "  rod$i: {frame: link$i, mass: m, com: [l/2, 0, 0], inertia: {rod: {length: l, axis: x}}}"
  done
  if [ "$kind" = spatial ]; then echo "gravity: [0, 0, -g]"; else echo "gravity: [0, -g, 0]"; fi
}

models=("robot:$root/examples/planar_2r.yaml")
for links in $chains; do
  chain_yaml "$links" spatial >"$work/spatial$links.yaml"
  models+=("spatial$links:$work/spatial$links.yaml")
done
for links in $planar; do
  chain_yaml "$links" planar >"$work/planar$links.yaml"
  models+=("planar$links:$work/planar$links.yaml")
done
models+=("ur5:$root/examples/urdf/ur5_robot.urdf" "panda:$root/examples/urdf/panda.urdf")

language=${LANGUAGE:-c++}
if [ "$language" = c ]; then
  # The C header's names carry the prefix `gen_`; its structs come from functions.
  setup='const gen_parameters p_ = gen_default_parameters(); const gen_inputs in_ = gen_default_inputs();'
  defines=(-DGEN_SETUP="$setup" '-DGEN(name)=gen_##name' '-DP=&p_' '-DIN=&in_')
  extension=h
else
  defines=('-DGEN_SETUP=const gen::Parameters p_; const gen::Inputs in_;' '-DGEN(name)=gen::name'
           -DP=p_ -DIN=in_)
  extension=hpp
fi
[ "$language" = c ] && sed -i 's/constexpr int n = gen::dof;/constexpr int n = gen_dof;/' \
  "$work/driver.cpp"

echo "generated code ($language), $cxx $cxxflags:"
for entry in "${models[@]}"; do
  name=${entry%%:*}
  model=${entry#*:}
  start=$(date +%s.%N)
  "$build/appell" codegen "$model" --out "$work/$name.$extension" --namespace gen \
    --language "$language" >/dev/null
  generated=$(date +%s.%N)
  # shellcheck disable=SC2086  # CXXFLAGS is a list of flags
  "$cxx" -std=c++17 $cxxflags "${defines[@]}" -DGENERATED_HEADER="\"$work/$name.$extension\"" \
    -o "$work/$name" "$work/driver.cpp"
  compiled=$(date +%s.%N)
  awk -v name="$name" -v lines="$(wc -l <"$work/$name.$extension")" -v a="$start" \
    -v b="$generated" -v c="$compiled" \
    'BEGIN { printf "%-9s %6d lines, generated in %6.2f s, compiled in %6.2f s\n", name, lines, b - a, c - b }'
  sed -n 's/^\(\/\/\| \*\)   \([a-z_]*:\) */    \2 /p' "$work/$name.$extension"
  "$work/$name" "$name"
done
