#!/usr/bin/env bash
# Eighth session, call 3: the head's tune (5754d96; the measurement path unchanged since 9102653):
# four main jobs (bench/bench_repro.sh, RUNS=4: six reproducibility pairs), their walls.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s8
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
gunzip -kf $G/tune_head.gz; chmod +x $G/tune_head; mkdir -p /tmp/r
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
sha256sum $G/tune_head | cut -c1-12
RUNS=4 timeout 420 bash bench/bench_repro.sh /tmp/repro $G/tune_head spaces/transpose.json design:128:4096 > /tmp/r/repro_stdout.txt 2>&1; echo "exit $?"
grep -E "wall|runs |worst|pair" /tmp/r/repro_stdout.txt | head -20
cp /tmp/repro/repro_*.md /tmp/repro/*_run.log /tmp/r/ 2>/dev/null
cd /tmp/r && tar czf $OUT/results.tgz . ; date
