#!/usr/bin/env bash
# What a replay costs per evaluation: brute force over every configuration of a recorded cache
# (default: benchmark_hub dedispersion_milo on the A100, 11,130 configurations), each evaluation
# stored in a fresh database, RUNS times. Prints per evaluation, from the replay's own clocks
# (tune --json): the search's wall time (strategy + lookup + simulated clock + hand-off to the
# writer thread) with and without the strategy's own time, the wall time until every evaluation
# was stored and committed, and the CPU time of the search's and the writer's threads; then the
# whole process (wall, user+sys) against the same command stopped after one evaluation, whose
# difference divided by the evaluations is the earlier way of measuring it.
#   bench/replay_cost.sh [SPEC CACHE]       (RUNS=3 TUNE=build/tune HUB=../shared/external/benchmark_hub)
set -euo pipefail
cd "$(dirname "$0")/.."
tune=${TUNE:-build/tune}
hub=${HUB:-../shared/external/benchmark_hub}
spec=${1:-$hub/dedispersion_milo.json}
cache=${2:-$hub/dedispersion_milo/A100.json.gz}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for run in $(seq 1 "${RUNS:-3}"); do
  for fevals in all 1; do
    rm -f "$tmp"/r.db*
    limit=()
    [[ $fevals == 1 ]] && limit=(--max-fevals 1)
    python3 - "$tune" "$spec" "$cache" "$tmp/r.db" "$fevals" "${limit[@]}" <<'EOF' >>"$tmp/out"
import json, os, subprocess, sys, time
tune, spec, cache, db, fevals, *limit = sys.argv[1:]
t0, c0 = time.time(), os.times()
out = subprocess.run([tune, "--space", spec, "--replay", cache, "--strategy", "brute_force", "--db", db, "--json", *limit],
                     check=True, capture_output=True, text=True).stdout
c1 = os.times()
r = json.loads(out.splitlines()[-1])["sizes"][0]
print(json.dumps({"fevals": fevals, "n": r["evaluations"], "wall": time.time() - t0,
                  "cpu": c1.children_user + c1.children_system - c0.children_user - c0.children_system, **r}))
EOF
  done
done
python3 - "$tmp/out" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
full = [r for r in rows if r["fevals"] == "all"]
one = [r for r in rows if r["fevals"] == "1"]
n = full[0]["n"]
us = lambda x: f"{x / n * 1e6:5.2f}"
print(f"{full[0]['cache']}: {n} evaluations (brute force), per evaluation in µs, {len(full)} runs")
for r, o in zip(full, one):
    print(f"  search {us(r['search_s'])} wall ({us(r['search_s'] - r['strategy_s'])} without the strategy's "
          f"{us(r['strategy_s'])}), cpu {us(r['search_cpu_s'])}; stored and committed {us(r['stored_s'])} wall, "
          f"writer cpu {us(r['writer_cpu_s'])} | process: {r['wall']:.2f} s wall, {r['cpu']:.2f} s cpu; "
          f"one evaluation {o['wall']:.2f} s, {o['cpu']:.2f} s: {us(r['wall'] - o['wall'])} wall, "
          f"{us(r['cpu'] - o['cpu'])} cpu")
EOF
