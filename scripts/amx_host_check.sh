#!/usr/bin/env bash
# The AMX checks of one host, as one script (for a host met briefly, such as a lent machine):
# the CPU and what `adaptcore hw` says of the amx level, the tile instructions against their
# scalar model (must not skip), the low-precision suites, the calibrated tile rate, and bf16 /
# int8 products at the amx level against the avx512_bf16 one in the same run (the model's choice
# with and without the tile). Writes everything to OUT (default out/amx-check-<time>/).
# Usage: bash scripts/amx_host_check.sh [OUT]
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$ROOT/out/amx-check-$(date -u +%Y%m%dT%H%M%SZ)}"
BUILD="${ADAPTCORE_BUILD_DIR:-$ROOT/build}"
mkdir -p "$OUT"
log() { echo "== $*" | tee -a "$OUT/summary.txt"; }

grep -m1 "model name" /proc/cpuinfo | tee "$OUT/cpu.txt"
grep -o -m1 -w "amx_tile\|amx_bf16\|amx_int8" /proc/cpuinfo | sort -u | tee -a "$OUT/cpu.txt"
if [[ ! -x "$BUILD/tools/adaptcore" ]]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DADAPTCORE_BUILD_TESTS=ON \
    > "$OUT/configure.txt" 2>&1 && cmake --build "$BUILD" -j"$(nproc)" > "$OUT/build.txt" 2>&1 \
    || { log "build failed (see $OUT/build.txt)"; exit 1; }
fi
A="$BUILD/tools/adaptcore"
"$A" hw > "$OUT/hw.txt" 2>&1
log "$(grep -E '^CPU|^  amx ' "$OUT/hw.txt")"

log "tile instructions against the scalar model"
"$BUILD/tests/adaptcore_amx_native_test" > "$OUT/amx_native_test.txt" 2>&1
tail -3 "$OUT/amx_native_test.txt" | tee -a "$OUT/summary.txt"
grep -q SKIPPED "$OUT/amx_native_test.txt" && log "SKIPPED: $(grep -m1 'no AMX' "$OUT/amx_native_test.txt")"

log "low-precision suites (every runner, the amx level's context among them)"
for t in lowp_bf16 lowp_int8 lowp_api amx_model amx_plan amx_wq; do
  "$BUILD/tests/adaptcore_${t}_test" > "$OUT/${t}_test.txt" 2>&1
  echo "$t: $(tail -1 "$OUT/${t}_test.txt")" | tee -a "$OUT/summary.txt"
done

log "calibrate (tile rate, dot rates, bandwidths)"
taskset -c 0 "$A" calibrate --out "$OUT/calibrated.json" > "$OUT/calibrate.txt" 2>&1
grep -E "amx_tiles|dot_|fma_per_cycle_512" "$OUT/calibrate.txt" | tee -a "$OUT/summary.txt"

log "products at amx vs avx512_bf16 (same run), warm: median GFLOP/s (GOP/s int8), kernels, plan, median us"
levels="avx512_bf16 amx"
grep -q "^  amx .*runs here" "$OUT/hw.txt" || { levels="avx512_bf16"; log "the amx level does not run here"; }
for dt in bf16 u8s8 w8a16 w4a16; do
  for shape in "1 4096 4096" "16 4096 4096" "128 4096 4096" "512 4096 4096" "2048 2048 2048"; do
    read -r m n k <<< "$shape"
    for threads in 1 2; do
      for isa in $levels; do
        "$A" run --dtype "$dt" --m "$m" --n "$n" --k "$k" --threads "$threads" --isa "$isa" \
          --seconds 1 --no-peak --json > "$OUT/run.json" 2> "$OUT/run.err"
        echo "$dt $m x $n x $k t$threads $isa: $(python3 -c '
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    print(d.get("gops_median", d.get("gflops")), d.get("kernels"), d.get("plan"), "median us", d.get("median_us"))
except Exception:
    print("no result:", open(sys.argv[2]).read().strip().splitlines()[:1])
' "$OUT/run.json" "$OUT/run.err")" | tee -a "$OUT/summary.txt"
      done
    done
  done
done
log "done: $OUT"
