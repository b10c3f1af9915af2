#!/usr/bin/env bash
# Installs the pinned Kernel Tuner from PyPI into a virtual environment and prints the path of its
# python (the only thing written to stdout; scripts/test.sh exports it as TUNE_KT_PYTHON for the
# interop tests that have Kernel Tuner read our T1 files and replay our exported caches).
#   venv: $KT_VENV, else ${BUILD_DIR:-build}/ktvenv. A venv that already holds the pinned version
#   is used as it is (no network). Exit 1, with the reason on stderr, when it cannot be installed.
set -euo pipefail
KT_VERSION=1.5.0  # the pin: the Kernel Tuner release the interop tests are written against
cd "$(dirname "$0")/.."
venv="${KT_VENV:-${BUILD_DIR:-build}/ktvenv}"
python="${PYTHON:-python3}"

has_pinned() {
  [ -x "$venv/bin/python" ] &&
    "$venv/bin/python" -c 'import sys, importlib.metadata as m, kernel_tuner
sys.exit(m.version("kernel_tuner") != sys.argv[1])' "$KT_VERSION" 2>/dev/null
}

if ! has_pinned; then
  # Debian's python3 creates venvs only with python3-venv (ensurepip) installed.
  if ! "$python" -c 'import ensurepip, venv' 2>/dev/null; then
    echo "kernel_tuner.sh: installing python3-venv" >&2
    sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq python3-venv >/dev/null
  fi
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
    mkdir -p "$(dirname "$venv")"
    "$python" -m venv --clear "$venv"
  fi
  echo "kernel_tuner.sh: installing kernel_tuner==$KT_VERSION into $venv" >&2
  # Short timeouts: an unreachable index fails in about a minute, not after pip's long retries.
  if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
      --timeout 20 --retries 2 "kernel_tuner==$KT_VERSION" >&2; then
    echo "kernel_tuner.sh: could not install kernel_tuner==$KT_VERSION from PyPI (is https://pypi.org reachable?)" >&2
    exit 1
  fi
  if ! has_pinned; then
    echo "kernel_tuner.sh: $venv/bin/python still has no importable kernel_tuner==$KT_VERSION" >&2
    exit 1
  fi
fi
echo "$(cd "$venv" && pwd)/bin/python"
