#!/usr/bin/env bash
# The default strategy's best found at a budget of 10% of the valid configurations, replayed from
# brute-forced caches over many seeds (CPU): per cache, the median and worst of best found / the
# cache's best and how many seeds land within 3% of it.
#   bench/replay_budget.sh SPACE CACHE [SPACE CACHE]...
#   (TUNE=build/tune SEEDS=100 STRATEGY=name OPTIONS="--strategy-option k=v" BUDGET=evaluations)
# e.g. bench/replay_budget.sh spaces/gemm_wgmma.json bench/results/wgmma2_h200_2026-11-29/gemm_wgmma_4096x4096x4096_bf.json.gz
set -euo pipefail
tune=${TUNE:-build/tune}
seeds=${SEEDS:-100}
strategy=${STRATEGY:-$("$tune" run --help | tr -s ' \n' ' ' | grep -oE "else [a-z_]+\)" | head -1 | sed -E 's/else ([a-z_]+)\)/\1/')}
[[ -x "$tune" ]] || { echo "replay_budget: $tune is not built (cmake --build build --target tune)" >&2; exit 2; }
[[ "$seeds" =~ ^[1-9][0-9]{0,3}$ ]] || { echo "replay_budget: SEEDS must be 1..9999" >&2; exit 2; }
[[ "${BUDGET:-1}" =~ ^[1-9][0-9]{0,4}$ ]] || { echo "replay_budget: BUDGET must be 1..99999" >&2; exit 2; }
(( $# >= 2 && $# % 2 == 0 )) || { echo "replay_budget: give SPACE CACHE pairs" >&2; exit 2; }
for f in "$@"; do [[ -f "$f" ]] || { echo "replay_budget: $f: no such file" >&2; exit 2; }; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "strategy $strategy${OPTIONS:+ ($OPTIONS)}, budget ${BUDGET:-10% of the valid configurations}, seeds 1..$seeds"
echo
echo "| cache | valid | budget | median best / cache best | worst | within 3% |"
echo "|---|---|---|---|---|---|"
while (( $# )); do
  space=$1 cache=$2
  shift 2
  valid=$("$tune" space --space "$space" 2>&1 | grep -oE "valid [0-9]+" | grep -oE "[0-9]+")
  budget=${BUDGET:-$(( (valid + 9) / 10 ))}
  : > "$work/ratios"
  for seed in $(seq "$seeds"); do
    db="$work/r.db"; rm -f "$db" "$db-wal" "$db-shm"
    # shellcheck disable=SC2086 # OPTIONS: --strategy-option KEY=VALUE words
    "$tune" --log-level warn run --space "$space" --replay "$cache" --strategy "$strategy" ${OPTIONS:-} \
      --max-fevals "$budget" --seed "$seed" --db "$db" | sed -nE 's/.*\(([0-9.]+)x the cache.*/\1/p' >> "$work/ratios"
  done
  python3 - "$work/ratios" "$(basename "$cache")" "$valid" "$budget" <<'PY'
import statistics, sys
r = [float(x) for x in open(sys.argv[1])]
print(f"| {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4]} | {statistics.median(r):.3f} | {max(r):.3f} | "
      f"{sum(x <= 1.03 for x in r)} / {len(r)} |")
PY
done
