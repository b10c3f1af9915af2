#!/usr/bin/env bash
# Reproducibility benchmark (GPU machine, repository root, prebuilt binary):
#   scripts/bench_repro.sh OUT_DIR [TUNE_BINARY] [SPACE] [SIZES]
# Two independent runs of the main job (default: spaces/transpose.json at 128:4096), each into a
# fresh database on the same GPU, one after the other; then per size the configuration each uses,
# its regret in the other run (target <= 1.02 both ways at every size), whether both report the
# tie, the run-to-run spread of each configuration, and the time per measurement
# (scripts/repro_table.py). The table goes to OUT_DIR/repro.md; the exit status is 1 when a regret
# exceeds 1.02. RUNS=3 (up to 4) makes that many runs and a table for every pair (repro_ab.md, ...).
set -uo pipefail
[[ ${RUNS:-2} =~ ^[2-4]$ ]] || { echo "bench_repro.sh: RUNS must be 2, 3 or 4 (got '${RUNS}')" >&2; exit 2; }
out=${1:?output folder}
tune=${2:-build/tune}
space=${3:-spaces/transpose.json}
sizes=${4:-128:4096}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p "$out"
kernel=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['KernelSpecification']['KernelName'])" "$space")
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$out/gpu.txt"
runs=$(echo a b c d | cut -d' ' -f1-"${RUNS:-2}")
for r in $runs; do
  rm -f "$out/$r.db" "$out/$r.db-wal" "$out/$r.db-shm"
  /usr/bin/time -f "run $r: wall %e s" "$tune" --space "$space" --sizes "$sizes" --db "$out/$r.db" --json \
    > "$out/${r}_run.json" 2> "$out/${r}_run.log"
  tail -n 1 "$out/${r}_run.log"
  "$tune" best --kernel "$kernel" --db "$out/$r.db" --json > "$out/${r}_best.json"
  # what the decision saw, without the samples and the cubins (the databases stay on the machine):
  # every verified configuration's objective per size, and the stored decisions
  python3 - "$out/$r.db" "$out/${r}_verdicts.json" <<'PY'
import json, sqlite3, sys
con = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
m = con.execute("SELECT m.size, c.params, m.objective, m.sample_count FROM measurements m JOIN configurations c"
                " ON c.id = m.config_id WHERE m.status = 'ok' AND m.objective > 0").fetchall()
d = con.execute("SELECT d.size, c.params, d.tie_margin, d.candidates, d.rounds, d.noise FROM decisions d"
                " JOIN configurations c ON c.id = d.winner_id").fetchall()
ids = dict(con.execute("SELECT id, params FROM configurations").fetchall())
devices = [r[0] for r in con.execute("SELECT DISTINCT device FROM measurements")]
json.dump({"devices": devices, "measurements": m, "decisions": d, "configurations": ids}, open(sys.argv[2], "w"))
PY
done
status=0
for x in $runs; do
  for y in $runs; do
    [[ "$x" < "$y" ]] || continue
    python3 scripts/repro_table.py "$out/$x.db" "$out/$y.db" "$out/${x}_best.json" "$out/${y}_best.json" \
      "$out/${x}_run.json" "$out/${y}_run.json" > "$out/repro_$x$y.md" || status=1
    echo "runs $x, $y: $(grep 'sizes over' "$out/repro_$x$y.md")"
  done
done
cp "$out/repro_ab.md" "$out/repro.md"
exit $status
