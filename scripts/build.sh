#!/usr/bin/env bash
# Configures and builds the release tree in build/ (or $BUILD_DIR):
#   bash scripts/build.sh            everything: tune, the tests (GoogleTest) and their helpers
#   bash scripts/build.sh tune       the tune binary alone (no GoogleTest needed), as scripts/main.sh does
# CMake's [NN%] lines show the progress.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=("$@")
if ((${#targets[@]})); then bash scripts/deps.sh main; else bash scripts/deps.sh; fi
export PATH="/usr/local/cuda/bin:$PATH"
build="${BUILD_DIR:-build}"
tests=ON
# A tree configured for tests stays so (its test binaries stay buildable); a fresh main-only build
# leaves GoogleTest out.
if ((${#targets[@]})) && ! grep -q "^TUNE_TESTS:BOOL=ON" "$build/CMakeCache.txt" 2>/dev/null; then tests=OFF; fi
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DTUNE_TESTS=$tests >/dev/null
if ((${#targets[@]})); then
  cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"
else
  cmake --build "$build" -j "$(nproc)"
fi
