#!/usr/bin/env bash
# Measurement throughput (GPU machine, repository root, prebuilt binary):
#   bench/bench_throughput.sh OUT_DIR [TUNE_BINARY]
# 1. the transposes at the five sizes 10880..16384 (step 1376): wall time against measurement time
#    (target: wall <= 1.3 x measurement);
# 2. GEMM 4096^3 over spaces/gemm.json: per configuration, the measurement's cost against its timed
#    launches (target: <= 1.5 x).
# Each runs into a fresh database; the runs' --json totals go to OUT_DIR, the table is printed last.
set -uo pipefail
out=${1:?output folder}
tune=${2:-build/tune}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$out/gpu_throughput.txt"
run() {  # name, then tune's arguments
  local name=$1; shift
  rm -f "$out/$name.db"*
  /usr/bin/time -f "$name: wall %e s" "$tune" "$@" --db "$out/$name.db" --json > "$out/$name.json" 2> "$out/$name.log"
  tail -n 1 "$out/$name.log"
}
run transpose_large --space spaces/transpose.json --sizes 10880:16384:1376
run gemm_4096 --space spaces/gemm.json --sizes 4096x4096x4096
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
print("| sweep | measurements | wall s | measurement s | timed launches s | wall / measurement | measurement / timed launches | per configuration: measurement ms, timed ms |")
print("|---|---|---|---|---|---|---|---|")
for name in ("transpose_large", "gemm_4096"):
    r = json.load(open(f"{out}/{name}.json"))
    n = r["measured"] + r["failed"]
    timed = r.get("timed_s", float("nan"))
    print(f"| {name} | {n} | {r['wall_s']:.1f} | {r['measure_s']:.1f} | {timed:.2f} | "
          f"{r['wall_s'] / r['measure_s']:.2f} | {r['measure_s'] / timed:.2f} | "
          f"{1000 * r['measure_s'] / max(n, 1):.1f}, {1000 * timed / max(n, 1):.1f} |")
PY
