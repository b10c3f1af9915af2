#!/usr/bin/env bash
# The README's main job: install what is missing, build the tune binary and the runtime library
# (no tests; `cmake --install build --prefix P` then installs both), tune the transpose space over
# the size design 128..4096 (squares, odd and unaligned extents, rectangles, around the L2: what the
# selection model learns from) on the GPU, then show the best configurations, generate the tuned
# header and the report.
# Without a GPU, the same pipeline runs on the sweep recorded on a GPU machine (results/recorded/),
# replayed from its Kernel Tuner caches, at the design's sizes the recording holds, and says so.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh tune tune_runtime
tune=build/tune
db="${TUNE_DB:-results/tuning.db}"
sizes=design:128:4096
status=0
$tune --space spaces/transpose.json --sizes "$sizes" --db "$db" || status=$?
if [ "$status" -eq 3 ]; then
  recorded=(results/recorded/transpose/*.json.gz)
  device=$(python3 -c 'import gzip,json,sys; print(json.load(gzip.open(sys.argv[1]))["device_name"])' "${recorded[0]}")
  echo
  echo "main: no GPU on this machine: replaying the transpose sweep recorded on an $device"
  echo "main: (${#recorded[@]} sizes in results/recorded/transpose/); the figures below are those measurements."
  db="${TUNE_DB:-results/replay.db}"
  # the closing summary of the replay (one line per size before it)
  $tune --space spaces/transpose.json --sizes "$sizes" --replay "${recorded[@]}" --db "$db" |
    sed -n '/^Replayed\|^Nothing new/,$p'
elif [ "$status" -ne 0 ]; then
  exit "$status"
fi
$tune best --kernel transpose --db "$db"
$tune header --kernel transpose --db "$db"
$tune report --kernel transpose --db "$db"
