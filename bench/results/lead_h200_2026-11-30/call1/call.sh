#!/usr/bin/env bash
# Eleventh session, call 1: a second brute force at the 220 held-out sizes inside the measured
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
mkdir -p /tmp/r1
S=$(cat $G/inside.txt)
t0=$SECONDS
timeout 540 $G/tune --space spaces/transpose.json --sizes "$S" --strategy brute_force --db /tmp/r1/bf_inside2.db > /tmp/r1/bf.log 2>&1; echo "brute force exit $? in $((SECONDS - t0)) s"
tail -n 4 /tmp/r1/bf.log
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute("select count(*) from measurements").fetchone())' /tmp/r1/bf_inside2.db
gzip -f /tmp/r1/bf_inside2.db /tmp/r1/bf.log
cp /tmp/r1/* $OUT/; date
