#!/usr/bin/env bash
# Twelfth session, call 5: the runtime's GPU tests with the test_runtime of the result files'
# placements and inputs_copied (built from the working tree committed as the next commit).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s12/c5
xz -dkf $G/test_runtime.xz; chmod +x $G/test_runtime
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sha256sum $G/test_runtime | cut -c1-12
timeout 200 $G/test_runtime 2>&1 | grep -E "^\[  (PASSED|FAILED|SKIPPED) \]|tests? ran|online at|Failure" | tail -n 12
date
