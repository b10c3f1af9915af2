#!/usr/bin/env bash
# Lead call 1: the new size design (mixed classes) recorded twice (walls, reproducibility), the
# previous main job's wall on the same host, the recorded sweep exported, and 30 fresh held-out
# sizes (table's pick, online after 64 launches, brute force, cuBLAS) against run a's database.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
if ldd $G/tune | grep -q "not found"; then export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$PWD/$G/lib; echo "carried MPI libs"; fi
mkdir -p build && cp $G/tune $G/online_bench build/
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
echo "== two main jobs on the new design"
RUNS=2 timeout 200 bash bench/bench_repro.sh /tmp/repro build/tune spaces/transpose.json design:128:4096 > $OUT/repro_stdout.txt 2>&1; echo "exit $?"; tail -n 12 $OUT/repro_stdout.txt
cp /tmp/repro/repro.md $OUT/ 2>/dev/null
echo "== the previous main job once (same host)"
/usr/bin/time -f "sizes 128:4096: wall %e s" timeout 100 build/tune --space spaces/transpose.json --sizes 128:4096 --db /tmp/old.db > /tmp/old.txt 2> /tmp/old.log; tail -n 2 /tmp/old.log
echo "== record run a"
TUNE=build/tune timeout 60 bash bench/record_sweep.sh /tmp/repro/a.db transpose "$(build/tune best --db /tmp/repro/a.db --json | python3 -c "import json,sys; print(json.load(sys.stdin)[\"device\"])" 2>/dev/null || echo "NVIDIA H200")" 2>&1 | tail -2
tar czf $OUT/recorded.tgz results/recorded/transpose
gzip -c /tmp/repro/a.db > $OUT/a.db.gz
echo "== 30 fresh held-out sizes"
R=$OUT; SIZES=$(cat $G/fresh30b.txt) TUNE=build/tune ONLINE_BENCH=build/online_bench OUT=$R/online_fresh30b.md BF_LOG=/tmp/bf.log BF_DB=/tmp/bf30b.db timeout 240 bash bench/online_sizes.sh /tmp/repro/a.db > /tmp/os.log 2>&1; echo "exit $?"; tail -n 8 $R/online_fresh30b.md; tail -3 /tmp/os.log
gzip -c /tmp/bf30b.db > $OUT/bf30b.db.gz
date
