#!/usr/bin/env bash
# pip install of the packages given, into ADAPTCORE_PYTHON (default python3), quietly and as
# root: installs pip itself (Debian python3-pip) where it is missing, and passes
# --break-system-packages to an interpreter its distribution manages (PEP 668). Used by
# setup_python.sh and the benchmarks' setup scripts.
set -euo pipefail

PYTHON="${ADAPTCORE_PYTHON:-python3}"
if ! "$PYTHON" -m pip --version >/dev/null 2>&1; then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    echo "pip_install: installing python3-pip"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-pip \
      python3-dev >/dev/null
  else
    echo "pip_install: no pip for $PYTHON" >&2
    exit 1
  fi
fi
PIP=("$PYTHON" -m pip install -q --disable-pip-version-check --root-user-action=ignore)
if "$PYTHON" - <<'PY'
import pathlib, sys, sysconfig
sys.exit(0 if (pathlib.Path(sysconfig.get_path("stdlib")) / "EXTERNALLY-MANAGED").exists() else 1)
PY
then
  PIP+=(--break-system-packages)
fi
exec "${PIP[@]}" "$@"
