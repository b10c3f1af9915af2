#!/usr/bin/env bash
# Eighth session, call 7: the final binaries (33ccead's sources: the band's trend, the spread
# candidates) on lists s, t and u with bench/online_sizes.sh (a new brute force each, the table,
# online tuning, cuBLAS, the head to head).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s8
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
for f in tune_v7 online_bench_v7 a6.db; do gunzip -kf $G/$f.gz; done; chmod +x $G/tune_v7 $G/online_bench_v7
mkdir -p build /tmp/r7 && cp $G/tune_v7 build/tune && cp $G/online_bench_v7 build/online_bench
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
for l in s t u; do
  SIZES=$(cat $G/list_$l.txt) TUNE=build/tune ONLINE_BENCH=build/online_bench OUT=/tmp/r7/online_$l.md \
    BF_DB=/tmp/r7/bf_$l.db ONLINE_KEEP=/tmp/r7/keep_$l timeout 170 bash bench/online_sizes.sh $G/a6.db > /tmp/r7/os_$l.log 2>&1
  echo "list $l exit $?"; grep -E "^Table's pick|^Head to head:|^Wall" /tmp/r7/online_$l.md
  grep -hoE "[0-9,]+ measured[^.]*failed" /tmp/r7/os_$l.log | tail -1; gzip -f /tmp/r7/bf_$l.db
done
cd /tmp/r7 && tar czf $OUT/results.tgz . ; date
