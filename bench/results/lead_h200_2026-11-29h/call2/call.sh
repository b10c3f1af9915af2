#!/usr/bin/env bash
# Ninth session, call 2: the same V8 binaries as call 1 on a third held-out list drawn after the
# commit (bench/draw_sizes.py: y = seed 20261223, 40 inside the range) with bench/online_sizes.sh:
# its own brute force, the table's pick (the shipped recording), online tuning, cuBLAS, the head
# to head.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s9
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
for f in tune_v8 online_bench_v8 test_runtime_v8 test_header_v8 a6.db; do gunzip -kf $G/$f.gz; done
chmod +x $G/tune_v8 $G/online_bench_v8 $G/test_runtime_v8 $G/test_header_v8
mkdir -p build /tmp/r2 && cp $G/tune_v8 build/tune && cp $G/online_bench_v8 build/online_bench
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
ldd build/tune | grep -iE "mpi|cuda|not found" | head -5
# echo "== test_runtime"; timeout 150 $G/test_runtime_v8 --gtest_filter='*Gpu*:RuntimeHopper.*:OnlineRotation.*' 2>&1 | grep -E "PASSED|FAILED|SKIPPED \]|tests? ran" | tail -n 5
# echo "== test_header"; timeout 150 $G/test_header_v8 --gtest_filter='HeaderHopper.*:*Gpu*' 2>&1 | grep -E "PASSED|FAILED|SKIPPED \]|tests? ran" | tail -n 4
for L in y; do
  S=$(cat $G/list_$L.txt)
  SIZES=$S TUNE=build/tune ONLINE_BENCH=build/online_bench OUT=/tmp/r2/online_$L.md BF_DB=/tmp/r2/bf_$L.db \
    ONLINE_KEEP=/tmp/r2/keep_$L timeout 200 bash bench/online_sizes.sh $G/a6.db > /tmp/r2/os_$L.log 2>&1; echo "online_sizes $L exit $?"
  grep -E "^Table's pick|^Head to head:|^Wall" /tmp/r2/online_$L.md
  grep -hoE "[0-9,]+ measured[^.]*failed" /tmp/r2/os_$L.log | tail -1
  gzip -f /tmp/r2/bf_$L.db
done
cd /tmp/r2 && tar czf $OUT/results.tgz . ; date
