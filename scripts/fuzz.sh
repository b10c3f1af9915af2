#!/usr/bin/env bash
# The fuzz targets under AddressSanitizer, UndefinedBehaviorSanitizer and libFuzzer (clang):
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]      (default 600 s each; expr_fuzz spec_fuzz import_fuzz)
# Builds build-fuzz/ with the whole tree instrumented (coverage and sanitizers), then runs each
# target for SECONDS on a scratch copy of its seed corpus (tuner/<module>/fuzz/corpus; the repo's
# corpus is not changed), one core, and prints per target the runs, the coverage reached and
# whether it found anything. Exits 1 when any target found something (its crash-* or timeout-*
# input is kept in build-fuzz/findings/). docs/performance.md records the latest run.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(expr_fuzz spec_fuzz import_fuzz)
export PATH="/usr/local/cuda/bin:$PATH"
flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1"
cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DTUNE_FUZZ=ON -DTUNE_TESTS=OFF -DTUNE_WERROR=OFF -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags" >/dev/null || exit 2
cmake --build build-fuzz -j "$(nproc)" --target "${targets[@]}" 2>&1 | grep -E "error|Built target (expr|spec|import)_fuzz" || true
declare -A dir=([expr_fuzz]=tuner/expr/fuzz [spec_fuzz]=tuner/spec/fuzz [import_fuzz]=tuner/interop/fuzz)
declare -A extra=([expr_fuzz]="-dict=tuner/expr/fuzz/expr.dict" [spec_fuzz]="" [import_fuzz]="")
mkdir -p build-fuzz/findings
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
status=0
printf '%-12s %8s %12s %10s %10s  %s\n' target seconds runs cov ft findings
for t in "${targets[@]}"; do
  bin=$(find build-fuzz -name "$t" -type f -executable | head -1)
  [ -n "$bin" ] || { echo "fuzz: $t did not build" >&2; status=2; continue; }
  work=$(mktemp -d)
  cp -r "${dir[$t]}/corpus/." "$work/"
  log="build-fuzz/findings/$t.log"
  # -max_len past the expression bound (64 KiB); -timeout: one input; -rss_limit_mb: runaway memory.
  "$bin" "$work" ${extra[$t]} -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 -max_len=131072 \
    -print_final_stats=1 -artifact_prefix="build-fuzz/findings/$t-" >"$log" 2>&1
  rc=$?
  runs=$(grep -oE "stat::number_of_executed_units: *[0-9]+" "$log" | grep -oE "[0-9]+$" | tail -1)
  last=$(grep -E "^#[0-9]+" "$log" | tail -1)
  cov=$(grep -oE "cov: [0-9]+" <<<"$last" | grep -oE "[0-9]+")
  ft=$(grep -oE "ft: [0-9]+" <<<"$last" | grep -oE "[0-9]+")
  if [ "$rc" -eq 0 ]; then found=none; else found="exit $rc: see $log"; status=1; fi
  printf '%-12s %8s %12s %10s %10s  %s\n' "$t" "$seconds" "${runs:-?}" "${cov:-?}" "${ft:-?}" "$found"
  rm -rf "$work"
done
exit "$status"
