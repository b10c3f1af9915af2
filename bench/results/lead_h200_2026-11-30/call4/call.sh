#!/usr/bin/env bash
# Eleventh session, call 4: online tuning with 40 candidates in the first round against the default
# 32 (online_bench 4c35a7a23c6b, built from 4d8545b's sources; --candidates 40), alternating, at the
# 290 held-out sizes, against call 1 and 2's brute forces (run 2, trimmed of cubins and samples).
# The table is the shipped recording replayed (tune --sizes design:128:4096 --replay ...).
# REPS (default "1 2") names the repetitions.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s11
for f in online_bench main.db bf_inside2.db bf_beyond2.db; do gunzip -kf $G/$f.gz; done
chmod +x $G/online_bench
mkdir -p /tmp/r4
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
sha256sum $G/online_bench | cut -c1-12
for rep in ${REPS:-1 2}; do
  for L in inside beyond; do
    for C in 32 40; do
      t0=$SECONDS
      ONLINE_KEEP=/tmp/r4/keep_c${C}_${L}_$rep timeout 200 $G/online_bench --spec spaces/transpose.json \
        --main-db $G/main.db --bf-db $G/bf_${L}2.db --sizes "$(cat $G/$L.txt)" --candidates $C \
        --out /tmp/r4/online_c${C}_${L}_$rep.md > /tmp/r4/c${C}_${L}_$rep.log 2>&1
      echo "$rep $L c$C exit $? in $((SECONDS - t0)) s: $(grep -oE 'online after 64 launches: [^;]*' /tmp/r4/online_c${C}_${L}_$rep.md)"
    done
  done
done
cd /tmp/r4 && tar czf $OUT/results.tgz . ; date
