#!/usr/bin/env bash
# Space-construction benchmark: `tune space --json` on the real T1 files and the 22M-point space,
# best of 5 runs each (release build). Prints a Markdown table (docs/performance.md, bench/journal.md).
set -euo pipefail
cd "$(dirname "$0")/.."
tune="${TUNE:-build/tune}"
ext=../shared/external
echo "| space | cartesian | valid | python valid | seconds (best of 5) |"
echo "|---|---|---|---|---|"
for f in $ext/kernel_tuner/test/test_T1_input.json bench/xgemm_22m.json $ext/bat/GEMM-CAFF.json \
         $ext/bat/convolution-CAFF.json $ext/bat/pnpoly-CAFF.json $ext/benchmark_hub/convolution_milo.json \
         $ext/benchmark_hub/dedispersion_milo.json $ext/kernel_tuner/test/test_cache_file_T1_input.json; do
  best=""
  for i in 1 2 3 4 5; do
    out=$("$tune" space --space "$f" --json)
    s=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["build_s"])' "$out")
    best=$(python3 -c "print(min(float('$s'), float('${best:-1e9}')))")
  done
  read -r cart valid < <(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(d["cartesian"], d["valid"])' "$out")
  py=$(python3 bench/python_valid_count.py "$f" | awk '{print $3}')
  printf "| %s | %s | %s | %s | %.4f |\n" "$(basename "$f")" "$cart" "$valid" "$py" "$best"
done
