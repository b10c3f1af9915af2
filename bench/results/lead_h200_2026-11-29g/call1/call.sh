#!/usr/bin/env bash
# Eighth session, call 1: online tuning's candidates spread over the alignments (select/spread.h).
# The runtime's GPU tests; then three fresh lists of 30 sizes (bench/draw_sizes.py, seeds 20261217,
# 20261218, 20261219: 20 inside the range, 10 past it; drawn after the rule was fixed) with
# bench/online_sizes.sh: brute force, the table's pick (the shipped recording, a6.db), online
# tuning, cuBLAS and the head to head, one run per list.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s8
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
for f in $G/*.gz; do gunzip -kf "$f"; done; chmod +x $G/tune $G/online_bench $G/test_runtime
mkdir -p build /tmp/r && cp $G/tune build/tune && cp $G/online_bench build/online_bench
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
ldd build/tune | grep -E "cuda|nvrtc|mpi" ; git -C . log -1 --format=%h 2>/dev/null
echo "== test_runtime"; timeout 150 $G/test_runtime --gtest_filter='*Gpu*:RuntimeHopper.*:OnlineRotation.*' 2>&1 | grep -E "PASSED|FAILED|SKIPPED \]|tests? ran" | tail -n 5
for l in s t u; do
  echo "== list $l: $(cat $G/list_$l.txt)"
  SIZES=$(cat $G/list_$l.txt) TUNE=build/tune ONLINE_BENCH=build/online_bench OUT=/tmp/r/online_$l.md \
    BF_DB=/tmp/r/bf_$l.db BF_LOG=/tmp/r/bf_$l.log ONLINE_KEEP=/tmp/r/keep_$l \
    timeout 170 bash bench/online_sizes.sh $G/a6.db > /tmp/r/os_$l.log 2>&1; echo "online_sizes $l exit $?"
  grep -E "^Table's pick|^Head to head:|^Wall" /tmp/r/online_$l.md
  grep -i "failed\|error" /tmp/r/os_$l.log | head -3
  gzip -f /tmp/r/bf_$l.db
done
cd /tmp/r && tar czf $OUT/results.tgz . ; date
