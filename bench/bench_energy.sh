#!/usr/bin/env bash
# The energy figures of issue 45 on a GPU machine, in one call (docs/performance.md, "Energy"):
#   bash bench/bench_energy.sh OUT DIR
# DIR holds the tune binary, spaces/, kernels_src/ and energy_agreement.py (the repository's
# layout). First a probe run finds the energy counter's update period (the method line); the
# transpose sweep is then sized to about $WINDOW_S seconds of energy windows per run: all the space's
# configurations at as many of $SIZES as fit (else the first configurations of the space). Two
# independent energy runs of it (each its own process and database), each followed by `tune best
# --pareto`; a guided energy search of the GEMM at 4096^3; the two runs' agreement by the
# reproducibility rule (bench/energy_agreement.py); the noise of the race's windows and of one
# configuration from run to run (bench/energy_noise.py); the report. Where DIR holds energy_probe
# (bench/energy_probe.cu, built), first the counter's behaviour under a steady load (probe.csv).
# Under OUT: log.txt, the databases, the fronts as JSON and the report. Never changes clocks or
# power limits. PERIOD=ms skips the probe run; FEVALS=N measures the first N configurations at every
# size of $SIZES; GEMM=0 skips GEMM.
set -u
OUT=$1
D=$(cd "$2" && pwd)
SIZES=${SIZES:-4096,2048,1024}
WINDOW_S=${WINDOW_S:-55}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$D/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T=$D/tune
log=$OUT/log.txt
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,power.draw,power.limit,clocks.sm,temperature.gpu --format=csv
} >"$log" 2>&1
if [ -x "$D/energy_probe" ]; then
  timeout 30 "$D/energy_probe" 1000 "${PROBE_MS:-8000}" >"$OUT/probe.csv" 2>>"$log"
  echo "== energy_probe: exit $?" >>"$log"
  python3 "$D/energy_noise.py" --probe "$OUT/probe.csv" >>"$log" 2>&1
fi
if [ -z "${PERIOD:-}" ]; then
  "$T" --space "$D/spaces/transpose.json" --sizes 512 --objective energy --strategy brute_force --max-fevals 2 \
    --db /tmp/probe.db >/tmp/probe.txt 2>&1
  echo "== probe: exit $?" >>"$log"
  grep -m1 -o "updated every [0-9.]* ms" /tmp/probe.txt >>"$log" || tail -3 /tmp/probe.txt >>"$log"
  period=$(grep -m1 -o "updated every [0-9.]*" /tmp/probe.txt | grep -o "[0-9.]*$")
else
  period=$PERIOD  # known from an earlier call: no probe
fi
period=${period:-100}
# a window: 5 ms of ramp, half a period to the first update, then `updates` periods, and the timing
updates=3
awk -v p="$period" 'BEGIN { exit !(p > 40) }' && updates=2
per_ms=$(awk -v p="$period" -v u="$updates" 'BEGIN { print 12 + p * (u + 0.5) }')
windows=$(awk -v s="$WINDOW_S" -v w="$per_ms" 'BEGIN { print int(s * 1000 / w) }')
configs=$("$T" space --space "$D/spaces/transpose.json" 2>/dev/null | grep -o 'valid [0-9]*' | grep -o '[0-9]*$')
[ -n "$configs" ] || { echo "bench_energy.sh: \`tune space\` did not count $D/spaces/transpose.json" >&2; exit 2; }
n_sizes=$((windows / configs))
fevals=""
if [ "$n_sizes" -ge 3 ]; then sizes=$SIZES
elif [ "$n_sizes" -ge 1 ]; then sizes=$(echo "$SIZES" | cut -d, -f1-"$n_sizes")
else sizes=$(echo "$SIZES" | cut -d, -f1); fevals="--max-fevals $windows"; fi
if [ -n "${FEVALS:-}" ]; then sizes=$SIZES; fevals="--max-fevals $FEVALS"; fi  # given: as asked
echo "== period ${period} ms, ${updates} updates a window (~${per_ms} ms): sizes ${sizes} ${fevals}" >>"$log"
for r in a b; do
  t0=$(date +%s)
  "$T" --space "$D/spaces/transpose.json" --sizes "$sizes" $fevals --objective energy --strategy brute_force \
    --policy energy_updates=$updates --time-limit "${LIMIT:-95}" --db "$OUT/transpose_$r.db" >>"$log" 2>&1
  echo "== transpose run $r: exit $?, $(($(date +%s) - t0)) s" >>"$log"
  "$T" best --pareto --json --db "$OUT/transpose_$r.db" >"$OUT/pareto_$r.json" 2>>"$log"
done
t0=$(date +%s)
[ "${GEMM:-1}" = 1 ] && "$T" --space "$D/spaces/gemm.json" --sizes 4096 --objective energy --strategy bayes_opt --seed 7 \
  --policy energy_updates=$updates --max-fevals "${GEMM_FEVALS:-24}" --time-limit "${GEMM_LIMIT:-45}" \
  --db "$OUT/gemm.db" >>"$log" 2>&1
echo "== gemm 4096^3: exit $?, $(($(date +%s) - t0)) s" >>"$log"
if [ "${GEMM:-1}" = 1 ]; then
  "$T" best --pareto --db "$OUT/gemm.db" >>"$log" 2>&1
  "$T" best --pareto --json --db "$OUT/gemm.db" >"$OUT/gemm_pareto.json" 2>>"$log"
  python3 - "$OUT/gemm.db" >>"$log" 2>&1 <<'PY'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
ok, with_energy = con.execute("SELECT COUNT(*), COUNT(energy_j) FROM measurements WHERE status = 'ok'").fetchone()
print(f"gemm: {ok} configurations measured and verified, {with_energy} with a resolved energy")
PY
fi
"$T" report --kernel transpose --db "$OUT/transpose_a.db" --out "$OUT/transpose_report.html" >>"$log" 2>&1
python3 "$D/energy_agreement.py" "$OUT/pareto_a.json" "$OUT/pareto_b.json" >>"$log" 2>&1
python3 "$D/energy_noise.py" --race "$OUT/transpose_a.db" "$OUT/transpose_b.db" >>"$log" 2>&1
date -u >>"$log"
rm -f "$OUT"/*.db-wal "$OUT"/*.db-shm
