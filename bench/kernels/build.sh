#!/bin/bash
# Prints the path of a bench.cu binary that runs on this machine (from the repository root):
#   bin=$(bench/kernels/build.sh [PREBUILT])
# PREBUILT (default .gpu/bench_tp, e.g. built on the development machine and carried) when it is
# executable and its libraries resolve here, else a fresh nvcc build at /tmp/bench_tp (the device
# machine has nvcc). Build messages go to stderr; exits non-zero when the build fails.
set -o pipefail
bin=${1:-.gpu/bench_tp}
if [ -x "$bin" ] && ! ldd "$bin" | grep -q "not found"; then
  echo "$bin"
  exit 0
fi
[ -e "$bin" ] && ldd "$bin" | grep "not found" >&2
nvcc -O3 -std=c++20 -arch=sm_90 -Ituner -o /tmp/bench_tp bench/kernels/bench.cu tuner/compile/compile.cpp \
  tuner/compile/resources.cpp tuner/compile/pool.cpp tuner/common/hash.cpp -lnvrtc -lcuda -lcublas >&2 || exit 1
echo /tmp/bench_tp
