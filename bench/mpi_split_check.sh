#!/usr/bin/env bash
# One size split over MPI ranks (two ranks sharing one GPU: correctness, not speed), on the GPU
# machine from the repository root, with Open MPI unpacked by scripts/mpi_bundle.sh:
#   bench/mpi_split_check.sh OUT_DIR [TUNE_BINARY] [MPI_DIR]
# 1. brute force, the transpose at one size (SIZE, default 2048): one process, then `mpirun -n 2`,
#    which splits the size into two shares of the configurations and a decision;
# 2. bayes_opt, GEMM 4096^3 with --max-fevals 58 --seed 1: one process, then `mpirun -n 2`, two
#    searches of 29 evaluations (seeds apart) and a decision.
# 1b. the two-rank transpose database with its decision deleted: the same command decides it again.
# For each: the items from the log, the measurements by status, the evaluations, the decisions, and
# each run's winner against the other's (brute force: bench/repro_table.py, both measured every
# configuration; the strategy: the winners' objectives, each in its own run).
set -uo pipefail
source "$(dirname "$0")/mpi_args.sh" "$@"  # out, tune, Open MPI's and CUDA's environment
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
summary() {  # db
  python3 - "$1" <<'PY'
import sqlite3, sys
c = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
st = dict(c.execute("select status, count(*) from measurements group by status").fetchall())
dec = c.execute("""select d.size, cf.params, (select count(*) from json_each(d.candidates)) from decisions d
                   join configurations cf on cf.id = d.winner_id""").fetchall()
for size, params, n in dec:
    obj = c.execute("""select m.objective from measurements m join configurations cf on cf.id = m.config_id
                       where m.size = ? and cf.params = ?""", (size, params)).fetchone()
    print(f"  decision at {size}: {n} candidates, winner {params} at {obj[0]:.5f} ms")
print("  measurements by status:", st, "| decisions:", len(dec), "| integrity:",
      c.execute("pragma integrity_check").fetchone()[0])
PY
}
run_pair() {  # name, tune arguments...
  local name=$1
  shift
  rm -f "$out/$name"_{one,two}.db*
  /usr/bin/time -f "one process: wall %e s" "$tune" "$@" --db "$out/${name}_one.db" > "$out/${name}_one.txt" \
    2> "$out/${name}_one.log"
  echo "one process: exit $?; $(tail -n 1 "$out/${name}_one.log")"
  summary "$out/${name}_one.db"
  /usr/bin/time -f "mpirun -n 2: wall %e s" mpirun -n 2 --bind-to none "$tune" "$@" --db "$out/${name}_two.db" \
    > "$out/${name}_two.txt" 2> "$out/${name}_two.log"
  echo "mpirun -n 2: exit $?; $(tail -n 1 "$out/${name}_two.log")"
  grep -E "split into|share|decided on|ranks on" "$out/${name}_two.log" | sed 's/^\[[^]]*\] //'
  summary "$out/${name}_two.db"
}
echo "== 1. brute force, one size"
run_pair transpose --space spaces/transpose.json --sizes "${SIZE:-2048}"
"$tune" best --kernel transpose --db "$out/transpose_one.db" --json > "$out/t_one_best.json"
"$tune" best --kernel transpose --db "$out/transpose_two.db" --json > "$out/t_two_best.json"
python3 bench/repro_table.py "$out/transpose_one.db" "$out/transpose_two.db" "$out/t_one_best.json" \
  "$out/t_two_best.json" > "$out/transpose_repro.md"
grep -E "^\| [0-9]+x" "$out/transpose_repro.md" | head -3
echo "== 1b. the same two-rank command again with the size's decision deleted (a run killed before it)"
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('delete from decisions'); c.commit()" \
  "$out/transpose_two.db"
mpirun -n 2 --bind-to none "$tune" --space spaces/transpose.json --sizes "${SIZE:-2048}" \
  --db "$out/transpose_two.db" > "$out/transpose_again.txt" 2> "$out/transpose_again.log"
echo "mpirun -n 2 again: exit $?"
grep -E "split into|decided on|ranks on" "$out/transpose_again.log" | sed 's/^\[[^]]*\] //'
summary "$out/transpose_two.db"
echo "== 2. bayes_opt, one size, 58 evaluations"
run_pair gemm --space spaces/gemm.json --sizes 4096x4096x4096 --strategy bayes_opt --max-fevals 58 --seed 1
find "$out" -name "*.db*" -delete
tar czf "$out.tgz" -C "$(dirname "$out")" "$(basename "$out")" && rm -rf "$out"
