#!/usr/bin/env bash
# Builds everything with AddressSanitizer and UndefinedBehaviorSanitizer in build-asan/ and runs
# the CPU tests there (GPU tests skip without a GPU; the CUDA runtime is not instrumented):
#   bash scripts/sanitize.sh [CTEST_REGEX]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
export PATH="/usr/local/cuda/bin:$PATH"
# CUDA's runtime reserves address ranges ASan would otherwise shadow; leaks of the process-wide
# CUDA and NVRTC state at exit are not ours.
export ASAN_OPTIONS=${ASAN_OPTIONS:-protect_shadow_gap=0:detect_leaks=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTUNE_SANITIZE=ON >/dev/null
cmake --build build-asan -j "$(nproc)"
cd build-asan
ctest --output-on-failure -j "$(nproc)" --timeout 1200 ${1:+-R "$1"}
