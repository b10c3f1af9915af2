#!/usr/bin/env bash
# Seventh session, call 8: the final binaries (55bb9f0: the band rule's scoring at every size over
# the range). 30 sizes over the range (seed 20261216, drawn after the rule was landed):
# bench/online_sizes.sh (brute force, the table's pick from the shipped recording, online tuning with
# the new candidate order, cuBLAS, the head to head); the runtime's GPU tests.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s7/final2
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
gunzip -f $G/*.gz; gunzip -kf .gpu-s7/a6.db.gz; chmod +x $G/*
mkdir -p build /tmp/r && cp $G/tune build/tune && cp $G/online_bench build/online_bench
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
echo "== test_runtime"; timeout 120 $G/test_runtime --gtest_filter='*Gpu*:RuntimeHopper.*' 2>&1 | grep -E "PASSED|FAILED|SKIPPED \]|tests? ran" | tail -n 4
S=$(cat .gpu-s7/beyond30r.txt)
SIZES=$S TUNE=build/tune ONLINE_BENCH=build/online_bench OUT=/tmp/r/online_beyond30r.md BF_DB=/tmp/bf_r.db BF_LOG=/tmp/r/bf_r.log ONLINE_KEEP=/tmp/r/keep_r timeout 400 bash bench/online_sizes.sh .gpu-s7/a6.db > /tmp/r/os_r.log 2>&1; echo "online_sizes exit $?"
grep -E "^Table's pick|^Head to head:|^Wall" /tmp/r/online_beyond30r.md
grep -i "failed" /tmp/r/os_r.log | head -3
gzip -c /tmp/bf_r.db > /tmp/r/bf_r.db.gz
cd /tmp/r && tar czf $OUT/results.tgz . ; date
