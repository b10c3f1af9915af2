#!/usr/bin/env bash
# The MPI check on one GPU (two ranks sharing it: correctness, not speed), on the GPU machine from
# the repository root, with Open MPI unpacked by scripts/mpi_bundle.sh:
#   bench/mpi_gpu_check.sh OUT_DIR [TUNE_BINARY] [MPI_DIR]
# 1. the main job on one process, then `mpirun -n 2` of the same command into another database;
# 2. every measurement of the two-rank run verified (status counts);
# 3. the winners of the two runs: each run's winner's regret in the other run
#    (bench/repro_table.py; the noise rule: regret <= 1.02 both ways at every size);
# 4. the two outputs side by side (the same table, the same notes).
set -uo pipefail
source "$(dirname "$0")/mpi_args.sh" "$@"  # out, tune, Open MPI's and CUDA's environment
space=${SPACE:-spaces/transpose.json}
sizes=${SIZES:-128:4096}
kernel=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['KernelSpecification']['KernelName'])" "$space")
nvidia-smi topo -m > "$out/topo.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$out/gpu.txt"
mpirun --version | head -1
rm -f "$out"/{one,two}.db*
echo "== 1. one process, then mpirun -n 2"
/usr/bin/time -f "one process: wall %e s" "$tune" --space "$space" --sizes "$sizes" --db "$out/one.db" \
  > "$out/one.txt" 2> "$out/one.log"
tail -n 1 "$out/one.log"
/usr/bin/time -f "mpirun -n 2: wall %e s" mpirun -n 2 "$tune" --space "$space" --sizes "$sizes" --db "$out/two.db" \
  > "$out/two.txt" 2> "$out/two.log"
echo "mpirun exit $?"
tail -n 1 "$out/two.log"
grep -E "^\[.*(rank|ranks on)" "$out/two.log" | sed 's/^\[[^]]*\] //' | head -8
echo "== 2. verification"
python3 - "$out/one.db" "$out/two.db" <<'PY'
import sqlite3, sys
for p in sys.argv[1:]:
    c = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
    st = dict(c.execute("select status, count(*) from measurements group by status").fetchall())
    runs = c.execute("select count(*), group_concat(status) from runs").fetchone()
    print(p.rsplit('/', 1)[-1], "measurements by status:", st, "| runs:", runs,
          "| integrity:", c.execute("pragma integrity_check").fetchone()[0])
PY
echo "== 3. winners, one process against two ranks"
"$tune" best --kernel "$kernel" --db "$out/one.db" --json > "$out/one_best.json"
"$tune" best --kernel "$kernel" --db "$out/two.db" --json > "$out/two_best.json"
python3 bench/repro_table.py "$out/one.db" "$out/two.db" "$out/one_best.json" "$out/two_best.json" > "$out/repro.md"
echo "repro_table exit $?"
for r in one two; do python3 bench/export_verdicts.py "$out/$r.db" "$out/${r}_verdicts.json"; done
grep -iE "regret|agreed|within" "$out/repro.md" | head -8
echo "== 4. the outputs"
head -n 12 "$out/two.txt"
echo "..."
tail -n 6 "$out/two.txt"
diff <(sed -E 's/[0-9]+(\.[0-9]+)?/N/g' "$out/one.txt") <(sed -E 's/[0-9]+(\.[0-9]+)?/N/g' "$out/two.txt") > "$out/shape.diff" \
  && echo "the two outputs have the same lines (numbers aside)" || echo "outputs differ beyond numbers: $(wc -l < "$out/shape.diff") diff lines"
# what comes back from the device machine: one archive, without the databases (KEEP_DB=1: with
# them, checkpointed, for a closer look at a size that missed)
if [[ ${KEEP_DB:-0} == 1 ]]; then
  for r in one two; do python3 -c "import sqlite3,sys; sqlite3.connect(sys.argv[1]).execute('pragma wal_checkpoint(truncate)')" "$out/$r.db"; done
  find "$out" -name "*.db-*" -delete
else
  find "$out" -name "*.db*" -delete
fi
tar czf "$out.tgz" -C "$(dirname "$out")" "$(basename "$out")" && rm -rf "$out"
