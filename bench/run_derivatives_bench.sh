#!/usr/bin/env bash
# The derivatives of the dynamics that `appell codegen --derivatives` writes, side by side with
# Pinocchio 3's computeABADerivatives and computeRNEADerivatives, on the same robots at the same
# states, compiled by the same compiler with the same flags into one process:
#   forward   gen::forward_dynamics_derivatives (q̈, ∂q̈/∂q, ∂q̈/∂q̇, M⁻¹)  vs computeABADerivatives
#   inverse   gen::inverse_dynamics_derivatives (∂τ/∂q, ∂τ/∂q̇)          vs computeRNEADerivatives
# on the UR5 and the Panda of examples/urdf and the 7-link spatial chain of the other benchmarks
# (joints alternately about z and y, 0.5 m rods of 1 kg; written here as a URDF so that both
# read the same file). Before timing, every output is compared with Pinocchio's (max |difference|
# relative to the largest entry): the numbers must agree before their speeds mean anything.
#
# Pinocchio is not part of appell and nothing is downloaded here: give the path of its public
# source tree (github.com/stack-of-tasks/pinocchio, 3.x). It is used header-only with Debian's
# Eigen, Boost and urdfdom; its URDF parser's two sources are compiled into the driver, and the
# few headers its CMake would generate (versions, export macros) are written to a scratch folder.
#
#   bash bench/run_derivatives_bench.sh PINOCCHIO_SOURCE [BUILD_DIR]   # BUILD_DIR default: build
#   CXX=clang++ CXXFLAGS="-O3 -march=native" bash bench/run_derivatives_bench.sh ~/pinocchio
#
# Needs the target appell_cli built in BUILD_DIR, and liburdfdom-dev, libboost-dev, libeigen3-dev.
set -euo pipefail

