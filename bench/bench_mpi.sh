#!/usr/bin/env bash
# MPI scaling on a machine with several GPUs (issue "Measure MPI scaling on several GPUs"), from
# the repository root, with Open MPI unpacked by scripts/mpi_bundle.sh:
#   bench/bench_mpi.sh OUT_DIR [TUNE_BINARY] [MPI_DIR]
# PART=brute (default) or strategy or fault; KS="1 2" (ranks, one per GPU); SIZES (brute force,
# default 128:16384:128); every run into a fresh database, one after the other, the same binary.
#   brute:    mpirun -n K tune --space spaces/transpose.json --sizes SIZES: wall time, speed-up over
#             K = 1, per-rank compile and measurement time (the log), and the winners against
#             K = 1's (bench/repro_table.py: regret <= 1.02 both ways at every size);
#             BASE_WALL (s) and a K = 1 from an earlier call (WORK holding brute_1.db and best_1.json,
#             e.g. OUT's brute_1.lite.db and best_1.json copied back): K = 1 is not run again;
#   strategy: spaces/gemm.json at three sizes, greedy_ils, --max-fevals 200 per size, seed 1: the
#             speed-up and the best found at each size against K = 1's;
#   fault:    the brute-force run with K ranks, rank 1 killed (SIGKILL) mid-run (mpi_env.sh lets
#             the job go on: orte_enable_recovery): the others finish it and report the lost rank;
#             then the same command again: it finds nothing left, nothing duplicated.
set -uo pipefail
source "$(dirname "$0")/mpi_args.sh" "$@"  # out, tune, Open MPI's and CUDA's environment
part=${PART:-brute}
ks=${KS:-1 2}
sizes=${SIZES:-128:16384:128}
work=${WORK:-$(mktemp -d)}
nvidia-smi topo -m > "$out/topo.txt" 2>&1
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,temperature.gpu --format=csv > "$out/gpu.txt"
count() { python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])" "$@"; }
run_k() {  # K DB LOG ARGS...: mpirun -n K tune ARGS --db DB; prints the wall seconds
  local k=$1 db=$2 log=$3
  shift 3
  rm -f "$db" "$db-wal" "$db-shm"
  local t0 t1
  t0=$(date +%s.%N)
  mpirun -n "$k" "$tune" "$@" --db "$db" > "$log.out" 2> "$log"
  t1=$(date +%s.%N)
  python3 -c "print(f'{$t1 - $t0:.1f}')"
}
case $part in
brute)
  echo "| K | wall s | speed-up | per rank (log) |" > "$out/brute.md"
  echo "|---|---|---|---|" >> "$out/brute.md"
  base=${BASE_WALL:-}
  [ -n "$base" ] && echo "| 1 | $base | 1.00 | (an earlier call) |" >> "$out/brute.md"
  for k in $ks; do
    wall=$(run_k "$k" "$work/brute_$k.db" "$out/brute_$k.log" --space spaces/transpose.json --sizes "$sizes")
    [ -z "$base" ] && base=$wall
    ranks=$(grep -oE "rank [0-9]+ \(.*items, busy.*" "$out/brute_$k.log" | sed -E 's/ \([^)]*\)//' | tr '\n' ';')
    echo "| $k | $wall | $(python3 -c "print(f'{$base / $wall:.2f}')") | ${ranks:-one process} |" >> "$out/brute.md"
    echo "K=$k: wall $wall s; $(count "$work/brute_$k.db" "select count(*) from measurements") measured, \
$(count "$work/brute_$k.db" "select count(*) from measurements where status != 'ok'") not ok"
    "$tune" best --kernel transpose --db "$work/brute_$k.db" --json > "$work/best_$k.json"
    cp "$work/best_$k.json" "$out/best_$k.json"
    # what the winners' comparison reads, small enough to carry to a later call
    python3 - "$work/brute_$k.db" "$out/brute_$k.lite.db" <<'PY'
import sqlite3, sys
con = sqlite3.connect(sys.argv[2])
con.execute("ATTACH ? AS f", (sys.argv[1],))
con.execute("CREATE TABLE configurations AS SELECT id, params FROM f.configurations")
con.execute("CREATE TABLE measurements AS SELECT size, config_id, objective, status FROM f.measurements")
con.commit()
PY
    if [ "$k" != 1 ]; then
      python3 bench/repro_table.py "$work/brute_1.db" "$work/brute_$k.db" "$work/best_1.json" "$work/best_$k.json" \
        > "$out/winners_1_vs_$k.md"
      grep -E "^[0-9]+ sizes" "$out/winners_1_vs_$k.md" | sed "s/^/K=1 against K=$k: /"
    fi
  done
  cat "$out/brute.md"
  ;;
