#!/usr/bin/env bash
# Tenth session, call 5: the final tune binary (8867a5cae054, ef94f78): two main jobs with
# bench/bench_repro.sh (one reproducibility pair) and their walls. The main job's code is the
# ninth session's; this measures it again in this session.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s10
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
gunzip -kf $G/tune_f.gz; chmod +x $G/tune_f; mkdir -p /tmp/r5
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
sha256sum $G/tune_f | cut -c1-12
RUNS=2 timeout 300 bash bench/bench_repro.sh /tmp/repro $G/tune_f spaces/transpose.json design:128:4096 > /tmp/r5/repro_stdout.txt 2>&1; echo "exit $?"
grep -E "wall|runs " /tmp/r5/repro_stdout.txt
cp /tmp/repro/repro.md /tmp/r5/ 2>/dev/null
cd /tmp/r5 && tar czf $OUT/results.tgz . ; date
