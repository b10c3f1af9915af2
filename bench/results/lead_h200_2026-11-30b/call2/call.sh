#!/usr/bin/env bash
# Twelfth session, call 2: online tuning's placements with copies of the inputs (the working tree
# on a4b13cb: online_bench b4f246f2ba70, test_runtime cc8cde85dde4) against a4b13cb's runtime
# (online_bench 0290614ab13e, 834a1ad's build: the same rule, the inputs not copied).
# 1. the runtime's GPU tests; 2. list h (bench/draw_sizes.py --seed 20261228 --inside 30
# --beyond 10, drawn after call 1) with bench/online_sizes.sh (its own brute force, H2H=0), then
# old and new alternating twice on that brute force; 3. a third pair, old and new, at the 290
# held-out sizes against the eleventh session's run-2 brute forces.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s12
for f in tune online_bench online_bench_old test_runtime main.db bf_inside2.db bf_beyond2.db; do gunzip -kf $G/$f.gz; done
chmod +x $G/tune $G/online_bench $G/online_bench_old $G/test_runtime
mkdir -p build /tmp/r2 && cp $G/tune build/tune && cp $G/online_bench build/online_bench
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
sha256sum build/tune $G/online_bench $G/online_bench_old $G/test_runtime | cut -c1-12
echo "== test_runtime"; timeout 150 $G/test_runtime --gtest_filter='*Gpu*:RuntimeHopper.*:OnlineRotation.*:OnlineFile.*' 2>&1 | grep -E "PASSED|FAILED|SKIPPED \]|tests? ran|online at" | tail -n 8
S=$(cat $G/list_h.txt)
H2H=0 SIZES=$S TUNE=build/tune ONLINE_BENCH=build/online_bench OUT=/tmp/r2/online_h.md BF_DB=/tmp/r2/bf_h.db \
  ONLINE_KEEP=/tmp/r2/keep_h timeout 250 bash bench/online_sizes.sh $G/main.db > /tmp/r2/os_h.log 2>&1; echo "online_sizes h exit $?"
grep -E "^Table's pick|^Wall" /tmp/r2/online_h.md
grep -hoE "[0-9,]+ measured[^.]*failed" /tmp/r2/os_h.log | tail -1
one() {  # name binary list bf
  local t0=$SECONDS
  ONLINE_KEEP=/tmp/r2/keep_$1 timeout 200 $2 --spec spaces/transpose.json --main-db $G/main.db --bf-db $4 \
    --sizes "$3" --out /tmp/r2/online_$1.md > /tmp/r2/$1.log 2>&1
  echo "$1 exit $? in $((SECONDS - t0)) s: $(grep -oE 'online after 64 launches: [^;]*' /tmp/r2/online_$1.md)"
}
for rep in 1 2; do
  one old_h$rep $G/online_bench_old "$S" /tmp/r2/bf_h.db
  one new_h$rep $G/online_bench "$S" /tmp/r2/bf_h.db
done
for L in inside beyond; do
  one old_${L}3 $G/online_bench_old "$(cat $G/$L.txt)" $G/bf_${L}2.db
  one new_${L}3 $G/online_bench "$(cat $G/$L.txt)" $G/bf_${L}2.db
done
sqlite3 /tmp/r2/bf_h.db "delete from binaries; update measurements set samples='[]'; vacuum;" 2>/dev/null || python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("delete from binaries"); c.commit(); c.execute("vacuum")' /tmp/r2/bf_h.db
gzip -f /tmp/r2/bf_h.db
cd /tmp/r2 && tar czf $OUT/results.tgz . ; date
