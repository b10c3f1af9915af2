#!/usr/bin/env bash
# Twelfth session, call 8: after the review (the placements' plan computed once, Placements; the
# runtime tests' DeviceBuffers and table_of; bench_gpu.cuh's timing in one lambda): all of
# test_runtime, online_bench at the 220 inside held-out sizes (against run 2's brute force), and
# bench_tp on two transpose configurations at two sizes.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s12/c8
for f in test_runtime online_bench bench_tp main.db bf_inside2.db; do xz -dkf $G/$f.xz; done
chmod +x $G/test_runtime $G/online_bench $G/bench_tp
mkdir -p /tmp/r8
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sha256sum $G/test_runtime $G/online_bench $G/bench_tp | cut -c1-12
timeout 200 $G/test_runtime 2>&1 | grep -E "PASSED|FAILED|SKIPPED \]|Failure|online at" | tail -n 8
ONLINE_KEEP=/tmp/r8/keep timeout 120 $G/online_bench --spec spaces/transpose.json --main-db $G/main.db \
  --bf-db $G/bf_inside2.db --sizes "$(cat $G/inside.txt)" --out /tmp/r8/online.md > /tmp/r8/ob.log 2>&1
echo "online_bench exit $?: $(grep -oE 'online after 64 launches: [^;]*' /tmp/r8/online.md)"
python3 -c "
import glob,json
fs=glob.glob('/tmp/r8/keep/*.online.json'); r=[json.load(open(f))['rule'] for f in fs]
print(len(fs),'files; placements',sorted(set(x.get('placements') for x in r)),'inputs_copied',sorted(set(x.get('inputs_copied') for x in r)))"
mkdir -p /tmp/r8/bench && BENCH_SIZES=1024,1000x4097 timeout 60 $G/bench_tp /tmp/r8/bench . $G/list.txt 2>&1 | tail -n 8
cp /tmp/r8/online.md $OUT/; date
