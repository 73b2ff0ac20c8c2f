#!/usr/bin/env bash
# Builds adaptcore (scripts/setup.sh) and runs the whole test suite with CTest.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ADAPTCORE_CMAKE_ARGS="-DADAPTCORE_BUILD_TESTS=ON ${ADAPTCORE_CMAKE_ARGS:-}" \
  bash "$ROOT/scripts/setup.sh"
BUILD_DIR="${ADAPTCORE_BUILD_DIR:-build}"
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR="$ROOT/$BUILD_DIR" ;; esac
ctest --test-dir "$BUILD_DIR" --output-on-failure -j2 --no-tests=error
