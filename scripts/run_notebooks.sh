#!/usr/bin/env bash
# Executes the notebooks of examples/python in place, so that their saved outputs are what this
# build of appell gives: `bash scripts/run_notebooks.sh [BUILD_DIR]` (default build/). Needs the
# Python package built there and Debian's jupyter-nbconvert, python3-ipykernel and
# python3-matplotlib (not in scripts/setup.sh: about 80 packages that only this script uses; it
# tells what to install when they are missing).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=$(realpath "${1:-build}")

if [ ! -f "$build/python/appell/__init__.py" ]; then
  echo "run_notebooks: no Python package in $build/python (build appell first)" >&2
  exit 1
fi
missing=()
for package in jupyter-nbconvert python3-ipykernel python3-matplotlib; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "run_notebooks: install first: apt-get install --no-install-recommends ${missing[*]}" >&2
  exit 1
fi

for notebook in examples/python/*.ipynb; do
  # Debian's interpreter (its kernel), the package from the build; plots inline as PNG.
  (cd "$(dirname "$notebook")" &&
    PYTHONPATH="$build/python" PYDEVD_DISABLE_FILE_VALIDATION=1 \
      /usr/bin/python3 -m nbconvert --to notebook --execute --inplace \
      --ExecutePreprocessor.timeout=600 "$(basename "$notebook")")
  echo "run_notebooks: $notebook executed"
done
