#!/usr/bin/env bash
# Seventh session, call 3: why online tuning misses at large sizes past the range (list n, seed
# 20261212: 7252x6680 1.039, 4486x4301 1.028, 6023x6581 1.073 in call 2). Online tuning twice on
# list n's ten sizes past the range and three inside, every candidate's samples kept, the SM clock
# logged every 20 ms beside it; the brute force of call 2 (bf_n.db) is the reference.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s7
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
for f in $G/a6.db.gz $G/bf_n.db.gz $G/online_bench.gz; do gunzip -kf "$f"; done; chmod +x $G/online_bench
mkdir -p /tmp/r
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
L=6853x6928,8076x5526,7252x6680,4486x4301,6269x5164,6036x5691,6321x4879,6023x6581,2477x4332,2132x7026,1782x1323,4088x1990,2214x1531
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw --format=csv,noheader -lms 20 > /tmp/r/clocks.csv &
smi=$!
for k in 1 2; do
  echo "== online run $k $(date +%T.%N)"
  ONLINE_KEEP=/tmp/r/keep$k timeout 120 $G/online_bench --spec spaces/transpose.json --main-db $G/a6.db --bf-db $G/bf_n.db --sizes $L --launches 64 --out /tmp/r/on$k.md; echo "exit $?"
  tail -n 3 /tmp/r/on$k.md | head -1
  date +%T.%N
done
kill $smi
cd /tmp/r && tar czf $OUT/results.tgz . ; date
