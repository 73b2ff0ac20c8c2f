#!/usr/bin/env bash
# Before/after speed of two adaptcore command-line binaries in the same run: each suite is
# timed in ROUNDS pairs (default 2) alternating old, new / new, old (so drifts of the machine
# hit both alike), adaptcore alone
# (--libs none), 2 threads. Per-shape results go to OUTDIR/<suite>-<old|new>-<run>/results.csv;
# `python3 experiments/ab/ab_suites.py OUTDIR` prints the geomean ratios and the shapes below 0.9
# with their same-binary spread.
#   [ROUNDS=3] [AB_ONLY="f32-random w8a16-quant"] bash experiments/ab/ab_suites.sh OLD NEW OUTDIR
# (AB_ONLY: only the suites named, from the list at the end).
set -euo pipefail
OLD=$1 NEW=$2 OUT=$3
SUITES="${ADAPTCORE_SUITES_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../bench/suites" && pwd)}"
mkdir -p "$OUT"
common=(--libs none --threads 2 --rounds 2 --target 0.04 --settle 0 --max-gflop 40)
run() {  # name binary args...
  local name=$1 bin=$2
  shift 2
  taskset -c 0,1 "$bin" bench "${common[@]}" "$@" --out "$OUT/$name" >/dev/null \
    2>"$OUT/$name.err" || echo "FAIL $name"
}
ROUNDS=${ROUNDS:-2}
while read -r name args; do
  if [[ -n "${AB_ONLY:-}" && " $AB_ONLY " != *" $name "* ]]; then continue; fi
  for r in $(seq 1 "$ROUNDS"); do
    # shellcheck disable=SC2086
    if ((r % 2)); then
      run "$name-old-$r" "$OLD" $args; run "$name-new-$r" "$NEW" $args
    else
      run "$name-new-$r" "$NEW" $args; run "$name-old-$r" "$OLD" $args
    fi
  done
  echo "$(date +%T) done $name"
done <<LIST
f32-llm --suite $SUITES/llm.txt
f32-random --suite random --seed 1 --count 100
bf16-llm --suite $SUITES/llm.txt --dtype bf16
u8s8-llm --suite $SUITES/llm.txt --dtype u8s8
w8a16-quant --suite $SUITES/quant.txt --dtype w8a16
f32-llm-warm --suite $SUITES/llm.txt --operands warm
f32-random-warm --suite random --seed 1 --count 100 --operands warm
LIST
