#!/usr/bin/env bash
# Twelfth session, call 3: the final runtime (input copies, the placements within half the free
# memory; online_bench dc1c7b9d77ce, test_runtime 32731cdb2e37) against a4b13cb's (online_bench
# 0290614ab13e). 1. the runtime's GPU tests; 2. a fourth pair at the 290 held-out sizes (the new
# one first this time); 3. list i (bench/draw_sizes.py --seed 20261229 --inside 30 --beyond 10,
# drawn after call 2) with bench/online_sizes.sh (its own brute force, H2H=0), then new and old
# alternating twice on that brute force.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s12
for f in tune online_bench online_bench_old test_runtime main.db bf_inside2.db bf_beyond2.db; do xz -dkf $G/$f.xz; done
chmod +x $G/tune $G/online_bench $G/online_bench_old $G/test_runtime
mkdir -p build /tmp/r3 && cp $G/tune build/tune && cp $G/online_bench build/online_bench
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw,memory.free --format=csv,noheader
sha256sum build/tune $G/online_bench $G/online_bench_old $G/test_runtime | cut -c1-12
echo "== test_runtime"; timeout 150 $G/test_runtime --gtest_filter='*Gpu*:RuntimeHopper.*:OnlineRotation.*:OnlineFile.*' 2>&1 | grep -E "PASSED|FAILED|SKIPPED \]|tests? ran|online at" | tail -n 8
one() {  # name binary list bf
  local t0=$SECONDS
  ONLINE_KEEP=/tmp/r3/keep_$1 timeout 200 $2 --spec spaces/transpose.json --main-db $G/main.db --bf-db $4 \
    --sizes "$3" --out /tmp/r3/online_$1.md > /tmp/r3/$1.log 2>&1
  echo "$1 exit $? in $((SECONDS - t0)) s: $(grep -oE 'online after 64 launches: [^;]*' /tmp/r3/online_$1.md)"
}
for L in inside beyond; do
  one new_${L}4 $G/online_bench "$(cat $G/$L.txt)" $G/bf_${L}2.db
  one old_${L}4 $G/online_bench_old "$(cat $G/$L.txt)" $G/bf_${L}2.db
done
S=$(cat $G/list_i.txt)
H2H=0 SIZES=$S TUNE=build/tune ONLINE_BENCH=build/online_bench OUT=/tmp/r3/online_i.md BF_DB=/tmp/r3/bf_i.db \
  ONLINE_KEEP=/tmp/r3/keep_i timeout 250 bash bench/online_sizes.sh $G/main.db > /tmp/r3/os_i.log 2>&1; echo "online_sizes i exit $?"
grep -E "^Table's pick|^Wall" /tmp/r3/online_i.md
grep -hoE "[0-9,]+ measured[^.]*failed" /tmp/r3/os_i.log | tail -1
for rep in 1 2; do
  one new_i$rep $G/online_bench "$S" /tmp/r3/bf_i.db
  one old_i$rep $G/online_bench_old "$S" /tmp/r3/bf_i.db
done
sqlite3 /tmp/r3/bf_i.db "delete from binaries; update measurements set samples='[]'; vacuum;" 2>/dev/null || python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("delete from binaries"); c.commit(); c.execute("vacuum")' /tmp/r3/bf_i.db
gzip -f /tmp/r3/bf_i.db
cd /tmp/r3 && tar czf $OUT/results.tgz . ; date
