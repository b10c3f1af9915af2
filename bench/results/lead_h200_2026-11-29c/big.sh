#!/usr/bin/env bash
# Online rules at 30 large sizes (6 M to 60 M elements, seed 20261205): 32 x 2 (default) against
# 16 x 4 and 8 x 8 batched, on one brute force.
set -uo pipefail
G=.gpu-online
mkdir -p /tmp/out_big
OUT=/tmp/out_big SIZEFILE=$G/big30.txt TESTS=0 VARIANTS="default: c16:--candidates_16_--min-samples_4 c8:--candidates_8_--min-samples_8" bash $G/call.sh > /tmp/call_big.txt 2>&1
grep -E "exit|Online rule|Table's pick" /tmp/call_big.txt | head -20
cp /tmp/out_big/results.tgz $OUT/results_big.tgz
