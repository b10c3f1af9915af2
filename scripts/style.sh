#!/usr/bin/env bash
# The project's style checks (CONTRIBUTING.md):
#   bash scripts/style.sh              clang-format check of every C++/CUDA source (CI runs this)
#   bash scripts/style.sh --fix        reformat them in place
#   bash scripts/style.sh --tidy [F..] clang-tidy (.clang-tidy) on F.. or on every tuner/ source,
#                                      with build/compile_commands.json (configure build/ first)
# Exits non-zero on any finding.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-check}
mapfile -t files < <(git ls-files 'tuner/*.cpp' 'tuner/*.h' 'examples/*.cu' 'examples/*.cpp' 'examples/*.h')
case "$mode" in
  check)
    clang-format --dry-run --Werror "${files[@]}"
    echo "style: ${#files[@]} files formatted as .clang-format says"
    ;;
  --fix)
    clang-format -i "${files[@]}"
    ;;
  --tidy)
    shift
    db=${BUILD_DIR:-build}
    [ -f "$db/compile_commands.json" ] || { echo "style: configure $db first (cmake -S . -B $db)" >&2; exit 2; }
    if (($#)); then targets=("$@"); else mapfile -t targets < <(git ls-files 'tuner/*.cpp' | grep -v '/fuzz/'); fi
    # --quiet and --warnings-as-errors: .clang-tidy's checks bind.
    printf '%s\n' "${targets[@]}" | xargs -P "$(nproc)" -n 4 clang-tidy --quiet -p "$db" --extra-arg=-Wno-unknown-warning-option --warnings-as-errors='*' 2>/dev/null
    echo "style: clang-tidy clean on ${#targets[@]} files"
    ;;
  *)
    echo "usage: scripts/style.sh [--fix | --tidy [FILE...]]" >&2
    exit 2
    ;;
esac
