#!/usr/bin/env bash
# Ships a sweep measured on a GPU as Kernel Tuner caches (one gzip-compressed cache per problem
# size) under results/recorded/<kernel>/, so that a machine without a GPU can replay it:
#   bench/record_sweep.sh DB KERNEL DEVICE
set -euo pipefail
cd "$(dirname "$0")/.."
db=${1:?database} kernel=${2:?kernel} device=${3:?device}
tune=${TUNE:-build/tune}
out=results/recorded/$kernel
rm -rf "$out" && mkdir -p "$out"
for size in $("$tune" best --kernel "$kernel" --device "$device" --db "$db" --json |
              python3 -c 'import json,sys; print(" ".join(r["size"] for r in json.load(sys.stdin)["sizes"]))'); do
  "$tune" export --format kt-cache --kernel "$kernel" --device "$device" --size "$size" --db "$db" --out "$out/$size.json" >/dev/null
  gzip -9n "$out/$size.json"
done
echo "recorded $(ls "$out" | wc -l) sizes of $kernel on $device in $out ($(du -sh "$out" | cut -f1))"
