#!/usr/bin/env bash
# After the select change: 30 new fresh sizes (seed 20261204, drawn after every change): brute
# force, the default online rule and the single-launch rule of before, one run; the runtime's GPU tests.
set -uo pipefail
G=.gpu-online
mkdir -p /tmp/out_g
OUT=/tmp/out_g SIZEFILE=$G/fresh30g.txt TESTS=1 VARIANTS="default: single:--candidates_8_--min-samples_8_--batch_1" bash $G/call.sh > /tmp/call_g.txt 2>&1
grep -E "exit|Online rule|Table's pick|PASSED|FAILED|online at|Failure" /tmp/call_g.txt | head -20
cp /tmp/out_g/results.tgz $OUT/results_g.tgz
