#!/usr/bin/env bash
# Installs the vendor libraries the benchmark compares adaptcore with (bench/baselines/; see
# bench/README.md, "Vendor baselines"): Debian packages with apt-get, PyPI wheels with pip, as
# root. Idempotent: what is installed already is left alone (no download). Every package is
# optional: one that fails to install is reported and skipped, and the loader then skips that
# baseline at run time, so the script always exits 0.
# Reconfigure the build afterwards (scripts/setup.sh does) so that the adapter plugins for
# Eigen, oneDNN and libxsmm are built against what was installed.
#
# Environment:
#   ADAPTCORE_SKIP_APT=1          do not touch Debian packages
#   ADAPTCORE_SKIP_PIP=1          do not touch PyPI packages
#   ADAPTCORE_PYTHON              interpreter whose pip is used (default: python3, the one the
#                                 build asks for its prefix)
#   ADAPTCORE_BASELINES_UPGRADE=1 upgrade the PyPI packages to the newest release
set -uo pipefail

# Debian: BLIS (pthread flavour, loaded by path), Eigen (headers), libxsmm (static, PIC),
# OpenBLAS (the fallback when scipy-openblas32 is missing; scripts/setup.sh installs it too).
APT_PACKAGES=(libblis-pthread-dev libeigen3-dev libxsmm-dev libopenblas-dev)
# PyPI: MKL (libmkl_rt), oneDNN built for CPUs with GNU OpenMP, and a current OpenBLAS with
# prefixed symbols. The plain `onednn` wheel is not used: its CPU runtime is SYCL, which finds no
# CPU device on a machine without Intel's OpenCL/SYCL CPU runtime.
PIP_PACKAGES=(mkl-devel onednn-devel-cpu-gomp scipy-openblas32)
# Used when the oneDNN wheel cannot be installed.
ONEDNN_APT_FALLBACK=libdnnl-dev

PYTHON="${ADAPTCORE_PYTHON:-python3}"
FAILED=()
is_root() { [[ $(id -u) -eq 0 ]]; }

apt_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

APT_UPDATED=0
apt_install() {  # one package, non-fatal
  local p=$1
  if apt_installed "$p"; then return 0; fi
  if ! is_root; then
    echo "setup_baselines: $p is missing (run as root to install it)" >&2
    return 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  if ((APT_UPDATED == 0)); then
    apt-get update -qq >/dev/null 2>&1 || echo "setup_baselines: apt-get update failed" >&2
    APT_UPDATED=1
  fi
  echo "setup_baselines: apt-get install $p"
  if ! apt-get install -y -qq --no-install-recommends "$p" >/dev/null; then
    echo "setup_baselines: could not install $p: skipped" >&2
    return 1
  fi
}

pip_installed() { "$PYTHON" -m pip show -q "$1" >/dev/null 2>&1; }

pip_install() {  # one package, non-fatal
  local p=$1
  local upgrade=()
  [[ "${ADAPTCORE_BASELINES_UPGRADE:-0}" == 1 ]] && upgrade=(--upgrade)
  if pip_installed "$p" && ((${#upgrade[@]} == 0)); then return 0; fi
  echo "setup_baselines: pip install ${upgrade[*]} $p"
  if ! "$PYTHON" -m pip install -q --disable-pip-version-check --root-user-action=ignore \
    "${upgrade[@]}" "$p"; then
    echo "setup_baselines: could not install $p from PyPI: skipped" >&2
    return 1
  fi
}

if [[ "${ADAPTCORE_SKIP_APT:-0}" != 1 ]]; then
  for p in "${APT_PACKAGES[@]}"; do apt_install "$p" || FAILED+=("$p"); done
fi

if [[ "${ADAPTCORE_SKIP_PIP:-0}" != 1 ]]; then
  if ! "$PYTHON" -m pip --version >/dev/null 2>&1; then
    echo "setup_baselines: no pip for $PYTHON: ${PIP_PACKAGES[*]} skipped" >&2
    FAILED+=("${PIP_PACKAGES[@]}")
  else
    # The SYCL oneDNN wheel installs the same files (libdnnl.so.3, include/oneapi/dnnl) as the
    # CPU one: with both, whichever came last wins. It cannot run here, so it goes, and a CPU
    # wheel already present is reinstalled to restore the files the removal took.
    if pip_installed onednn; then
      echo "setup_baselines: removing the SYCL oneDNN wheel (onednn, onednn-devel)"
      "$PYTHON" -m pip uninstall -q -y --root-user-action=ignore onednn-devel onednn || true
      if pip_installed onednn-cpu-gomp; then
        "$PYTHON" -m pip install -q --disable-pip-version-check --root-user-action=ignore \
          --force-reinstall --no-deps onednn-cpu-gomp onednn-devel-cpu-gomp || true
      fi
    fi
    for p in "${PIP_PACKAGES[@]}"; do
      if ! pip_install "$p"; then
        FAILED+=("$p")
        if [[ $p == onednn-devel-cpu-gomp && "${ADAPTCORE_SKIP_APT:-0}" != 1 ]]; then
          apt_install "$ONEDNN_APT_FALLBACK" || FAILED+=("$ONEDNN_APT_FALLBACK")
        fi
      fi
    done
  fi
fi

if ((${#FAILED[@]} > 0)); then
  echo "setup_baselines: not installed: ${FAILED[*]} (those baselines will be skipped)" >&2
else
  echo "setup_baselines: all baseline libraries present"
fi
exit 0
