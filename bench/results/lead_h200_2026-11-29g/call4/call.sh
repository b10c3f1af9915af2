#!/usr/bin/env bash
# Eighth session, call 4: online tuning's samples spread over placements (OnlineOptions::placements,
# an experiment: --placements 1, 2, 4 of one online_bench binary) on the three lists, each against
# one brute force made in this call by bench/online_sizes.sh; the order of the variants alternates
# from list to list. First the runtime's GPU tests of the binary.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s8
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
for f in tune online_bench_p test_runtime_p a6.db; do gunzip -kf $G/$f.gz; done
chmod +x $G/tune $G/online_bench_p $G/test_runtime_p
mkdir -p build /tmp/r4 && cp $G/tune build/tune && cp $G/online_bench_p build/online_bench
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
sha256sum build/tune build/online_bench | cut -c1-12
echo "== test_runtime"; timeout 150 $G/test_runtime_p --gtest_filter='*Gpu*:OnlineRotation.*' 2>&1 | grep -E "PASSED|FAILED|SKIPPED \]|tests? ran" | tail -n 5
order() { case $1 in t) echo "4 1 2";; s) echo "1 2 4";; u) echo "2 4 1";; esac; }
for l in t s u; do
  S=$(cat $G/list_$l.txt); set -- $(order $l)
  echo "== list $l: online_sizes with --placements $1"
  SIZES=$S TUNE=build/tune ONLINE_BENCH=build/online_bench OUT=/tmp/r4/p$1_$l.md BF_DB=/tmp/r4/bf_$l.db \
    ONLINE_KEEP=/tmp/r4/keep_p$1_$l ONLINE_ARGS="--placements $1" \
    timeout 170 bash bench/online_sizes.sh $G/a6.db > /tmp/r4/os_$l.log 2>&1; echo "online_sizes $l exit $?"
  grep -E "^Table's pick|^Head to head:|^Wall" /tmp/r4/p$1_$l.md
  for p in $2 $3; do
    ONLINE_KEEP=/tmp/r4/keep_p${p}_$l timeout 120 build/online_bench --spec spaces/transpose.json --main-db $G/a6.db \
      --bf-db /tmp/r4/bf_$l.db --sizes "$S" --launches 64 --placements $p --out /tmp/r4/p${p}_$l.md > /tmp/r4/p${p}_$l.log 2>&1
    echo "placements $p $l exit $?: $(grep -E "^Table's pick" /tmp/r4/p${p}_$l.md | sed 's/.*online after/online after/')"
  done
  gzip -f /tmp/r4/bf_$l.db
done
cd /tmp/r4 && tar czf $OUT/results.tgz . ; date
