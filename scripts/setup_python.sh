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

if ! "$PYTHON" -m pip --version >/dev/null 2>&1; then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    echo "setup_python: installing python3-pip"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-pip \
      python3-dev >/dev/null
  else
    echo "setup_python: no pip for $PYTHON" >&2
    exit 1
  fi
fi
PIP=("$PYTHON" -m pip install -q --disable-pip-version-check --root-user-action=ignore)
# An interpreter its distribution manages (Debian's /usr/bin/python3) refuses pip without this.
if "$PYTHON" - <<'PY'
import pathlib, sys, sysconfig
sys.exit(0 if (pathlib.Path(sysconfig.get_path("stdlib")) / "EXTERNALLY-MANAGED").exists() else 1)
PY
then
  PIP+=(--break-system-packages)
fi

echo "setup_python: build and test tools"
"${PIP[@]}" "scikit-build-core>=0.10" "nanobind>=2.4" "numpy>=1.22" "pytest>=7"
if [[ "${ADAPTCORE_TORCH:-1}" == 1 ]]; then
  echo "setup_python: torch"
  "${PIP[@]}" torch
fi
echo "setup_python: pip install $ROOT (builds in build-python/)"
cd "$ROOT"
"${PIP[@]}" --no-build-isolation .
