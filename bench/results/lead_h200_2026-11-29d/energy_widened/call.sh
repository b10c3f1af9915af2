#!/usr/bin/env bash
# Two independent energy runs (60 configurations at 4096 and 2048, the race widened to 15% / 16
# contenders) and their agreement.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s5
if ldd $G/tune | grep -q "not found"; then export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$PWD/$G/lib; echo "carried MPI libs"; fi
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
mkdir -p /tmp/ed && cp -r spaces kernels_src /tmp/ed/ && cp $G/tune bench/energy_agreement.py bench/energy_noise.py /tmp/ed/ && cp -r $G/lib /tmp/ed/
mkdir -p /tmp/en && PERIOD=100 FEVALS=60 SIZES=4096,2048 GEMM=0 LIMIT=220 timeout 520 bash bench/bench_energy.sh /tmp/en /tmp/ed; echo "exit $?"
grep -E "== |agreement|^[0-9]+x[0-9]+ |contenders" /tmp/en/log.txt | tail -24
tar czf $OUT/energy.tgz -C /tmp en
date
