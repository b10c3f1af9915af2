#!/usr/bin/env bash
# 30 sizes past the range (seed 20261208: at least one extent over 4096), brute-forced: the table
# (call2's run a) and online tuning (the final runtime, twice) against that brute force.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s6
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
mkdir -p build /tmp/r && cp $G/tune build/tune && cp $G/online_bench_H build/online_bench
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
gunzip -c $G/a6.db.gz > /tmp/a.db
S=$(cat $G/beyond30j.txt)
SIZES=$S TUNE=build/tune ONLINE_BENCH=build/online_bench OUT=/tmp/r/online_beyond30j.md BF_DB=/tmp/bf_j.db timeout 200 bash bench/online_sizes.sh /tmp/a.db > /tmp/r/os_j.log 2>&1; echo "exit $?"; tail -n 5 /tmp/r/online_beyond30j.md | head -3; grep -h "measured," /tmp/r/os_j.log
timeout 60 build/online_bench --spec spaces/transpose.json --main-db /tmp/a.db --bf-db /tmp/bf_j.db --sizes $S --launches 64 --out /tmp/r/j_online_2.md > /dev/null 2>&1; echo "again: exit $? $(grep -o 'online after 64 launches[^;]*; [^;]*' /tmp/r/j_online_2.md | head -1)"
gzip -c /tmp/bf_j.db > /tmp/r/bf_j.db.gz
cd /tmp/r && tar czf $OUT/results.tgz . ; date
