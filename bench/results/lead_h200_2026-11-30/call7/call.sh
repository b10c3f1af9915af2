#!/usr/bin/env bash
# Eleventh session, call 7: a list drawn after the 40-candidate default was committed
# (bench/draw_sizes.py --seed 20261227 --inside 30 --beyond 10), with bench/online_sizes.sh: its own
# brute force, the table's pick, online tuning (default, 40 candidates), cuBLAS, the head to head.
# Then on the same brute force online_bench with --candidates 32 and the default again, twice
# each, alternating. First the runtime's GPU tests with fa50bbd's test_runtime.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s11
for f in tune online_bench test_runtime main.db; do gunzip -kf $G/$f.gz; done
chmod +x $G/tune $G/online_bench $G/test_runtime
mkdir -p build /tmp/r7 && cp $G/tune build/tune && cp $G/online_bench build/online_bench
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
sha256sum build/tune build/online_bench $G/test_runtime | cut -c1-12
echo "== test_runtime"; timeout 150 $G/test_runtime --gtest_filter='*Gpu*:RuntimeHopper.*:OnlineRotation.*:OnlineFile.*' 2>&1 | grep -E "PASSED|FAILED|SKIPPED \]|tests? ran|online at" | tail -n 8
S=$(cat $G/list_g.txt)
SIZES=$S TUNE=build/tune ONLINE_BENCH=build/online_bench OUT=/tmp/r7/online_g.md BF_DB=/tmp/r7/bf_g.db \
  ONLINE_KEEP=/tmp/r7/keep_g timeout 250 bash bench/online_sizes.sh $G/main.db > /tmp/r7/os_g.log 2>&1; echo "online_sizes g exit $?"
grep -E "^Table's pick|^Head to head:|^Wall" /tmp/r7/online_g.md
grep -hoE "[0-9,]+ measured[^.]*failed" /tmp/r7/os_g.log | tail -1
for rep in 1 2; do
  for C in 32 40; do
    ONLINE_KEEP=/tmp/r7/keep_c${C}_$rep timeout 60 build/online_bench --spec spaces/transpose.json --main-db $G/main.db \
      --bf-db /tmp/r7/bf_g.db --sizes "$S" --candidates $C --out /tmp/r7/online_c${C}_$rep.md > /tmp/r7/c${C}_$rep.log 2>&1
    echo "$rep c$C exit $? $(grep -oE 'online after 64 launches: [^;]*' /tmp/r7/online_c${C}_$rep.md)"
  done
done
sqlite3 /tmp/r7/bf_g.db "delete from binaries; update measurements set samples='[]'; vacuum;" 2>/dev/null || python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("delete from binaries"); c.commit(); c.execute("vacuum")' /tmp/r7/bf_g.db
gzip -f /tmp/r7/bf_g.db
cd /tmp/r7 && tar czf $OUT/results.tgz . ; date
