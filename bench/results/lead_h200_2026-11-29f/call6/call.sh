#!/usr/bin/env bash
# Seventh session, call 6: 30 sizes past the range (seed 20261214, drawn after the generalised band
# rule was fixed offline), brute force of the whole space with cuBLAS as the ceiling, for
# bench/select_eval to score the table's rule before and after on the CPU.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s7/final
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
gunzip -f $G/tune.gz; chmod +x $G/tune
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
S=$(cat .gpu-s7/beyond30p.txt)
/usr/bin/time -f "brute force: wall %e s" $G/tune --space spaces/transpose.json --sizes "$S" --strategy brute_force --db /tmp/bf_p.db > /tmp/bf_p.txt 2> /tmp/bf_p.log; echo "exit $?"
tail -n 3 /tmp/bf_p.log
python3 -c 'import sqlite3,sys; sqlite3.connect(sys.argv[1]).backup(sqlite3.connect(sys.argv[2]))' /tmp/bf_p.db /tmp/bf_p_copy.db
gzip -c /tmp/bf_p_copy.db > $OUT/bf_p.db.gz; ls -la $OUT; date
