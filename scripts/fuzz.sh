#!/usr/bin/env bash
# Builds the libFuzzer target of the plan-file loader (tests/fuzz/plan_file_fuzz.cpp) with Clang,
# AddressSanitizer and UBSan in its own build directory and runs it for a bounded time, seeded
# with the checked-in corpus (tests/fuzz/corpus; new inputs stay in the build directory).
# Needs clang++ with a working -fsanitize=fuzzer (Debian: clang); without it, says so and exits
# 0 (scripts/test.sh calls this with ADAPTCORE_FUZZ=1). Environment:
#   ADAPTCORE_FUZZ_SECONDS   how long the fuzzer runs (default 30)
#   ADAPTCORE_FUZZ_BUILD_DIR build directory (default build-fuzz, relative to the repository)
#   ADAPTCORE_JOBS           parallel build jobs (default: all CPUs)
#   CXX / CC                 the Clang compilers (default clang++ / clang)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${ADAPTCORE_FUZZ_BUILD_DIR:-build-fuzz}"
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR="$ROOT/$BUILD_DIR" ;; esac
JOBS="${ADAPTCORE_JOBS:-$(nproc)}"
SECONDS_TO_RUN="${ADAPTCORE_FUZZ_SECONDS:-30}"
CXX_CLANG="${CXX:-clang++}"
CC_CLANG="${CC:-clang}"
case "$CXX_CLANG" in *clang*) ;; *) CXX_CLANG=clang++ CC_CLANG=clang ;; esac

if ! command -v "$CXX_CLANG" >/dev/null || ! command -v "$CC_CLANG" >/dev/null; then
  echo "fuzz: $CXX_CLANG not found: plan-file fuzzing skipped (install clang to run it)"
  exit 0
fi

echo "fuzz: building adaptcore_plan_file_fuzz ($CXX_CLANG, address;undefined) in $BUILD_DIR"
GENERATOR=(-G Ninja)
if [[ -f "$BUILD_DIR/CMakeCache.txt" ]] || ! command -v ninja >/dev/null; then GENERATOR=(); fi
cmake -S "$ROOT" -B "$BUILD_DIR" "${GENERATOR[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER="$CXX_CLANG" -DCMAKE_C_COMPILER="$CC_CLANG" \
  -DADAPTCORE_BUILD_FUZZ=ON -DADAPTCORE_SANITIZE="address;undefined" \
  -DADAPTCORE_FUZZ_SECONDS="$SECONDS_TO_RUN" -DADAPTCORE_BUILD_BENCH=OFF \
  -DADAPTCORE_BUILD_TOOLS=OFF ${ADAPTCORE_FUZZ_CMAKE_ARGS:-} >/dev/null
if ! grep -q "ADAPTCORE_HAVE_LIBFUZZER:INTERNAL=1" "$BUILD_DIR/CMakeCache.txt"; then
  echo "fuzz: -fsanitize=fuzzer does not link with $CXX_CLANG: plan-file fuzzing skipped"
  exit 0
fi
cmake --build "$BUILD_DIR" --parallel "$JOBS" --target adaptcore_plan_file_fuzz
ctest --test-dir "$BUILD_DIR" -R '^adaptcore_plan_file_fuzz$' --output-on-failure
