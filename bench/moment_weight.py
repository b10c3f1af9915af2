#!/usr/bin/env python3
"""The first pass's weight in the decision (tuning/sweep.h: kFirstPassWeight), re-decided offline.

    python3 bench/moment_weight.py [--weights "0 0.25 0.5"] [--pairs "ac bd"] RUN_FOLDER ...

Each RUN_FOLDER is one output folder of bench/bench_repro.sh with its databases (a.db, b.db, ...;
bench_repro.sh leaves them on the GPU machine: bring them back to re-decide). In each database the
decision's contenders at a size carry their race value (the decisions' candidates) and their first
pass (measurements.extra.first_pass). For each weight the contenders' values are combined as
decision::across_moments does (each moment relative to its geometric level over the contenders),
the tied set is taken again (within the tie margin of the winner, or the two intervals'
half widths), the configuration each run uses is chosen as bench/keep_margin.py does
(decision::select_across_sizes), and every pair of runs in a folder is compared as
bench/repro_table.py does. A run that decided with a weight (its timing method in the runs table
says so) has its race values recovered first. The stored runs chose each size's contenders with their
own weight, so another weight is an estimate; with the runs' own weight the pairs at target are the
benchmark's. --pairs: only these pairs of runs (such as "ac bd" for
interleaved binaries). Prints per weight the pairs at target and the size-pairs over 1.02.
"""
import argparse
import glob
import itertools
import json
import math
import os
import re
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keep_margin  # noqa: E402  (the tie-break across sizes, as the tuner makes it)

MAX_FOLDERS = 64
MAX_DB_BYTES = 4 << 30


def fail(message):
    print(f"moment_weight.py: {message}", file=sys.stderr)
    sys.exit(2)


def read_run(path):
    """(first passes, decisions) of one run's database; one error line and exit 2 otherwise."""
    try:
        if os.path.getsize(path) > MAX_DB_BYTES:
            raise ValueError(f"larger than {MAX_DB_BYTES >> 30} GB")
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        objective, first = {}, {}
        for size, params, value, extra in con.execute(
                "SELECT m.size, c.params, m.objective, m.extra FROM measurements m JOIN configurations c"
                " ON c.id = m.config_id WHERE m.status = 'ok' AND m.objective > 0"):
            objective.setdefault(size, {})[params] = float(value)
            x = json.loads(extra or "{}")
            if "first_pass" in x:
                first.setdefault(size, {})[params] = float(x["first_pass"]["objective"])
        ids = dict(con.execute("SELECT id, params FROM configurations"))
        decisions = {}
        for size, candidates, margin, noise in con.execute("SELECT size, candidates, tie_margin, noise FROM decisions"):
            c = json.loads(candidates)
            decisions[size] = ([(ids[x["config_id"]], float(x["value"]), float(x.get("half_width", 0))) for x in c],
                               float(margin), float(noise))
        own = 0.0  # the weight the run decided with (its timing method says; none before 2026-11-28)
        for (method,) in con.execute("SELECT timing FROM runs WHERE kind = 'gpu'"):
            m = re.search(r"weighs its first pass by ([0-9.]+)", method or "")
            if m:
                own = float(m.group(1))
        return objective, first, decisions, own
    except (OSError, ValueError, KeyError, TypeError, sqlite3.Error) as e:
        fail(f"{path}: not a tune database with decisions: {type(e).__name__}: {e}")


def level(values):
    """The geometric mean (decision.cpp's level_of), of positive values."""
    values = list(values)
    return math.exp(sum(math.log(v) for v in values) / len(values))


def redecide(run, weight):
    """(objective per size, tied per size, noise per size) with the contenders' values re-combined."""
    objective, first, decisions, own = run
    objective = {s: dict(v) for s, v in objective.items()}
    tied, noise = {}, {}
    for size, (candidates, margin, size_noise) in decisions.items():
        noise[size] = size_noise
        value = {p: v for p, v, _ in candidates}
        half = {p: h for p, _, h in candidates}
        fp = first.get(size, {})
        if (weight > 0 or own > 0) and len(value) >= 2 and all(p in fp for p in value):
            then = level(fp[p] for p in value)
            now = level(value.values())
            if own > 0:  # the race's own values back, their level found by iteration
                combined = dict(value)
                for _ in range(50):
                    value = {p: max((c - own * now * fp[p] / then) / (1 - own), 1e-30) for p, c in combined.items()}
                    now = level(value.values())
            for p in value:
                value[p] = now * ((1 - weight) * value[p] / now + weight * fp[p] / then)
                objective[size][p] = value[p]
        order = sorted(value.items(), key=lambda t: t[1])
        best, w = order[0]
        tied[size] = [(p, v) for p, v in order if v <= w * (1 + margin) or v - w <= half[p] + half[best]]
    return objective, tied, noise


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--weights", default="0 0.1 0.2 0.25 0.33 0.4 0.5")
    ap.add_argument("--pairs", default="", help="only these pairs of runs, such as 'ac bd'")
    ap.add_argument("folders", nargs="+")
    a = ap.parse_args()
    if len(a.folders) > MAX_FOLDERS:
        fail(f"{len(a.folders)} folders: at most {MAX_FOLDERS}")
    try:
        weights = [float(w) for w in a.weights.split()]
        if not weights or any(not 0 <= w < 1 for w in weights):
            raise ValueError
    except ValueError:
        fail(f"--weights '{a.weights}': expected fractions in [0, 1), such as 0.25")
    pairs = set(a.pairs.split())
    if any(len(p) != 2 or not set(p) <= set("abcd") for p in pairs):
        fail(f"--pairs '{a.pairs}': expected pairs of run letters, such as 'ac bd'")
    runs = {}
    for folder in a.folders:
        dbs = sorted(glob.glob(os.path.join(folder, "[a-d].db")))
        if len(dbs) < 2:
            fail(f"{folder}: fewer than two run databases (a.db, b.db, ...)")
        runs[folder] = {os.path.basename(d)[0]: read_run(d) for d in dbs}
    for weight in weights:
        ok = total = 0
        over = []
        for folder, by_letter in runs.items():
            decided = {r: redecide(run, weight) for r, run in by_letter.items()}
            used = {r: keep_margin.picks(o, t, 0.01, "around", n) for r, (o, t, n) in decided.items()}
            for x, y in itertools.combinations(sorted(decided), 2):
                if pairs and x + y not in pairs:
                    continue
                ox, oy = decided[x][0], decided[y][0]
                bad = 0
                for s, r in keep_margin.regrets(ox, oy, used[x], used[y]):
                    if r > 1.02:
                        bad += 1
                        over.append(f"{folder}:{x}{y} {s} {r:.4f}")
                total += 1
                ok += bad == 0
        print(f"weight {weight:g}: pairs at target {ok} of {total}; over 1.02: {', '.join(over) or 'none'}")


if __name__ == "__main__":
    main()
