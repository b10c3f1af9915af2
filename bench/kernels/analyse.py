#!/usr/bin/env python3
"""Tables of bench/journal.md ("Kernel notes") from the saved data (bench/kernels/data/):
  analyse.py bench FILE.csv[.gz] [N]   bench.cu results: best per family and size, then the top N
                                       configurations by mean GB/s over the square sizes >= 8192
  analyse.py tune FILE.csv[.gz]        tune's measurements (exported from its database): per size
                                       the best configuration against the best of the 192
                                       configurations the space had before (use_shared < 2, bands 1)
Ratios are to cudaMemcpy device to device measured in the same run."""
import collections
import csv
import gzip
import json
import statistics
import sys


def rows_of(path):
    f = gzip.open(path, "rt") if path.endswith(".gz") else open(path)
    return list(csv.DictReader(f))


def params(text):
    if text.startswith("{"):
        return {k: str(v) for k, v in json.loads(text).items()}
    return dict(kv.split("=") for kv in text.split())


def short(p):
    s = f"{p['block_size_x']}x{p['block_size_y']}x{p['tile_size_y']} v{p['vector']} sh{p['use_shared']}"
    for key, tag, neutral in [("tiles", "t", "1"), ("streaming", "s", "0"), ("cp_async", "a", "0"),
                              ("async", "a", "0"), ("stages", "st", "1"), ("persist", "p", "0"),
                              ("group", "g", "1"), ("bands", "b", "1"), ("diagonal", "d", "0"),
                              ("persist_grid", "pg", "0"), ("rep", "r", "0")]:
        if p.get(key, neutral) != neutral:
            s += f" {tag}{p[key]}"
    return s


def family(p):
    if p.get("persist_grid", "0") != "0":
        return "persistent grid"
    if p.get("group", "1") != "1":
        return "group" + (" persist" if p.get("persist", "0") == "1" else "")
    if p.get("bands", "1") != "1":
        return "bands"
    if p["use_shared"] != "2":
        return "padded (old)"
    if p.get("streaming", "0") not in ("0", "1"):
        return "L2 hints"
    if p.get("persist", "0") == "1":
        return "persist"
    if int(p.get("stages", "1")) > 1:
        return "pipeline"
    return "16-byte"


def bench(path, top):
    rows = rows_of(path)
    mem, data = {}, collections.defaultdict(dict)
    for r in rows:
        size = (int(r["rows"]), int(r["cols"]))
        if r["kernel"] == "cudaMemcpy":
            mem[size] = float(r["gbs"])
        elif r["kernel"] == "transpose":
            data[r["params"]][size] = float(r["gbs"])
    big = sorted(s for s in mem if s[0] == s[1] and s[0] >= 8192)
    fams = sorted({family(params(p)) for p in data})
    print("size | cudaMemcpy | best GB/s (ratio) per family")
    for s in sorted(mem, key=lambda s: s[0] * s[1]):
        best = collections.defaultdict(float)
        for p, m in data.items():
            best[family(params(p))] = max(best[family(params(p))], m.get(s, 0))
        print(f"{s[0]}x{s[1]} | {mem[s]:.0f} | " +
              " | ".join(f"{f} {best[f]:.0f} ({best[f] / mem[s]:.3f})" for f in fams))
    print(f"\nmean GB/s over {len(big)} square sizes >= 8192 | worst ratio there | configuration")
    ranked = sorted(((statistics.mean(m[s] for s in big), min(m[s] / mem[s] for s in big), short(params(p)))
                     for p, m in data.items()), reverse=True)
    for mean, worst, name in ranked[:top]:
        print(f"{mean:.0f} | {worst:.3f} | {name}")


def tune(path):
    rows = rows_of(path)
    mem, meas = {}, collections.defaultdict(list)
    for r in rows:
        if r["status"] == "ceiling":
            if r["params"] == "d2d_copy":
                mem[r["size"]] = float(r["gbps"])
        elif r["status"] == "ok":
            meas[r["size"]].append((float(r["gbps"]), params(r["params"])))
    print("size | cudaMemcpy | best GB/s | ratio | configuration | best of the former 192 | ratio")
    for size in sorted(meas, key=lambda s: int(s.split("x")[0])):
        best = max(meas[size], key=lambda x: x[0])
        former = max((x for x in meas[size] if x[1]["use_shared"] != "2" and x[1].get("bands", "1") == "1"),
                     key=lambda x: x[0])
        print(f"{size} | {mem[size]:.0f} | {best[0]:.0f} | {best[0] / mem[size]:.3f} | {short(best[1])} | "
              f"{former[0]:.0f} | {former[0] / mem[size]:.3f}")


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("bench", "tune"):
        sys.exit(__doc__)
    if sys.argv[1] == "bench":
        bench(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 20)
    else:
        tune(sys.argv[2])
