#!/usr/bin/env bash
# 30 thin rectangles past the range (seed 20261211: an extent over 4096, aspect at least 8, under
# half 4096^2 elements), drawn after a thin-shape rule was fixed offline: brute force, the table,
# online.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s6
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
mkdir -p build /tmp/r && cp $G/tune build/tune && cp $G/online_bench_H build/online_bench
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
gunzip -c $G/a6.db.gz > /tmp/a.db
S=$(cat $G/thin30m.txt)
SIZES=$S TUNE=build/tune ONLINE_BENCH=build/online_bench OUT=/tmp/r/online_thin30m.md BF_DB=/tmp/bf_m.db timeout 200 bash bench/online_sizes.sh /tmp/a.db > /tmp/r/os_m.log 2>&1; echo "exit $?"; tail -n 5 /tmp/r/online_thin30m.md | head -3; grep -h "measured," /tmp/r/os_m.log
gzip -c /tmp/bf_m.db > /tmp/r/bf_m.db.gz
cd /tmp/r && tar czf $OUT/results.tgz . ; date
