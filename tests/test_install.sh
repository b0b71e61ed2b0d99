#!/usr/bin/env bash
# ctest install.examples_cpp: appell used from outside, as installed.
#
#   test_install.sh BUILD_DIR WORK_DIR CMAKE CXX CCACHE SOVERSION LIBDIR DOCDIR
#
# Installs the build in BUILD_DIR into WORK_DIR/prefix, checks the shared library's SONAME and
# appell.pc (pkg-config --cflags --libs appell, and a program linked with those flags), then
# configures, builds and runs the installed examples/cpp with find_package(appell) and
# CMAKE_PREFIX_PATH. Needs no network. CCACHE may be empty.
set -euo pipefail

build_dir=$1
work_dir=$2
cmake=$3
cxx=$4
ccache=$5
soversion=$6
libdir=$7
docdir=$8

prefix=$work_dir/prefix
step() { printf '\n== %s\n' "$*"; }
fail() {
  echo "install test: $*" >&2
  exit 1
}

rm -rf "$work_dir"
mkdir -p "$work_dir"

step "cmake --install $build_dir --prefix $prefix"
"$cmake" --install "$build_dir" --prefix "$prefix" >"$work_dir/install.log" ||
  { cat "$work_dir/install.log"; fail "cmake --install failed"; }
echo "$(grep -c '^-- Installing' "$work_dir/install.log") files installed"

for file in include/appell/principles/derive.hpp include/appell/model/builder.hpp \
  "$libdir/libappell.a" "$libdir/libappell.so" "$libdir/libappell.so.$soversion" bin/appell \
  "$libdir/cmake/appell/appellConfig.cmake" "$libdir/cmake/appell/appellConfigVersion.cmake" \
  "$libdir/cmake/appell/appellTargets.cmake" "$libdir/pkgconfig/appell.pc" \
  "$docdir/examples/cpp/CMakeLists.txt" "$docdir/examples/planar_2r.yaml"; do
  [ -e "$prefix/$file" ] || fail "not installed: $file"
done
# Every public header, none missing.
missing=$(comm -23 \
  <(cd "$(dirname "$0")/../include" && find appell -name '*.hpp' | sort) \
  <(cd "$prefix/include" && find appell -name '*.hpp' | sort))
[ -z "$missing" ] || fail "headers not installed: $missing"

step "SONAME"
soname=$(readelf -d "$prefix/$libdir/libappell.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
echo "libappell.so: SONAME $soname"
[ "$soname" = "libappell.so.$soversion" ] || fail "SONAME is '$soname', not libappell.so.$soversion"

step "the installed appell"
"$prefix/bin/appell" derive "$prefix/$docdir/examples/planar_2r.yaml" >"$work_dir/derive.txt" ||
  fail "installed appell derive failed"
head -n 3 "$work_dir/derive.txt"
version=$("$prefix/bin/appell" --version) || fail "installed appell --version failed"
echo "$version"
case "$version" in "appell $soversion".*) ;; *) fail "appell --version says '$version'" ;; esac

step "pkg-config --cflags --libs appell"
export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
flags=$(pkg-config --cflags --libs appell) || fail "pkg-config appell failed"
echo "$flags"
case " $flags " in *" -lappell "*) ;; *) fail "no -lappell in: $flags" ;; esac
pc_prefix=$(cd "$(pkg-config --variable=prefix appell)" && pwd -P)
[ "$pc_prefix" = "$(cd "$prefix" && pwd -P)" ] || fail "appell.pc prefix is $pc_prefix, not $prefix"
case "$(pkg-config --modversion appell)" in "$soversion".*) ;; *) fail "appell.pc: version $(pkg-config --modversion appell)" ;; esac
# A program linked with those flags alone (against the shared library) runs.
cat >"$work_dir/pc_check.cpp" <<'EOF'
#include <string>

#include "appell/principles/equations.hpp"

int main() {
  return appell::principles::method_name(appell::principles::Method::GibbsAppell) ==
                 "gibbs-appell"
             ? 0
             : 1;
}
EOF
# shellcheck disable=SC2086  # the flags are words
$ccache "$cxx" -std=c++20 -O0 "$work_dir/pc_check.cpp" -o "$work_dir/pc_check" $flags ||
  fail "a program built with pkg-config's flags did not build"
LD_LIBRARY_PATH=$prefix/$libdir "$work_dir/pc_check" || fail "the pkg-config program failed"
echo "a program built with \$(pkg-config --cflags --libs appell) runs"

step "examples/cpp against the installed package (find_package(appell 0.2))"
launcher=()
[ -n "$ccache" ] && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER="$ccache")
"$cmake" -S "$prefix/$docdir/examples/cpp" -B "$work_dir/example" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_COMPILE_WARNING_AS_ERROR=ON \
  "${launcher[@]}" >"$work_dir/example-configure.log" ||
  { cat "$work_dir/example-configure.log"; fail "configuring examples/cpp failed"; }
grep -q "appell_DIR:PATH=$prefix/$libdir/cmake/appell" "$work_dir/example/CMakeCache.txt" ||
  fail "examples/cpp did not find the appell installed in $prefix"
"$cmake" --build "$work_dir/example" || fail "building examples/cpp failed"
"$work_dir/example/double_pendulum" || fail "examples/cpp failed"
