#!/usr/bin/env bash
# Eleventh session, call 3: a third brute force at all 290 held-out sizes (results/heldout/transpose),
# with the tenth session's final tune (8867a5cae054): with calls 1-2 and the vendored run, three
# runs per size.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s11
gunzip -kf $G/tune.gz && chmod +x $G/tune
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
sha256sum $G/tune | cut -c1-12
mkdir -p /tmp/r3
for L in inside beyond; do
  t0=$SECONDS
  timeout 270 $G/tune --space spaces/transpose.json --sizes "$(cat $G/$L.txt)" --strategy brute_force --db /tmp/r3/bf_${L}3.db > /tmp/r3/bf_$L.log 2>&1; echo "$L brute force exit $? in $((SECONDS - t0)) s"
  tail -n 2 /tmp/r3/bf_$L.log
done
gzip -f /tmp/r3/*
cp /tmp/r3/* $OUT/; date
