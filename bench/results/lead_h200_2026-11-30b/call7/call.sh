#!/usr/bin/env bash
# Twelfth session, call 7: all of test_runtime (44d6bb17b2d1: the working tree over 5955e5e, with
# RuntimeHopper.OnlineTuningOfATmaKernelTimesItOnCopiesOfTheInput) on the H200.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64; G=.gpu-s12/c5; xz -dkf $G/test_runtime.xz; chmod +x $G/test_runtime; date; sha256sum $G/test_runtime | cut -c1-12; timeout 250 $G/test_runtime 2>&1 | grep -E "PASSED|FAILED|SKIPPED \]|tests? ran|Failure|online at|Expected|Which is|launch " | tail -n 20; date
