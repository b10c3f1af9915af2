#!/usr/bin/env bash
# After the select change: 30 new fresh sizes (seed 20261203, drawn after every change): brute
# force, the default online rule and the single-launch rule of before, one run; the runtime's GPU tests.
set -uo pipefail
G=.gpu-online
mkdir -p /tmp/out_f
OUT=/tmp/out_f SIZEFILE=$G/fresh30f.txt TESTS=1 VARIANTS="default: single:--candidates_8_--min-samples_8_--batch_1" bash $G/call.sh > /tmp/call_f.txt 2>&1
grep -E "exit|Online rule|Table's pick|PASSED|FAILED|online at|Failure" /tmp/call_f.txt | head -20
cp /tmp/out_f/results.tgz $OUT/results_f.tgz
