#!/usr/bin/env bash
# The main job's wall on one host: the space before use_shared 3 (374 configurations) and after
# (394), interleaved old, new, old; then the runtime's and headers' GPU tests on the new recording.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s5
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
if ldd $G/tune | grep -q "not found"; then export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$PWD/$G/lib; echo "carried MPI libs"; fi
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
mkdir -p /tmp/old/spaces && cp -r kernels_src /tmp/old/ && cp $G/transpose_old.json /tmp/old/spaces/transpose.json
for r in old1 new old2; do
  spec=spaces/transpose.json; [[ $r == old* ]] && spec=/tmp/old/spaces/transpose.json
  /usr/bin/time -f "$r: wall %e s" timeout 100 $G/tune --space $spec --sizes design:128:4096 --db /tmp/$r.db > /tmp/$r.txt 2> /tmp/$r.log
  tail -n 1 /tmp/$r.log; grep -E "measured,|measurement [0-9.]* s" /tmp/$r.txt | tail -2
done
for t in test_runtime test_header; do
  [ -x $G/$t ] || continue
  timeout 150 $G/$t --gtest_filter="${FILTER:-*Gpu*:RuntimeHopper.*:HeaderHopper*}" > $OUT/$t.log 2>&1; echo "$t exit $?"
  grep -E "^\[  (FAILED|PASSED|SKIPPED) |tests ran" $OUT/$t.log | head -8
done
date
