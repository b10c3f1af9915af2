#!/usr/bin/env bash
# Twelfth session, call 6: the main job's wall and reproducibility with this session's final tune
# binary (20c8ed39e85d, 0cc8240: its main-job path unchanged since the ninth session; the session
# changed online result files' import): two main jobs with bench/bench_repro.sh (one pair).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s12/c6
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
xz -dkf $G/tune.xz; chmod +x $G/tune; mkdir -p /tmp/r6
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
sha256sum $G/tune | cut -c1-12
RUNS=2 timeout 300 bash bench/bench_repro.sh /tmp/repro $G/tune spaces/transpose.json design:128:4096 > /tmp/r6/repro_stdout.txt 2>&1; echo "exit $?"
grep -E "wall|runs " /tmp/r6/repro_stdout.txt
cp /tmp/repro/repro.md $OUT/ 2>/dev/null
date
