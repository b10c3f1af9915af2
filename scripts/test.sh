#!/usr/bin/env bash
# The test command of the README: installs what is missing, builds (-Werror), checks the format,
# runs the tests.
#   bash scripts/test.sh          the default tier (`ctest -LE slow`): what CI runs, minutes on 2 cores
#   bash scripts/test.sh --slow   every test, the slow tier included (`ctest -L slow` alone: every
#                                 configuration of every shipped space compiled, about half an hour
#                                 on 2 cores): on the GPU machine and before a release
# GPU tests skip with a message when no GPU is present. The tests read only files of the
# repository (third-party data in data/).
# The Kernel Tuner interop tests (Kernel Tuner reads our T1 files and replays our exported caches)
# run with the pinned Kernel Tuner that scripts/kernel_tuner.sh installs from PyPI. In CI (CI=true)
# it is always installed and a failure to install it fails the run; elsewhere a TUNE_KT_PYTHON
# already set is used, and without network those tests skip, saying so.
set -euo pipefail
cd "$(dirname "$0")/.."
tier=(-LE slow)
case "${1:-}" in
  "") ;;
  --slow) tier=() ;;
  *) echo "test: unknown option '$1' (known: --slow)" >&2; exit 2 ;;
esac
bash scripts/deps.sh
# Kernel Tuner installs (pip: about half a minute, mostly one core) while the build runs.
kt_pid=""
kt_out=$(mktemp)
kt_log=$(mktemp)
trap '[ -z "$kt_pid" ] || kill "$kt_pid" 2>/dev/null || true; rm -f "$kt_out" "$kt_log"' EXIT
if [ "${CI:-}" = true ] || [ -z "${TUNE_KT_PYTHON:-}" ]; then
  bash scripts/kernel_tuner.sh > "$kt_out" 2> "$kt_log" &
  kt_pid=$!
fi
bash scripts/build.sh
bash scripts/style.sh  # the format check (clang-format, .clang-format); CI fails on a difference
if [ -n "$kt_pid" ]; then
  kt_ok=true
  wait "$kt_pid" || kt_ok=false
  kt_pid=""
  cat "$kt_log" >&2
  if $kt_ok; then
    TUNE_KT_PYTHON=$(cat "$kt_out")
    export TUNE_KT_PYTHON
  elif [ "${CI:-}" = true ]; then
    echo "test: CI runs the Kernel Tuner tests, but Kernel Tuner could not be installed (above)" >&2
    exit 1
  else
    unset TUNE_KT_PYTHON
    echo "test: Kernel Tuner could not be installed (above): its interop tests will SKIP." >&2
    echo "test: rerun with network, or set TUNE_KT_PYTHON to a python that has kernel_tuner." >&2
  fi
fi
echo "test: Kernel Tuner tests use TUNE_KT_PYTHON=${TUNE_KT_PYTHON:-(unset: skipped)}"
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j "$(nproc)" --timeout 600 "${tier[@]}"
