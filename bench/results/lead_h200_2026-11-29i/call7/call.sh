#!/usr/bin/env bash
# Tenth session, call 7: after the review (94150b2: two dead cut checks dropped), the runtime's GPU
# tests with its test_runtime.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s10
gunzip -kf $G/test_runtime_r.gz; chmod +x $G/test_runtime_r
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sha256sum $G/test_runtime_r | cut -c1-12
timeout 200 $G/test_runtime_r --gtest_filter='*Gpu*:RuntimeHopper.*:OnlineRotation.*:OnlineFile.*' 2>&1 | grep -E "PASSED|FAILED|SKIPPED \]|tests? ran|online at" | tail -n 8
date
