#!/usr/bin/env bash
# Installs the Python package (docs/PYTHON.md) into ADAPTCORE_PYTHON (default python3) from this
# checkout: its build tools (scikit-build-core, nanobind) and test tools (pytest, numpy) from
# PyPI, then `pip install --no-build-isolation .`, which builds in build-python/ (incremental on
# a second run). The C++ build dependencies come from scripts/setup.sh. Environment:
#   ADAPTCORE_PYTHON      interpreter (default python3)
#   ADAPTCORE_TORCH=0     do not install torch (default: install it, for the PyTorch tests and
#                         the end-to-end benchmark; the PyPI wheel, about 3 GB with its CUDA
#                         libraries, which the CPU build does not use)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${ADAPTCORE_PYTHON:-python3}"
PIP_INSTALL=(bash "$ROOT/scripts/pip_install.sh")

echo "setup_python: build and test tools"
"${PIP_INSTALL[@]}" "scikit-build-core>=0.10" "nanobind>=2.4" "numpy>=1.22" "pytest>=7"
# The extension compiles against the interpreter's headers (Debian: python3-dev).
if ! "$PYTHON" -c 'import os, sysconfig, sys; sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")) else 1)'; then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    echo "setup_python: installing python3-dev"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-dev \
      >/dev/null
  else
    echo "setup_python: Python.h missing for $PYTHON (install its development headers)" >&2
    exit 1
  fi
fi
if [[ "${ADAPTCORE_TORCH:-1}" == 1 ]]; then
  echo "setup_python: torch"
  "${PIP_INSTALL[@]}" torch
fi
echo "setup_python: pip install $ROOT (builds in build-python/)"
cd "$ROOT"
"${PIP_INSTALL[@]}" --no-build-isolation .
