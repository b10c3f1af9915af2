#!/usr/bin/env bash
# The MPI checks without a GPU (issue "Tuning on many GPUs and many nodes with MPI"), as CI runs
# them (ctest: mpi_ranks), from the repository root:
#   scripts/mpi_check.sh TUNE_BINARY [MPIRUN]
# on the benchmark_hub data of data/. Three ranks, oversubscribed on whatever cores there are:
# 1. a replay sweep: the output and the database contents (scripts/db_content.py) equal one rank's;
# 2. tune evaluate: the JSON equals one rank's (but for the wall time);
# 3. a rank killed with SIGKILL mid-run (mpirun then ends the job), then the same command again:
#    integrity_check ok, and the measurements equal one rank's, nothing missing or duplicated;
# 4. the same kill where mpirun lets the job go on (--mca orte_enable_recovery 1): the other ranks
#    finish the run (exit 0, the lost rank reported), and the measurements equal one rank's;
#    4b: rank 0 killed: the job ends (with orte_enable_recovery the other ranks end on their own
#    once they no longer hear it), and the same command completes the measurements;
# 5. tune import of one database into another, both ways, and again (nothing new).
set -euo pipefail
tune=$(realpath "${1:?tune binary}")
mpirun=${2:-mpirun}
cd "$(dirname "$0")/.."
root=$PWD
hub=$root/data/benchmark_hub
data=$hub
if [ ! -f "$hub/dedispersion_milo.json" ]; then echo "mpi_check: $hub/dedispersion_milo.json is missing (it is tracked in the repository)" >&2; exit 1; fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_pml=ob1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
same() { python3 "$root/scripts/db_content.py" "$@"; }
# kill_rank_once_merged DB JOB [RANK]: once rank 0 has merged a first item into DB, SIGKILL rank
# RANK (default 2); sets killed=yes. One Python process polls every 5 ms (a process per poll took
# tens of milliseconds on a loaded machine), but the run may still end between the merge and the
# kill (on a loaded machine the first merge can come just before the end): callers try again.
kill_rank_once_merged() {
  if python3 - "$1" "$2" "${3:-2}" "$tune" <<'PY'
import os, signal, sqlite3, sys, time
db, job, rank, tune = sys.argv[1], int(sys.argv[2]), sys.argv[3], os.path.realpath(sys.argv[4])
def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
def merged():
    try:
        c = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.05)
        try:
            return c.execute("select count(*) from runs").fetchone()[0] >= 1
        finally:
            c.close()
    except sqlite3.Error:
        return False
def rank_pids():
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            if os.path.realpath(f"/proc/{p}/exe") != tune:
                continue
            env = open(f"/proc/{p}/environ", "rb").read().split(b"\0")
        except OSError:  # gone, or not ours to read
            continue
        if f"OMPI_COMM_WORLD_RANK={rank}".encode() in env:
            yield int(p)
while alive(job):
    if os.path.exists(db) and merged():
        killed = False
        for p in rank_pids():
            try:
                os.kill(p, signal.SIGKILL)
                killed = True
            except ProcessLookupError:
                pass
        sys.exit(0 if killed else 1)
    time.sleep(0.005)
sys.exit(1)
PY
  then killed=yes; fi
}
fail() { echo "mpi_check: FAIL: $*"; exit 1; }

spec=$hub/dedispersion_milo.json
caches=("$hub"/dedispersion_milo/{A100,A4000,MI250X}.json.gz "$data"/dedispersion_milo/{A6000,W6600,W7800}.json.gz)
replay=(--space "$spec" --replay "${caches[@]}" --strategy genetic_algorithm --max-fevals 300 --seed 11)

echo "== 1. replay sweep: 3 ranks against 1"
"$tune" "${replay[@]}" --db one.db > one.txt 2> one.log
"$mpirun" -n 3 "$tune" "${replay[@]}" --db three.db > three.txt 2> three.log || { cat three.log; fail "mpirun -n 3 replay"; }
diff one.txt three.txt > /dev/null || { diff one.txt three.txt | head; fail "the replay's output differs"; }
# every rank took a share (a rank that took nothing would leave the output the same)
for r in 0 1 2; do grep -qE "rank $r: [1-9][0-9]* items" three.log || { cat three.log; fail "rank $r took no replay group"; }; done
grep -E "rank [0-9]: [0-9]+ items" three.log | sed 's/^\[[^]]*\] info //' | tr '\n' ';'; echo
same one.db three.db || fail "the databases differ"
echo "output: $(wc -l < one.txt) lines, the same"

echo "== 2. tune evaluate: 3 ranks against 1"
ev=(evaluate --space "$spec" --replay "${caches[@]:0:3}" --strategy random_sample,greedy_ils,bayes_opt --repeats 6
    --resamples 50 --json)
"$tune" "${ev[@]}" > e1.json 2> e1.log
"$mpirun" -n 3 "$tune" "${ev[@]}" > e3.json 2> e3.log || { cat e3.log; fail "mpirun -n 3 evaluate"; }
for r in 0 1 2; do grep -qE "rank $r: [1-9][0-9]* items" e3.log || { cat e3.log; fail "rank $r took no evaluate cell"; }; done
python3 - e1.json e3.json <<'PY' || fail "evaluate differs"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
a.pop("wall_s", None); b.pop("wall_s", None)
diff = [k for k in set(a) | set(b) if a.get(k) != b.get(k)]
print("evaluate: keys", sorted(a), "the same" if not diff else f"DIFFERENT in {diff}")
sys.exit(1 if diff else 0)
PY

