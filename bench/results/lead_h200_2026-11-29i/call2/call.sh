#!/usr/bin/env bash
# Tenth session, call 2: the same two binaries as call 1 (online_bench f814b0e47f77: two rounds,
# the median; 5da9e3ca8063: 32 x 2, the fastest), alternating, four more runs each on lists z1 and
# z2 against call 1's brute forces (this host, a fresh one: the brute force is call 1's).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s10
for f in online_bench_v9 online_bench_v8 a6.db bf/bf_z1.db bf/bf_z2.db; do gunzip -kf $G/$f.gz; done
chmod +x $G/online_bench_v9 $G/online_bench_v8
mkdir -p /tmp/r2
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
for rep in 1 2 3 4; do
  for L in z1 z2; do
    S=$(cat $G/list_$L.txt)
    for B in v9 v8; do
      ONLINE_KEEP=/tmp/r2/keep_${B}_${L}_$rep timeout 100 $G/online_bench_$B --spec spaces/transpose.json \
        --main-db $G/a6.db --bf-db $G/bf/bf_$L.db --sizes "$S" --out /tmp/r2/online_${B}_${L}_$rep.md > /tmp/r2/${B}_${L}_$rep.log 2>&1
      echo "$rep $L $B exit $? $(grep -oE 'online after 64 launches: [^;]*' /tmp/r2/online_${B}_${L}_$rep.md)"
    done
  done
done
cd /tmp/r2 && tar czf $OUT/results.tgz . ; date
