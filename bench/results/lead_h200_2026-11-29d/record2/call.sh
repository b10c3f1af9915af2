#!/usr/bin/env bash
# The space with tile_size_x (the lean tile two columns wide, cuBLAS's shape; 397 configurations):
# the main job twice (walls, agreement), run a exported as the recorded sweep; the benchmark's 36
# sizes and list h against it; the runtime's GPU tests on the new recording.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s5
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
if ldd $G/tune | grep -q "not found"; then export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$PWD/$G/lib; echo "carried MPI libs"; fi
mkdir -p build && cp $G/tune $G/online_bench build/
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
echo "== two main jobs (design:128:4096)"
RUNS=2 timeout 200 bash bench/bench_repro.sh /tmp/repro build/tune spaces/transpose.json design:128:4096 > $OUT/repro_stdout.txt 2>&1; echo "exit $?"; grep -E "^run|runs a" $OUT/repro_stdout.txt
cp /tmp/repro/repro.md $OUT/ 2>/dev/null
grep -h -E "measured,|wall" /tmp/repro/*.txt 2>/dev/null | tail -4
echo "== record run a"
TUNE=build/tune timeout 60 bash bench/record_sweep.sh /tmp/repro/a.db transpose "NVIDIA H200" 2>&1 | tail -2
tar czf $OUT/recorded.tgz results/recorded/transpose
gzip -c /tmp/repro/a.db > $OUT/a.db.gz
echo "== the benchmark's 36 sizes"
R=$OUT; TUNE=build/tune ONLINE_BENCH=build/online_bench OUT=$R/online_sizes36.md BF_DB=/tmp/bf36.db timeout 200 bash bench/online_sizes.sh /tmp/repro/a.db > /tmp/os36.log 2>&1; echo "exit $?"; tail -n 5 $R/online_sizes36.md | head -3
echo "== list h (seed 20261206)"
R=$OUT; SIZES=$(cat $G/fresh30h.txt) TUNE=build/tune ONLINE_BENCH=build/online_bench OUT=$R/online_fresh30h.md BF_DB=/tmp/bfh.db timeout 200 bash bench/online_sizes.sh /tmp/repro/a.db > /tmp/osh.log 2>&1; echo "exit $?"; tail -n 5 $R/online_fresh30h.md | head -3
grep -h "measured," /tmp/os36.log /tmp/osh.log
gzip -c /tmp/bf36.db > $OUT/bf36.db.gz; gzip -c /tmp/bfh.db > $OUT/bfh.db.gz
timeout 120 $G/test_runtime --gtest_filter='*Gpu*:RuntimeHopper.*' > $OUT/test_runtime.log 2>&1; echo "test_runtime exit $?"; grep -E "^\[  (FAILED|PASSED|SKIPPED) " $OUT/test_runtime.log | head -4
date
