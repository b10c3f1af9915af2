#!/usr/bin/env bash
# Tenth session, call 6: the final online_bench (ab4d5951b5e7: two rounds, two scratch placements)
# against the ninth session's (5da9e3ca8063: 32 x 2, the fastest sample), alternating, three runs
# each on lists z1, z2 and f (130 sizes) against calls 1 and 4's brute forces.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s10
for f in online_bench_f online_bench_v8 a6.db bf/bf_z1.db bf/bf_z2.db bf/bf_f.db; do gunzip -kf $G/$f.gz; done
chmod +x $G/online_bench_f $G/online_bench_v8
mkdir -p /tmp/r6
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
sha256sum $G/online_bench_f $G/online_bench_v8 | cut -c1-12
for rep in 1 2 3; do
  for L in z1 z2 f; do
    S=$(cat $G/list_$L.txt)
    for B in f v8; do
      ONLINE_KEEP=/tmp/r6/keep_${B}_${L}_$rep timeout 100 $G/online_bench_$B --spec spaces/transpose.json \
        --main-db $G/a6.db --bf-db $G/bf/bf_$L.db --sizes "$S" --out /tmp/r6/online_${B}_${L}_$rep.md > /tmp/r6/${B}_${L}_$rep.log 2>&1
      echo "$rep $L $B exit $? $(grep -oE 'online after 64 launches: [^;]*' /tmp/r6/online_${B}_${L}_$rep.md)"
    done
  done
done
cd /tmp/r6 && tar czf $OUT/results.tgz . ; date
