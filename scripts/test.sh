#!/usr/bin/env bash
# Builds adaptcore and installs its Python package (scripts/setup.sh), runs the whole C++ test
# suite with CTest, then the Python package's pytest suite. With
# ADAPTCORE_FUZZ=1 it then fuzzes the plan-file loader for
# ADAPTCORE_FUZZ_SECONDS (default 30) with scripts/fuzz.sh, where clang++ is installed (its
# own Clang build directory, build-fuzz; skipped with a message otherwise).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ADAPTCORE_CMAKE_ARGS="-DADAPTCORE_BUILD_TESTS=ON ${ADAPTCORE_CMAKE_ARGS:-}" \
  bash "$ROOT/scripts/setup.sh"
BUILD_DIR="${ADAPTCORE_BUILD_DIR:-build}"
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR="$ROOT/$BUILD_DIR" ;; esac
ctest --test-dir "$BUILD_DIR" --output-on-failure -j2 --no-tests=error
# The Python package (installed from this checkout by setup.sh): its pytest suite against numpy,
# and against torch where it is installed (setup_python.sh installs it unless ADAPTCORE_TORCH=0).
if [[ "${ADAPTCORE_SKIP_PYTHON:-0}" != 1 ]]; then
  (cd "$ROOT" && "${ADAPTCORE_PYTHON:-python3}" -m pytest -q python/tests)
fi
if [[ "${ADAPTCORE_FUZZ:-0}" == 1 ]]; then
  bash "$ROOT/scripts/fuzz.sh"
fi
