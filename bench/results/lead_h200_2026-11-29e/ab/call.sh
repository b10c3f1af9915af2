#!/usr/bin/env bash
# Online tuning's L2 reset: the runtime before (online_bench_old, cc52292) and after (online_bench_new:
# the L2 emptied as tune's timing empties it before each batched sample), interleaved, on list h
# and the benchmark's 36, against the previous session's brute force of the same space and table.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s6
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
gunzip -c $G/a2.db.gz > /tmp/a.db; gunzip -c $G/bfh.db.gz > /tmp/bfh.db; gunzip -c $G/bf36.db.gz > /tmp/bf36.db
S36="1023x1023,1025x1025,2047x2047,2049x2049,3001x3001,777x777,1531x1531,1001x1001,1002x1002,1004x1004,1000x1000,2040x2040,1544x1544,4096x256,256x4096,4095x257,257x4095,8191x513,513x8191,4000x1000,1000x4000,2047x1023,1023x2047,3000x750,750x3000,1920x1080,1080x1920,3840x2160,2160x3840,1280x720,5000x5000,6143x6143,8193x4097,4097x8193,6000x6001,4099x4099"
for round in 1 2; do
for b in online_bench_old online_bench_new; do
  t0=$SECONDS; timeout 120 $G/$b --spec spaces/transpose.json --main-db /tmp/a.db --bf-db /tmp/bfh.db --sizes $(cat $G/fresh30h.txt) --launches 64 --out $OUT/h_${b}_$round.md > /tmp/x.log 2>&1; echo "h $b $round: exit $? $((SECONDS-t0)) s $(grep -o 'online after 64 launches[^;]*; [^;]*' $OUT/h_${b}_$round.md | head -1)"
  t0=$SECONDS; timeout 120 $G/$b --spec spaces/transpose.json --main-db /tmp/a.db --bf-db /tmp/bf36.db --sizes $S36 --launches 64 --out $OUT/s36_${b}_$round.md > /tmp/x.log 2>&1; echo "36 $b $round: exit $? $((SECONDS-t0)) s $(grep -o 'online after 64 launches[^;]*; [^;]*' $OUT/s36_${b}_$round.md | head -1)"
done
done
timeout 120 $G/test_runtime --gtest_filter='*Gpu*' 2>&1 | tail -n 15
