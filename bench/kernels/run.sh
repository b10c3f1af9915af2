#!/bin/bash
# Runs the design-guidance benchmark on the device machine (from the repository root):
#   bench/kernels/run.sh "$OUT"          broad two-stage exploration
#   bench/kernels/run.sh "$OUT" spaces   every configuration of spaces/*.json
# Uses the prebuilt .gpu/bench when its libraries resolve there, else builds it (build.sh).
set -o pipefail
out=${1:-/tmp}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total,temperature.gpu,power.draw --format=csv
bin=$(bench/kernels/build.sh .gpu/bench) || exit 1
list=""
if [ "$2" = "spaces" ]; then
  list=/tmp/configs.txt
  python3 bench/kernels/enumerate_spaces.py spaces/*.json > "$list" || exit 1
  wc -l "$list"
fi
"$bin" "$out" . $list 2>&1 | tee "$out/log.txt"
