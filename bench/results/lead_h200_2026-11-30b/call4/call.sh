#!/usr/bin/env bash
# Twelfth session, call 4: online tuning's candidates compiled ahead of their launches, on up to 8
# threads from the size's first launch (online_bench cb82a10752c5, test_runtime abd4c7024261: the
# working tree over 98303d2), against each compiled at its first launch (online_bench_seq
# ff0b6bddcb0b: 98303d2's runtime with the same driver, which reports the application's host time
# in each size's 64 launches). 1. the runtime's GPU tests; 2. a cold cubin cache
# (TUNE_CACHE_DIR=off: every candidate compiled in each process) at the 220 inside sizes, seq and
# ahead alternating, twice; 3. the cache on (warm after a first run), ahead then seq at the 290 sizes.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s12/c4  # the binaries, main.db and the brute forces, carried in .xz
for f in online_bench online_bench_seq test_runtime main.db bf_inside2.db bf_beyond2.db; do xz -dkf $G/$f.xz; done
chmod +x $G/online_bench $G/online_bench_seq $G/test_runtime
mkdir -p /tmp/r4
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
nproc; sha256sum $G/online_bench $G/online_bench_seq $G/test_runtime | cut -c1-12
echo "== test_runtime"; timeout 150 $G/test_runtime --gtest_filter='*Gpu*:RuntimeHopper.*:OnlineRotation.*:OnlineFile.*' 2>&1 | grep -E "PASSED|FAILED|SKIPPED \]|tests? ran|online at" | tail -n 8
one() {  # name binary list env...
  local name=$1 bin=$2 L=$3; shift 3
  local t0=$SECONDS
  env "$@" ONLINE_KEEP=/tmp/r4/keep_${name}_$L timeout 200 $bin --spec spaces/transpose.json --main-db $G/main.db \
    --bf-db $G/bf_${L}2.db --sizes "$(cat $G/$L.txt)" --out /tmp/r4/online_${name}_$L.md > /tmp/r4/${name}_$L.log 2>&1
  echo "$name $L exit $? in $((SECONDS - t0)) s: $(grep -oE 'online after 64 launches: [^;]*' /tmp/r4/online_${name}_$L.md)"
  grep -oE 'NVRTC compiles.*' /tmp/r4/online_${name}_$L.md
}
for rep in 1 2; do
  one cold_seq$rep $G/online_bench_seq inside TUNE_CACHE_DIR=off
  one cold_ahead$rep $G/online_bench inside TUNE_CACHE_DIR=off
done
one fill $G/online_bench inside TUNE_CACHE_DIR=/tmp/r4/cache
one warm_seq $G/online_bench_seq inside TUNE_CACHE_DIR=/tmp/r4/cache
one warm_ahead $G/online_bench inside TUNE_CACHE_DIR=/tmp/r4/cache
rm -rf /tmp/r4/cache
cd /tmp/r4 && tar czf $OUT/results.tgz . ; date
