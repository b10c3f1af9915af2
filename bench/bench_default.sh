#!/usr/bin/env bash
# How the default strategy is chosen (issue: search that wins on caches nobody tuned to): every
# strategy on every brute-forced cache at hand, scored by the FGCS 2024 methodology (tune evaluate),
# then leave-one-cache-out: for each cache, the rule (tuner/evaluate/select.h: the best mean among
# the strategies scoring >= 0 on every other cache, else the best worst cache) chooses on the other
# caches, and its choice is scored on the cache it did not see.
#   bench/bench_default.sh [OUT_DIR]
#   REPEATS=100 TUNE=build/tune HUB=../shared/external/benchmark_hub bench/bench_default.sh out
# Caches: benchmark_hub's convolution_milo and dedispersion_milo on A100, A4000, MI250X (HUB), on
# A6000, W6600, W7800 (data/benchmark_hub), and four of this project's recorded H200 sweeps
# (results/recorded: GEMM 4096^3, matching 16384x16384x128, pairwise 1024x2048x32, transpose
# 4096x4096). Writes OUT_DIR/default.txt (the tables) and OUT_DIR/default.json.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out}
tune=${TUNE:-build/tune}
hub=${HUB:-../shared/external/benchmark_hub}
repeats=${REPEATS:-100}
data=data/benchmark_hub
rec=results/recorded
[[ -x "$tune" ]] || { echo "bench_default: $tune is not built (cmake --build build --target tune)" >&2; exit 2; }
mkdir -p "$out"
args=(evaluate --space "$hub/convolution_milo.json" "$hub/dedispersion_milo.json" spaces/gemm.json spaces/matching.json
      spaces/pairwise.json spaces/transpose.json
      --replay "$hub"/convolution_milo/{A100,A4000,MI250X}.json.gz "$data"/convolution_milo/{A6000,W6600,W7800}.json.gz
      "$hub"/dedispersion_milo/{A100,A4000,MI250X}.json.gz "$data"/dedispersion_milo/{A6000,W6600,W7800}.json.gz
      "$rec"/gemm/4096x4096x4096.json.gz "$rec"/matching/16384x16384x128.json.gz "$rec"/pairwise/1024x2048x32.json.gz
      "$rec"/transpose/4096x4096.json.gz
      --strategy all --repeats "$repeats" --seed 1 --leave-one-out)
cpu=$(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
start=$(date +%s)
"$tune" "${args[@]}" > "$out/default.txt"
end=$(date +%s)
{
  echo "command: $tune ${args[*]}"
  echo "date: $(date -u +%F); machine: $cpu, $(nproc) hardware threads; wall $((end - start)) s"
  echo
  cat "$out/default.txt"
} > "$out/default.tmp" && mv "$out/default.tmp" "$out/default.txt"
cat "$out/default.txt"
