#!/usr/bin/env bash
# The final binaries: the GPU tests (timing with the screen, the runtime with the L2 reset, the
# headers), one main job with its text output, and the benchmark's 36 sizes and list h (seed
# 20261206) brute-forced in this call, online tuning before (cc52292) and after (the L2 reset)
# interleaved against them, call2's run a (the new recording) as the table.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s6
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
if ldd $G/tune | grep -q "not found"; then export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$PWD/$G/lib; echo "carried MPI libs"; fi
mkdir -p build /tmp/r && cp $G/tune build/tune && cp $G/online_bench_new build/online_bench
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
gunzip -c $G/a6.db.gz > /tmp/a.db
echo "== GPU tests"
timeout 240 $G/test_run --gtest_filter='*Gpu*' > /tmp/r/test_run.log 2>&1; echo "test_run exit $?"; grep -E "^\[  (FAILED|PASSED|SKIPPED) |Screen" /tmp/r/test_run.log | head -8
timeout 120 $G/test_runtime --gtest_filter='*Gpu*:RuntimeHopper.*' > /tmp/r/test_runtime.log 2>&1; echo "test_runtime exit $?"; grep -E "^\[  (FAILED|PASSED|SKIPPED) " /tmp/r/test_runtime.log | head -4
timeout 120 $G/test_header --gtest_filter='HeaderHopper.*' > /tmp/r/test_header.log 2>&1; echo "test_header exit $?"; grep -E "^\[  (FAILED|PASSED|SKIPPED) " /tmp/r/test_header.log | head -4
echo "== the main job, text output"
/usr/bin/time -f "wall %e s" build/tune --space spaces/transpose.json --sizes design:128:4096 --db /tmp/m.db > $OUT/main_text.txt 2>&1; echo "exit $?"; tail -n 3 $OUT/main_text.txt
S36="1023x1023,1025x1025,2047x2047,2049x2049,3001x3001,777x777,1531x1531,1001x1001,1002x1002,1004x1004,1000x1000,2040x2040,1544x1544,4096x256,256x4096,4095x257,257x4095,8191x513,513x8191,4000x1000,1000x4000,2047x1023,1023x2047,3000x750,750x3000,1920x1080,1080x1920,3840x2160,2160x3840,1280x720,5000x5000,6143x6143,8193x4097,4097x8193,6000x6001,4099x4099"
H=$(cat $G/fresh30h.txt)
for l in s36 h; do
  if [ $l = s36 ]; then S=$S36; else S=$H; fi
  echo "== list $l: brute force, table, online (the L2 reset)"
  SIZES=$S TUNE=build/tune ONLINE_BENCH=build/online_bench OUT=/tmp/r/online_$l.md BF_DB=/tmp/bf_$l.db timeout 150 bash bench/online_sizes.sh /tmp/a.db > /tmp/r/os_$l.log 2>&1; echo "exit $?"; tail -n 5 /tmp/r/online_$l.md | head -3; grep -h "measured," /tmp/r/os_$l.log
  for round in 1 2; do for b in online_bench_old online_bench_new; do
    timeout 60 $G/$b --spec spaces/transpose.json --main-db /tmp/a.db --bf-db /tmp/bf_$l.db --sizes $S --launches 64 --out /tmp/r/${l}_${b}_$round.md > /dev/null 2>&1; echo "$l $b $round: exit $? $(grep -o 'online after 64 launches[^;]*; [^;]*' /tmp/r/${l}_${b}_$round.md | head -1)"
  done; done
  gzip -c /tmp/bf_$l.db > /tmp/r/bf_$l.db.gz
done
cd /tmp/r && tar czf $OUT/results.tgz . ; date
