#!/usr/bin/env bash
# Installs what appell needs to build and test on Debian 12, and only what is missing.
# Safe to run again: when everything is installed it changes nothing and needs no network.
# Runs as root, or through sudo otherwise; never reads standard input.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# `--tool`: only what building and running the `appell` command needs (scripts/demo.sh), not the
# tests' and benchmarks' packages (GoogleTest, clang, chromium, Python, ...): the first demo
# installs and builds in minutes.
tool_only=0
if [ "${1:-}" = "--tool" ]; then
  tool_only=1
fi

tool_packages=(
  build-essential cmake pkg-config ccache
  libginac-dev libcln-dev
  libyaml-cpp-dev libcli11-dev nlohmann-json3-dev
  libeigen3-dev libsundials-dev libsuitesparse-dev libspectra-dev libopenblas0-pthread
  liburdfdom-dev
  libhdf5-dev libopenmpi-dev
)

packages=(
  build-essential cmake pkg-config ccache
  libginac-dev libcln-dev
  libyaml-cpp-dev libcli11-dev nlohmann-json3-dev
  libeigen3-dev libsundials-dev libsuitesparse-dev libspectra-dev libopenblas0-pthread
  liburdfdom-dev  # URDF files (urdfdom, with TinyXML and console_bridge)
  libhdf5-dev libopenmpi-dev openmpi-bin  # appell sweep: results in HDF5, cases over MPI ranks
  libgtest-dev libgmock-dev libbenchmark-dev
  pybind11-dev python3-dev python3-numpy python3-pytest python3-sympy  # the Python package, its tests
  python3-h5py python3-pandas python3-distributed  # sweep files read back; appell.sweep on Dask
  clang-format
  clang libclang-rt-14-dev  # the sanitizer build and the fuzz targets (scripts/sanitize.sh, fuzz.sh)
  dpkg-dev file  # cpack -G DEB: dpkg-shlibdeps finds the run-time dependencies
)

# The HTML report's web assets (web/package-lock.json: KaTeX, uPlot, three.js) come from npm, and
# its browser test runs Debian's chromium. Node and npm may come from elsewhere than Debian (a
# newer node): only when missing are Debian's installed.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi
if [ "$tool_only" = 0 ]; then
  packages+=(chromium)
else
  # The report's web assets are embedded in the tool: node and npm stay.
  node_packages=()
  for package in "${packages[@]}"; do
    case "$package" in nodejs | npm) node_packages+=("$package") ;; esac
  done
  packages=("${tool_packages[@]}" "${node_packages[@]}")
fi

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
  if [ "$status" != "installed" ]; then
    missing+=("$package")
  fi
done

# web/node_modules as web/package-lock.json says, by `npm ci`: again only when the lock file changed
# since the last install (a copy of it is kept beside the modules), so a second run needs no network.
install_web_assets() {
  if cmp -s web/package-lock.json web/node_modules/.appell-package-lock.json 2>/dev/null; then
    echo "setup: web assets (web/node_modules) are installed"
    return
  fi
  echo "setup: installing the web assets (npm ci in web/)"
  (cd web && npm ci --no-audit --no-fund --loglevel=error </dev/null)
  cp web/package-lock.json web/node_modules/.appell-package-lock.json
}

if [ "${#missing[@]}" -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages are installed"
  install_web_assets
  exit 0
fi

echo "setup: installing ${missing[*]}"
as_root=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "setup: not root and no sudo; install these as root: ${missing[*]}" >&2
    exit 1
  fi
  as_root=(sudo -n env DEBIAN_FRONTEND=noninteractive)
fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update </dev/null
"${as_root[@]}" apt-get install -y --no-install-recommends "${missing[@]}" </dev/null
install_web_assets
