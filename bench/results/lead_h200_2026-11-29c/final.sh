#!/usr/bin/env bash
# Final: 30 new fresh sizes (seed 20261202, drawn after the rule was chosen) and the previous
# session's fresh 30 (seed 20261130): brute force, the runtime's default online rule and the
# single-launch rule of before, in one run each; then the runtime's GPU tests.
set -uo pipefail
G=.gpu-online
for set in e c; do
  mkdir -p /tmp/out_$set
  OUT=/tmp/out_$set SIZEFILE=$G/fresh30$set.txt TESTS=$([[ $set == c ]] && echo 1 || echo 0) VARIANTS="default: single:--candidates_8_--min-samples_8_--batch_1" bash $G/call.sh > /tmp/call_$set.txt 2>&1
  grep -E "exit|Online rule|Table's pick|PASSED|FAILED|online at|Failure" /tmp/call_$set.txt | head -20
  cp /tmp/out_$set/results.tgz $OUT/results_$set.tgz
done
