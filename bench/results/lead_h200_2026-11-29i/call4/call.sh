#!/usr/bin/env bash
# Tenth session, call 4: the final binaries (ef94f78: two rounds, two scratch placements, every
# candidate in the result file; tune 8867a5cae054, online_bench ab4d5951b5e7, test_runtime
# 97c662161517). The runtime's GPU tests; a list drawn after the last commit (bench/draw_sizes.py
# --seed 20261226 --inside 40 --beyond 0) with bench/online_sizes.sh (its own brute force, the
# table's pick, online tuning, cuBLAS, the head to head); then on the same brute force the ninth
# session's online_bench (5da9e3ca8063: 32 x 2, the fastest) and the final one again, twice each,
# alternating.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s10
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
for f in tune_f online_bench_f online_bench_v8 test_runtime_f a6.db; do gunzip -kf $G/$f.gz; done
chmod +x $G/tune_f $G/online_bench_f $G/online_bench_v8 $G/test_runtime_f
mkdir -p build /tmp/r4 && cp $G/tune_f build/tune && cp $G/online_bench_f build/online_bench
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
sha256sum build/tune build/online_bench $G/online_bench_v8 $G/test_runtime_f | cut -c1-12
echo "== test_runtime"; timeout 150 $G/test_runtime_f --gtest_filter='*Gpu*:RuntimeHopper.*:OnlineRotation.*:OnlineFile.*' 2>&1 | grep -E "PASSED|FAILED|SKIPPED \]|tests? ran|online at" | tail -n 8
S=$(cat $G/list_f.txt)
SIZES=$S TUNE=build/tune ONLINE_BENCH=build/online_bench OUT=/tmp/r4/online_f.md BF_DB=/tmp/r4/bf_f.db \
  ONLINE_KEEP=/tmp/r4/keep_f timeout 220 bash bench/online_sizes.sh $G/a6.db > /tmp/r4/os_f.log 2>&1; echo "online_sizes f exit $?"
grep -E "^Table's pick|^Head to head:|^Wall" /tmp/r4/online_f.md
grep -hoE "[0-9,]+ measured[^.]*failed" /tmp/r4/os_f.log | tail -1
for rep in 1 2; do
  for B in v8 f; do
    ONLINE_KEEP=/tmp/r4/keep_${B}_$rep timeout 100 $G/online_bench_$B --spec spaces/transpose.json --main-db $G/a6.db \
      --bf-db /tmp/r4/bf_f.db --sizes "$S" --out /tmp/r4/online_${B}_$rep.md > /tmp/r4/${B}_$rep.log 2>&1
    echo "$rep $B exit $? $(grep -oE 'online after 64 launches: [^;]*' /tmp/r4/online_${B}_$rep.md)"
  done
done
gzip -f /tmp/r4/bf_f.db
cd /tmp/r4 && tar czf $OUT/results.tgz . ; date
