#!/usr/bin/env bash
# Seventh session, call 4: 30 fresh sizes never measured (seed 20261213: 20 inside the range, 10 past
# it): brute force, the table's pick (the shipped recording, a6.db), online tuning, cuBLAS, and the
# new head-to-head re-measurement of the three picks per size (bench/online_h2h.py), one run.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s7
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
for f in $G/a6.db.gz $G/tune.gz $G/online_bench.gz; do gunzip -kf "$f"; done; chmod +x $G/tune $G/online_bench
mkdir -p build /tmp/r && cp $G/tune build/tune && cp $G/online_bench build/online_bench
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
S=$(cat $G/fresh30o.txt)
SIZES=$S TUNE=build/tune ONLINE_BENCH=build/online_bench OUT=/tmp/r/online_fresh30o.md BF_DB=/tmp/bf_o.db BF_LOG=/tmp/r/bf_o.log ONLINE_KEEP=/tmp/r/keep_o timeout 400 bash bench/online_sizes.sh $G/a6.db > /tmp/r/os_o.log 2>&1; echo "online_sizes exit $?"; tail -n 40 /tmp/r/online_fresh30o.md
tail -n 5 /tmp/r/os_o.log
gzip -c /tmp/bf_o.db > /tmp/r/bf_o.db.gz
cd /tmp/r && tar czf $OUT/results.tgz . ; date
