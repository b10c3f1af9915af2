#!/usr/bin/env bash
# Seventh session, call 1: the GPU tests of the head (the runtime's one cubin loader, the log module),
# then four main jobs interleaved: a, c this head (d924e7d); b, d the previous head (73e01d4).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s7
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
for f in $G/*.gz; do gunzip -f "$f"; done; chmod +x $G/*
mkdir -p build && cp $G/tune build/tune
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
ldd build/tune | grep -Ei "not found|mpi|spdlog|fmt" ; echo "ldd checked"
echo "== test_runtime"; timeout 120 $G/test_runtime --gtest_filter='*Gpu*:RuntimeHopper.*' 2>&1 | grep -E "^\[ +(OK|FAILED|SKIPPED|PASSED) +\]|tests? ran|FAILED" | tail -n 16
echo "== test_header"; timeout 120 $G/test_header --gtest_filter='HeaderHopper.*' 2>&1 | tail -n 3
echo "== test_run"; timeout 200 $G/test_run --gtest_filter='Gpu.*:TimingGpu.*:ContextGpu.*:DeviceOps.*:Blas.*' 2>&1 | grep -E "PASSED|FAILED|SKIPPED \]|tests? ran" | tail -n 8
echo "== test_tuning"; timeout 200 $G/test_tuning --gtest_filter='GuidedGpu.*:CheckGpu.*:SplitGpu.*:ResumeGpu.*' 2>&1 | grep -E "PASSED|FAILED|SKIPPED \]|tests? ran" | tail -n 8
echo "== four main jobs: a, c new; b, d old"
RUNS=4 BIN_b=$G/tune_old BIN_d=$G/tune_old timeout 330 bash bench/bench_repro.sh /tmp/repro build/tune spaces/transpose.json design:128:4096 > $OUT/repro_stdout.txt 2>&1; echo "exit $?"; grep -E "^run|runs |worst" $OUT/repro_stdout.txt | head -20
cp /tmp/repro/repro_*.md $OUT/ 2>/dev/null
for r in a b c d; do python3 - /tmp/repro/${r}_run.json <<'PY'
import json,sys
j=json.load(open(sys.argv[1]))
print(sys.argv[1].split('/')[-1], {k:j[k] for k in j if k in ('measured','compile_cpu_s','measure_s','timed_s','wall_s','compiled')})
PY
done
ls /tmp/repro | head -30
head -c 1500 /tmp/repro/a_run.log; cp /tmp/repro/*_run.log $OUT/
date
