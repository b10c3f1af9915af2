#!/usr/bin/env bash
# The README's main job: install what is missing, build the tune binary alone (no tests), tune the transpose space over the
# size design 128..4096 (squares, odd and unaligned extents, rectangles, around the L2: what the selection model learns from)
# on the GPU, then show the best configurations, generate the tuned header and the report.
# Without a GPU, the same pipeline runs on the sweep recorded on a GPU machine (results/recorded/),
# replayed from its Kernel Tuner caches, at the design's sizes the recording holds, and says so.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh tune
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
  out=$($tune --space spaces/transpose.json --sizes "$sizes" --replay "${recorded[@]}" --db "$db")
  # A size of the design that the recording lacks is not replayed (the replay takes the caches of
  # the sizes asked for): say which were.
  replayed=$(grep -o 'replayed [^ ]* (recorded on .*, size [0-9x]*)' <<<"$out" | sed 's/.*, size //; s/)$//' | sort -n | tr '\n' ' ' || true)
  echo "main: replayed the $(wc -w <<<"$replayed") sizes of $sizes that the recording holds: $replayed"
  tail -n 3 <<<"$out"
elif [ "$status" -ne 0 ]; then
  exit "$status"
fi
$tune best --kernel transpose --db "$db"
$tune header --kernel transpose --db "$db"
$tune report --kernel transpose --db "$db"
