#!/usr/bin/env bash
# Ninth session, call 3: the V8 tune binary (0f6ca53's sources; later commits add docs and a
# test): two main jobs with bench/bench_repro.sh (one reproducibility pair) and their walls, and
# `tune best` at an unmeasured size inside the range on the first one's database.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s9
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
gunzip -kf $G/tune_v8.gz; chmod +x $G/tune_v8; mkdir -p /tmp/r3
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
sha256sum $G/tune_v8 | cut -c1-12
RUNS=2 timeout 300 bash bench/bench_repro.sh /tmp/repro $G/tune_v8 spaces/transpose.json design:128:4096 > /tmp/r3/repro_stdout.txt 2>&1; echo "exit $?"
grep -E "wall|runs " /tmp/r3/repro_stdout.txt
cp /tmp/repro/repro.md /tmp/r3/ 2>/dev/null
$G/tune_v8 best --db /tmp/repro/a.db --kernel transpose --size 3902x3423 2>&1 | head -3 || true
cd /tmp/r3 && tar czf $OUT/results.tgz . ; date
