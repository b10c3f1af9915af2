#!/usr/bin/env bash
# Builds examples/transpose against the installed tune package, the way an application would:
#   scripts/example.sh BUILD_DIR OUT_DIR [DB]
# 1. installs the runtime component of BUILD_DIR (cmake --install) into OUT_DIR/prefix;
# 2. writes the tuned transpose's dispatch header and table from DB with BUILD_DIR/tune
#    (`tune header --dispatch`, `--table`) into OUT_DIR/generated; without DB, from the sweep
#    recorded on an H200 (results/recorded/transpose/, imported into OUT_DIR/recorded.db);
# 3. configures and builds the example in OUT_DIR/build with find_package(tune CONFIG);
# 4. checks that the example's link line names no SQLite, Boost, spdlog or fmt;
# 5. runs it: on a machine without a GPU it must say so (exit 3), else transpose 128..1024.
# The ctest test example_builds_against_the_installed_package runs this (CI).
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:?build folder}")
out=$(realpath -m "${2:?output folder}")
db=${3:-}
export PATH="/usr/local/cuda/bin:$PATH"
tune="$build/tune"
mkdir -p "$out"

cmake --install "$build" --prefix "$out/prefix" --component runtime >/dev/null
test -f "$out/prefix/lib/cmake/tune/tuneConfig.cmake"
test -f "$out/prefix/include/tune/runtime.h"

if [ -z "$db" ]; then
  db="$out/recorded.db"
  rm -f "$db" "$db-wal" "$db-shm"
  "$tune" import results/recorded/transpose/*.json.gz --spec spaces/transpose.json --db "$db" >/dev/null
fi
mkdir -p "$out/generated"
"$tune" header --db "$db" --kernel transpose --space spaces/transpose.json --dispatch \
  --out "$out/generated/transpose_dispatch.cuh"
"$tune" header --db "$db" --kernel transpose --space spaces/transpose.json --table \
  --out "$out/generated/transpose_table.json"

cmake -S examples/transpose -B "$out/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$out/prefix" \
  -DTUNE_GENERATED_DIR="$out/generated" ${EXAMPLE_CMAKE_ARGS:-} >/dev/null
cmake --build "$out/build" -j "$(nproc)"

link=$(cat "$out/build/CMakeFiles/transpose_example.dir/link.txt")
echo "example: link line: $link"
if grep -Eiq "sqlite|boost|spdlog|libfmt|-lfmt" <<<"$link"; then
  echo "example: the link line names SQLite, Boost, spdlog or fmt" >&2
  exit 1
fi

set +e
"$out/build/transpose_example" spaces/transpose.json "$out/generated/transpose_table.json" \
  --sizes 128:1024:128 --reps 20 --cache "$out/cache"
rc=$?
set -e
if [ "$rc" = 3 ]; then
  echo "example: no GPU here: built and linked, not run"
  exit 0
fi
exit "$rc"