echo "== 3. a rank killed mid-run, then the same command again"
brute=(--space "$spec" --replay "${caches[@]}" --strategy brute_force --seed 3)
"$tune" "${brute[@]}" --db clean.db > /dev/null 2>&1
killed=no
for attempt in 1 2 3 4 5 6; do
  rm -f killed.db*
  "$mpirun" -n 3 "$tune" "${brute[@]}" --db killed.db > killed.txt 2> killed.log &
  job=$!
  # once rank 0 has merged a first group, SIGKILL rank 2 (mpirun then ends the job)
  kill_rank_once_merged killed.db "$job"
  wait "$job" && rc=0 || rc=$?
  [ $killed = yes ] && break
done
[ $killed = yes ] || fail "the run ended before a rank could be killed (6 attempts)"
[ "$rc" -ne 0 ] || fail "mpirun exited 0 although a rank was killed"
before=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from measurements').fetchone()[0])" killed.db)
echo "killed rank 2: mpirun exited $rc with $before measurements committed"
"$mpirun" -n 3 "$tune" "${brute[@]}" --db killed.db > /dev/null 2> resumed.log || { cat resumed.log; fail "the resume"; }
python3 - killed.db <<'PY' || fail "integrity_check"
import sqlite3, sys
r = sqlite3.connect(sys.argv[1]).execute("PRAGMA integrity_check").fetchone()[0]
print("integrity_check:", r); sys.exit(0 if r == "ok" else 1)
PY
same clean.db killed.db --tables=measurements,configurations || fail "after the resume the measurements differ"
echo "resumed: integrity ok, the measurements equal one uninterrupted rank's"

echo "== 4. a rank killed mid-run where the job may go on: the others finish it"
ok=no
for attempt in 1 2 3 4 5; do
  rm -f lost.db*
  TUNE_MPI_SILENCE=3 "$mpirun" --mca orte_enable_recovery 1 -n 3 "$tune" "${brute[@]}" --db lost.db > lost.txt 2> lost.log &
  job=$!
  kill_rank_once_merged lost.db "$job"
  wait "$job" && rc=0 || rc=$?
  [ "$rc" -eq 0 ] || { cat lost.log; fail "mpirun exited $rc with a rank lost under orte_enable_recovery"; }
  # the kill may land after rank 2's last item; then nobody had to take its work: try again
  if grep -q "left this run: rank 2" lost.log; then ok=yes; break; fi
done
[ $ok = yes ] || fail "rank 2 was never lost mid-item (5 attempts)"
grep "left this run" lost.log
same clean.db lost.db --tables=measurements,configurations || fail "with a rank lost the measurements differ"
echo "lost rank 2: the others finished, exit 0, the measurements equal one uninterrupted rank's"

echo "== 4b. rank 0 killed mid-run, with and without orte_enable_recovery, then the same command again"
for mode in default recovery; do
  extra=()
  [ $mode = recovery ] && extra=(--mca orte_enable_recovery 1)
  killed=no
  for attempt in 1 2 3 4 5; do
    rm -f r0.db*
    t0=$SECONDS
    TUNE_MPI_SILENCE=3 timeout 60 "$mpirun" "${extra[@]}" -n 3 "$tune" "${brute[@]}" --db r0.db > /dev/null 2> r0.log &
    job=$!
    kill_rank_once_merged r0.db "$job" 0
    wait "$job" && rc=0 || rc=$?
    [ $killed = yes ] && break
  done
  [ $killed = yes ] || fail "the run ended before rank 0 could be killed (5 attempts, $mode)"
  [ "$rc" -ne 124 ] || { cat r0.log; fail "the other ranks did not end after rank 0 was killed ($mode)"; }
  if [ $mode = recovery ]; then
    [ "$(grep -c "rank 0 has not been heard from" r0.log)" -eq 2 ] || { cat r0.log; fail "ranks 1 and 2 did not say rank 0 is gone"; }
  fi
  "$mpirun" -n 3 "$tune" "${brute[@]}" --db r0.db > /dev/null 2> r0_resume.log || { cat r0_resume.log; fail "the resume after rank 0 ($mode)"; }
  same clean.db r0.db --tables=measurements,configurations > /dev/null || fail "after rank 0's death and the resume the measurements differ ($mode)"
  echo "rank 0 killed ($mode): the job ended in $((SECONDS - t0)) s (mpirun exit $rc), the resume completed the measurements"
done

echo "== 5. tune import, both ways"
"$tune" --space "$spec" --replay "${caches[0]}" --strategy random_sample --max-fevals 200 --seed 5 --db a.db > /dev/null 2>&1
"$tune" --space "$spec" --replay "${caches[1]}" --strategy random_sample --max-fevals 200 --seed 6 --db b.db > /dev/null 2>&1
cp a.db a0.db
"$tune" import b.db --db a.db
"$tune" import a0.db --db b.db
same a.db b.db --tables=measurements,configurations,runs,flags || fail "a+b and b+a differ"
again=$("$tune" import b.db --db a.db)
echo "$again"
case "$again" in *": 0 runs, 0 measurements added or newer"*) ;; *) fail "a second import added rows" ;; esac
echo "mpi_check: all passed"
