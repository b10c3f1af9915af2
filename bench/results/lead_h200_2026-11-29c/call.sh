#!/usr/bin/env bash
# Online tuning with batched samples at 30 fresh held-out sizes (seed 20261201, drawn before this
# session's first call): brute force once, then online rules on the same brute force.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-online
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
if ldd $G/tune | grep -q "not found"; then export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$PWD/$G/lib; echo "carried MPI libs"; fi
mkdir -p build && cp $G/tune $G/online_bench build/
R=/tmp/r; mkdir -p $R
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv
gunzip -c $G/main.db.gz > /tmp/main.db
SIZES=$(cat ${SIZEFILE:-$G/fresh30d.txt})
echo "== brute force"
s=$SECONDS; build/tune --space spaces/transpose.json --sizes "$SIZES" --strategy brute_force --db /tmp/bf.db > $R/bf.log 2>&1; echo "exit $? in $((SECONDS-s)) s"; tail -2 $R/bf.log
for v in ${VARIANTS:-A: E:--candidates_21_--min-samples_3 B:--candidates_16_--min-samples_4}; do
  name=${v%%:*}; args=${v#*:}; args=${args//_/ }
  s=$SECONDS; ONLINE_KEEP=$R/keep_$name timeout 240 build/online_bench --spec spaces/transpose.json --main-db /tmp/main.db --bf-db /tmp/bf.db --sizes "$SIZES" --launches 64 $args --out $R/online_$name.md 2> $R/online_$name.err; echo "$name exit $? in $((SECONDS-s)) s"; tail -3 $R/online_$name.md
done
gzip -c /tmp/bf.db > $R/bf.db.gz
if [[ ${TESTS:-1} == 1 ]]; then
echo "== GPU tests"
timeout 180 $G/test_runtime --gtest_filter="*Gpu*:RuntimeHopper.*" > $R/test_runtime.log 2>&1; echo "exit $?"; grep -E "^\[  (FAILED|PASSED|SKIPPED) |tests ran|online at|Failure" -A3 $R/test_runtime.log | head -30
fi
tar czf $OUT/results.tgz -C $R .
date
