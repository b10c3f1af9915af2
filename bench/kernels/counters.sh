#!/bin/bash
# Hardware counters (Nsight Compute) of a copy and of transpose configurations at one size, on the
# device machine (from the repository root):   bench/kernels/counters.sh "$OUT" [N ...]
# For each size and configuration: one profiled launch (the third) of bench.cu's timing loop, with
# DRAM bytes read and written (sum and the spread over memory partitions), L2 sectors and hit
# rates, and the L2 slices' spread. Writes counters_N.csv under OUT. Clocks are left alone
# (--clock-control none), as the device notes ask. Uses .gpu/bench_tp, else builds it.
set -o pipefail
out=${1:-/tmp}
shift
sizes=${*:-10880 16384}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH}
bin=$(bench/kernels/build.sh) || exit 1
ncu --query-metrics 2>/dev/null | grep -E "^(dram__|fbpa__|lts__t_sectors |lts__t_sector_hit|lts__d_)" > "$out/metrics_available.txt"
echo "metrics available (dram/fbpa/lts subset): $(wc -l < "$out/metrics_available.txt")"
list=/tmp/counters_list.txt
{
  echo "kernels_src/copy.cu copy_vec block_size_x=256 block_size_y=1 tile_size_y=4 vector=4 streaming=0"
  # the padded winners of the shipped space and the persistent group-64 order
  python3 bench/kernels/candidates.py 3 2>/dev/null | sed -n "1,3p;6p"
} > "$list"
base="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum"
base+=",lts__t_sectors_op_write.sum,lts__t_sector_op_read_hit_rate.pct,lts__t_sector_op_write_hit_rate.pct"
base+=",dram__throughput.avg.pct_of_peak_sustained_elapsed"
spread="dram__bytes_read.max,dram__bytes_read.min,dram__bytes_write.max,dram__bytes_write.min,lts__t_sectors.max,lts__t_sectors.min,lts__t_sectors.avg"
profile() {  # size, configuration index, metrics
  BENCH_SIZES=$1 timeout 120 ncu --clock-control none -k "regex:^(transpose|copy_vec)$" --launch-skip 2 \
    --launch-count 1 --metrics "$3" --csv "$bin" /tmp . /tmp/one.txt 2>"$out/ncu_err.txt" |
    grep -E '^"' | sed "s/^/\"$1\",\"$2\",/" > /tmp/rows.csv
  [ "$(wc -l < /tmp/rows.csv)" -gt 1 ]
}
for n in $sizes; do
  i=0
  while read -r line; do
    i=$((i + 1))
    echo "$line" > /tmp/one.txt
    if profile "$n" "$i" "$base,$spread" || profile "$n" "$i" "$base"; then
      cat /tmp/rows.csv >> "$out/counters_$n.csv"
    else
      echo "ncu failed at $n, configuration $i:"; tail -3 "$out/ncu_err.txt"; break 2
    fi
  done < "$list"
done
cp "$list" "$out/counters_configs.txt"
python3 - "$out" $sizes <<'PY'
import csv, sys, collections
out = sys.argv[1]
for n in sys.argv[2:]:
    try:
        rows = list(csv.reader(open(f"{out}/counters_{n}.csv")))
    except OSError:
        continue
    table = collections.defaultdict(dict)
    for r in rows:
        if len(r) < 6 or r[2] == "ID":
            continue
        table[r[1]][r[-3]] = (r[-1], r[-2])
    print(f"== {n} x {n}")
    for cfg, m in sorted(table.items(), key=lambda x: int(x[0])):
        print(f"config {cfg}: " + ", ".join(f"{k}={v[0]} {v[1]}" for k, v in sorted(m.items())))
PY
