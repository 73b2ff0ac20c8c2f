#!/usr/bin/env bash
# Runs a benchmark suite beside OpenBLAS and keeps the results under out/ (CSV + JSON, named
# after the suite, thread count and time). Usage: bash scripts/bench.sh [suite] [threads]
# (default: llm100 2). Builds first; OpenBLAS runs with OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE
# removed from the environment so that it picks its best kernels (the core is recorded).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SUITE="${1:-llm100}"
THREADS="${2:-2}"
bash "$ROOT/scripts/setup.sh" adaptcore_bench_llm
BUILD_DIR="${ADAPTCORE_BUILD_DIR:-build}"
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR="$ROOT/$BUILD_DIR" ;; esac
mkdir -p "$ROOT/out"
STEM="$ROOT/out/${SUITE}-t${THREADS}-$(date -u +%Y%m%dT%H%M%SZ)"
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \
  "$BUILD_DIR/bench/adaptcore_bench_llm" --suite "$SUITE" --threads "$THREADS" \
  --csv "$STEM.csv" --json "$STEM.json" | tee "$STEM.txt"
