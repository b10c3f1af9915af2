#!/usr/bin/env bash
# The compute kernels on the GPU machine, from the repository root with a prebuilt binary:
#   bench/gpu_compute.sh OUT_DIR [TUNE_BINARY] [PART]
# PART (default all) splits the work for machines that limit one command's time: `a` runs pairwise,
# matching and GEMM 2048^3, 4096^3; `b` runs GEMM 8192^3 after importing part a's recorded GEMM
# caches (results/recorded/gemm), so GEMM's best / header / report / recording cover all sizes.
# GEMM (2048^3 and 4096^3 over spaces/gemm.json, 8192^3 over its fast family spaces/gemm_large.json),
# feature matching (16384 x 16384 x 128, 8192 x 8192 x 256) and pairwise distance (2048 x 1024
# outputs, dim 1 to 128): every configuration verified, ceilings measured in the same run; then
# tune best / header / report, and each sweep exported as Kernel Tuner caches for replay.
set -uo pipefail
out=${1:?output folder}
tune=${2:-build/tune}
part=${3:-all}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p "$out"
work=$(mktemp -d)
db="$work/compute.db"
exec > >(tee "$out/gpu_compute.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
run() { echo "== $*"; /usr/bin/time -f "wall %e s" "$tune" "$@" --db "$db" 2>&1 | grep -v "^measuring"; }
kernels="gemm matching pairwise"
if [[ $part != b ]]; then
  run --space spaces/pairwise.json --sizes 1024x2048x1,1024x2048x2,1024x2048x4,1024x2048x8,1024x2048x16,1024x2048x32,1024x2048x64,1024x2048x128
  run --space spaces/matching.json --sizes 16384x16384x128,8192x8192x256 --repetitions 10 --warmup 2
  run --space spaces/gemm.json --sizes 2048x2048x2048,4096x4096x4096 --repetitions 10 --warmup 2
fi
if [[ $part != a ]]; then
  [[ $part == b ]] && kernels=gemm && "$tune" import --db "$db" results/recorded/gemm/2048x2048x2048.json.gz results/recorded/gemm/4096x4096x4096.json.gz
  run --space spaces/gemm_large.json --sizes 8192x8192x8192 --repetitions 5 --warmup 1
fi
for k in $kernels; do
  echo "== best / header / report: $k"
  "$tune" best --kernel "$k" --db "$db" --json > "$out/best_$k.json" && python3 -c 'import json,sys; [print(r["size"], r.get("median_ms"), r.get("gflops")) for r in json.load(open(sys.argv[1]))["sizes"]]' "$out/best_$k.json"
  "$tune" header --kernel "$k" --db "$db" --out "$out/${k}_tuned.h" | tail -1
  "$tune" report --kernel "$k" --db "$db" --out "$out/$k.html" | tail -1
done
"$tune" db --db "$db" | tail -5
echo "== recorded sweeps (Kernel Tuner caches) for replay without a GPU"
device=$("$tune" best --kernel gemm --db "$db" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["sizes"][0]["device"])')
for k in $kernels; do TUNE="$tune" bench/record_sweep.sh "$db" "$k" "$device"; done
tar czf "$out/recorded.tar.gz" $(for k in $kernels; do echo results/recorded/$k; done)
for k in $kernels; do "$tune" export --format csv --kernel "$k" --db "$db" --out "$work/$k.csv" >/dev/null; done
(cd "$work" && tar czf "$out/measurements_csv.tar.gz" ./*.csv)
(cd "$out" && tar czf artifacts.tar.gz ./*.html ./*_tuned.h && rm -f ./*.html ./*_tuned.h)
