#!/usr/bin/env bash
# Import speed of the largest real Kernel Tuner cache (dedispersion on the A4000, 12.2 MB of JSON,
# 11,130 entries) into fresh databases: the best of ROUNDS (default 5) wall times. Target: under
# 1 s on an idle machine (release build). CPU timings of the machine it runs on.
#   bench/bench_import.sh [TUNE_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
tune=${1:-build/tune}
file=../shared/external/benchmark_hub/dedispersion_milo/A4000.json.gz
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
best=
for r in $(seq "${ROUNDS:-5}"); do
  start=$(date +%s.%N)
  "$tune" import "$file" --db "$tmp/$r.db" >/dev/null
  t=$(echo "$(date +%s.%N) - $start" | bc)
  echo "round $r: $t s"
  if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
done
echo "best of ${ROUNDS:-5}: $best s (target < 1 s)"