strategy)
  gs="2048x2048x2048,3072x3072x3072,4096x4096x4096"
  for k in $ks; do
    wall=$(run_k "$k" "$work/gemm_$k.db" "$out/gemm_$k.log" --space spaces/gemm.json --sizes "$gs" \
      --strategy greedy_ils --max-fevals 200 --seed 1)
    echo "K=$k: wall $wall s, $(count "$work/gemm_$k.db" "select count(*) from measurements") evaluations"
    "$tune" best --kernel gemm --db "$work/gemm_$k.db" --json > "$out/gemm_best_$k.json"
  done
  python3 - "$out"/gemm_best_*.json <<'PY'
import json, sys
rows = {}
for p in sys.argv[1:]:
    k = p.rsplit("_", 1)[1].split(".")[0]
    for r in json.load(open(p))["sizes"]:
        rows.setdefault(r["size"], {})[k] = r["time_ms"]
print("| size | " + " | ".join(f"best ms K={k}" for k in sorted(next(iter(rows.values())))) + " |")
for size, v in rows.items():
    print(f"| {size} | " + " | ".join(f"{v[k]:.4f}" for k in sorted(v)) + " |")
PY
  ;;
fault)
  k=${ks##* }
  db="$work/fault.db"
  rm -f "$db"*
  mpirun -n "$k" "$tune" --space spaces/transpose.json --sizes "$sizes" --db "$db" > "$out/fault.out" 2> "$out/fault.log" &
  job=$!
  killed=no
  # rank 1 (OMPI_COMM_WORLD_RANK=1 in its environment), killed ${KILL_AFTER:-3} s after the log says
  # that rank 0 merged a first item (the database cannot be read meanwhile: rank 0 holds it
  # exclusively)
  while kill -0 $job 2> /dev/null && [ $killed = no ]; do
    if grep -q "measured on rank" "$out/fault.log"; then
      sleep "${KILL_AFTER:-3}"
      for d in /proc/[0-9]*; do
        p=${d#/proc/}
        [ "$p" = "$$" ] && continue
        tr '\0' ' ' < "$d/cmdline" 2> /dev/null | grep -q "^$tune " || continue
        if tr '\0' '\n' < "$d/environ" 2> /dev/null | grep -qx "OMPI_COMM_WORLD_RANK=1"; then
          kill -9 "$p" && killed=yes && echo "killed rank 1 (pid $p) after $(grep -c "measured on rank" "$out/fault.log") items"
        fi
      done
      [ $killed = yes ] || {
        echo "rank 1 not found among:"
        for d in /proc/[0-9]*; do
          c=$(tr '\0' ' ' < "$d/cmdline" 2> /dev/null | cut -c1-120)
          case $c in *tune*) echo "$d: $c; environ: $(tr '\0' '\n' < "$d/environ" 2>&1 | grep -c OMPI_COMM_WORLD_RANK)" ;; esac
        done
        break
      }
    fi
    sleep 0.2
  done
  wait $job; rc=$?
  before=$(count "$db" "select count(*) from measurements")
  echo "rank 1 killed: $killed; mpirun exit $rc; $before measurements committed, $(count "$db" "select count(distinct size) from measurements") sizes"
  grep -E "left this run|not heard|died while" "$out/fault.log" | sed 's/^\[[^]]*\] //'
  grep -E "^\| |measured on rank" "$out/fault.out" | tail -3
  mpirun -n "$k" "$tune" --space spaces/transpose.json --sizes "$sizes" --db "$db" > "$out/resume.out" 2> "$out/resume.log"
  echo "resume exit $?: $(count "$db" "select count(*) from measurements") measurements, \
$(count "$db" "select count(*) from (select config_id, device, size, count(*) c from measurements group by 1,2,3 having c > 1)") duplicated, \
integrity $(count "$db" "pragma integrity_check")"
  grep -E "sizes to measure" "$out/resume.log" | sed 's/^\[[^]]*\] //'
  ;;
esac
