#!/usr/bin/env bash
# The first-pass screen (policy screen_ratio 1.3, screen_after 3) and online tuning's L2 reset:
# three main jobs interleaved (a, c with the screen, b without), run a exported as the recorded
# sweep; 30 fresh sizes (seed 20261207) brute-forced in this call, with online tuning of the new
# runtime and of the one before (cc52292) interleaved against that brute force, run a as the table;
# the runtime's GPU tests on the new recording.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s6
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
if ldd $G/tune | grep -q "not found"; then export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$PWD/$G/lib; echo "carried MPI libs"; fi
mkdir -p build && cp $G/tune build/tune && cp $G/online_bench_new build/online_bench
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
echo "== three main jobs (design:128:4096): a, c screened; b with --policy screen_ratio=0"
RUNS=3 ARGS_b='--policy screen_ratio=0' timeout 260 bash bench/bench_repro.sh /tmp/repro build/tune spaces/transpose.json design:128:4096 > $OUT/repro_stdout.txt 2>&1; echo "exit $?"; grep -E "^run|runs " $OUT/repro_stdout.txt
cp /tmp/repro/repro_*.md $OUT/ 2>/dev/null
for r in a b c; do python3 - /tmp/repro/${r}_run.json <<'PY'
import json,sys
j=json.load(open(sys.argv[1]))
t=j
print(sys.argv[1].split('/')[-1], {k:t[k] for k in t if k in ('measured','compile_cpu_s','measure_s','timed_s','wall_s','compiled')})
PY
done
echo "== record run a"
TUNE=build/tune timeout 60 bash bench/record_sweep.sh /tmp/repro/a.db transpose "NVIDIA H200" 2>&1 | tail -2
tar czf $OUT/recorded.tgz results/recorded/transpose
gzip -c /tmp/repro/a.db > $OUT/a.db.gz
echo "== 30 fresh sizes (seed 20261207): brute force, table (run a), online (new runtime)"
R=$OUT; SIZES=$(cat $G/fresh30i.txt) TUNE=build/tune ONLINE_BENCH=build/online_bench OUT=$R/online_fresh30i.md BF_DB=/tmp/bfi.db timeout 240 bash bench/online_sizes.sh /tmp/repro/a.db > /tmp/osi.log 2>&1; echo "exit $?"; tail -n 5 $R/online_fresh30i.md | head -3; grep -h "measured," /tmp/osi.log
gzip -c /tmp/bfi.db > $OUT/bfi.db.gz
echo "== online again, the runtime before and after, interleaved"
for round in 1 2; do for b in online_bench_old online_bench_new; do
  timeout 60 $G/$b --spec spaces/transpose.json --main-db /tmp/repro/a.db --bf-db /tmp/bfi.db --sizes $(cat $G/fresh30i.txt) --launches 64 --out $OUT/i_${b}_$round.md > /tmp/x.log 2>&1; echo "i $b $round: exit $? $(grep -o 'online after 64 launches[^;]*; [^;]*' $OUT/i_${b}_$round.md | head -1)"
done; done
timeout 120 $G/test_runtime --gtest_filter='*Gpu*:RuntimeHopper.*' > $OUT/test_runtime.log 2>&1; echo "test_runtime exit $?"; grep -E "^\[  (FAILED|PASSED|SKIPPED) " $OUT/test_runtime.log | head -4
date
