#!/usr/bin/env bash
# Seventh session, call 5: the final binary (98cc1c1: the log module's writers): the README's main
# job once, then `tune best` and `tune header` on its database; the tuning module's GPU tests.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s7/final
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
gunzip -f $G/*.gz; chmod +x $G/*
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
/usr/bin/time -f "main job: wall %e s" $G/tune --space spaces/transpose.json --sizes design:128:4096 --db /tmp/main.db > $OUT/main_stdout.txt 2> $OUT/main_stderr.txt; echo "exit $?"
tail -n 4 $OUT/main_stderr.txt; tail -n 5 $OUT/main_stdout.txt
$G/tune best --kernel transpose --db /tmp/main.db --size 1004x4823 2>&1 | head -4
$G/tune header --kernel transpose --db /tmp/main.db --out /tmp/transpose_tuned.h 2>&1 | tail -2; ls -la /tmp/transpose_tuned.h
timeout 200 $G/test_tuning --gtest_filter='GuidedGpu.*:CheckGpu.*:SplitGpu.*:ResumeGpu.*' 2>&1 | grep -E "PASSED|FAILED|tests? ran" | tail -n 4
date
