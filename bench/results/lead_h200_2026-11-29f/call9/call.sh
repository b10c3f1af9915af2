#!/usr/bin/env bash
# Seventh session, call 9: the final binary (9102653): two main jobs for the reproducibility
# benchmark (regret per size), their walls.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s7/final3
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
gunzip -f $G/tune.gz; chmod +x $G/tune
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
RUNS=2 timeout 300 bash bench/bench_repro.sh /tmp/repro $G/tune spaces/transpose.json design:128:4096 > /tmp/repro_stdout.txt 2>&1; echo "exit $?"
grep -E "wall|runs " /tmp/repro_stdout.txt
cp /tmp/repro/repro.md $OUT/ 2>/dev/null; cp /tmp/repro/a_run.log /tmp/repro/b_run.log $OUT/ 2>/dev/null; date
