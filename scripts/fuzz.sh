#!/usr/bin/env bash
# Runs the libFuzzer targets of fuzz/ (docs/development.md), each for a bounded time, and fails on
# any finding: a crash, a sanitizer report (AddressSanitizer, UndefinedBehaviorSanitizer, a leak),
# an input slower than the per-input timeout, more memory than the limit, or a rejection that is
# not a model::ModelError located at FILE:LINE:COLUMN (the targets abort on those).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#
# SECONDS_PER_TARGET defaults to 60; TARGET is model_reader, expression_parser, gmsh_reader,
# claims_reader, urdf_reader or results_reader (default: all six). The targets are built by scripts/sanitize.sh (build-asan/, or
# APPELL_SANITIZE_DIR). Environment: FUZZ_RUNS=N stops each target after N inputs as well;
# FUZZ_TIMEOUT (seconds per input, default 10), FUZZ_RSS_MB (default 2048).
#
# Each target starts from a seed corpus made from examples/ and tests/data/ at run time (model
# files; the expressions written in them; Gmsh files; claims files; URDF files; results files of
# sweeps of examples/spring_damper_cart.yaml, written by the build's appell) and keeps what it learns in
# build-asan/fuzz/corpus/TARGET, so that a later run starts further on. A finding is saved as
# build-asan/fuzz/artifacts/TARGET-crash-... (or timeout-, oom-, leak-); rerun it with
# build-asan/fuzz/fuzz_TARGET FILE.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)

seconds=${1:-60}
shift || true
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
  targets=(model_reader expression_parser gmsh_reader claims_reader urdf_reader results_reader)
fi
dir=${APPELL_SANITIZE_DIR:-build-asan}
timeout=${FUZZ_TIMEOUT:-10}
rss=${FUZZ_RSS_MB:-2048}
work="$root/$dir/fuzz"
mkdir -p "$work/artifacts"

# Seeds, made afresh each run from what is committed.
seeds="$work/seeds"
rm -rf "$seeds"
mkdir -p "$seeds/model_reader" "$seeds/expression_parser" "$seeds/gmsh_reader" \
  "$seeds/claims_reader" "$seeds/urdf_reader" "$seeds/results_reader"
# A YAML file with `claims:` at its top is a claims file, any other a model file.
models=()
while IFS= read -r file; do
  if grep -q '^claims:' "$file"; then
    cp "$file" "$seeds/claims_reader/$(echo "$file" | tr '/' '_')"
  else
    models+=("$file")
    cp "$file" "$seeds/model_reader/$(echo "$file" | tr '/' '_')"
  fi
done < <(find examples tests/data -name '*.yaml' | sort)
# Claims about the fuzzed model (fuzz/claims_reader.cpp), one of each kind and a few mistakes.
n=0
for claim in '{name: T, kinetic_energy: "M*l^2*dot(q1)^2"}' \
  '{name: M12, mass_matrix: [1, 2], value: "1/3*M*l^2"}' '{name: f1, forcing: 1, value: "0"}' \
  '{name: Qg, generalized_force: q1, load: gravity, value: "-M*g*l*cos(q1)"}' \
  '{name: QS, generalized_force: q2, load: payload, value: "0"}' \
  '{name: L, multiplier: tip, value: "lambda_tip"}' \
  '{name: S, acceleration_energy: "ddot(q1)^2"}' \
  '{name: e1, coordinate: q1, equation: "M*ddot(q1) = 0"}' '&a {name: x, forcing: 3, value: *a}'; do
  printf 'claims:\n  - %s\n' "$claim" >"$seeds/claims_reader/claim_$((n += 1)).yaml"
done
find examples tests/data -name '*.urdf' | sort |
  while IFS= read -r file; do cp "$file" "$seeds/urdf_reader/$(echo "$file" | tr '/' '_')"; done
