#!/usr/bin/env python3
"""The table of bench/bench_runtime_hopper.sh: the example's times against the tuned times.

Usage: bench_runtime_hopper_table.py BEST.json MEASUREMENTS.csv EXAMPLE.jsonl
BEST.json is `tune best --json`, MEASUREMENTS.csv `tune export --format csv` of the same run (every
configuration's mean at every size), EXAMPLE.jsonl the example's --json output. Each path's time is
divided by the tuned time: `tune best`'s time where the path launches the run's best (its table and
header came from this run), else the run's mean for the configuration it launched. The target, as
the transpose's (bench_runtime_table.py): no path slower than 1.03 times it; the lowest ratio is
printed too.
"""
import csv
import json
import sys

PARAMS = ["tile_m", "tile_n", "consumers", "stages", "group", "split_ring"]


def config_key(text):
    """'tile_m=128 tile_n=256 ...' -> (128, 256, ...) in PARAMS order."""
    kv = dict(item.split("=", 1) for item in text.split())
    return tuple(int(kv[p]) for p in PARAMS)


def main():
    best = {b["size"]: b for b in json.load(open(sys.argv[1]))["sizes"]}
    measured = {}
    with open(sys.argv[2]) as f:
        for row in csv.DictReader(f):
            if row["status"] == "ok" and row["mean_ms"]:
                measured[(row["size"], tuple(int(row[p]) for p in PARAMS))] = float(row["mean_ms"])
    rows = [json.loads(line) for line in open(sys.argv[3]) if line.strip().startswith("{")]
    rows = [r for r in rows if "size" in r]
    print(f"{'size':<16} {'tuned ms':>9} {'runtime':>9} {'dispatch':>9} {'cublas':>9} {'rt/tuned':>8} "
          f"{'aot/tuned':>9} {'TFLOP/s':>7} {'blas/rt':>7}  checked")
    worst = 0.0
    low = float("inf")
    notes = []
    for r in rows:
        size = r["size"]
        if size not in best:
            print(f"{size:<16} not in tune best")
            worst = float("inf")
            low = 0.0
            continue
        tuned = best[size]["time_ms"]
        best_key = tuple(best[size]["params"][p] for p in PARAMS)
        ratios = []
        for path, cfg_field, ms_field in (("runtime", "config", "runtime_ms"),
                                          ("dispatch", "dispatch_config", "dispatch_ms")):
            key = (size, config_key(r[cfg_field]))
            ref = tuned if key[1] == best_key else measured.get(key)
            if ref is None:
                notes.append(f"{size} {path}: configuration {r[cfg_field]} not measured in this run")
                ratios.append(float("nan"))
                worst = float("inf")
                continue
            if key[1] != best_key:
                notes.append(f"{size} {path}: launches {r[cfg_field]} ({ref:.4f} ms in this run), not the run's "
                             f"best ({tuned:.4f} ms)")
            ratios.append(r[ms_field] / ref)
            worst = max(worst, r[ms_field] / ref)
            low = min(low, r[ms_field] / ref)
        n, m, k = (int(x) for x in size.split("x"))
        tflops = 2 * n * m * k / r["runtime_ms"] * 1e-9
        blas = r["cublas_ms"]
        blas_rt = f"{blas / r['runtime_ms']:7.2f}" if blas else f"{'-':>7}"
        print(f"{size:<16} {tuned:9.4f} {r['runtime_ms']:9.4f} {r['dispatch_ms']:9.4f} "
              f"{blas if blas else float('nan'):9.4f} {ratios[0]:8.3f} {ratios[1]:9.3f} {tflops:7.1f} {blas_rt}  "
              f"{r['checked']} entries, worst {max(r['runtime_error'], r['dispatch_error']):.2e} "
              f"(bound {r['bound']:.2e}){'' if r['verified'] else ' FAILED'}")
    for r in rows:
        if r.get("runtime_host_us") is not None:
            extra = r["runtime_host_us"] - r["dispatch_host_us"]
            print(f"host time per launch call at {r['size']}: runtime {r['runtime_host_us']:.2f} us, "
                  f"dispatch {r['dispatch_host_us']:.2f} us (runtime +{extra:.2f} us; the kernel takes "
                  f"{r['runtime_ms'] * 1e3:.1f} us; target runtime <= dispatch + 5 us: "
                  f"{'met' if extra <= 5 else 'NOT met'})")
    for n in notes:
        print("note:", n)
    stats = [r for r in (json.loads(line) for line in open(sys.argv[3]) if line.strip().startswith("{"))
             if "compiled" in r]
    for s in stats:
        print(f"runtime: {s['compiled']} compiled ({s['compile_ms']:.0f} ms NVRTC), {s['from_disk']} from disk")
    same = all(r["same_output"] for r in rows)
    print(f"outputs of the two paths bit for bit the same at every size: {'yes' if same else 'NO'}; "
          f"all within the bound: {'yes' if all(r['verified'] for r in rows) else 'NO'}")
    print(f"lowest path/tuned {low:.3f}; worst path/tuned {worst:.3f} (target <= 1.03: "
          f"{'met' if worst <= 1.03 else 'NOT met'})")


if __name__ == "__main__":
    main()
