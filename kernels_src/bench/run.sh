#!/bin/bash
# Runs the design-guidance benchmark on the device machine (from the repository root):
#   kernels_src/bench/run.sh "$OUT"          broad two-stage exploration
#   kernels_src/bench/run.sh "$OUT" spaces   every configuration of spaces/*.json
# Uses the prebuilt .gpu/bench when its libraries resolve there, else builds it with nvcc.
set -o pipefail
out=${1:-/tmp}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total,temperature.gpu,power.draw --format=csv
bin=.gpu/bench
if ldd "$bin" | grep -q "not found"; then
  ldd "$bin" | grep "not found"
  bin=/tmp/bench
  nvcc -O3 -std=c++20 -arch=sm_90 -Ituner -o "$bin" kernels_src/bench/bench.cu tuner/compile/compile.cpp \
    tuner/compile/resources.cpp tuner/compile/pool.cpp tuner/common/hash.cpp -lnvrtc -lcuda -lcublas || exit 1
fi
list=""
if [ "$2" = "spaces" ]; then
  list=/tmp/configs.txt
  python3 kernels_src/bench/enumerate_spaces.py spaces/*.json > "$list" || exit 1
  wc -l "$list"
fi
"$bin" "$out" . $list 2>&1 | tee "$out/log.txt"
