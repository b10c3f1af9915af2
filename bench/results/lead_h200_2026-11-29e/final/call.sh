#!/usr/bin/env bash
# The final binaries (236ef76: the band rule past the range): a fresh brute force of 20 large sizes
# past the range (seed 20261210) with the table and online tuning; the runtime's and the headers'
# GPU tests.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s6
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
mkdir -p build /tmp/r && cp $G/tune build/tune && cp $G/online_bench_H build/online_bench
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
gunzip -c $G/a6.db.gz > /tmp/a.db
S=$(cat $G/large20l.txt)
SIZES=$S TUNE=build/tune ONLINE_BENCH=build/online_bench OUT=/tmp/r/online_large20l.md BF_DB=/tmp/bf_l.db timeout 200 bash bench/online_sizes.sh /tmp/a.db > /tmp/r/os_l.log 2>&1; echo "exit $?"; tail -n 5 /tmp/r/online_large20l.md | head -3; grep -h "measured," /tmp/r/os_l.log
gzip -c /tmp/bf_l.db > /tmp/r/bf_l.db.gz
timeout 120 $G/test_runtime --gtest_filter='*Gpu*:RuntimeHopper.*' > /tmp/r/test_runtime.log 2>&1; echo "test_runtime exit $?"; grep -E "^\[  (FAILED|PASSED|SKIPPED) " /tmp/r/test_runtime.log | head -4
timeout 120 $G/test_header --gtest_filter='HeaderHopper.*' > /tmp/r/test_header.log 2>&1; echo "test_header exit $?"; grep -E "^\[  (FAILED|PASSED|SKIPPED) " /tmp/r/test_header.log | head -4
cd /tmp/r && tar czf $OUT/results.tgz . ; date
