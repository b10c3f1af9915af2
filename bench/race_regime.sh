#!/usr/bin/env bash
# Is the decision's race at one size measured in the same regime as the first pass? On the GPU
# machine, from the repository root:
#   bench/race_regime.sh OUT_DIR [TUNE_BINARY]
# Compiles every configuration once (a run at 128x128, whose database keeps the cubins), then for
# each --sizes in CASES runs tune in a fresh process from a copy of those cubins (nothing compiled),
# and prints bench/race_regime.py at SIZE. The databases stay in OUT_DIR without the cubins (out of
# WAL mode: one file each).
# CASES default: SIZE alone, three sizes around it, eleven from it up, the main job's 32 sizes.
set -uo pipefail
out=${1:?output folder}
tune=$(realpath "${2:-build/tune}")
space=${SPACE:-spaces/transpose.json}
size=${SIZE:-2816x2816}
[[ $size =~ ^[0-9]{1,6}(x[0-9]{1,6}){0,2}$ ]] || { echo "race_regime.sh: SIZE '$size': expected NxN" >&2; exit 2; }
n=$((10#${size%%x*}))
cases=${CASES:-"$n:$n $((n - 128)):$((n + 128)):128 $n:$((n + 1280)):128 128:4096:128"}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
"$tune" --space "$space" --sizes 128 --db "$out/cubins.db" > "$out/cubins.txt" 2> "$out/cubins.log" ||
  { echo "the compiling run failed: $out/cubins.log"; exit 1; }
python3 - "$out/cubins.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for t in ("measurements", "decisions", "flags", "ceilings"):
    c.execute(f"DELETE FROM {t}")
c.commit()
PY
i=0
for sizes in $cases; do
  i=$((i + 1))
  cp "$out/cubins.db" "$out/case$i.db"
  /usr/bin/time -f "case $i (--sizes $sizes): wall %e s" "$tune" --space "$space" --sizes "$sizes" --db "$out/case$i.db" \
    > "$out/case$i.txt" 2> "$out/case$i.log"
  tail -n 1 "$out/case$i.log"
done
for f in "$out"/case*.db; do
  python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('DELETE FROM binaries'); c.commit(); c.execute('VACUUM'); c.execute('PRAGMA journal_mode=DELETE')" "$f"
done
rm -f "$out"/*.db-* "$out/cubins.db"
python3 bench/race_regime.py "$size" "$out"/case*.db | tee "$out/race_regime.txt"
