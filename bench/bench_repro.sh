#!/usr/bin/env bash
# Reproducibility benchmark (GPU machine, repository root, prebuilt binary):
#   bench/bench_repro.sh OUT_DIR [TUNE_BINARY] [SPACE] [SIZES]
# Two independent runs of the main job (default: spaces/transpose.json at 128:4096), each into a
# fresh database on the same GPU, one after the other; then per size the configuration each uses,
# its regret in the other run (target <= 1.02 both ways at every size), whether both report the
# tie, the run-to-run spread of each configuration, and the time per measurement
# (bench/repro_table.py). The table goes to OUT_DIR/repro.md; the exit status is 1 when a regret
# exceeds 1.02. RUNS=3 (up to 4) makes that many runs and a table for every pair (repro_ab.md, ...).
# ARGS_a .. ARGS_d: further arguments for that run alone, to compare an option on one host with the
# runs interleaved (ARGS_b='--compile-threads 2' ARGS_d='--compile-threads 2'); each is printed.
# BIN_a .. BIN_d: another tune binary for that run alone, to compare two builds on one host with the
# runs interleaved (BIN_b=.gpu/tune_old BIN_d=.gpu/tune_old); each is printed. The tables then pair
# runs of different binaries too: read the pairs of one binary (ac, bd) for agreement.
set -uo pipefail
[[ ${RUNS:-2} =~ ^[2-4]$ ]] || { echo "bench_repro.sh: RUNS must be 2, 3 or 4 (got '${RUNS}')" >&2; exit 2; }
out=${1:?output folder}
tune=${2:-build/tune}
space=${3:-spaces/transpose.json}
sizes=${4:-128:4096}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
kernel=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['KernelSpecification']['KernelName'])" "$space")
runs=$(echo a b c d | cut -d' ' -f1-"${RUNS:-2}")
declare -A bin  # each run's binary, checked before anything is written or run
for r in $runs; do
  bin_var="BIN_$r"
  bin[$r]=${!bin_var:-$tune}
  [[ -x "${bin[$r]}" ]] || { echo "bench_repro.sh: $bin_var=${bin[$r]} is not an executable" >&2; exit 2; }
done
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$out/gpu.txt"
for r in $runs; do
  rm -f "$out/$r.db" "$out/$r.db-wal" "$out/$r.db-shm"
  extra_var="ARGS_$r"
  read -r -a extra <<< "${!extra_var:-}"
  [[ ${#extra[@]} -gt 0 ]] && echo "run $r: with ${extra[*]}"
  [[ "${bin[$r]}" != "$tune" ]] && echo "run $r: binary ${bin[$r]}"
  /usr/bin/time -f "run $r: wall %e s" "${bin[$r]}" --space "$space" --sizes "$sizes" --db "$out/$r.db" --json "${extra[@]}" \
    > "$out/${r}_run.json" 2> "$out/${r}_run.log"
  tail -n 1 "$out/${r}_run.log"
  "$tune" best --kernel "$kernel" --db "$out/$r.db" --json > "$out/${r}_best.json"
  # what the decision saw, without the samples and the cubins (the databases stay on the machine)
  python3 bench/export_verdicts.py "$out/$r.db" "$out/${r}_verdicts.json"
done
status=0
for x in $runs; do
  for y in $runs; do
    [[ "$x" < "$y" ]] || continue
    python3 bench/repro_table.py "$out/$x.db" "$out/$y.db" "$out/${x}_best.json" "$out/${y}_best.json" \
      "$out/${x}_run.json" "$out/${y}_run.json" > "$out/repro_$x$y.md" || status=1
    echo "runs $x, $y: $(grep 'sizes over' "$out/repro_$x$y.md")"
  done
done
cp "$out/repro_ab.md" "$out/repro.md"
exit $status
