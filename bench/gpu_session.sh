#!/usr/bin/env bash
# Everything the GPU machine checks in one call (repository root, prebuilt binaries in BIN):
#   bench/gpu_session.sh OUT_DIR [BIN]
# the measurement checks (bench/gpu_trust.sh: GPU tests, reproducibility, throughput), then the
# end-to-end checks (bench/gpu_check.sh: main job twice, kill and resume, best and header, every
# configuration of every space verified at odd sizes, the fault test). One archive, OUT_DIR.tgz.
set -uo pipefail
out=${1:?output folder}
bin=${2:-build}
mkdir -p "$out"
TRUST_PARTS=${TRUST_PARTS:-all} bash bench/gpu_trust.sh "$out/trust" "$bin" 2>&1 | tail -20
timeout 420 bash bench/gpu_check.sh "$out/check" "$bin/tune" > "$out/check.log" 2>&1
echo "gpu_check exit $?"
grep -E "^== |wall|measured,|failed|exit status|integrity|measurements to take|error" "$out/check.log" | head -60
find "$out" -name "*.db*" -size +2M -delete
tar czf "$out.tgz" -C "$(dirname "$out")" "$(basename "$out")" && rm -rf "$out"
