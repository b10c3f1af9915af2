#!/usr/bin/env bash
# The tuned transpose inside an application (issue 13's targets), on the GPU machine, from the
# repository root:
#   bench/bench_runtime.sh OUT_DIR [TUNE_BINARY] [PREFIX]
# TUNE_BINARY: a tune built here and carried (default build/tune). PREFIX: the runtime package
# installed here and carried (default .gpu/prefix; make it with
#   cmake --install build --prefix .gpu/prefix --component runtime).
# 1. tunes the transpose at the main job's sizes (128:4096) plus 8192 and 16384 into a fresh
#    database, and writes its dispatch header and runtime table (tune header --dispatch, --table);
# 2. builds examples/transpose against PREFIX with cmake (or, without cmake, nvcc directly);
#    EXAMPLE_BIN=path uses a binary built elsewhere instead (built against the same database:
#    see bench/journal.md);
# 3. runs it twice with one fresh on-disk cache (first process: NVRTC compiles; second: the
#    cache), both paths and cublasSgeam at every size, and the host time per cached launch;
# 4. capture -> tune -> use: the example at 3000 and 1000x4097 with TUNE_CAPTURE set, `tune
#    --capture` on the files, and the example again with the new table;
# 5. prints the table (bench/bench_runtime_table.py): each size's times against `tune best`
#    and cuBLAS, the host overhead and the first-launch latencies, and whether the targets hold.
set -uo pipefail
out=${1:?output folder}
tune=$(realpath "${2:-build/tune}")
prefix=$(realpath -m "${3:-.gpu/prefix}")
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$out"
work=$(mktemp -d)
exec > >(tee "$out/bench_runtime.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv

echo "== 1. tune: 128:4096 + 8192 + 16384"
"$tune" --space spaces/transpose.json --sizes 128:4096,8192,16384 --db "$work/rt.db" 2>&1 | tail -5
"$tune" best --kernel transpose --db "$work/rt.db" --json > "$out/best.json"
gen="$work/generated"
mkdir -p "$gen"
"$tune" header --db "$work/rt.db" --kernel transpose --space spaces/transpose.json --dispatch --out "$gen/transpose_dispatch.cuh"
"$tune" header --db "$work/rt.db" --kernel transpose --space spaces/transpose.json --table --out "$gen/transpose_table.json"
cp "$gen/transpose_table.json" "$out/"

echo "== 2. the example against the installed package"
bin=${EXAMPLE_BIN:-}
if [ -z "$bin" ]; then
  bin="$work/build/transpose_example"
  if command -v cmake >/dev/null; then
    cmake -S examples/transpose -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
      -DTUNE_GENERATED_DIR="$gen" >/dev/null && cmake --build "$work/build" -j "$(nproc)" 2>&1 | tail -2
  else
    mkdir -p "$work/build"
    nvcc -O3 -std=c++17 -arch=sm_90 -I"$prefix/include" -I"$gen" -Iexamples/common -o "$bin" examples/transpose/main.cu \
      "$prefix/lib/libtune_runtime.a" -lnvrtc -lcublas -lpthread -ldl
  fi
fi
[ -x "$bin" ] || { echo "bench_runtime: the example did not build" >&2; exit 1; }

echo "== 3. both paths at every size; first process compiles, second uses the on-disk cache"
sizes=128:4096:128,8192,16384
"$bin" spaces/transpose.json "$gen/transpose_table.json" --sizes "$sizes" --cache "$work/cache" --json \
  > "$out/first.jsonl"
"$bin" spaces/transpose.json "$gen/transpose_table.json" --sizes "$sizes" --cache "$work/cache" --json --overhead \
  > "$out/second.jsonl"
"$bin" spaces/transpose.json "$gen/transpose_table.json" --sizes 128,4096,16384 --cache "$work/cache" | tail -5

echo "== 4. capture -> tune -> use"
TUNE_CAPTURE="$work/capture" "$bin" spaces/transpose.json "$gen/transpose_table.json" --sizes 3000,1000x4097 \
  --reps 5 --cache "$work/cache"
ls -l "$work/capture"
"$tune" --space spaces/transpose.json --capture "$work"/capture/*.tunecap --db "$work/capture.db" 2>&1 | tail -6
"$tune" header --db "$work/capture.db" --kernel transpose --space spaces/transpose.json --table \
  --out "$work/capture_table.json"
"$bin" spaces/transpose.json "$work/capture_table.json" --sizes 3000,1000x4097 --cache "$work/cache"

echo "== 5. table"
python3 bench/bench_runtime_table.py "$out/best.json" "$out/first.jsonl" "$out/second.jsonl"
rm -rf "$work"
