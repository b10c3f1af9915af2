#!/usr/bin/env bash
# A size split over K MPI ranks runs K independent searches, each with a K-th of the budget and a
# seed of its own (tuning::share_of, share_seed), and decides from all they measured. Offline, on
# the recorded H100 sweeps: how often the best of the K shares is within 3% of the cache's best,
# against one search with the whole budget (K = 1) and against K lockstep lanes (--parallel K,
# search/lanes.h), 10% of the valid configurations, SEEDS seeds.
#   bench/bench_shares.sh [OUT_DIR]     (TUNE=build/tune SEEDS=20 STRATEGY=bayes_opt)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out}
tune=${TUNE:-build/tune}
seeds=${SEEDS:-20}
strategy=${STRATEGY:-bayes_opt}
[[ -x "$tune" ]] || { echo "bench_shares: $tune is not built (cmake --build build --target tune)" >&2; exit 2; }
[[ "$seeds" =~ ^[1-9][0-9]{0,2}$ ]] || { echo "bench_shares: SEEDS must be 1..999" >&2; exit 2; }
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# the best found over the cache's best, of one replay
replay() {  # kernel cache budget seed [parallel]
  local db="$work/r.db"
  rm -f "$db" "$db-wal" "$db-shm"
  "$tune" --log-level warn run --space "spaces/$1.json" --replay "$2" --strategy "$strategy" --max-fevals "$3" \
    --seed "$4" --parallel "${5:-1}" --db "$db" | grep "^replayed" | sed -E 's/.*\(([0-9.]+)x the cache.*/\1/'
}
{
  echo "| cache | K | lockstep lanes (--parallel K): within 3% | independent shares (MPI ranks): within 3% | shares: mean best / cache best |"
  echo "|---|---|---|---|---|"
  for kernel in gemm matching; do
    cache=$(ls results/recorded/h100/$kernel/*.json.gz)
    valid=$("$tune" space --space "spaces/$kernel.json" 2>&1 | grep -oE "valid [0-9]+" | grep -oE "[0-9]+")
    budget=$(((valid + 9) / 10))
    for k in 1 2 4; do
      lanes=0 shares=0 sum=0
      for seed in $(seq "$seeds"); do
        r=$(replay "$kernel" "$cache" "$budget" "$seed" "$k")
        lanes=$((lanes + $(awk -v r="$r" 'BEGIN { print (r <= 1.03) }')))
        best=""
        for ((i = 0; i < k; i++)); do
          b=$((budget / k + (i < budget % k ? 1 : 0)))
          s=$(python3 -c "print(($seed + 0x9E3779B97F4A7C15 * $i) % 2**64)")
          r=$(replay "$kernel" "$cache" "$b" "$s")
          best=$(awk -v a="${best:-1e9}" -v r="$r" 'BEGIN { print (r < a ? r : a) }')
        done
        shares=$((shares + $(awk -v r="$best" 'BEGIN { print (r <= 1.03) }')))
        sum=$(awk -v a="$sum" -v r="$best" 'BEGIN { print a + r }')
      done
      echo "| $kernel $(basename "$cache" .json.gz) | $k | $lanes / $seeds | $shares / $seeds | $(awk -v s="$sum" -v n="$seeds" 'BEGIN { printf "%.3f", s / n }') |"
    done
  done
} | tee "$out/shares.md"
