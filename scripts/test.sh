#!/usr/bin/env bash
# Installs what is missing, builds, runs the whole test suite, and checks the formatting of the
# C++ sources with clang-format; then the suite again under the sanitizers and the fuzz targets
# (docs/development.md). This is what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/build.sh

status=0

# Formatting first, so that ctest's summary stays the last thing printed: every C++ file under
# the source folders, as .clang-format says.
mapfile -t sources < <(find include src apps tests bench examples python fuzz -type f \( -name '*.hpp' -o -name '*.cpp' \) 2>/dev/null | sort)
if [ "${#sources[@]}" -gt 0 ]; then
  if clang-format --dry-run --Werror "${sources[@]}"; then
    echo "format: ${#sources[@]} files formatted as .clang-format says"
  else
    echo "format: the files above are not formatted; run: clang-format -i FILE" >&2
    status=1
  fi
fi

# The sanitizer build (scripts/sanitize.sh: the suite under AddressSanitizer and
# UndefinedBehaviorSanitizer, in build-asan/) and the fuzz targets (scripts/fuzz.sh, 20 s each: CI has 40 minutes)
# before the ordinary suite, whose summary stays last. APPELL_SANITIZE_CHECKS=0 skips both.
failed=()
if [ "${APPELL_SANITIZE_CHECKS:-1}" != 0 ]; then
  bash scripts/sanitize.sh || failed+=("the sanitizer suite (build-asan)")
  bash scripts/fuzz.sh "${APPELL_FUZZ_SECONDS:-20}" || failed+=("the fuzz targets (scripts/fuzz.sh)")
fi

ctest --test-dir build --output-on-failure -j2 || status=$?
if [ "${#failed[@]}" -gt 0 ]; then
  status=1
  printf 'test.sh: FAILED: %s\n' "${failed[@]}" >&2
fi
exit "$status"
