#!/usr/bin/env bash
# Thirteenth session, call 4: test_runtime after the review (the tests' GPU helpers shared;
# allocate_scratch plans once when nothing is copied) on the H200: all of it once, then the two new
# GPU tests three times more (flakiness: memory held down, two tensor maps).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s13/c4
xz -dkf $G/test_runtime.xz; chmod +x $G/test_runtime
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sha256sum $G/test_runtime | cut -c1-12
( time timeout 200 $G/test_runtime ) 2>&1 | grep -E "PASSED|FAILED|SKIPPED \]|tests? ran|Failure|online at|Expected|Which is|launch |real" | tail -n 25
timeout 300 $G/test_runtime --gtest_repeat=3 \
  --gtest_filter='OnlineGpu.ScarceMemoryDropsTheCopiesThenThePlacements:RuntimeHopper.OnlineTuningOfTheGemmKeepsEveryLaunchRight' 2>&1 \
  | grep -E "^\[  PASSED|^\[  FAILED|Failure|Expected|Which is|Repeating" | tail -n 20
date
