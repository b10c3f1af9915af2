#!/usr/bin/env bash
# The measurement checks of "Measurements you can trust" on the GPU machine, from the repository
# root with prebuilt binaries in BIN (default build/: tune and tuner/test_run):
#   bench/gpu_trust.sh OUT_DIR [BIN]
# 1. the GPU tests of the timing method and the device fill and verification (test_run);
# 2. the reproducibility benchmark: two independent main jobs (bench/bench_repro.sh);
# 3. measurement throughput: transposes at 10880..16384, GEMM 4096^3 (bench/bench_throughput.sh).
# Logs and tables go to OUT_DIR, packed into OUT_DIR.tgz at the end; each part has its own time
# limit. TRUST_PARTS=quick skips part 3.
set -uo pipefail
out=${1:?output folder}
bin=${2:-build}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p "$out"
test_run=$bin/test_run
[ -x "$test_run" ] || test_run=$bin/tuner/test_run
echo "== 1. GPU tests"
timeout 240 "$test_run" --gtest_filter='TimingGpu.*:DeviceOps.*:Gpu.*:ComputeCeilings.*:ContextGpu.*' 2>&1 | tee "$out/gpu_tests.log" |
  grep -E "^\[  (FAILED|PASSED|SKIPPED)|spin|interleaved|copy4|twice|globaltimer|Failure|Expected|Which is" | head -60
echo "== 2. reproducibility"
timeout 300 bash bench/bench_repro.sh "$out/repro" "$bin/tune" | tail -50
if [ "${TRUST_PARTS:-all}" = all ]; then
  echo "== 3. throughput"
  timeout 400 bash bench/bench_throughput.sh "$out/throughput" "$bin/tune" | tail -6
fi
# what comes back from the device machine: one archive, without the databases (too large)
find "$out" -name "*.db*" -delete
tar czf "$out.tgz" -C "$(dirname "$out")" "$(basename "$out")" && rm -rf "$out"
