#!/usr/bin/env bash
# The benchmark's own 36 sizes (bench/online_sizes.sh's list: odd, unaligned, rectangles, video
# frames, past 4096) and the 30 large sizes of the evening (seed 20261205), on the new space and
# recording: table's pick, online after 64 launches, brute force, cuBLAS.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s5
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
if ldd $G/tune | grep -q "not found"; then export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$PWD/$G/lib; fi
mkdir -p build && cp $G/tune $G/online_bench build/
gunzip -c $G/a.db.gz > /tmp/a.db
date
R=$OUT; TUNE=build/tune ONLINE_BENCH=build/online_bench OUT=$R/online_sizes36.md BF_DB=/tmp/bf36.db timeout 200 bash bench/online_sizes.sh /tmp/a.db > /tmp/os36.log 2>&1; echo "36: exit $?"; tail -n 5 $R/online_sizes36.md | head -3
R=$OUT; SIZES=$(cat $G/big30.txt) TUNE=build/tune ONLINE_BENCH=build/online_bench OUT=$R/online_big30.md BF_DB=/tmp/bfbig.db timeout 300 bash bench/online_sizes.sh /tmp/a.db > /tmp/osbig.log 2>&1; echo "big30: exit $?"; tail -n 5 $R/online_big30.md | head -3
gzip -c /tmp/bf36.db > $OUT/bf36.db.gz; gzip -c /tmp/bfbig.db > $OUT/bfbig30.db.gz
date
