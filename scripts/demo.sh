#!/usr/bin/env bash
# Builds adaptcore (scripts/setup.sh), prints the hardware it sees, and runs the demo suite of
# LLM-like shapes beside OpenBLAS in the same process (about a minute).
#
# OpenBLAS runs with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE removed from the environment: some
# machines set them to force slower AVX2 kernels, which would make the comparison unfair. The
# benchmark prints the OpenBLAS core that actually ran. Extra arguments go to the benchmark,
# e.g. `bash scripts/demo.sh --suite llm100 --csv out/llm100.csv`.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup.sh" adaptcore_cli adaptcore_bench_llm
BUILD_DIR="${ADAPTCORE_BUILD_DIR:-build}"
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR="$ROOT/$BUILD_DIR" ;; esac

echo
echo "== adaptcore hw"
"$BUILD_DIR/tools/adaptcore" hw

echo
echo "== adaptcore vs OpenBLAS, demo suite"
if [[ $# -eq 0 ]]; then set -- --suite demo; fi
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \
  "$BUILD_DIR/bench/adaptcore_bench_llm" --threads "${ADAPTCORE_BENCH_THREADS:-2}" "$@"
