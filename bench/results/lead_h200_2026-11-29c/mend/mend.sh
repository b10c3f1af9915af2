#!/usr/bin/env bash
# After the review mends (6f6a066): the GEMMs' shared reference verifies every configuration, the
# accuracy tests, the runtime's GPU tests (online), online on list g, and two main jobs (repro).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-online
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
if ldd $G/tune | grep -q "not found"; then export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$PWD/$G/lib; fi
mkdir -p build && cp $G/tune $G/online_bench build/
R=/tmp/m; mkdir -p $R
exec > >(tee "$R/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv
echo "== gemm, gemm_wgmma: every configuration verified against the shared reference"
timeout 150 build/tune --space spaces/gemm.json --sizes 1000x777x260 --max-fevals 24 --db /tmp/g.db > $R/gemm.log 2>&1; echo "gemm exit $?"; grep -E "measured|failed" $R/gemm.log | tail -2
timeout 200 build/tune --space spaces/gemm_wgmma.json --sizes 1000x777x260,2048x2048x2048 --strategy brute_force --db /tmp/w.db > $R/wgmma.log 2>&1; echo "gemm_wgmma exit $?"; grep -E "measured|failed" $R/wgmma.log | tail -2
echo "== accuracy and runtime GPU tests"
timeout 120 $G/test_run --gtest_filter='MmaAccuracy.*:WgmmaAccuracy.*' > $R/test_run.log 2>&1; echo "test_run exit $?"; grep -E "^\[  (FAILED|PASSED|SKIPPED) " $R/test_run.log
timeout 150 $G/test_runtime --gtest_filter='*Gpu*:RuntimeHopper.*' > $R/test_runtime.log 2>&1; echo "test_runtime exit $?"; grep -E "^\[  (FAILED|PASSED|SKIPPED) |online at" $R/test_runtime.log
echo "== online on list g"
gunzip -c $G/main.db.gz > /tmp/main.db
SIZES=$(cat $G/fresh30g.txt)
build/tune --space spaces/transpose.json --sizes "$SIZES" --strategy brute_force --db /tmp/bf.db > $R/bf.log 2>&1; echo "bf exit $?"
timeout 120 build/online_bench --spec spaces/transpose.json --main-db /tmp/main.db --bf-db /tmp/bf.db --sizes "$SIZES" --launches 64 --out $R/online_g.md 2> $R/online_g.err; echo "online exit $?"; tail -1 $R/online_g.md
echo "== two main jobs"
timeout 200 bash bench/bench_repro.sh $R/repro build/tune spaces/transpose.json design:128:4096 > $R/repro.log 2>&1; echo "repro exit $?"; grep -E "wall|regret|worst|agree" $R/repro.log | tail -6
rm -f $R/repro/*.db*
tar czf $OUT/mend.tgz -C $R .
date
