#!/usr/bin/env bash
# Builds an example application against the installed tune package, the way an application would:
#   scripts/example.sh BUILD_DIR OUT_DIR [DB]
# EXAMPLE=transpose (default): examples/transpose; EXAMPLE=gemm_wgmma: examples/gemm_wgmma, the
# 3xTF32 GEMM on Hopper's wgmma and TMA (tensor maps, > 48 KiB of shared memory, sm_90a).
# 1. installs the runtime component of BUILD_DIR (cmake --install) into OUT_DIR/prefix;
# 2. writes the tuned kernel's dispatch header and table from DB with BUILD_DIR/tune
#    (`tune header --dispatch`, `--table`) into OUT_DIR/generated; without DB, from the sweeps
#    recorded on an H200 (transpose: results/recorded/transpose/; gemm_wgmma: each size's best of
#    an H200 sweep, examples/gemm_wgmma/h200_best/), imported into OUT_DIR/recorded.db;
# 3. configures and builds the example in OUT_DIR/build with find_package(tune CONFIG);
# 4. checks that the example's link line names no SQLite, Boost, spdlog or fmt;
# 5. runs it: on a machine without a (fitting) GPU it must say so (exit 3), else it runs small sizes.
# The ctest tests example_builds_against_the_installed_package and
# gemm_example_builds_against_the_installed_package run this (CI).
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:?build folder}")
out=$(realpath -m "${2:?output folder}")
db=${3:-}
example=${EXAMPLE:-transpose}
export PATH="/usr/local/cuda/bin:$PATH"
tune="$build/tune"
case "$example" in
  transpose)
    recorded=(results/recorded/transpose/*.json.gz)
    run_args=(--sizes 128:1024:128 --reps 20)
    ;;
  gemm_wgmma)
    recorded=(examples/gemm_wgmma/h200_best/*.json)
    run_args=(--sizes 1000x777x260,1024x512x256 --reps 5)
    ;;
  *)
    echo "example: EXAMPLE=$example: transpose or gemm_wgmma" >&2
    exit 2
    ;;
esac
spec="spaces/$example.json"
mkdir -p "$out"

cmake --install "$build" --prefix "$out/prefix" --component runtime >/dev/null
test -f "$out/prefix/lib/cmake/tune/tuneConfig.cmake"
test -f "$out/prefix/include/tune/runtime.h"

if [ -z "$db" ]; then
  db="$out/recorded.db"
  rm -f "$db" "$db-wal" "$db-shm"
  "$tune" import "${recorded[@]}" --spec "$spec" --db "$db" >/dev/null
fi
mkdir -p "$out/generated"
"$tune" header --db "$db" --kernel "$example" --space "$spec" --dispatch --out "$out/generated/${example}_dispatch.cuh"
"$tune" header --db "$db" --kernel "$example" --space "$spec" --table --out "$out/generated/${example}_table.json"

cmake -S "examples/$example" -B "$out/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$out/prefix" \
  -DTUNE_GENERATED_DIR="$out/generated" ${EXAMPLE_CMAKE_ARGS:-} >/dev/null
cmake --build "$out/build" -j "$(nproc)"

link=$(cat "$out/build/CMakeFiles/${example}_example.dir/link.txt")
echo "example: link line: $link"
if grep -Eiq "sqlite|boost|spdlog|libfmt|-lfmt" <<<"$link"; then
  echo "example: the link line names SQLite, Boost, spdlog or fmt" >&2
  exit 1
fi

set +e
"$out/build/${example}_example" "$spec" "$out/generated/${example}_table.json" "${run_args[@]}" --cache "$out/cache"
rc=$?
set -e
if [ "$rc" = 3 ]; then
  echo "example: no fitting GPU here: built and linked, not run"
  exit 0
fi
exit "$rc"
