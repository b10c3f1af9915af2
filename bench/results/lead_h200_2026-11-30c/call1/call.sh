#!/usr/bin/env bash
# Thirteenth session, call 1: all of test_runtime with the new GPU tests (online tuning of the
# wgmma GEMM; online tuning where the GPU's memory is scarce), then two lists drawn this session
# (j: seed 20261230, k: seed 20261231; 30 inside and 10 past the range each) through
# bench/online_sizes.sh: brute force, the table's pick from the main job's database (call6 of the
# twelfth session), online tuning after 64 launches, each against cuBLAS.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s13/c1
for f in test_runtime online_bench tune main.db; do xz -dkf $G/$f.xz; done
chmod +x $G/test_runtime $G/online_bench $G/tune
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sha256sum $G/test_runtime $G/online_bench $G/tune | cut -c1-12
ldd $G/tune | grep -iE "mpi|cuda|nvrtc" | head
( time timeout 300 $G/test_runtime ) 2>&1 | grep -E "PASSED|FAILED|SKIPPED \]|tests? ran|Failure|online at|Expected|Which is|launch |real" | tail -n 25
for L in j k; do
  mkdir -p /tmp/keep_$L
  SIZES="$(cat $G/list_$L.txt)" TUNE=$G/tune ONLINE_BENCH=$G/online_bench OUT=$OUT/online_$L.md \
    BF_DB=/tmp/bf_$L.db ONLINE_KEEP=/tmp/keep_$L H2H=0 timeout 200 bash bench/online_sizes.sh $G/main.db \
    > /tmp/os_$L.log 2>&1
  echo "list $L exit $?"; tail -n 4 /tmp/os_$L.log
  xz -9 -T8 -c /tmp/bf_$L.db > $OUT/bf_$L.db.xz
  tar -C /tmp -cJf $OUT/keep_$L.tar.xz keep_$L
done
date
