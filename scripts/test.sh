#!/usr/bin/env bash
# Installs what is missing, builds, runs the whole test suite, and checks the formatting of the
# C++ sources with clang-format. This is what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/build.sh

status=0

# Formatting first, so that ctest's summary stays the last thing printed: every C++ file under
# the source folders, as .clang-format says.
mapfile -t sources < <(find include src apps tests bench examples python -type f \( -name '*.hpp' -o -name '*.cpp' \) 2>/dev/null | sort)
if [ "${#sources[@]}" -gt 0 ]; then
  if clang-format --dry-run --Werror "${sources[@]}"; then
    echo "format: ${#sources[@]} files formatted as .clang-format says"
  else
    echo "format: the files above are not formatted; run: clang-format -i FILE" >&2
    status=1
  fi
fi

ctest --test-dir build --output-on-failure -j2 || status=$?
exit "$status"
