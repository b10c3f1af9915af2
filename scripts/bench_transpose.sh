#!/usr/bin/env bash
# Transpose performance benchmark on the GPU machine (from the repository root, prebuilt binary):
#   scripts/bench_transpose.sh OUT_DIR [TUNE_BINARY]
# Tunes spaces/transpose.json at every multiple of 128 from 128 to 16384, with the ceilings
# (cudaMemcpy device to device of the same bytes, cublasSgeam) measured in the same run, and prints
# the per-size table with the worst ratios over the ranges the targets name.
set -uo pipefail
out=${1:?output folder}
tune=${2:-build/tune}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
/usr/bin/time -f "wall %e s" "$tune" --space spaces/transpose.json --sizes 128:16384 --db "$out/bench.db" --json \
  > "$out/bench.json" 2> "$out/bench.log"
tail -3 "$out/bench.log"
python3 - "$out/bench.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["sizes"]
print(f"device {d['device']}: {d['measured']} measured, {d['failed']} failed, wall {d['wall_seconds']:.1f} s")
def n(r): return int(r["size"].split("x")[0])
big = [r for r in rows if 2048 <= n(r) <= 16384]
worst_copy = min(big, key=lambda r: r["copy_fraction"])
worst_lib = min(rows, key=lambda r: r["library_ratio"])
print(f"worst fraction of copy over 2048..16384: {worst_copy['copy_fraction']:.3f} at {worst_copy['size']}")
print(f"worst ratio to cublasSgeam over 128..16384: {worst_lib['library_ratio']:.3f} at {worst_lib['size']}")
print(f"sizes below 0.95 of copy (2048..16384): {[r['size'] for r in big if r['copy_fraction'] < 0.95]}")
print(f"sizes below 1.0 of cublasSgeam: {[r['size'] for r in rows if r['library_ratio'] < 1.0]}")
print("| n | median ms | GB/s | of copy | vs cublasSgeam |")
print("|---|---|---|---|---|")
for r in rows:
    if n(r) in (128, 256, 512, 1024, 2048, 3072, 4096, 6144, 8192, 12288, 16384) or r["copy_fraction"] < 0.95 and n(r) >= 2048:
        print(f"| {r['size']} | {r['median_ms']:.4f} | {r['gbps']:.0f} | {r['copy_fraction']:.3f} | {r['library_ratio']:.3f} |")
PY
