#!/usr/bin/env bash
# Seventh session, call 2 (head: the log module, the one cubin loader): 30 fresh sizes never measured
# (seed 20261212: 20 inside the range, 10 past it), brute force, the table's pick (the shipped
# recording, a6.db), online tuning and cuBLAS in one run; then four main jobs of the head for the
# reproducibility benchmark (six pairs).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s7
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
for f in $G/*.gz; do gunzip -kf "$f"; done; chmod +x $G/tune $G/online_bench
mkdir -p build /tmp/r && cp $G/tune build/tune && cp $G/online_bench build/online_bench
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
S=$(cat $G/fresh30n.txt)
SIZES=$S TUNE=build/tune ONLINE_BENCH=build/online_bench OUT=/tmp/r/online_fresh30n.md BF_DB=/tmp/bf_n.db BF_LOG=/tmp/r/bf_n.log timeout 260 bash bench/online_sizes.sh $G/a6.db > /tmp/r/os_n.log 2>&1; echo "online_sizes exit $?"; tail -n 6 /tmp/r/online_fresh30n.md
gzip -c /tmp/bf_n.db > /tmp/r/bf_n.db.gz
echo "== four main jobs of the head"
RUNS=4 timeout 300 bash bench/bench_repro.sh /tmp/repro build/tune spaces/transpose.json design:128:4096 > /tmp/r/repro_stdout.txt 2>&1; echo "exit $?"; grep -E "wall|runs " /tmp/r/repro_stdout.txt
cp /tmp/repro/repro_*.md /tmp/repro/*_run.log /tmp/repro/*_verdicts.json /tmp/r/ 2>/dev/null
cd /tmp/r && tar czf $OUT/results.tgz . ; date
