#!/usr/bin/env bash
# Tenth session, call 1: online tuning in two rounds (e4ba109). The runtime's GPU tests; two
# held-out lists drawn after the commit (bench/draw_sizes.py: z1 = seed 20261224, 40 inside and 10
# past the range; z2 = seed 20261225, 30 inside and 10 past), each with bench/online_sizes.sh (its
# own brute force, the table's pick, online tuning, cuBLAS, the head to head); then on the same
# brute force, online tuning again by the previous binary (5da9e3ca8063: 32 x 2, the fastest) and
# by the new one a second time (the run-to-run spread).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s10
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
for f in tune_v9 online_bench_v9 online_bench_v8 test_runtime_v9 a6.db; do gunzip -kf $G/$f.gz; done
chmod +x $G/tune_v9 $G/online_bench_v9 $G/online_bench_v8 $G/test_runtime_v9
mkdir -p build /tmp/r1 && cp $G/tune_v9 build/tune && cp $G/online_bench_v9 build/online_bench
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
ldd build/tune | grep -iE "mpi|cuda|not found" | head -5
sha256sum build/tune build/online_bench $G/online_bench_v8 | cut -c1-12
echo "== test_runtime"; timeout 150 $G/test_runtime_v9 --gtest_filter='*Gpu*:RuntimeHopper.*:OnlineRotation.*:OnlineFile.*' 2>&1 | grep -E "PASSED|FAILED|SKIPPED \]|tests? ran|online at" | tail -n 8
for L in z1 z2; do
  S=$(cat $G/list_$L.txt)
  SIZES=$S TUNE=build/tune ONLINE_BENCH=build/online_bench OUT=/tmp/r1/online_$L.md BF_DB=/tmp/r1/bf_$L.db \
    ONLINE_KEEP=/tmp/r1/keep_$L timeout 220 bash bench/online_sizes.sh $G/a6.db > /tmp/r1/os_$L.log 2>&1; echo "online_sizes $L exit $?"
  grep -E "^Table's pick|^Head to head:|^Wall" /tmp/r1/online_$L.md
  grep -hoE "[0-9,]+ measured[^.]*failed" /tmp/r1/os_$L.log | tail -1
  ONLINE_KEEP=/tmp/r1/keep_old_$L timeout 100 $G/online_bench_v8 --spec spaces/transpose.json --main-db $G/a6.db \
    --bf-db /tmp/r1/bf_$L.db --sizes "$S" --out /tmp/r1/online_old_$L.md > /tmp/r1/old_$L.log 2>&1; echo "old $L exit $?"
  grep -E "^Table's pick" /tmp/r1/online_old_$L.md
  ONLINE_KEEP=/tmp/r1/keep_again_$L timeout 100 build/online_bench --spec spaces/transpose.json --main-db $G/a6.db \
    --bf-db /tmp/r1/bf_$L.db --sizes "$S" --out /tmp/r1/online_again_$L.md > /tmp/r1/again_$L.log 2>&1; echo "again $L exit $?"
  grep -E "^Table's pick" /tmp/r1/online_again_$L.md
  gzip -f /tmp/r1/bf_$L.db
done
cd /tmp/r1 && tar czf $OUT/results.tgz . ; date
