#!/usr/bin/env bash
# Eleventh session, call 2: a second brute force at the 70 held-out sizes past the measured
# range (results/heldout/transpose: lists w, x, y, z1, z2, f), with the tenth session's final tune
# (8867a5cae054), to tell the table's misses there from one run's noise.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s11
gunzip -kf $G/tune.gz && chmod +x $G/tune
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
sha256sum $G/tune | cut -c1-12
ldd $G/tune | grep -E "mpi|nvrtc"
mkdir -p /tmp/r2
S=$(cat $G/beyond.txt)
t0=$SECONDS
timeout 540 $G/tune --space spaces/transpose.json --sizes "$S" --strategy brute_force --db /tmp/r2/bf_beyond2.db > /tmp/r2/bf.log 2>&1; echo "brute force exit $? in $((SECONDS - t0)) s"
tail -n 4 /tmp/r2/bf.log
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute("select count(*) from measurements").fetchone())' /tmp/r2/bf_beyond2.db
gzip -f /tmp/r2/bf_beyond2.db /tmp/r2/bf.log
cp /tmp/r2/* $OUT/; date
