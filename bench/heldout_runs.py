#!/usr/bin/env python3
"""The held-out brute forces measured again (issue 41): are the table's misses real, and how well
does the brute force agree with itself?

Runs 1, 2 and 3 are results/heldout/transpose, transpose_run2 and transpose_run3 (the same 290
sizes, every configuration, by `tune --strategy brute_force` on one H200; results/heldout/README.md),
what HeldOut.* tests on. The table's pick at each size comes from select_eval's --list output on run
1 (the table does not change between runs):

  tune import results/heldout/transpose/*.json.gz --db /tmp/ho.db
  select_eval --spec spaces/transpose.json --recorded results/recorded/transpose --bf /tmp/ho.db \
      --list > /tmp/picks.txt
  python3 bench/heldout_runs.py --picks /tmp/picks.txt [--online DIR...]

--online: folders of online tuning's result files (*.online.json, e.g. the keep.tgz of
bench/results/lead_h200_2026-11-29i/call6 unpacked); each winner is scored against each run and
against the per-configuration median of the three runs.

--runs FILE: three runs at other sizes instead of the vendored ones, as one JSON file (gzip'd or
not) of format "tune-heldout-runs": "parameters" (the spec's names, in order), "configurations"
(each a list of values in that order), "sizes" ([x, y] each), "runs" (three lists, per size a list
of times in ms per configuration, null where not measured); e.g.
bench/results/lead_h200_2026-11-30c/bf_jk.json.gz, with --picks from select_eval on those sizes.
"""
import argparse
import glob
import gzip
import json
import os
import re
import statistics
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def load_run(folder):
    """(the parameter names, {size: {configuration: ms}}) of one run's trimmed caches."""
    out = {}
    keys = None
    for f in sorted(glob.glob(os.path.join(ROOT, "results", "heldout", folder, "*.json.gz"))):
        j = json.load(gzip.open(f))
        keys = j["tune_params_keys"]
        t = {}
        for v in j["cache"].values():
            if isinstance(v.get("time"), (int, float)) and v["time"] > 0:
                t[",".join(str(v[k]) for k in keys)] = v["time"]
        out[tuple(j["problem_size"][:2])] = t
    return keys, out


def load_file(path):
    """(the parameter names, [{size: {configuration: ms}} per run]) of a tune-heldout-runs file."""
    try:
        with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
            j = json.load(f)
        if j.get("format") != "tune-heldout-runs" or len(j["runs"]) != 3:
            raise ValueError("not a tune-heldout-runs file of three runs")
        keys = [str(k) for k in j["parameters"]]
        configs = [",".join(str(v) for v in c) for c in j["configurations"]]
        sizes = [tuple(int(v) for v in s[:2]) for s in j["sizes"]]
        runs = []
        for r in j["runs"]:
            if len(r) != len(sizes) or any(len(row) != len(configs) for row in r):
                raise ValueError("a run's shape does not match its sizes and configurations")
            runs.append({s: {c: t for c, t in zip(configs, row) if isinstance(t, (int, float)) and t > 0}
                         for s, row in zip(sizes, r)})
        return keys, runs
    except (OSError, EOFError, ValueError, KeyError, TypeError, RecursionError) as e:
        die(f"--runs {path}: {e}")


def die(why):
    print(f"heldout_runs.py: {why}", file=sys.stderr)
    sys.exit(2)


def regret(times, key):
    return times[key] / min(times.values())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--picks", required=True, help="select_eval --list output on run 1")
    ap.add_argument("--online", nargs="*", default=[], help="folders of *.online.json files")
    ap.add_argument("--runs", help="a tune-heldout-runs file instead of results/heldout's runs")
    a = ap.parse_args()
    if not os.path.isfile(a.picks):
        die(f"--picks {a.picks}: no such file")
    for d in a.online:  # every input checked before the first line of output
        if not glob.glob(os.path.join(d, "*.online.json")):
            die(f"--online {d}: no *.online.json files")
    if a.runs:
        keys, runs = load_file(a.runs)
    else:
        loaded = [load_run(f) for f in ("transpose", "transpose_run2", "transpose_run3")]
        keys = loaded[0][0]
        runs = [times for _, times in loaded]
    run1 = runs[0]
    if not all(set(r) == set(run1) for r in runs):
        die("the runs hold different sizes")
    picks = {}
    for line in open(a.picks):
        m = re.match(r"\s+(\d+)x(\d+)x1 (inside|beyond) [\d.]+ \(best candidate [\d.]+\) (\{.*\})", line)
        if m:
            p = json.loads(m.group(4))
            picks[(int(m.group(1)), int(m.group(2)))] = (m.group(3), ",".join(str(p[k]) for k in keys))
    if set(picks) != set(run1):
        die(f"{a.picks} has picks at {len(picks)} of the {len(run1)} sizes")
    median = {s: {k: statistics.median(r[s][k] for r in runs) for k in run1[s]} for s in run1}

    print(f"{len(run1)} sizes, 3 brute-force runs each")
    worst = {s: max(regret(runs[j][s], min(runs[i][s], key=runs[i][s].get))
                    for i in range(3) for j in range(3) if i != j) for s in run1}
    print("the brute force against itself (one run's best, timed by another run): over 1.01 at "
          f"{sum(w > 1.01 for w in worst.values())}, over 1.02 at {sum(w > 1.02 for w in worst.values())}, "
          f"worst {max(worst.values()):.4f} ({'x'.join(map(str, max(worst, key=worst.get)))})")
    for where, limit in (("inside", 1.05), ("beyond", 1.10)):
        sizes = [s for s in run1 if picks[s][0] == where]
        per = [[regret(r[s], picks[s][1]) for r in runs] for s in sizes]
        over = [sum(x[i] > limit for x in per) for i in range(3)]
        every = sum(all(v > limit for v in x) for x in per)
        med = [regret(median[s], picks[s][1]) for s in sizes]
        print(f"the table's pick, {where} the range ({len(sizes)} sizes): over {limit} in runs 1/2/3: "
              f"{over[0]}/{over[1]}/{over[2]}, in all three: {every}; against the median of the runs: "
              f"median {statistics.median(med):.4f}, worst {max(med):.4f}, over {limit} at "
              f"{sum(v > limit for v in med)}")
    for d in a.online:
        files = glob.glob(os.path.join(d, "*.online.json"))
        scored = []
        for f in files:
            j = json.load(open(f))
            s = tuple(j["problem_size"][:2])
            if s not in run1:
                continue
            key = ",".join(map(str, j["candidates"][j["winner"]]["values"]))
            scored.append([regret(r[s], key) for r in runs] + [regret(median[s], key)])
        within = [sum(x[i] <= 1.02 for x in scored) for i in range(4)]
        print(f"online {os.path.basename(d.rstrip('/'))}: within 1.02 of runs 1/2/3's best: "
              f"{within[0]}/{within[1]}/{within[2]} of {len(scored)}; of the median's: {within[3]}")


if __name__ == "__main__":
    main()
