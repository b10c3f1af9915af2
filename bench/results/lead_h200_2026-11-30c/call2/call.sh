#!/usr/bin/env bash
# Thirteenth session, call 2: lists j and k (call 1) measured again: two more brute forces of all
# 80 sizes (every configuration), then online tuning twice more against the first of them. How
# well does the brute force agree with itself at sizes drawn this session, and online with it?
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=.gpu-s13/c2
for f in online_bench tune main.db; do xz -dkf $G/$f.xz; done
chmod +x $G/online_bench $G/tune
exec > >(tee "$OUT/log.txt") 2>&1
date; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sha256sum $G/online_bench $G/tune | cut -c1-12
S="$(cat $G/list_j.txt),$(cat $G/list_k.txt)"
for r in 2 3; do
  ( time timeout 200 $G/tune --space spaces/transpose.json --sizes "$S" --strategy brute_force --db /tmp/bf_r$r.db ) \
    > /tmp/bf_r$r.log 2>&1
  echo "brute force run $r exit $?"; tail -n 5 /tmp/bf_r$r.log
  xz -9 -T8 -c /tmp/bf_r$r.db > $OUT/bf_r$r.db.xz
done
for o in 2 3; do
  mkdir -p /tmp/keep_o$o
  ONLINE_KEEP=/tmp/keep_o$o timeout 120 $G/online_bench --spec spaces/transpose.json --main-db $G/main.db \
    --bf-db /tmp/bf_r2.db --sizes "$S" --out $OUT/online_o$o.md > /tmp/ob_o$o.log 2>&1
  echo "online run $o exit $?: $(grep -oE 'online after 64 launches: [^;]*' $OUT/online_o$o.md)"
  tar -C /tmp -cJf $OUT/keep_o$o.tar.xz keep_o$o
done
date
