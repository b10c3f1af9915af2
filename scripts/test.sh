#!/usr/bin/env bash
# The test command of the README: installs what is missing, builds, runs every test.
# GPU tests skip with a message when no GPU is present.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j "$(nproc)" --timeout 600
