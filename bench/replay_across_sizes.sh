#!/usr/bin/env bash
# Search across sizes, measured on the transpose sweep recorded on an H200 (32 sizes, every
# configuration of spaces/transpose.json each): every strategy that is built replays all sizes with
# a fixed small budget per size, with and without starting each size from the best configurations
# found at the nearest sizes searched before it (--no-seed-sizes), over several seeds. Prints, per strategy and mode:
#   quality  = mean over sizes and seeds of (best found / true best of that size) at BUDGET
#   within 2% = share of (size, seed) pairs whose best found at BUDGET is within 2% of the true best
#   to 2%    = evaluations until the best found was within 2% of the size's true best, with LONG
#              evaluations as budget per size: the median over (size, seed) pairs (one that never
#              got there counts as infinite), the mean over those that got there, and how many did
#              not (within LONG, or because the strategy ended first)
#   bench/replay_across_sizes.sh     (BUDGET=20 LONG=100 SEEDS=10 STRATEGIES="..." TUNE=build/tune)
set -euo pipefail
cd "$(dirname "$0")/.."
tune=${TUNE:-build/tune}
budget=${BUDGET:-20}
long=${LONG:-100}
seeds=${SEEDS:-10}
space=spaces/transpose.json
caches=(results/recorded/transpose/*.json.gz)
if [[ -z "${STRATEGIES:-}" ]]; then
  STRATEGIES=$("$tune" run --help | tr -s ' \n' ' ' | sed -n 's/.*search strategy: \(.*\) --strategy-option.*/\1/p' |
               sed 's/ (default.*//' | tr -d ',')
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() {  # strategy mode seed fevals -> JSON file
  local s=$1 mode=$2 seed=$3 fevals=$4 flag=()
  [[ $mode == plain ]] && flag=(--no-seed-sizes)
  rm -f "$tmp/r.db"*
  if ! "$tune" --space "$space" --replay "${caches[@]}" --strategy "$s" --max-fevals "$fevals" --seed "$seed" \
    "${flag[@]}" --db "$tmp/r.db" --json >"$tmp/$s.$mode.$seed.$fevals.json" 2>"$tmp/err"; then
    cat "$tmp/err" >&2
    return 1
  fi
}

ran=()
for s in $STRATEGIES; do
  if ! err=$(run "$s" seeded 1 "$budget" 2>&1); then
    if grep -q "not built yet" <<<"$err"; then echo "($s: not built yet, skipped)"; continue; fi
    echo "$err" >&2; exit 1
  fi
  ran+=("$s")
  n=$seeds
  [[ $s == brute_force ]] && n=1  # deterministic
  for mode in seeded plain; do
    for seed in $(seq 1 "$n"); do
      run "$s" "$mode" "$seed" "$budget"
      run "$s" "$mode" "$seed" "$long"
    done
  done
done

valid=$("$tune" space --space "$space" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["valid"])')
python3 - "$tmp" "$budget" "$long" "${#caches[@]}" "$valid" "${ran[@]}" <<'EOF'
import glob, json, statistics, sys
tmp, budget, long, n_sizes, valid, strategies = *sys.argv[1:4], int(sys.argv[4]), sys.argv[5], sys.argv[6:]
def sizes(s, mode, fevals):
    for f in sorted(glob.glob(f"{tmp}/{s}.{mode}.*.{fevals}.json")):
        yield from json.load(open(f))["sizes"]
print(f"transpose on the H200, {n_sizes} sizes x {valid} configurations; budget {budget} evaluations per size; 'to 2%' with {long}")
print(f"{'strategy':20} {'mode':7} {'quality':>8} {'worst':>6} {'within 2%':>9}   "
      f"{'to 2%: median':>13} {'mean':>5} {'not reached':>11}  runs")
for s in strategies:
    for mode in ("seeded", "plain"):
        q = [r["time_ms"] / r["true_best_time_ms"] for r in sizes(s, mode, budget)]
        t = [r["evaluations_to_2pct"] for r in sizes(s, mode, long)]
        got = [x for x in t if x is not None]
        median = statistics.median([x if x is not None else float("inf") for x in t])
        within = sum(x <= 1.02 for x in q) / len(q)
        print(f"{s:20} {mode:7} {statistics.mean(q):8.4f} {max(q):6.3f} {within:9.0%}   "
              f"{median if median != float('inf') else '>' + long:>13} {statistics.mean(got) if got else float('nan'):5.1f} "
              f"{len(t) - len(got):5d} of {len(t):<4d} {len(q) // n_sizes:3d}")
EOF
