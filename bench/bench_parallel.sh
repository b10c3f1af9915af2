#!/usr/bin/env bash
# Strategies proposing batches (search/lanes.h), on simulated GPUs: `tune run --replay --parallel K`
# over recorded sweeps, K = 1, 2, 4, 8, a budget of 10% of the valid configurations, SEEDS seeds:
# per strategy and K, the mean simulated time of the search (Kernel Tuner's clock: a batch takes its
# longest simulated GPU) and how often the best found is within 3% of the cache's best.
#   bench/bench_parallel.sh [OUT_DIR]     (TUNE=build/tune SEEDS=20 STRATEGIES="...")
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out}
tune=${TUNE:-build/tune}
seeds=${SEEDS:-20}
strategies=${STRATEGIES:-random_sample greedy_ils genetic_algorithm bayes_opt}
[[ -x "$tune" ]] || { echo "bench_parallel: $tune is not built (cmake --build build --target tune)" >&2; exit 2; }
[[ "$seeds" =~ ^[1-9][0-9]{0,2}$ ]] || { echo "bench_parallel: SEEDS must be 1..999" >&2; exit 2; }
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$tune" "$work/tune" && tune="$work/tune"  # a rebuild during the run does not pull it away
{
  echo "| cache | strategy | K | evaluations | simulated s (mean) | speed-up over K = 1 | within 3% of the best |"
  echo "|---|---|---|---|---|---|---|"
  for c in gemm/4096x4096x4096 matching/16384x16384x128; do
    kernel=${c%%/*}
    cache=results/recorded/$c.json.gz
    valid=$("$tune" space --space "spaces/$kernel.json" 2>&1 | grep -oE "valid [0-9]+" | grep -oE "[0-9]+")
    budget=$(( (valid + 9) / 10 ))
    for s in $strategies; do
      base=""
      for k in 1 2 4 8; do
        runs="$work/runs.txt"; : > "$runs"
        for seed in $(seq "$seeds"); do
          db="$work/r.db"; rm -f "$db" "$db-wal" "$db-shm"
          "$tune" --log-level warn run --space "spaces/$kernel.json" --replay "$cache" --strategy "$s" \
            --max-fevals "$budget" --seed "$seed" --parallel "$k" --db "$db" | grep "^replayed" >> "$runs"
        done
        # per run: the simulated seconds and the best found over the cache's best
        read -r mean hits < <(sed -E 's/.* ([0-9.]+) s simulated.*\(([0-9.]+)x the cache.*/\1 \2/' "$runs" |
          awk '{ sum += $1; hits += ($2 <= 1.03) } END { printf "%.1f %d\n", sum / NR, hits }')
        [[ -z "$base" ]] && base=$mean
        echo "| $c | $s | $k | $budget | $mean | $(awk -v b="$base" -v m="$mean" 'BEGIN { printf "%.2f", b / m }') | $hits / $seeds |"
      done
    done
  done
} | tee "$out/parallel.md"
