#!/usr/bin/env bash
# Does the first-pass screen cost the selection model? Four main jobs interleaved on one host, a
# and c screened, b and d with --policy screen_ratio=0; every database kept for select_eval.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s6
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
mkdir -p build && cp $G/tune build/tune
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
RUNS=4 ARGS_b='--policy screen_ratio=0' ARGS_d='--policy screen_ratio=0' timeout 400 bash bench/bench_repro.sh /tmp/repro build/tune spaces/transpose.json design:128:4096 > /tmp/repro_stdout.txt 2>&1; echo "exit $?"; grep -E "^run|runs " /tmp/repro_stdout.txt
for r in a b c d; do gzip -c /tmp/repro/$r.db > $OUT/$r.db.gz; done
date
