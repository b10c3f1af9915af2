#!/usr/bin/env python3
"""Head to head: the table's pick, online tuning's winner and the brute force's best at each size,
measured again side by side by tune (bench/online_sizes.sh runs it after online tuning).

  python3 bench/online_h2h.py specs SPEC KEEP_DIR BF_DB OUT_DIR
  python3 bench/online_h2h.py table KEEP_DIR BF_DB OUT_DIR

Why: the brute force stores one objective per configuration, and a configuration that lost the
first pass keeps the estimate of that pass (a few samples, sometimes a noisy one). Online tuning's
winner is often such a configuration, so "online / best" from the brute force's stored objectives
carries the first pass's noise. Here the (at most) three configurations of a size are measured
again in one tune run at that size: the same method as the brute force (placements, the emptied
L2, the contender race between those within the tie margin), only among them.

specs: for each size with an online result file in KEEP_DIR (ONLINE_KEEP of bench/online_driver.cpp;
its candidate 0 is the table's pick), writes OUT_DIR/<size>.json, SPEC restricted to the three
configurations (each parameter's Values narrowed to theirs, one condition naming them), and prints
"<size> <spec>" per line.
table: reads OUT_DIR/<size>.db (tune --space OUT_DIR/<size>.json --sizes <size> --strategy
brute_force --db OUT_DIR/<size>.db) and prints, per size, the table's pick and online's winner over
the fastest of the three, and the brute force's stored ratios beside them.
"""
import json
import os
import sqlite3
import statistics
import sys


def key(config):
    return json.dumps(config, sort_keys=True)


def objectives(db, size=None):
    """{size: {params: objective}} of the verified measurements."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    q = ("SELECT m.size, c.params, m.objective FROM measurements m JOIN configurations c ON c.id = m.config_id"
         " WHERE m.status = 'ok' AND m.objective > 0")
    out = {}
    for s, params, obj in con.execute(q):
        if size is None or s == size:
            out.setdefault(s, {})[key(json.loads(params))] = obj
    return out


def picks(keep_dir, bf):
    """{size: (table, online, best)}, each a dict of parameter values; bf: objectives(BF_DB)."""
    out = {}
    for name in sorted(os.listdir(keep_dir)):
        if not name.endswith(".online.json"):
            continue
        r = json.load(open(os.path.join(keep_dir, name)))
        size = "x".join(str(v) for v in r["problem_size"])
        names = r["parameters"]
        cands = [dict(zip(names, c["values"])) for c in r["candidates"]]
        if size not in bf:
            sys.exit(f"online_h2h: {size}: no brute-force measurements")
        best = json.loads(min(bf[size].items(), key=lambda kv: kv[1])[0])
        out[size] = (cands[0], cands[r["winner"]], best)
    return out


def specs(spec_path, keep_dir, bf_db, out_dir):
    spec = json.load(open(spec_path))
    os.makedirs(out_dir, exist_ok=True)
    for size, configs in picks(keep_dir, objectives(bf_db)).items():
        distinct = list({key(c): c for c in configs}.values())
        s = json.loads(json.dumps(spec))
        ks = s["KernelSpecification"]  # the kernel file, found from the new spec's folder too
        ks["KernelFile"] = os.path.abspath(os.path.join(os.path.dirname(spec_path), ks["KernelFile"]))
        params = s["ConfigurationSpace"]["TuningParameters"]
        for p in params:
            values = sorted({c[p["Name"]] for c in distinct})
            p["Values"] = repr(values)
            p["Default"] = configs[0][p["Name"]]  # a valid configuration (the reference kernel compiles it)
        names = [p["Name"] for p in params]
        terms = [" and ".join(f"{n} == {c[n]!r}" for n in names) for c in distinct]
        s["ConfigurationSpace"]["Conditions"].append(
            {"Expression": " or ".join(f"({t})" for t in terms), "Parameters": names})
        path = os.path.join(out_dir, f"{size}.json")
        with open(path, "w") as f:
            json.dump(s, f, indent=1)
        print(size, path)


def table(keep_dir, bf_db, out_dir):
    bf = objectives(bf_db)
    print("| size | table / best (brute force) | online / best (brute force) | table / fastest (head to head) "
          "| online / fastest (head to head) | brute force's best / fastest (head to head) |")
    print("|---|---|---|---|---|---|")
    t_h, o_h = [], []
    for size, (t, o, b) in picks(keep_dir, bf).items():
        db = os.path.join(out_dir, f"{size}.db")
        h = objectives(db, size).get(size, {}) if os.path.exists(db) else {}
        if not all(key(c) in h for c in (t, o, b)):
            print(f"| {size} | | | not measured head to head | | |")
            continue
        fastest = min(h[key(c)] for c in (t, o, b))
        best_bf = min(bf[size].values())
        rt, ro, rb = (h[key(c)] / fastest for c in (t, o, b))
        t_h.append(rt)
        o_h.append(ro)
        print(f"| {size} | {bf[size][key(t)] / best_bf:.3f} | {bf[size][key(o)] / best_bf:.3f} | {rt:.3f} | {ro:.3f} "
              f"| {rb:.3f} |")
    if o_h:
        print()
        print(f"Head to head: table's pick median {statistics.median(t_h):.3f}, worst {max(t_h):.3f}; online "
              f"median {statistics.median(o_h):.3f}, worst {max(o_h):.3f}, within 1.02 at "
              f"{sum(x <= 1.02 for x in o_h)} of {len(o_h)}.")


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "specs":
        specs(*sys.argv[2:])
    elif len(sys.argv) == 5 and sys.argv[1] == "table":
        table(*sys.argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
