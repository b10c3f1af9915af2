#!/usr/bin/env python3
"""The table of bench/bench_runtime.sh: the example's times against `tune best` and cuBLAS.

Usage: bench_runtime_table.py BEST.json FIRST.jsonl SECOND.jsonl
BEST.json is `tune best --json`; FIRST/SECOND are the example's --json output of its first
process (NVRTC compiles) and its second (the on-disk cache, with --overhead). Times are those of
the second process (both processes time the same way; the first one's include nothing of the
compile, which happens before the timing).
"""
import json
import sys


def lines(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip().startswith("{")]


def main():
    best = {b["size"]: b for b in json.load(open(sys.argv[1]))["sizes"]}
    first, second = lines(sys.argv[2]), lines(sys.argv[3])
    first_by = {r["size"]: r for r in first if "size" in r}
    rows = [r for r in second if "size" in r]
    print(f"{'size':<12} {'match':<8} {'best ms':>9} {'runtime':>9} {'dispatch':>9} {'cublas':>9} "
          f"{'rt/best':>8} {'aot/best':>8} {'blas/rt':>8} {'blas/aot':>8}")
    worst_rt = worst_aot = 0.0
    low = float("inf")
    worst_blas = float("inf")
    for r in rows:
        b = best.get(r["size"])
        if b is None:
            print(f"{r['size']:<12} not in tune best")
            continue
        rt, aot, blas, ref = r["runtime_ms"], r["dispatch_ms"], r["cublas_ms"], b["time_ms"]
        worst_rt, worst_aot = max(worst_rt, rt / ref), max(worst_aot, aot / ref)
        low = min(low, rt / ref, aot / ref)
        worst_blas = min(worst_blas, blas / rt, blas / aot)
        print(f"{r['size']:<12} {r['runtime_match']:<8} {ref:9.4f} {rt:9.4f} {aot:9.4f} {blas:9.4f} "
              f"{rt / ref:8.3f} {aot / ref:8.3f} {blas / rt:8.3f} {blas / aot:8.3f}")
    over = [r for r in second if "runtime_us" in r]
    stats = [r for r in first + second if "compiled" in r]
    print()
    if over:
        o = over[0]
        extra = o["runtime_us"] - o["cudaLaunchKernel_us"]
        print(f"host time per launch at {o['overhead_size']}: cudaLaunchKernel {o['cudaLaunchKernel_us']:.3f} us, "
              f"dispatch {o['dispatch_us']:.3f} us, runtime {o['runtime_us']:.3f} us (+{extra:.3f} us; "
              f"target <= 1 us: {'met' if extra <= 1.0 else 'NOT met'})")
    f0 = first[0] if first and "first_launch_ms" in first[0] else None
    s0 = rows[0] if rows else None
    if f0 and s0:
        print(f"first launch at {f0['size']} (selection, NVRTC or cache, load, launch, sync): "
              f"{f0['first_launch_ms']:.1f} ms compiling, {s0['first_launch_ms']:.1f} ms from the on-disk cache")
        comp = [r["first_launch_ms"] for r in first if "first_launch_ms" in r]
        disk = [r["first_launch_ms"] for r in rows]
        print(f"first launches over all {len(comp)} sizes: {sum(comp):.0f} ms (first process), "
              f"{sum(disk):.0f} ms (second process)")
    for s in stats:
        print(f"runtime stats: {s['compiled']} compiled ({s['compile_ms']:.0f} ms NVRTC), {s['from_disk']} from disk, "
              f"{s['disk_refused']} refused")
    print(f"lowest ratio to tune best (either path) {low:.3f}")
    print(f"worst runtime/best {worst_rt:.3f}, worst dispatch/best {worst_aot:.3f} (target <= 1.03: "
          f"{'met' if max(worst_rt, worst_aot) <= 1.03 else 'NOT met'}); worst cuBLAS/ours {worst_blas:.3f} "
          f"(target >= 1.0: {'met' if worst_blas >= 1.0 else 'NOT met'})")
    missing = [s for s in first_by if s not in {r['size'] for r in rows}]
    if missing:
        print("sizes only in the first run:", missing)


if __name__ == "__main__":
    main()
