#!/usr/bin/env bash
# Online tuning's misses on list h: every candidate's online samples (ONLINE_KEEP) at the sizes
# where online and brute force disagreed, with the default rule and with 4 samples per candidate.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s5
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
if ldd $G/tune | grep -q "not found"; then export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$PWD/$G/lib; fi
gunzip -c $G/a.db.gz > /tmp/a.db; gunzip -c $G/bf30h.db.gz > /tmp/bf.db
S=838x5216,8144x602,1900x558,5710x2720,3657x1825
for v in default:  s4:--min-samples_4 b1:--batch_1_--candidates_8_--min-samples_8; do
  n=${v%%:*}; a=${v#*:}; a=${a//_/ }
  ONLINE_KEEP=$OUT/keep_$n timeout 120 $G/online_bench --spec spaces/transpose.json --main-db /tmp/a.db --bf-db /tmp/bf.db --sizes $S --launches 64 --out $OUT/online_$n.md $a > /tmp/$n.log 2>&1; echo "$n exit $?"
  grep -E "^\| [0-9]" $OUT/online_$n.md | cut -d'|' -f2-5
done
cd $OUT && tar czf keep.tgz keep_* && rm -rf keep_*
