#!/usr/bin/env python3
"""Per-size table of a transpose sweep: best configuration against the ceilings of the same run.

usage: bench/bench_transpose_table.py DB [--all]   (Markdown; --all prints every size)
"""
import sqlite3
import sys

db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
# Per size the fastest verified measurement, against the ceilings of the run that took it (a sweep
# resumed over several runs measures the ceilings of a size again in each run that touches it).
rows = db.execute("""
with ranked as (select size, size_x, run_id, median_ms t, gbps g,
                       row_number() over (partition by size order by median_ms, id) k,
                       count(*) over (partition by size) n
                from measurements where status = 'ok'),
     best as (select * from ranked where k = 1),
     cp as (select run_id, size, gbps g from ceilings where name = 'd2d_copy'),
     lib as (select run_id, size, median_ms t from ceilings where name = 'cublas_sgeam')
select b.size_x, b.t, b.g, cp.g, b.g / cp.g, lib.t / b.t, b.n
from best b join cp using (size, run_id) join lib using (size, run_id) order by b.size_x""").fetchall()
bad = db.execute("select count(*) from measurements where status <> 'ok'").fetchone()[0]
device = db.execute("select device, min(started_at) from runs").fetchone()
print(f"device {device[0]}, first run {device[1]}; {len(rows)} sizes, "
      f"{sum(r[6] for r in rows)} verified measurements, {bad} not ok")
big = [r for r in rows if 2048 <= r[0] <= 16384]
if big:
    w = min(big, key=lambda r: r[4])
    print(f"fraction of cudaMemcpy over 2048..16384: worst {w[4]:.3f} at {w[0]}; "
          f"{sum(r[4] < 0.95 for r in big)} of {len(big)} sizes below 0.95")
if rows:
    w = min(rows, key=lambda r: r[5])
    print(f"ratio to cublasSgeam over {rows[0][0]}..{rows[-1][0]}: worst {w[5]:.3f} at {w[0]}; "
          f"{sum(r[5] < 1.0 for r in rows)} sizes below 1.0")
print("\n| n | median ms | GB/s | cudaMemcpy GB/s | of copy | vs cublasSgeam |\n|---|---|---|---|---|---|")
keep = {128, 256, 512, 1024, 2048, 3072, 4096, 6144, 8192, 10240, 12288, 14336, 16384}
for n, t, g, cg, frac, lib, _ in rows:
    if "--all" in sys.argv or n in keep or (2048 <= n and frac < 0.95):
        print(f"| {n} | {t:.4f} | {g:.0f} | {cg:.0f} | {frac:.3f} | {lib:.3f} |")
