#!/usr/bin/env bash
# The README's main job: install what is missing, build, tune the transpose space over the sizes
# 128..4096 on the GPU, then show the best configurations and generate the tuned header.
# Without a GPU the sweep cannot run: the search space is shown and the reason printed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >/dev/null
tune=build/tune
db="${TUNE_DB:-results/tuning.db}"
status=0
$tune --space spaces/transpose.json --sizes 128:4096 --db "$db" || status=$?
if [ "$status" -eq 3 ]; then
  echo "main: no GPU on this machine; the transpose search space that a GPU run would sweep:"
  $tune space --space spaces/transpose.json
  exit 0
fi
[ "$status" -eq 0 ] || exit "$status"
$tune best --kernel transpose --db "$db"
$tune header --kernel transpose --db "$db"