# The expressions: every `key: value` scalar and every item of a flow list, quotes taken off.
n=0
for file in "${models[@]}"; do
  sed -nE 's/^[[:space:]-]*([A-Za-z_][A-Za-z0-9_]*):[[:space:]]+([^{[#|>].*)$/\2/p; s/.*\[([^]{}]*)\].*/\1/p' "$file" |
    tr ',' '\n' | sed -E 's/#.*//; s/^[[:space:]"'"'"']+//; s/[[:space:]"'"'"'}]+$//' | grep -E '[A-Za-z0-9]' |
    sort -u | while IFS= read -r expression; do
      printf '%s' "$expression" >"$seeds/expression_parser/$(printf '%s' "$expression" | cksum | cut -d' ' -f1)"
    done
done
for rotation in 'rot_z(q1)*rot_x(phi)' 'rot(1,1,0,q2)' 'rot_y(pi/2)*rot_z(-psi)'; do
  printf 'R:%s' "$rotation" >"$seeds/expression_parser/rotation_$((n += 1))"
done
find examples tests/data -name '*.msh' -exec cp {} "$seeds/gmsh_reader/" \;
# Results files, only when results_reader is fuzzed (each takes the sanitized appell a few
# seconds): a series with cases "ok" and "not run" (a shard), a summary with a failed case (a
# negative mass), and a final state without a case run.
if [[ " ${targets[*]} " == *" results_reader "* ]]; then
  cli="$root/$dir/appell"
  cart="$root/examples/spring_damper_cart.yaml"
  if [ -x "$cli" ]; then
    results="$seeds/results_reader"
    export APPELL_CACHE_DIR="$work/cache"
    for args in "--save series --shard 1/2 --grid mc=1,2 --grid q0.theta=0.1,0.4" \
      "--save summary --grid mc=-1,1,2" "--save final --grid mc=1 --shard 1/2"; do
      n=$((n + 1))
      # shellcheck disable=SC2086  # the options are words
      "$cli" sweep "$cart" $args --t-end 0.3 --output-step 0.1 --out "$results/sweep_$n.h5" \
        >/dev/null 2>&1 || echo "fuzz: could not make the seed sweep_$n.h5 ($args)" >&2
    done
  else
    echo "fuzz: $cli is not built: results_reader starts without seeds" >&2
  fi
fi

status=0
summary=()
for target in "${targets[@]}"; do
  exe="$root/$dir/fuzz/fuzz_$target"
  if [ ! -x "$exe" ]; then
    echo "fuzz: $exe is not built; run scripts/sanitize.sh first" >&2
    exit 2
  fi
  corpus="$work/corpus/$target"
  mkdir -p "$corpus"
  log="$work/$target.log"
  options=(-max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb="$rss"
           -dict="$root/fuzz/$target.dict" -artifact_prefix="$work/artifacts/$target-"
           -print_final_stats=1)
  if [ -n "${FUZZ_RUNS:-}" ]; then
    options+=(-runs="$FUZZ_RUNS")
  fi
  echo "fuzz: $target for ${seconds} s"
  # In a scratch folder: a model may name a relative mesh file.
  result=0
  (cd "$(mktemp -d)" && "$exe" "${options[@]}" "$corpus" "$seeds/$target") >"$log" 2>&1 ||
    result=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  if [ "$result" -ne 0 ]; then
    status=1
    # The report: from the first sanitizer, libFuzzer or appell line, at most 80 lines.
    grep -n -m1 -E '==[0-9]+==|^appell fuzz finding|runtime error|^SUMMARY|ALARM' "$log" >/dev/null &&
      sed -n "$(grep -n -m1 -E '==[0-9]+==|^appell fuzz finding|runtime error|ALARM' "$log" | cut -d: -f1),+80p" "$log" >&2 ||
      tail -n 80 "$log" >&2
    summary+=("$target: FINDING after ${runs:-?} runs (exit $result; log $log; input in $work/artifacts/)")
  else
    summary+=("$target: ${runs:-?} runs, ${rate:-?} exec/s, no finding")
  fi
done

for line in "${summary[@]}"; do
  echo "fuzz: $line"
done
exit "$status"
