#!/bin/bash
# One device call of the experiments in bench/journal.md ("Kernel notes") (from the repository root):
#   bench/kernels/experiment.sh "$OUT" [round]
# round 1 (default) .. 4 selects candidates.py's list. Uses the prebuilt .gpu/bench_tp when its
# libraries resolve there, else builds it (build.sh). Round 1 then runs a memcheck pass over a few
# use_shared = 2 configurations at small odd sizes and prints the SASS instruction mix of three;
# with TUNE_SIZES set, `tune` (.gpu/tune_tp, else build/tune) tunes spaces/transpose.json there.
set -o pipefail
out=${1:-/tmp}
round=${2:-1}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total,temperature.gpu,power.draw --format=csv
bin=$(bench/kernels/build.sh) || exit 1
list=/tmp/candidates.txt
python3 bench/kernels/candidates.py "$round" > "$list" || exit 1
export BENCH_SIZES=${BENCH_SIZES:-128,1000,1023,4097,1000x4097,4097x1000,2048,4096,8192,8448,9984,10880,11008,11520,11648,12672,15360,16256,16384}
export BENCH_TOP=${BENCH_TOP:-60}
timeout ${BENCH_TIMEOUT:-420} "$bin" "$out" . "$list" > "$out/log.txt" 2>&1
echo "bench exit $?"
grep -E "^(device|compiled|skipped|WRONG|verification|measured)" "$out/log.txt" | head -40

if [ -n "${TUNE_SIZES:-}" ]; then
  echo "== tune spaces/transpose.json at $TUNE_SIZES"
  tune=.gpu/tune_tp
  if ! [ -x "$tune" ] || ldd "$tune" | grep -q "not found"; then tune=build/tune; fi
  timeout ${TUNE_TIMEOUT:-200} "$tune" --space spaces/transpose.json --sizes "$TUNE_SIZES" --db "$out/tune.db" --json \
    > "$out/tune.json" 2> "$out/tune.log"
  echo "tune exit $?"
  tail -3 "$out/tune.log"
fi
[ "$round" != 1 ] && exit 0

echo "== memcheck, use_shared = 2 at small odd sizes"
{ grep "use_shared=2" "$list" | grep "cp_async=0 stages=1 persist=0" | head -1
  grep "use_shared=2" "$list" | grep "cp_async=1 stages=1 persist=0" | tail -1
  grep "use_shared=2" "$list" | grep "stages=3 persist=1 bands=1 persist_grid=0" | head -1
  grep "use_shared=2" "$list" | grep "stages=2 persist=1 bands=1 persist_grid=1" | tail -1
  grep "use_shared=2" "$list" | grep "group=16" | grep "persist=1" | head -1
  grep "use_shared=2" "$list" | grep "streaming=3" | head -1; } > /tmp/small.txt
cut -d' ' -f3- /tmp/small.txt
BENCH_SIZES=1000,1023,260x1000,1000x260,97x33 timeout 90 compute-sanitizer --tool memcheck --print-limit 5 \
  "$bin" /tmp . /tmp/small.txt 2>&1 | grep -E "ERROR SUMMARY|Invalid|WRONG|verification" | head -12

echo "== SASS instruction mix"
for d in "-Duse_shared=1 -Dvector=2 -Dblock_size_x=64 -Dblock_size_y=16 -Dtile_size_y=4 -Dstreaming=1" \
         "-Duse_shared=2 -Dvector=4 -Dblock_size_x=32 -Dblock_size_y=16 -Dtile_size_y=4 -Dpadding=0" \
         "-Duse_shared=2 -Dvector=4 -Dblock_size_x=16 -Dblock_size_y=16 -Dtile_size_y=4 -Dpadding=0 -Dcp_async=1 -Dstages=2 -Dpersist=1 -Dtiles=4"; do
  echo "-- $d"
  nvcc -arch=sm_90 -cubin -o /tmp/k.cubin $d kernels_src/transpose.cu &&
    cuobjdump -sass -fun transpose /tmp/k.cubin | grep -oE "(LDG|STG|LDS|STS|LDGSTS|BAR|LDL|STL)[.A-Z0-9_]*" | sort | uniq -c | tr '\n' ' '
  echo
done
