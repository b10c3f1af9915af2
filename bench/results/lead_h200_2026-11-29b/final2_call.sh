#!/usr/bin/env bash
# The lead's closing calls on the merged binary. STEP=tests: the GPU tests (timing, Hopper, the
# wgmma GEMM's accuracy, energy, guided search, the runtime and its online tuning, the Hopper
# dispatch header). STEP=heldout: 30 fresh held-out sizes (seed 20261130, never examined before
# this call) against the mixed design's run a, with the kFar model; then, with ENERGY=1, two
# independent energy runs (the race in rounds) and their agreement.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
if ldd $G/tune | grep -q "not found"; then export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$PWD/$G/lib; echo "carried MPI libs"; fi
mkdir -p build && cp $G/tune build/ && [ -f $G/online_bench ] && cp $G/online_bench build/
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
step=${STEP:-tests}
if [[ $step == tests ]]; then
echo "== GPU tests"
timeout 200 $G/test_run --gtest_filter='Gpu.*:TimingGpu.*:ContextGpu.*:DeviceOps.*:Blas.*:Hopper.*:TensorMapCheck.*:Energy*:WgmmaAccuracy.*:MmaAccuracy.*' > $OUT/test_run.log 2>&1; echo "test_run exit $?"; grep -E "^\[  (FAILED|PASSED|SKIPPED) |tests ran|worst" $OUT/test_run.log | head -12
timeout 120 $G/test_tuning --gtest_filter='GuidedGpu.*:CheckGpu.*:SplitGpu.*:ResumeGpu.*' > $OUT/test_tuning.log 2>&1; echo "test_tuning exit $?"; grep -E "^\[  (FAILED|PASSED|SKIPPED) |tests ran" $OUT/test_tuning.log | head
timeout 120 $G/test_runtime --gtest_filter='*Gpu*:RuntimeHopper.*' > $OUT/test_runtime.log 2>&1; echo "test_runtime exit $?"; grep -E "^\[  (FAILED|PASSED|SKIPPED) |tests ran|online at" $OUT/test_runtime.log | head
timeout 120 $G/test_header --gtest_filter='HeaderHopper*' > $OUT/test_header.log 2>&1; echo "test_header exit $?"; grep -E "^\[  (FAILED|PASSED|SKIPPED) |tests ran" $OUT/test_header.log | head
fi
if [[ $step == heldout ]]; then
echo "== 30 fresh held-out sizes (seed 20261130) against the mixed design's run a"
gunzip -c $G/a.db.gz > /tmp/a.db
R=$OUT; SIZES=$(cat $G/fresh30c.txt) TUNE=build/tune ONLINE_BENCH=build/online_bench OUT=$R/online_fresh30c.md BF_LOG=/tmp/bf.log BF_DB=/tmp/bf30c.db timeout 240 bash bench/online_sizes.sh /tmp/a.db > /tmp/os.log 2>&1; echo "exit $?"; tail -n 6 $R/online_fresh30c.md; tail -3 /tmp/os.log
gzip -c /tmp/bf30c.db > $OUT/bf30c.db.gz
if [[ ${ENERGY:-0} == 1 ]]; then
echo "== energy: two runs, the race in rounds"
mkdir -p /tmp/ed && cp -r spaces kernels_src /tmp/ed/ && cp build/tune bench/energy_agreement.py /tmp/ed/ && cp -r $G/lib /tmp/ed/
mkdir -p /tmp/en && PERIOD=100 FEVALS=60 SIZES=4096,2048 GEMM=0 LIMIT=150 timeout 330 bash bench/bench_energy.sh /tmp/en /tmp/ed; echo "exit $?"
grep -E "== |agreement|^[0-9]+x[0-9]+ " /tmp/en/log.txt | tail -14
tar czf $OUT/energy.tgz -C /tmp en
fi
fi
date
