#!/usr/bin/env bash
# Eighth session, call 2: the same three lists again on a fresh host (list t first), each with
# bench/online_sizes.sh (new brute force, the table, online tuning with the spread candidates, the
# head to head), then online tuning with the previous rule (the ranking's first 32: online_bench of
# 37827c3) against the same brute force, one after the other.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s8
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
for f in $G/*.gz; do gunzip -kf "$f"; done; chmod +x $G/tune $G/online_bench $G/online_bench_old
mkdir -p build /tmp/r && cp $G/tune build/tune && cp $G/online_bench build/online_bench
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
for l in t s u; do
  S=$(cat $G/list_$l.txt)
  echo "== list $l"
  SIZES=$S TUNE=build/tune ONLINE_BENCH=build/online_bench OUT=/tmp/r/online_$l.md \
    BF_DB=/tmp/r/bf_$l.db ONLINE_KEEP=/tmp/r/keep_$l \
    timeout 170 bash bench/online_sizes.sh $G/a6.db > /tmp/r/os_$l.log 2>&1; echo "online_sizes $l exit $?"
  grep -E "^Table's pick|^Head to head:|^Wall" /tmp/r/online_$l.md
  ONLINE_KEEP=/tmp/r/keepold_$l timeout 120 $G/online_bench_old --spec spaces/transpose.json --main-db $G/a6.db \
    --bf-db /tmp/r/bf_$l.db --sizes "$S" --launches 64 --out /tmp/r/old_$l.md > /tmp/r/old_$l.log 2>&1; echo "old online $l exit $?"
  grep -E "^Table's pick" /tmp/r/old_$l.md
  gzip -f /tmp/r/bf_$l.db
done
cd /tmp/r && tar czf $OUT/results.tgz . ; date
