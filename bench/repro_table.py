#!/usr/bin/env python3
"""Reproducibility of the per-size verdict: two independent runs of the same sweep on the same GPU.

    python3 bench/repro_table.py A.db B.db A_best.json B_best.json [A_run.json B_run.json]

A_best.json / B_best.json: `tune best --kernel K --json --db A.db` (the configuration used per
size, its tied configurations). A_run.json / B_run.json: the runs' `--json` output (timings).
The last column is stricter: against the lowest objective stored at that size in the other run,
configurations measured once included (near the L2's capacity a single measurement can read a
few percent fast: see run/timing.h).

Per size: the configuration each run uses, and its regret in the other run: its objective there
over that run's own best, the configuration that run decided on (its winner, re-measured side by
side with the other contenders). The target is regret <= 1.02 both ways at every size. "tie
agreed": the configuration one run uses is the other's or among its tied.
Then the spread of one configuration's objective from run to run (B / A, every configuration
verified in both, percentiles per band of sizes), and the time per measurement.
Reads the databases with Python's sqlite3; prints Markdown.
"""
import json
import sqlite3
import statistics
import sys


def objectives(db):
    """{size: {params: objective}} of the verified measurements."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    out = {}
    for size, params, obj in con.execute(
            "SELECT m.size, c.params, m.objective FROM measurements m JOIN configurations c ON c.id = m.config_id"
            " WHERE m.status = 'ok' AND m.objective > 0"):
        out.setdefault(size, {})[params] = obj
    return out


def canon(params):
    return json.dumps(params, separators=(",", ":"))


def used(best_json):
    rows = json.load(open(best_json))["sizes"]  # `tune best --json`: one object, its sizes
    return {r["size"]: (canon(r["params"]), {canon(t) for t in r["tied"]}, r.get("noise", 0.0)) for r in rows}


def pct(values, q):
    values = sorted(values)
    if not values:
        return float("nan")
    k = (len(values) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def main():
    a_db, b_db, a_best, b_best = sys.argv[1:5]
    runs = sys.argv[5:7]
    oa, ob = objectives(a_db), objectives(b_db)
    ua, ub = used(a_best), used(b_best)
    sizes = sorted(set(ua) & set(ub), key=lambda s: [int(x) for x in s.split("x")])
    print("| size | noise A | noise B | same config | tie agreed | regret A's in B | regret B's in A | strict: A's, B's |")
    print("|---|---|---|---|---|---|---|---|")
    worst = 0.0
    regrets = []
    same = agreed = 0
    for s in sizes:
        ca, tied_a, na = ua[s]
        cb, tied_b, nb = ub[s]
        best_a, best_b = min(oa[s].values()), min(ob[s].values())
        ra = ob[s].get(ca, float("inf")) / ob[s].get(cb, float("inf"))
        rb = oa[s].get(cb, float("inf")) / oa[s].get(ca, float("inf"))
        worst = max(worst, ra, rb)
        regrets += [ra, rb]
        same += ca == cb
        tie = ca == cb or ca in tied_b or cb in tied_a
        agreed += tie
        ua_ = ob[s].get(ca, float("inf")) / best_b
        ub_ = oa[s].get(cb, float("inf")) / best_a
        print(f"| {s} | {100*na:.1f}% | {100*nb:.1f}% | {'yes' if ca == cb else 'no'} | {'yes' if tie else 'no'} "
              f"| {ra:.4f} | {rb:.4f} | {ua_:.4f}, {ub_:.4f} |")
    print()
    print(f"{len(sizes)} sizes: the same configuration at {same}, the same or tied at {agreed}; "
          f"regret median {statistics.median(regrets):.4f}, worst {worst:.4f} (target <= 1.02); "
          f"sizes over 1.02: {sum(1 for s in sizes if max(ob[s].get(ua[s][0], 9e9) / ob[s][ub[s][0]], oa[s].get(ub[s][0], 9e9) / oa[s][ua[s][0]]) > 1.02)}")
    print()
    print("Run-to-run spread of one configuration (objective in B / in A), per band of sizes:")
    print()
    print("| sizes | configurations x sizes | p5 | median | p95 |")
    print("|---|---|---|---|---|")
    bands = [(0, 1024), (1025, 2048), (2049, 3072), (3073, 1 << 62)]
    for lo, hi in bands:
        ratios = [ob[s][p] / oa[s][p] for s in sizes if lo <= int(s.split("x")[0]) <= hi
                  for p in oa[s] if p in ob[s]]
        if ratios:
            print(f"| {lo}..{hi if hi < 1 << 40 else 'up'} | {len(ratios)} | {pct(ratios, .05):.3f} | "
                  f"{pct(ratios, .5):.3f} | {pct(ratios, .95):.3f} |")
    for name, path in zip("AB", runs):
        try:
            r = json.load(open(path))
            n = r["measured"] + r["failed"]
            print(f"\nrun {name}: wall {r['wall_s']:.1f} s, measurement {r['measure_s']:.1f} s for {n} "
                  f"measurements ({1000 * r['measure_s'] / max(n, 1):.2f} ms each), "
                  f"compile {r['compile_cpu_s']:.1f} s of CPU")
        except (OSError, ValueError, KeyError) as e:
            print(f"\nrun {name}: no run JSON ({e})")
    return 0 if worst <= 1.02 else 1


if __name__ == "__main__":
    sys.exit(main())
