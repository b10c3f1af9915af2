#!/usr/bin/env bash
# The main job on the space with use_shared 3 (394 configurations), twice (walls, agreement); run a
# exported as the recorded sweep; then 30 fresh held-out sizes (seed 20261206): the table's pick
# from run a, online after 64 launches, brute force, cuBLAS.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s5
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
if ldd $G/tune | grep -q "not found"; then export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$PWD/$G/lib; echo "carried MPI libs"; fi
mkdir -p build && cp $G/tune $G/online_bench build/
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
echo "== two main jobs (design:128:4096)"
RUNS=2 timeout 200 bash bench/bench_repro.sh /tmp/repro build/tune spaces/transpose.json design:128:4096 > $OUT/repro_stdout.txt 2>&1; echo "exit $?"; tail -n 14 $OUT/repro_stdout.txt
cp /tmp/repro/repro.md $OUT/ 2>/dev/null
echo "== record run a"
TUNE=build/tune timeout 60 bash bench/record_sweep.sh /tmp/repro/a.db transpose "NVIDIA H200" 2>&1 | tail -2
tar czf $OUT/recorded.tgz results/recorded/transpose
gzip -c /tmp/repro/a.db > $OUT/a.db.gz
echo "== 30 fresh held-out sizes (seed 20261206)"
R=$OUT; SIZES=$(cat $G/fresh30h.txt) TUNE=build/tune ONLINE_BENCH=build/online_bench OUT=$R/online_fresh30h.md BF_LOG=/tmp/bf.log BF_DB=/tmp/bf30h.db timeout 300 bash bench/online_sizes.sh /tmp/repro/a.db > /tmp/os.log 2>&1; echo "exit $?"; tail -n 8 $R/online_fresh30h.md; tail -3 /tmp/os.log
grep -E "failed|verif" /tmp/bf.log | tail -3
gzip -c /tmp/bf30h.db > $OUT/bf30h.db.gz
date