if [ $# -lt 1 ] || [ ! -f "$1/include/pinocchio/algorithm/aba-derivatives.hpp" ]; then
  echo "usage: $0 PINOCCHIO_SOURCE [BUILD_DIR]  (a Pinocchio 3 source tree)" >&2
  exit 2
fi
pinocchio=$(cd "$1" && pwd)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${2:-$root/build}" && pwd)
cxx=${CXX:-c++}
cxxflags=${CXXFLAGS:--O3 -march=native}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The headers Pinocchio's CMake generates (jrl-cmakemodules), as a header-only use needs them.
shim=$work/shim/pinocchio
mkdir -p "$shim/parsers" "$shim/collision" "$shim/extra" "$shim/visualizers"
version=$(sed -n 's/.*<version>\([0-9.]*\)<\/version>.*/\1/p' "$pinocchio/package.xml")
IFS=. read -r major minor patch <<<"${version:-3.0.0}"
config() {  # config LIBRARY_PREFIX: export macros of one of Pinocchio's libraries
  cat <<EOF
#pragma once
#define $1_DLLAPI
#define $1_LOCAL
#define $1_EXPLICIT_INSTANTIATION_DECLARATION_DLLAPI
#define $1_EXPLICIT_INSTANTIATION_DEFINITION_DLLAPI
EOF
}
{
  config PINOCCHIO
  echo "#define PINOCCHIO_MAJOR_VERSION $major"
  echo "#define PINOCCHIO_MINOR_VERSION $minor"
  echo "#define PINOCCHIO_PATCH_VERSION $patch"
  echo "#define PINOCCHIO_VERSION \"$major.$minor.$patch\""
  echo "#define PINOCCHIO_VERSION_AT_LEAST(M, m, p) (PINOCCHIO_MAJOR_VERSION > (M) || (PINOCCHIO_MAJOR_VERSION == (M) && (PINOCCHIO_MINOR_VERSION > (m) || (PINOCCHIO_MINOR_VERSION == (m) && PINOCCHIO_PATCH_VERSION >= (p)))))"
} >"$shim/config.hpp"
config PINOCCHIO_PARSERS >"$shim/parsers/config.hpp"
config PINOCCHIO_COLLISION >"$shim/collision/config.hpp"
config PINOCCHIO_EXTRA >"$shim/extra/config.hpp"
config PINOCCHIO_VISUALIZERS >"$shim/visualizers/config.hpp"
cat >"$shim/deprecated.hpp" <<'EOF'
#pragma once
#define PINOCCHIO_DEPRECATED [[deprecated]]
#define PINOCCHIO_DEPRECATED_MESSAGE(message) [[deprecated(message)]]
EOF
cat >"$shim/warning.hpp" <<'EOF'
#pragma once
#define PINOCCHIO_WARNING(message)
EOF

cat >"$work/driver.cpp" <<'DRIVER'
// Checks the generated derivatives against Pinocchio's at 64 states, then times both, cycling
// through the states so that nothing is hoisted out of the loop; escape() tells the compiler that
// the outputs are read (GCC and Clang syntax).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include GENERATED_HEADER
#include "pinocchio/algorithm/aba-derivatives.hpp"
#include "pinocchio/algorithm/rnea-derivatives.hpp"
#include "pinocchio/parsers/urdf.hpp"

namespace {

constexpr int n = gen::dof;
constexpr int states = 64;
double q[states][n], qd[states][n], qdd[states][n], tau[states][n];
volatile double sink = 0.0;

inline void escape(const void* p) { asm volatile("" : : "g"(p) : "memory"); }

template <class Call>
double nanoseconds_per_call(Call call) {
  using clock = std::chrono::steady_clock;
  long calls = 0;
  double sum = 0.0;
  const auto start = clock::now();
  auto elapsed = clock::duration::zero();
  while (elapsed < std::chrono::milliseconds(500)) {
    for (int k = 0; k < 1000; ++k) sum += call(k % states);
    calls += 1000;
    elapsed = clock::now() - start;
  }
  sink = sink + sum;
  return std::chrono::duration<double, std::nano>(elapsed).count() / static_cast<double>(calls);
}

// max |a - b| over the entries (row-major a, Eigen b), relative to max |b|; `upper`: i <= j only.
double difference(const double* a, const Eigen::MatrixXd& b, bool upper = false) {
  double diff = 0.0, scale = 1e-300;
  for (int i = 0; i < b.rows(); ++i)
    for (int j = upper ? i : 0; j < b.cols(); ++j) {
      diff = std::max(diff, std::fabs(a[i * b.cols() + j] - b(i, j)));
      scale = std::max(scale, std::fabs(b(i, j)));
    }
  return diff / scale;
}

}  // namespace

int main(int argc, char** argv) {
  pinocchio::Model model;
  pinocchio::urdf::buildModel(argv[1], model);
  pinocchio::Data data(model);
  if (model.nq != n || model.nv != n) {
    std::printf("%s: Pinocchio reads %d/%d coordinates, appell %d\n", argv[2], model.nq, model.nv,
                n);
    return 1;
  }
  for (int s = 0; s < states; ++s)
    for (int j = 0; j < n; ++j) {
      q[s][j] = 0.3 + 0.4 * std::sin(1.7 * j + 0.1 * s);
      qd[s][j] = 0.5 * std::cos(1.1 * j + 0.2 * s);
      qdd[s][j] = 0.2 - 0.1 * (j % 5) + 0.01 * s;
      tau[s][j] = 0.5 * std::sin(0.9 * j + 0.3 * s);
    }
  const gen::Parameters P;
  const gen::Inputs IN;
  double a[n], dq[n * n], dv[n * n], minv[n * n];
  using Vector = Eigen::Map<const Eigen::VectorXd>;

  // Agreement, worst over the states.
  double worst_forward = 0.0, worst_minv = 0.0, worst_inverse = 0.0;
  for (int s = 0; s < states; ++s) {
    if (!gen::forward_dynamics_derivatives(0.0, q[s], qd[s], P, IN, a, dq, dv, minv, tau[s])) {
      std::printf("%s: M not positive definite at state %d\n", argv[2], s);
      return 1;
    }
    pinocchio::computeABADerivatives(model, data, Vector(q[s], n), Vector(qd[s], n),
                                     Vector(tau[s], n));
    worst_forward = std::max({worst_forward, difference(a, data.ddq), difference(dq, data.ddq_dq),
                              difference(dv, data.ddq_dv)});
    worst_minv = std::max(worst_minv, difference(minv, data.Minv, true));
    gen::inverse_dynamics_derivatives(0.0, q[s], qd[s], qdd[s], P, IN, dq, dv);
    pinocchio::computeRNEADerivatives(model, data, Vector(q[s], n), Vector(qd[s], n),
                                      Vector(qdd[s], n));
    worst_inverse =
        std::max({worst_inverse, difference(dq, data.dtau_dq), difference(dv, data.dtau_dv)});
  }

  const double ours_forward = nanoseconds_per_call([&](int s) {
    const bool ok = gen::forward_dynamics_derivatives(0.0, q[s], qd[s], P, IN, a, dq, dv, minv,
                                                      tau[s]);
    escape(a);
    escape(dq);
    escape(dv);
    escape(minv);
    return ok ? dq[n] : 0.0;
  });
  const double theirs_forward = nanoseconds_per_call([&](int s) {
    pinocchio::computeABADerivatives(model, data, Vector(q[s], n), Vector(qd[s], n),
                                     Vector(tau[s], n));
    return data.ddq_dq(n - 1, 0);
  });
  const double ours_inverse = nanoseconds_per_call([&](int s) {
    gen::inverse_dynamics_derivatives(0.0, q[s], qd[s], qdd[s], P, IN, dq, dv);
    escape(dq);
    escape(dv);
    return dq[n];
  });
  const double theirs_inverse = nanoseconds_per_call([&](int s) {
    pinocchio::computeRNEADerivatives(model, data, Vector(q[s], n), Vector(qd[s], n),
                                      Vector(qdd[s], n));
    return data.dtau_dq(n - 1, 0);
  });
  std::printf("%-8s dof %d  forward: %8.1f ns vs Pinocchio ABA derivatives %8.1f ns = %.2fx"
              "  (differ by %.1e, M^-1 %.1e)\n",
              argv[2], n, ours_forward, theirs_forward, ours_forward / theirs_forward,
              worst_forward, worst_minv);
  std::printf("%-8s dof %d  inverse: %8.1f ns vs Pinocchio RNEA derivatives %7.1f ns = %.2fx"
              "  (differ by %.1e)\n",
              argv[2], n, ours_inverse, theirs_inverse, ours_inverse / theirs_inverse,
              worst_inverse);
  return 0;
}
DRIVER

# The 7-link spatial chain as a URDF: link i rotates about z (odd i) or y (even i) at the end of
# link i-1; each a rod of 1 kg and 0.5 m along x, its centre of mass in the middle.
chain_urdf() {
  local links=$1 i axis
  echo '<?xml version="1.0"?>'
  echo "<robot name=\"spatial-chain-$links\">"
  echo '  <link name="base"/>'
  for ((i = 1; i <= links; ++i)); do
    axis="0 0 1"
    [ $((i % 2)) -eq 0 ] && axis="0 1 0"
    echo "  <link name=\"link$i\"><inertial><origin xyz=\"0.25 0 0\"/><mass value=\"1\"/>"
    echo "    <inertia ixx=\"0\" ixy=\"0\" ixz=\"0\" iyy=\"0.0208333333333333\" iyz=\"0\" izz=\"0.0208333333333333\"/></inertial></link>"
    echo "  <joint name=\"q$i\" type=\"revolute\"><parent link=\"$([ "$i" -gt 1 ] && echo "link$((i - 1))" || echo base)\"/>"
    echo "    <child link=\"link$i\"/><origin xyz=\"$([ "$i" -gt 1 ] && echo 0.5 || echo 0) 0 0\"/><axis xyz=\"$axis\"/>"
    echo '    <limit lower="-3.14" upper="3.14" effort="100" velocity="10"/></joint>'
  done
  echo '</robot>'
}
chain_urdf 7 >"$work/chain7.urdf"

# Pinocchio's URDF parser, compiled once.
includes=(-I"$work/shim" -I"$pinocchio/include" -isystem /usr/include/eigen3)
defines=(-DPINOCCHIO_WITH_URDFDOM -DBOOST_MPL_CFG_NO_PREPROCESSED_HEADERS
         -DBOOST_MPL_LIMIT_LIST_SIZE=30 -DBOOST_MPL_LIMIT_VECTOR_SIZE=30)
for source in model utils; do
  # shellcheck disable=SC2086  # CXXFLAGS is a list of flags
  "$cxx" -std=c++17 $cxxflags -w "${defines[@]}" "${includes[@]}" -c \
    "$pinocchio/src/parsers/urdf/$source.cpp" -o "$work/urdf_$source.o"
done

echo "$cxx $cxxflags; Pinocchio $version"
for entry in "ur5:$root/examples/urdf/ur5_robot.urdf" "panda:$root/examples/urdf/panda.urdf" \
  "chain7:$work/chain7.urdf"; do
  name=${entry%%:*}
  urdf=${entry#*:}
  "$build/appell" codegen "$urdf" --derivatives --out "$work/$name.hpp" --namespace gen \
    2>/dev/null >/dev/null
  sed -n 's/^\/\/   \([a-z_]*derivatives:\) */    \1 /p' "$work/$name.hpp"
  # shellcheck disable=SC2086
  "$cxx" -std=c++17 $cxxflags -w "${defines[@]}" "${includes[@]}" \
    -DGENERATED_HEADER="\"$work/$name.hpp\"" -o "$work/$name" "$work/driver.cpp" \
    "$work/urdf_model.o" "$work/urdf_utils.o" -lurdfdom_model
  "$work/$name" "$urdf" "$name"
done
