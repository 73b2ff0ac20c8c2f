#!/usr/bin/env bash
# Scale-out through existing distributed engines, adaptcore as the node-local GEMM
# (bench/scaleout/README.md), on this machine over loopback:
#   1. ScaLAPACK PSGEMM over `mpirun -np 2` (Debian libscalapack-openmpi-dev, openmpi-bin), its
#      node BLAS first OpenBLAS (Debian's libblas.so.3), then libadaptcore_blas.so preloaded
#      (ADAPTCORE_VERBOSE counts the calls that reach it); correctness on several block-cyclic
#      layouts and the time of an N^3 product (N = SCALEOUT_N, default 2048).
#   2. A tensor-parallel transformer block in PyTorch over `torchrun --nproc_per_node=2`
#      (gloo), local GEMMs through adaptcore.torch, against the same block in one process.
# Installs what it needs (scripts/setup.sh builds adaptcore and its Python package).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PYTHON="${ADAPTCORE_PYTHON:-python3}"
N="${SCALEOUT_N:-2048}"
ADAPTCORE_SKIP_BASELINES="${ADAPTCORE_SKIP_BASELINES:-1}" bash "$ROOT/scripts/setup.sh" adaptcore_blas
BUILD_DIR="${ADAPTCORE_BUILD_DIR:-$ROOT/build}"
OUT="$ROOT/out/scaleout-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$OUT"

mpicc -O2 -o "$OUT/psgemm_check" "$ROOT/bench/scaleout/psgemm_check.c" -lscalapack-openmpi -lm
MPIRUN=(mpirun --allow-run-as-root --oversubscribe -np 2 --bind-to core)
BLAS="$BUILD_DIR/src/libadaptcore_blas.so"

echo "== ScaLAPACK PSGEMM, node BLAS: $(readlink -f /etc/alternatives/libblas.so.3-x86_64-linux-gnu 2>/dev/null || echo system)"
OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 "${MPIRUN[@]}" "$OUT/psgemm_check" --time "$N" \
  | tee "$OUT/psgemm-openblas.jsonl"
echo "== ScaLAPACK PSGEMM, node BLAS: adaptcore ($BLAS preloaded)"
"${MPIRUN[@]}" -x LD_PRELOAD="$BLAS" -x ADAPTCORE_NUM_THREADS=1 -x ADAPTCORE_VERBOSE=1 \
  "$OUT/psgemm_check" --time "$N" 2> "$OUT/psgemm-adaptcore.calls" \
  | tee "$OUT/psgemm-adaptcore.jsonl"
echo "adaptcore sgemm_ calls logged: $(grep -c '^adaptcore: f32' "$OUT/psgemm-adaptcore.calls")"
"${MPIRUN[@]}" -x LD_PRELOAD="$BLAS" -x ADAPTCORE_NUM_THREADS=1 "$OUT/psgemm_check" \
  --time "$N" | tee "$OUT/psgemm-adaptcore-quiet.jsonl" | grep timed

echo "== Tensor-parallel block (torchrun, gloo), local GEMMs through adaptcore"
cd "$ROOT"
"$PYTHON" -m torch.distributed.run --standalone --nproc_per_node=2 bench/scaleout/tp_mlp.py \
  | tee "$OUT/tp-2ranks.json"
"$PYTHON" -m torch.distributed.run --standalone --nproc_per_node=1 bench/scaleout/tp_mlp.py \
  --threads 2 | tee "$OUT/tp-1rank.json"
echo "scaleout: results in $OUT"
