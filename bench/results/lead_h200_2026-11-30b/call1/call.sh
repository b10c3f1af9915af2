#!/usr/bin/env bash
# Twelfth session, call 1 (experimental online_bench from a4b13cb + env toggles, not committed):
# (a) a cold compile cache (TUNE_CACHE_DIR=off): the candidates compiled at each one's first
#     launch (as now) against all compiled up front in parallel (TUNE_XC=1), inside sizes;
# (b) the samples' placements: base (2 scratch output sets), TUNE_XI=1 (inputs copied into each
#     set too), TUNE_XI=1 TUNE_XP=4 (4 sets), alternating, 2 repetitions, all 290 held-out sizes.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s12
for f in online_bench main.db bf_inside2.db bf_beyond2.db; do gunzip -kf $G/$f.gz; done
chmod +x $G/online_bench
mkdir -p /tmp/r1
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
nproc; sha256sum $G/online_bench | cut -c1-12
run() {  # name list env...
  local name=$1 L=$2; shift 2
  local t0=$(date +%s.%N)
  env "$@" ONLINE_KEEP=/tmp/r1/keep_${name}_$L timeout 200 $G/online_bench --spec spaces/transpose.json \
    --main-db $G/main.db --bf-db $G/bf_${L}2.db --sizes "$(cat $G/$L.txt)" \
    --out /tmp/r1/online_${name}_$L.md > /tmp/r1/${name}_$L.log 2>&1
  local rc=$?
  echo "$name $L exit $rc in $(python3 -c "import sys;print(round($(date +%s.%N)-$t0,1))") s: $(grep -oE 'online after 64 launches: [^;]*' /tmp/r1/online_${name}_$L.md) | $(grep -oE 'NVRTC compiles[^.]*' /tmp/r1/online_${name}_$L.md)"
}
run cold_seq inside TUNE_CACHE_DIR=off
run cold_par inside TUNE_CACHE_DIR=off TUNE_XC=1
for rep in 1 2; do
  for L in inside beyond; do
    run base$rep $L X=0
    run xi$rep $L TUNE_XI=1
    run xi4$rep $L TUNE_XI=1 TUNE_XP=4
  done
done
cd /tmp/r1 && tar czf $OUT/results.tgz . ; date
