#!/usr/bin/env bash
# Installs the build and test dependencies on a fresh Debian 12 machine (as root) and builds
# adaptcore in Release mode into build/. Idempotent: packages already present are not fetched
# again and the build is incremental. Usage: bash scripts/setup.sh [cmake targets...]
# (default: everything). Environment:
#   ADAPTCORE_BUILD_DIR  build directory (default: build, relative to the repository root)
#   ADAPTCORE_JOBS       parallel build jobs (default: all CPUs)
#   ADAPTCORE_SKIP_APT=1 do not touch packages (e.g. not root, dependencies already installed)
#   ADAPTCORE_CMAKE_ARGS extra configure arguments, e.g. "-DADAPTCORE_BUILD_TESTS=ON"
#   ADAPTCORE_SKIP_BASELINES=1 do not install the vendor libraries `adaptcore bench` compares
#                        with (scripts/setup_baselines.sh; each one is optional)
#   ADAPTCORE_SKIP_PYTHON=1 do not install the Python package afterwards
#                        (scripts/setup_python.sh: `pip install .` with torch; ADAPTCORE_TORCH=0
#                        leaves torch out)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${ADAPTCORE_BUILD_DIR:-build}"
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR="$ROOT/$BUILD_DIR" ;; esac
JOBS="${ADAPTCORE_JOBS:-$(nproc)}"

PACKAGES=(build-essential cmake ninja-build libgtest-dev googletest libbenchmark-dev
  nlohmann-json3-dev libcli11-dev libcpuinfo-dev libopenblas-dev pkg-config libblas-test
  libxbyak-dev openmpi-bin libopenmpi-dev libscalapack-openmpi-dev)

missing_packages() {
  local p
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}

if [[ "${ADAPTCORE_SKIP_APT:-0}" != 1 ]]; then
  mapfile -t MISSING < <(missing_packages)
  if ((${#MISSING[@]} > 0)); then
    if [[ $(id -u) -ne 0 ]]; then
      echo "setup: missing packages (${MISSING[*]}); run as root or install them" >&2
      exit 1
    fi
    echo "setup: installing ${MISSING[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${MISSING[@]}" >/dev/null
  fi
fi

# The vendor baselines go in before configuring: their adapter plugins are built only for the
# libraries found at configure time.
if [[ "${ADAPTCORE_SKIP_BASELINES:-0}" != 1 ]]; then
  bash "$ROOT/scripts/setup_baselines.sh"
fi

echo "setup: configuring and building (Release) in $BUILD_DIR"
# An existing build directory keeps its generator (CMake refuses to switch it).
GENERATOR=(-G Ninja)
if [[ -f "$BUILD_DIR/CMakeCache.txt" ]] || ! command -v ninja >/dev/null; then GENERATOR=(); fi
read -r -a EXTRA_ARGS <<<"${ADAPTCORE_CMAKE_ARGS:-}"
cmake -S "$ROOT" -B "$BUILD_DIR" "${GENERATOR[@]}" -DCMAKE_BUILD_TYPE=Release "${EXTRA_ARGS[@]}" \
  >/dev/null
TARGETS=()
for t in "$@"; do TARGETS+=(--target "$t"); done
cmake --build "$BUILD_DIR" --parallel "$JOBS" "${TARGETS[@]}"
# The Python package (docs/PYTHON.md), from this checkout.
if [[ "${ADAPTCORE_SKIP_PYTHON:-0}" != 1 ]]; then
  bash "$ROOT/scripts/setup_python.sh"
fi
