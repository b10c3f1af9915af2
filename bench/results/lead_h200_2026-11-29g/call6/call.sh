#!/usr/bin/env bash
# Eighth session, call 6: the final tune binary (33ccead's sources; 2a311f8 adds only docs): two
# main jobs with bench/bench_repro.sh (one reproducibility pair) and their walls.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s8
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
gunzip -kf $G/tune_v7.gz; chmod +x $G/tune_v7; mkdir -p /tmp/r6
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
sha256sum $G/tune_v7 | cut -c1-12
RUNS=2 timeout 300 bash bench/bench_repro.sh /tmp/repro $G/tune_v7 spaces/transpose.json design:128:4096 > /tmp/r6/repro_stdout.txt 2>&1; echo "exit $?"
grep -E "wall|runs " /tmp/r6/repro_stdout.txt
cp /tmp/repro/repro.md /tmp/r6/ 2>/dev/null
$G/tune_v7 best --db /tmp/repro/a.db --kernel transpose --size 5048x4772 2>&1 | head -5 || true
cd /tmp/r6 && tar czf $OUT/results.tgz . ; date
