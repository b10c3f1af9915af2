#!/usr/bin/env bash
# GPU checks, run on the GPU machine from the repository root with a prebuilt binary:
#   bench/gpu_check.sh OUT_DIR [TUNE_BINARY]
# 1. the main job end to end (first run: compiles; second identical run: compiles nothing),
# 2. kill -9 in the middle of a sweep, then the same command resumes without repeating work,
# 3. tune best / tune header on the database,
# 4. every configuration of every space verified at 1000, 1023, 4097 and a rectangular size
#    (CHECK_SPACES="spaces/a.json ..." limits this to some spaces, e.g. after a change to one).
set -uo pipefail
out=${1:?output folder}
tune=${2:-build/tune}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p "$out"
work=$(mktemp -d)
exec > >(tee "$out/gpu_check.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$out/gpu.txt"

echo "== 1. main job: first run"
/usr/bin/time -f "wall %e s" "$tune" --space spaces/transpose.json --sizes 128:4096 --db "$out/main.db" 2>&1
echo "== 1b. second identical run (resumes; nothing to compile or measure)"
/usr/bin/time -f "wall %e s" "$tune" --space spaces/transpose.json --sizes 128:4096 --db "$out/main.db" 2>&1 | tail -4

echo "== 2. kill -9 mid-sweep, then resume"
"$tune" --space spaces/transpose.json --sizes 128:4096 --db "$work/kill.db" > "$work/kill_run1.txt" 2>&1 &
pid=$!
sleep ${KILL_AFTER:-6}
kill -9 $pid; wait $pid 2>/dev/null
pkill -9 -f "kill.db" 2>/dev/null; sleep 1
tail -c 300 "$work/kill_run1.txt"; echo
"$tune" db --db "$work/kill.db"
"$tune" --space spaces/transpose.json --sizes 128:4096 --db "$work/kill.db" 2>&1 | grep -E "measurements to take|kernels from the binary cache|measured,"
"$tune" db --db "$work/kill.db"

echo "== 3. best and header"
"$tune" best --kernel transpose --db "$out/main.db" --size 1000
"$tune" best --kernel transpose --db "$out/main.db" --json > "$out/best.json"
"$tune" header --kernel transpose --db "$out/main.db" --out "$out/transpose_tuned.h"

echo "== 4. every configuration verified at odd and rectangular sizes"
for s in ${CHECK_SPACES:-spaces/*.json}; do
  sizes=1000,1023,4097,4097x1000,1000x4097
  python3 -c "import json,sys; sys.exit(isinstance(json.load(open('$s'))['KernelSpecification']['ProblemSize'], list))" \
    && sizes=1000,1023,4097,16777216,16777217
  python3 -c "import json,sys; sys.exit(len(json.load(open('$s'))['KernelSpecification']['ProblemSize']) != 3)" 2>/dev/null \
    && sizes=1000x1023x100,1023x1000x33,4097x1000x1  # GEMM N x M x K, matching n2 x n1 x dim, pairwise n x m x dim
  # a packed tensor map needs 16-byte rows (cols a multiple of 4 floats): odd rows and extents only
  python3 -c "import json,sys; sys.exit('tensor_maps' not in json.load(open('$s')).get('Tune', {}))" \
    && sizes=1000,1000x1023,4096x4097,1004x777
  echo "-- $s at $sizes"
  "$tune" --space "$s" --sizes $sizes --db "$out/check.db" --repetitions 3 --warmup 1 2>&1 \
    | grep -E "^[0-9]+x|measured,|error|flag"
done

echo "== 5. configurations that fault the GPU context are stored as runtime errors; the run goes on"
"$tune" --space tuner/tuning/testdata/fault.json --sizes 1048576,2097152 --db "$work/fault.db" > "$work/fault.log" 2>&1
echo "exit status $?"
grep -vE "^\[.*info|^measuring" "$work/fault.log" | tail -14
"$tune" db --db "$work/fault.db"
