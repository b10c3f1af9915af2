#!/usr/bin/env bash
# Eleventh session, call 6: online tuning's default now 40 candidates (the working tree over
# b145b8f: test_runtime 39ca36f10e89, online_bench 0290614ab13e). The runtime's GPU tests, then
# online_bench with its defaults at the 290 held-out sizes against call 1 and 2's brute forces.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s11
for f in online_bench test_runtime main.db bf_inside2.db bf_beyond2.db; do gunzip -kf $G/$f.gz; done
chmod +x $G/online_bench $G/test_runtime
mkdir -p /tmp/r6
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
sha256sum $G/online_bench $G/test_runtime | cut -c1-12
echo "== test_runtime"; timeout 200 $G/test_runtime --gtest_filter='*Gpu*:RuntimeHopper.*:OnlineRotation.*:OnlineFile.*' 2>&1 | grep -E "PASSED|FAILED|SKIPPED \]|tests? ran|online at" | tail -n 8
for L in inside beyond; do
  t0=$SECONDS
  ONLINE_KEEP=/tmp/r6/keep_d_${L} timeout 150 $G/online_bench --spec spaces/transpose.json \
    --main-db $G/main.db --bf-db $G/bf_${L}2.db --sizes "$(cat $G/$L.txt)" \
    --out /tmp/r6/online_d_${L}.md > /tmp/r6/d_${L}.log 2>&1
  echo "$L default exit $? in $((SECONDS - t0)) s: $(grep -oE 'online after 64 launches: [^;]*' /tmp/r6/online_d_${L}.md)"
  grep -oE "Online rule: up to [0-9]+ candidates" /tmp/r6/online_d_${L}.md
done
cd /tmp/r6 && tar czf $OUT/results.tgz . ; date
