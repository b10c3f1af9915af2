#!/usr/bin/env bash
# Held-out sizes (issue 41, item 5): at 36 sizes the main job does not measure (odd extents, extents
# that are not multiples of 2/4/8/16, rectangles from 16:1 to 1:16, video frames, sizes past 4096),
# in one run on one GPU:
#   (a) the table's pick: tune::runtime's selection from the main job's database (what
#       `tune best --size`, the generated headers and the runtime use),
#   (b) online tuning in tune::runtime after N launches (N = 64),
#   (c) brute force at that size (`tune --strategy brute_force` into a database of its own),
# each against cublasSgeam, which the brute-force run measures at each size as its ceiling.
# Writes a markdown table (default bench/online_sizes.md) for docs/performance.md.
#
#   bash bench/online_sizes.sh [MAIN_DB]     MAIN_DB: the main job's database (results/tuning.db)
# Environment: TUNE (build/tune), ONLINE_BENCH (build/online_bench), OUT (bench/online_sizes.md),
# LAUNCHES (64), SIZES (the list below), BF_LOG (a file to keep the brute-force run's output in),
# BF_DB (a file to keep the brute-force database in: every configuration at every size, for
# evaluating the selection model on the CPU), ONLINE_KEEP (a folder to keep online tuning's result
# files in: every candidate's samples at every size), ONLINE_ARGS (online_bench's rule options, e.g.
# "--candidates 16 --min-samples 4 --batch 1"; the runtime's defaults otherwise).
# H2H (1): then the table's pick, online's winner and the brute force's best are measured again
# side by side at each size by tune, only among themselves (bench/online_h2h.py: the brute force's
# stored objective of a configuration that lost its first pass is that pass's estimate); H2H=0
# leaves this out.
# Build both binaries first:
#   bash scripts/build.sh tune online_bench
# GPU time on an H200: about 1 minute of brute force (the whole space x 36 sizes) and some
# seconds of online launches; NVRTC compiles of the candidates are host time.
set -euo pipefail
cd "$(dirname "$0")/.."
main_db="${1:-results/tuning.db}"
tune="${TUNE:-build/tune}"
bench="${ONLINE_BENCH:-build/online_bench}"
out="${OUT:-bench/online_sizes.md}"
launches="${LAUNCHES:-64}"
# cols x rows (tune's ProblemSize order: x = columns)
sizes="${SIZES:-\
1023x1023,1025x1025,2047x2047,2049x2049,3001x3001,777x777,1531x1531,\
1001x1001,1002x1002,1004x1004,1000x1000,2040x2040,1544x1544,\
4096x256,256x4096,4095x257,257x4095,8191x513,513x8191,4000x1000,1000x4000,\
2047x1023,1023x2047,3000x750,750x3000,\
1920x1080,1080x1920,3840x2160,2160x3840,1280x720,\
5000x5000,6143x6143,8193x4097,4097x8193,6000x6001,4099x4099}"
for f in "$tune" "$bench" "$main_db" spaces/transpose.json; do
  [[ -e "$f" ]] || { echo "online_sizes.sh: $f is missing (build: bash scripts/build.sh tune online_bench)" >&2; exit 2; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
start=$SECONDS
echo "brute force at $(tr ',' '\n' <<<"$sizes" | wc -l) sizes ..." >&2
"$tune" --space spaces/transpose.json --sizes "$sizes" --strategy brute_force --db "$work/bf.db" >"$work/bf.log"
tail -n 3 "$work/bf.log" >&2
if [[ -n "${BF_LOG:-}" ]]; then cp "$work/bf.log" "$BF_LOG"; fi
if [[ -n "${BF_DB:-}" ]]; then
  python3 -c 'import sqlite3,sys; sqlite3.connect(sys.argv[1]).backup(sqlite3.connect(sys.argv[2]))' "$work/bf.db" "$BF_DB"
fi
bf_s=$((SECONDS - start))
echo "online tuning ($launches launches per size) and the table's pick ..." >&2
keep="${ONLINE_KEEP:-$work/keep}"
ONLINE_KEEP="$keep" "$bench" --spec spaces/transpose.json --main-db "$main_db" --bf-db "$work/bf.db" \
  --sizes "$sizes" --launches "$launches" --out "$work/table.md" ${ONLINE_ARGS:-}
: >"$work/h2h.md"
if [[ "${H2H:-1}" != 0 ]]; then
  echo "head to head at each size ..." >&2
  python3 bench/online_h2h.py specs spaces/transpose.json "$keep" "$work/bf.db" "$work/h2h" >"$work/h2h.list"
  while read -r size spec; do
    "$tune" --space "$spec" --sizes "$size" --strategy brute_force --db "$work/h2h/$size.db" \
      </dev/null >"$work/h2h/$size.log" 2>&1 || { cat "$work/h2h/$size.log" >&2; echo "online_sizes.sh: $size: head to head failed" >&2; }
  done <"$work/h2h.list"
  { echo; echo "Head to head (bench/online_h2h.py):"; echo; python3 bench/online_h2h.py table "$keep" "$work/bf.db" "$work/h2h"; } >"$work/h2h.md"
fi
{
  cat "$work/table.md"
  cat "$work/h2h.md"
  echo
  # What ran: the binaries themselves (they may be built elsewhere, or from uncommitted sources),
  # and the checkout the script ran in ("-dirty": with uncommitted changes).
  echo "Wall: brute force ${bf_s} s, all $((SECONDS - start)) s; binaries sha256 $(sha256sum "$tune" | cut -c1-12)" \
    "(tune), $(sha256sum "$bench" | cut -c1-12) (online_bench); checkout" \
    "$(git describe --always --dirty --abbrev=7 2>/dev/null || echo unknown)."
} >"$out"
cat "$out"
