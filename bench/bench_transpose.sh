#!/usr/bin/env bash
# Transpose performance benchmark on the GPU machine (from the repository root, prebuilt binary):
#   bench/bench_transpose.sh DB [SIZES] [TUNE_BINARY]
# Tunes spaces/transpose.json at SIZES (default 128:16384, every multiple of 128) into DB, with the
# ceilings (cudaMemcpy device to device of the same bytes, cublasSgeam) measured in the same run.
# The sweep resumes where a previous call stopped, so a long sweep can be split over several calls.
# Then: python3 bench/bench_transpose_table.py DB  (the per-size table and the worst ratios).
set -uo pipefail
db=${1:?database}
sizes=${2:-128:16384}
tune=${3:-build/tune}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
/usr/bin/time -f "wall %e s" "$tune" --space spaces/transpose.json --sizes "$sizes" --db "$db" 2>&1 | grep -vE "^\[|^measuring" | tail -4
