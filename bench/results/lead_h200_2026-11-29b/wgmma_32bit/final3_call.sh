#!/usr/bin/env bash
# Lead's call: the wgmma engine with 32-bit shared addresses (NVRTC = nvcc code): accuracy tests,
# every gemm_wgmma configuration at three sizes and every matching_wgmma one at two (verified,
# with the ceilings), then the Hopper runtime benchmark (runtime, dispatch header, tuned time).
set -u
root=$PWD
[ -e /work/main ] || { mkdir -p /work && ln -s "$root" /work/main; }
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$PWD/lib
export PATH=/usr/local/cuda/bin:$PATH
out=$1; mkdir -p "$out/r"
timeout 60 ./test_run_main --gtest_filter='WgmmaAccuracy.*:MmaAccuracy.*' > "$out/r/accuracy.log" 2>&1; echo "accuracy rc=$?"; grep -E "worst|PASSED|FAILED" "$out/r/accuracy.log" | head -4
timeout 150 ./tune_main --space spaces/gemm_wgmma.json --sizes 1000x777x260,4096x4096x4096,8192x8192x8192 --db /tmp/g.db --wide > "$out/r/gemm.txt" 2>&1; echo "gemm rc=$?"; grep -E "^[0-9]+x|measured" "$out/r/gemm.txt" | cut -c1-150
./tune_main export --format csv --db /tmp/g.db --out "$out/r/gemm.csv" > /dev/null 2>&1
python3 -c "
import sqlite3; d=sqlite3.connect('/tmp/g.db')
for r in d.execute('select size, name, time_ms, gflops from ceilings order by size, name'): print(*r)" > "$out/r/gemm_ceilings.txt" 2>&1; cat "$out/r/gemm_ceilings.txt"
timeout 120 ./tune_main --space spaces/matching_wgmma.json --sizes 999x1003x100,16384x16384x128 --db /tmp/m.db --wide > "$out/r/matching.txt" 2>&1; echo "matching rc=$?"; grep -E "^[0-9]+x|measured" "$out/r/matching.txt" | cut -c1-150
./tune_main export --format csv --db /tmp/m.db --out "$out/r/matching.csv" > /dev/null 2>&1
python3 -c "
import sqlite3; d=sqlite3.connect('/tmp/m.db')
for r in d.execute('select size, name, time_ms from ceilings order by size, name'): print(*r)" 2>&1 | tee "$out/r/matching_ceilings.txt"
EXAMPLE_FALLBACK=$PWD/gemm_wgmma_example_h200best timeout 200 bash bench/bench_runtime_hopper.sh "$out/r/rt" ./tune ./prefix > "$out/r/rt.log" 2>&1
echo "bench rc=$?"; grep -A12 "== 3. table" "$out/r/rt.log"
