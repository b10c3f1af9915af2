#!/usr/bin/env bash
# Eighth session, call 5: the final binaries (33ccead: the band rule follows each candidate's trend
# past the range). The runtime's and the header's GPU tests; 40 sizes past the range (seed 20261220,
# `bench/draw_sizes.py --inside 0 --beyond 40`, drawn after the rule was committed) with
# bench/online_sizes.sh: brute force, the table's pick (the shipped recording), online tuning,
# cuBLAS, the head to head.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s8
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
for f in tune_v7 online_bench_v7 test_runtime_v7 test_header_v7 a6.db; do gunzip -kf $G/$f.gz; done
chmod +x $G/tune_v7 $G/online_bench_v7 $G/test_runtime_v7 $G/test_header_v7
mkdir -p build /tmp/r5 && cp $G/tune_v7 build/tune && cp $G/online_bench_v7 build/online_bench
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
echo "== test_runtime"; timeout 150 $G/test_runtime_v7 --gtest_filter='*Gpu*:RuntimeHopper.*:OnlineRotation.*' 2>&1 | grep -E "PASSED|FAILED|SKIPPED \]|tests? ran" | tail -n 5
echo "== test_header"; timeout 150 $G/test_header_v7 --gtest_filter='HeaderHopper.*:*Gpu*' 2>&1 | grep -E "PASSED|FAILED|SKIPPED \]|tests? ran" | tail -n 4
S=$(cat $G/list_v.txt)
SIZES=$S TUNE=build/tune ONLINE_BENCH=build/online_bench OUT=/tmp/r5/online_v.md BF_DB=/tmp/r5/bf_v.db \
  ONLINE_KEEP=/tmp/r5/keep_v timeout 300 bash bench/online_sizes.sh $G/a6.db > /tmp/r5/os_v.log 2>&1; echo "online_sizes v exit $?"
grep -E "^Table's pick|^Head to head:|^Wall" /tmp/r5/online_v.md
grep -hoE "[0-9,]+ measured[^.]*failed" /tmp/r5/os_v.log | tail -1
gzip -f /tmp/r5/bf_v.db
cd /tmp/r5 && tar czf $OUT/results.tgz . ; date
