#!/usr/bin/env bash
# Online tuning's yardstick: the runtime (new: L2 reset, one scratch placement, fastest sample)
# against three variants built from patched trees (not committed): P, samples alternating between
# two scratch output placements; M, the median of a candidate's samples instead of the fastest;
# PM, both. Interleaved, two rounds, on the benchmark's 36, list h and list i against this
# session's brute forces (call3, call2), call2's run a as the table.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s6
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
mkdir -p /tmp/r; gunzip -c $G/a6.db.gz > /tmp/a.db
for l in s36 h i; do gunzip -c $G/bf_$l.db.gz > /tmp/bf_$l.db; done
S36="1023x1023,1025x1025,2047x2047,2049x2049,3001x3001,777x777,1531x1531,1001x1001,1002x1002,1004x1004,1000x1000,2040x2040,1544x1544,4096x256,256x4096,4095x257,257x4095,8191x513,513x8191,4000x1000,1000x4000,2047x1023,1023x2047,3000x750,750x3000,1920x1080,1080x1920,3840x2160,2160x3840,1280x720,5000x5000,6143x6143,8193x4097,4097x8193,6000x6001,4099x4099"
for round in 1 2; do for l in s36 h i; do
  case $l in s36) S=$S36;; h) S=$(cat $G/fresh30h.txt);; i) S=$(cat $G/fresh30i.txt);; esac
  for b in new P M PM; do
    timeout 60 $G/online_bench_$b --spec spaces/transpose.json --main-db /tmp/a.db --bf-db /tmp/bf_$l.db --sizes $S --launches 64 --out /tmp/r/${l}_${b}_$round.md > /dev/null 2>&1; echo "$l $b $round: exit $? $(grep -o 'online after 64 launches[^;]*; [^;]*' /tmp/r/${l}_${b}_$round.md | head -1)"
  done
done; done
cd /tmp/r && tar czf $OUT/results.tgz . ; date
