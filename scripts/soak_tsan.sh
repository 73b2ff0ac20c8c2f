#!/usr/bin/env bash
# Builds the soak test under ThreadSanitizer (its own build directory, only the targets it
# needs) and runs it for a bounded time: callers x data types x configuration changes x fork,
# with every data race reported as a failure. Environment:
#   ADAPTCORE_TSAN_BUILD_DIR  build directory (default: build-tsan)
#   ADAPTCORE_SOAK_SECONDS    soak duration (default here: 15)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${ADAPTCORE_TSAN_BUILD_DIR:-build-tsan}"
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR="$ROOT/$BUILD_DIR" ;; esac
GENERATOR=(-G Ninja)
if [[ -f "$BUILD_DIR/CMakeCache.txt" ]] || ! command -v ninja >/dev/null; then GENERATOR=(); fi
cmake -S "$ROOT" -B "$BUILD_DIR" "${GENERATOR[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DADAPTCORE_SANITIZE=thread -DADAPTCORE_BUILD_BENCH=OFF -DADAPTCORE_BUILD_TOOLS=OFF \
  -DADAPTCORE_BUILD_TESTS=ON -DCMAKE_CXX_FLAGS=-Wno-tsan >/dev/null
cmake --build "$BUILD_DIR" --parallel "${ADAPTCORE_JOBS:-$(nproc)}" --target adaptcore_soak_test
# halt_on_error: the first race fails the run; die_after_fork=0: the child of the soak's fork
# starts threads again, which TSan otherwise refuses.
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 die_after_fork=0 ${TSAN_OPTIONS:-}" \
  ADAPTCORE_SOAK_SECONDS="${ADAPTCORE_SOAK_SECONDS:-15}" ADAPTCORE_SOAK_MAX_DIM=96 \
  "$BUILD_DIR/tests/adaptcore_soak_test"
