#!/usr/bin/env bash
# A short kernel's time per launch from one stream, CUDA context and process to another (the floor
# of any timing method for kernels of a few microseconds: run/timing.h), on the GPU machine:
#   bench/bench_channels.sh [PROCESSES] [N...]
# Builds bench/channel_cost.cu with nvcc for the GPU present, then runs it PROCESSES times
# (default 4) for each N (default 128 1024 4096): each run prints three contexts, one line each.
set -euo pipefail
cd "$(dirname "$0")/.."
processes=${1:-4}
shift || true
sizes=("${@:-128 1024 4096}")
[[ "$processes" =~ ^[1-9][0-9]?$ ]] || { echo "bench_channels: PROCESSES must be 1..99" >&2; exit 2; }
for n in ${sizes[*]}; do
  [[ "$n" =~ ^[0-9]+$ ]] || { echo "bench_channels: N must be a number: $n" >&2; exit 2; }
done
export PATH=/usr/local/cuda/bin:$PATH
bin=$(mktemp -d)/channel_cost
nvcc -O2 -std=c++17 -arch=native -o "$bin" bench/channel_cost.cu
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
for n in ${sizes[*]}; do
  echo "== ${n}x${n}: microseconds per launch"
  for p in $(seq "$processes"); do
    "$bin" "$n" | sed "s/^/process $p: /"
  done
done
