#!/usr/bin/env bash
# Seventh session, call 7: 30 sizes past the range under the band (seed 20261215, drawn after the band
# rule below the band was fixed), brute force of the whole space with cuBLAS as the ceiling, for
# bench/select_eval to score the table's rule before and after on the CPU.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s7/final
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
[ -x $G/tune ] || gunzip -f $G/tune.gz; chmod +x $G/tune
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
S=$(cat .gpu-s7/under30q.txt)
/usr/bin/time -f "brute force: wall %e s" $G/tune --space spaces/transpose.json --sizes "$S" --strategy brute_force --db /tmp/bf_q.db > /tmp/bf_q.txt 2> /tmp/bf_q.log; echo "exit $?"
tail -n 3 /tmp/bf_q.log
python3 -c 'import sqlite3,sys; sqlite3.connect(sys.argv[1]).backup(sqlite3.connect(sys.argv[2]))' /tmp/bf_q.db /tmp/bf_q_copy.db
gzip -c /tmp/bf_q_copy.db > $OUT/bf_q.db.gz; ls -la $OUT; date
