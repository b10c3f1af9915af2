#!/usr/bin/env bash
# Eleventh session, call 8: the runtime's GPU tests after the review (3be65de: the cut and the
# pick compute each score once), test_runtime 61343c157ad9.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s11
gunzip -kf $G/test_runtime.gz && chmod +x $G/test_runtime
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sha256sum $G/test_runtime | cut -c1-12
timeout 200 $G/test_runtime --gtest_filter='*Gpu*:RuntimeHopper.*:OnlineRotation.*:OnlineFile.*' 2>&1 | grep -E "PASSED|FAILED|SKIPPED \]|tests? ran|online at" | tail -n 8
