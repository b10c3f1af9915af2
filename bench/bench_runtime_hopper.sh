#!/usr/bin/env bash
# A tuned Hopper kernel inside an application (issue 46: "at its tuned time within 3%"): the
# 3xTF32 GEMM on wgmma and TMA (spaces/gemm_wgmma.json) through tune::runtime and through the
# dispatch header, against the time `tune` stored for it in the same run. On an H200/H100, from the
# repository root:
#   bench/bench_runtime_hopper.sh OUT_DIR [TUNE_BINARY] [PREFIX]
# TUNE_BINARY: a tune built here and carried (default build/tune). PREFIX: the runtime package
# (cmake --install build --prefix P --component runtime), used to build the example here.
# EXAMPLE_BIN=path: the example built elsewhere (examples/gemm_wgmma; its dispatch header from
# another database: the table then compares its path with this run's time for the configuration
# the header launches); EXAMPLE_FALLBACK=path: that binary when the example does not build here. SIZES (default 4096x4096x4096,8192x8192x8192,1000x777x260, NxMxK).
# FULL=1 tunes all 64 configurations; by default the sweep is restricted to the 6 around the
# H200's known best (tile_m 128; tile_n 64 with one consumer or 256 with two; stages 3 or 5;
# group 1 or 8; split_ring 0) to save device time.
# 1. tunes the (restricted) space at SIZES into a fresh database; `tune best`, `tune export` (every
#    configuration's time) and `tune header --table` (and --dispatch when it builds the example);
# 2. runs the example once (NVRTC compiles the runtime's variants before any timing): both paths
#    launch the tuned configuration from the same C, each output checked against a double product
#    on the host, then each path and cuBLAS's pedantic Sgemm timed as tune times;
# 3. prints the table (bench/bench_runtime_hopper_table.py): each path's time over the tuned time.
# Without a GPU (or not compute capability 9.0) it says so and exits 0.
set -uo pipefail
out=${1:?output folder}
tune=$(realpath "${2:-build/tune}")
prefix=$(realpath -m "${3:-.gpu/prefix}")
sizes=${SIZES:-4096x4096x4096,8192x8192x8192,1000x777x260}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1)
if [ "$cc" != "9.0" ]; then
  echo "bench_runtime_hopper: no compute capability 9.0 GPU here (${cc:-no GPU}): skipped"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
exec > >(tee "$out/bench_runtime_hopper.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv
date -u

spec="$work/gemm_wgmma.json"
python3 - "$spec" "${FULL:-0}" <<'EOF'
import json, os, sys
s = json.load(open("spaces/gemm_wgmma.json"))
k = s["KernelSpecification"]
k["KernelFile"] = os.path.abspath(os.path.join("spaces", k["KernelFile"]))
if sys.argv[2] != "1":
    narrow = {"tile_m": [128], "tile_n": [64, 256], "consumers": [1, 2], "stages": [3, 5], "group": [1, 8],
              "split_ring": [0]}
    default = {"tile_n": 256, "stages": 3}  # the spec's Default, where outside the narrowed values
    for p in s["ConfigurationSpace"]["TuningParameters"]:
        p["Values"] = str(narrow[p["Name"]])
        p["Default"] = default.get(p["Name"], p["Default"])
    s["Tune"].pop("ceilings", None)  # the example times cuBLAS itself
json.dump(s, open(sys.argv[1], "w"), indent=1)
EOF

echo "== 1. tune gemm_wgmma at $sizes"
"$tune" --space "$spec" --sizes "$sizes" --db "$work/rt.db" --wide 2>&1 | tail -12
"$tune" best --kernel gemm_wgmma --db "$work/rt.db" --json > "$out/best.json"
"$tune" export --format csv --kernel gemm_wgmma --db "$work/rt.db" --out "$out/measurements.csv"
gen="$work/generated"
mkdir -p "$gen"
"$tune" header --db "$work/rt.db" --kernel gemm_wgmma --space "$spec" --table --out "$gen/gemm_wgmma_table.json"
cp "$gen/gemm_wgmma_table.json" "$out/"

echo "== 2. the example: both paths, checked, timed"
bin=${EXAMPLE_BIN:-}
if [ -z "$bin" ]; then
  "$tune" header --db "$work/rt.db" --kernel gemm_wgmma --space "$spec" --dispatch --out "$gen/gemm_wgmma_dispatch.cuh"
  bin="$work/build/gemm_wgmma_example"
  cmake -S "$here/../examples/gemm_wgmma" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
    -DTUNE_GENERATED_DIR="$gen" >/dev/null && cmake --build "$work/build" -j "$(nproc)" 2>&1 | tail -2
  if [ ! -x "$bin" ] && [ -x "${EXAMPLE_FALLBACK:-}" ]; then
    echo "bench_runtime_hopper: the example did not build here: EXAMPLE_FALLBACK=$EXAMPLE_FALLBACK (its own header)"
    bin=$EXAMPLE_FALLBACK
  fi
fi
[ -x "$bin" ] || { echo "bench_runtime_hopper: the example did not build" >&2; exit 1; }
"$bin" "$spec" "$gen/gemm_wgmma_table.json" --sizes "$sizes" --cache "$work/cache" --json --overhead \
  > "$out/example.jsonl"
rc=$?
cat "$out/example.jsonl"
[ "$rc" = 0 ] || echo "bench_runtime_hopper: the example exited $rc"

echo "== 3. table"
python3 "$here/bench_runtime_hopper_table.py" "$out/best.json" "$out/measurements.csv" "$out/example.jsonl"
exit "$rc"
