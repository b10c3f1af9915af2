#!/usr/bin/env bash
# Ninth session, call 1: V8 binaries (0f6ca53: the inside rule from four class neighbours). The
# runtime's and the header's GPU tests; two held-out lists drawn after the commit
# (bench/draw_sizes.py: w = seed 20261221, 40 inside; x = seed 20261222, 30 inside and 10 past
# the range), each with bench/online_sizes.sh: its own brute force, the table's pick (the shipped
# recording), online tuning, cuBLAS, the head to head.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s9
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
for f in tune_v8 online_bench_v8 test_runtime_v8 test_header_v8 a6.db; do gunzip -kf $G/$f.gz; done
chmod +x $G/tune_v8 $G/online_bench_v8 $G/test_runtime_v8 $G/test_header_v8
mkdir -p build /tmp/r1 && cp $G/tune_v8 build/tune && cp $G/online_bench_v8 build/online_bench
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
ldd build/tune | grep -iE "mpi|cuda|not found" | head -5
echo "== test_runtime"; timeout 150 $G/test_runtime_v8 --gtest_filter='*Gpu*:RuntimeHopper.*:OnlineRotation.*' 2>&1 | grep -E "PASSED|FAILED|SKIPPED \]|tests? ran" | tail -n 5
echo "== test_header"; timeout 150 $G/test_header_v8 --gtest_filter='HeaderHopper.*:*Gpu*' 2>&1 | grep -E "PASSED|FAILED|SKIPPED \]|tests? ran" | tail -n 4
for L in w x; do
  S=$(cat $G/list_$L.txt)
  SIZES=$S TUNE=build/tune ONLINE_BENCH=build/online_bench OUT=/tmp/r1/online_$L.md BF_DB=/tmp/r1/bf_$L.db \
    ONLINE_KEEP=/tmp/r1/keep_$L timeout 200 bash bench/online_sizes.sh $G/a6.db > /tmp/r1/os_$L.log 2>&1; echo "online_sizes $L exit $?"
  grep -E "^Table's pick|^Head to head:|^Wall" /tmp/r1/online_$L.md
  grep -hoE "[0-9,]+ measured[^.]*failed" /tmp/r1/os_$L.log | tail -1
  gzip -f /tmp/r1/bf_$L.db
done
cd /tmp/r1 && tar czf $OUT/results.tgz . ; date
