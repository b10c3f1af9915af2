#!/usr/bin/env bash
# The transpose against the copy and cuBLAS at large sizes (GPU machine, repository root):
#   bench/bench_transpose_large.sh OUT_DIR [TUNE_BINARY] [SIZES]
# Tunes spaces/transpose.json at SIZES (default 2048:16384:1024) into a fresh database, the
# ceilings (cudaMemcpy device to device of the same bytes, cublasSgeam) measured in the same run by
# the same method; prints per size the fraction of the copy and the ratio to cuBLAS, and the worst
# of each (targets: >= 0.95 of the copy, >= 1.0 of cuBLAS).
set -uo pipefail
out=${1:?output folder}
tune=${2:-build/tune}
sizes=${3:-2048:16384:1024}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$out/gpu.txt"
rm -f "$out/large.db"*
/usr/bin/time -f "wall %e s" "$tune" --space spaces/transpose.json --sizes "$sizes" --db "$out/large.db" --json \
  > "$out/large.json" 2> "$out/large.log"
tail -n 1 "$out/large.log"
python3 - "$out/large.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"{r['device']}: {r['measured']} measured, {r['failed']} failed, wall {r['wall_s']:.1f} s")
print("| size | ms | GB/s | of copy | vs cublasSgeam | tied |")
print("|---|---|---|---|---|---|")
for s in r["sizes"]:
    print(f"| {s['size']} | {s['time_ms']:.4f} | {s['gbps']:.0f} | {s['copy_fraction']:.3f} | {s['library_ratio']:.3f} | {s['tied']} |")
copy = min(s["copy_fraction"] for s in r["sizes"]); lib = min(s["library_ratio"] for s in r["sizes"])
print(f"worst: {copy:.3f} of copy (target >= 0.95), {lib:.3f} of cublasSgeam (target >= 1.0)")
PY
