#!/usr/bin/env bash
# Tenth session, call 3: online tuning's held samples on two sets of scratch outputs, a candidate's
# samples in turn (online_bench 02c36ef02384, test_runtime 33ca16e66489, the working tree over
# 8b0e948), against the same two rounds on one set (f814b0e47f77, call 1 and 2's): the runtime's
# GPU tests, then the two online_bench binaries alternating, four runs each on lists z1 and z2
# against call 1's brute forces.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s10
for f in online_bench_v9 online_bench_p2 test_runtime_p2 a6.db bf/bf_z1.db bf/bf_z2.db; do gunzip -kf $G/$f.gz; done
chmod +x $G/online_bench_v9 $G/online_bench_p2 $G/test_runtime_p2
mkdir -p /tmp/r3
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
echo "== test_runtime"; timeout 150 $G/test_runtime_p2 --gtest_filter='*Gpu*:RuntimeHopper.*:OnlineRotation.*:OnlineFile.*' 2>&1 | grep -E "PASSED|FAILED|SKIPPED \]|tests? ran|online at" | tail -n 8
for rep in 1 2 3 4; do
  for L in z1 z2; do
    S=$(cat $G/list_$L.txt)
    for B in p2 v9; do
      ONLINE_KEEP=/tmp/r3/keep_${B}_${L}_$rep timeout 100 $G/online_bench_$B --spec spaces/transpose.json \
        --main-db $G/a6.db --bf-db $G/bf/bf_$L.db --sizes "$S" --out /tmp/r3/online_${B}_${L}_$rep.md > /tmp/r3/${B}_${L}_$rep.log 2>&1
      echo "$rep $L $B exit $? $(grep -oE 'online after 64 launches: [^;]*' /tmp/r3/online_${B}_${L}_$rep.md)"
    done
  done
done
cd /tmp/r3 && tar czf $OUT/results.tgz . ; date
