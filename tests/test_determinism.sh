#!/usr/bin/env bash
# Every command, run twice in separate processes (so with two different address-space layouts),
# must print the same bytes and write the same files. GiNaC orders terms by address-seeded hashes;
# appell must not let that order reach an output.
# `derive --raw` too: the unsimplified equations keep GiNaC's structure, where GiNaC leaves a sign
# changes from run to run, and the printer reads every product with its sum factors' signs
# normalised (io/equation_writer.cpp, Printer::read).
#
# Usage: test_determinism.sh APPELL SOURCE_DIR
set -uo pipefail
appell=$1
source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$source" || exit 2
# The JIT's shared objects in a cache of this test's own (never the user's): the first pass of
# eval, simulate and inverse compiles, the second loads from the cache; both must print the same.
export APPELL_CACHE_DIR="$work/cache"

failures=0
checked=0

# run NAME ARGS..: runs `appell ARGS` twice; stdout, stderr, the exit code and every file written
# into $work/out must agree. Commands that write a file take it as $OUT.
run() {
  local label=$1
  shift
  for pass in 1 2; do
    rm -rf "$work/out" && mkdir -p "$work/out"
    local args=()
    for a in "$@"; do args+=("${a//\$OUT/$work/out}"); done
    "$appell" "${args[@]}" >"$work/stdout" 2>"$work/stderr"
    echo "exit $?" >>"$work/stdout"
    # simulate's speed line is a time, on stderr by design (docs/user-guide.md): not compared.
    sed -i -E '/^appell simulate: [0-9]+ steps in .* steps\/s \((jit|tape|recursions)\)$/d' "$work/stderr"
    (cd "$work/out" && find . -type f | sort | xargs -r cat) >"$work/files"
    cat "$work/stdout" "$work/stderr" "$work/files" >"$work/pass$pass"
  done
  checked=$((checked + 1))
  if ! cmp -s "$work/pass1" "$work/pass2"; then
    failures=$((failures + 1))
    echo "DIFFERENT between two runs: appell $label"
    diff "$work/pass1" "$work/pass2" | head -n 6 | cut -c1-200
  fi
}

run "demo" demo
for model in examples/*.yaml; do
  run "derive $model" derive "$model"
  run "derive $model --method lagrange --format json" derive "$model" --method lagrange --format json
  run "derive $model --format latex" derive "$model" --format latex
  for format in text latex json; do
    run "derive $model --raw --format $format" derive "$model" --raw --format "$format"
  done
  run "eval $model --json" eval "$model" --json
  run "verify $model" verify "$model" --states 5
  run "statics $model" statics "$model"
  run "linearize $model --modes" linearize "$model" --modes
  run "linearize $model --json --modes" linearize "$model" --json --modes
  run "eval $model --reactions --json" eval "$model" --reactions --json
  run "codegen $model" codegen "$model" --out '$OUT/model.hpp'
  run "codegen $model --language c" codegen "$model" --language c --out '$OUT/model.h'
  run "simulate $model" simulate "$model" --t-end 0.2 --out '$OUT/run.csv'
  run "report $model" report "$model" --t-end 0.2 --out '$OUT/report.html'
done
run "simulate --reactions" simulate examples/planar_2r.yaml --t-end 0.2 --reactions \
  --out '$OUT/run.csv'
run "simulate --report" simulate examples/slider_crank.yaml --t-end 0.2 --out '$OUT/run.csv' \
  --report '$OUT/run.html'
run "inverse planar_2r" inverse examples/planar_2r.yaml --trajectory "q1=sin(t); q2=t^2" \
  --t-end 0.5 --output-step 0.1 --out '$OUT/q.csv'
for model in examples/fem/*.yaml; do
  run "fem $model" fem "$model" --modes 3
done
run "fem --response --report" fem examples/fem/flexible_slider_crank.yaml --response --t-end 0.01 \
  --step 1e-4 --csv '$OUT/rod.csv' --report '$OUT/rod.html'
run "fem --response --report (solid)" fem examples/fem/cantilever_box.yaml --response --t-end 0.02 \
  --step 1e-3 --csv '$OUT/bar.csv' --report '$OUT/bar.html'
run "report --verify numeric" report examples/three_link_arm.yaml --verify numeric --t-end 0.2 \
  --out '$OUT/report.html'
run "fem --derive-element" fem --derive-element beam --elements 1
run "derive speeds" derive examples/speeds/free_box_quaternion.yaml
run "derive speeds --format json" derive examples/speeds/free_box_quaternion.yaml --format json
run "simulate speeds" simulate examples/speeds/free_box_quaternion.yaml --t-end 0.2 \
  --u0 0.1,0,0,0.01,2,0.01 --out '$OUT/run.csv'
run "simulate floating base" simulate examples/urdf/satellite_arm.urdf --floating-base --t-end 0.2 \
  --out '$OUT/run.csv'
run "codegen speeds" codegen examples/speeds/free_box_quaternion.yaml --out '$OUT/model.hpp'
run "codegen floating base --language c" codegen examples/urdf/satellite_arm.urdf --floating-base \
  --language c --out '$OUT/model.h'
run "check planar_2r" check examples/planar_2r.yaml examples/claims/planar_2r_negrean2024.yaml
run "check planar_2r --json" check examples/planar_2r.yaml examples/claims/planar_2r_negrean2024.yaml --json
for format in text latex json; do
  run "derive three_link_arm --intermediates --format $format" derive examples/three_link_arm.yaml \
    --intermediates --format "$format"
done
for model in examples/urdf/*.urdf; do
  [ -e "$model" ] || continue
  run "eval $model --json" eval "$model" --json
  run "derive $model --raw" derive "$model" --raw
  run "import $model" import "$model" --out '$OUT/robot.yaml'
done

echo "determinism: $checked commands run twice, $failures gave different output"
[ "$failures" -eq 0 ]
