#!/usr/bin/env python3
"""The tie-break's keep margin re-decided offline, from the runs of scripts/bench_repro.sh.

    python3 scripts/keep_margin.py [--margins "0.01 0.0075 0.005"] RUN_verdicts.json ...

Each RUN_verdicts.json (bench_repro.sh writes one per main job: every verified configuration's
objective per size, and the stored decisions) is one independent run on the same GPU. For each
margin, the configuration each run would use is chosen again as decision::select_across_sizes does
(the winner and the tied configurations within the margin of it; the previous size's pick kept
while it is among them, else the one that stays among them over the most following sizes), and
every pair of runs is compared as scripts/repro_table.py does: the pick of one run, its objective in
the other run over the other run's pick. Prints per margin the pairs at target (no size over
1.02), the size-pairs over, the worst, and the switches per run. The stored decisions are the
ones the runs made with their own margin (a pick also becomes a contender at the next size), so a
margin other than the runs' own is an estimate.
"""
import argparse
import itertools
import json


def load(path):
    d = json.load(open(path))
    ids = {int(k): v for k, v in d["configurations"].items()}
    objective = {}
    for size, params, value, _samples in d["measurements"]:
        objective.setdefault(size, {})[params] = value
    tied = {}
    for size, _winner, _margin, candidates, _rounds, _noise in d["decisions"]:
        c = sorted(((ids[x["config_id"]], x["value"]) for x in json.loads(candidates) if x.get("tied")),
                   key=lambda t: t[1])
        tied[size] = c
    return objective, tied


def size_key(s):
    return [int(x) for x in s.split("x")]


def picks(objective, tied, margin):
    sizes = sorted(objective, key=size_key)
    sets = []
    for s in sizes:
        if s in tied and tied[s]:
            limit = tied[s][0][1] * (1 + margin)
            sets.append([p for i, (p, v) in enumerate(tied[s]) if i == 0 or v <= limit])
        else:
            sets.append([min(objective[s], key=objective[s].get)])

    def run_length(i, p):
        n = 0
        for t in range(i, len(sizes)):
            if p not in sets[t]:
                break
            n += 1
        return n

    out, kept = {}, None
    for i, s in enumerate(sizes):
        pick = kept if kept in sets[i] else max(sets[i], key=lambda p: (run_length(i, p), -sets[i].index(p)))
        out[s] = kept = pick
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--margins", default="0.01 0.0075 0.005")
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args()
    runs = {p: load(p) for p in a.runs}
    for margin in (float(m) for m in a.margins.split()):
        used = {p: picks(*runs[p], margin) for p in runs}
        pairs_ok = pairs = over = 0
        worst, where = 0.0, []
        for x, y in itertools.combinations(runs, 2):
            ox, oy, ux, uy = runs[x][0], runs[y][0], used[x], used[y]
            bad = 0
            for s in ux:
                r = max(oy[s].get(ux[s], float("inf")) / oy[s][uy[s]], ox[s].get(uy[s], float("inf")) / ox[s][ux[s]])
                worst = max(worst, r)
                if r > 1.02:
                    bad += 1
                    where.append(f"{s} {r:.4f}")
            pairs += 1
            pairs_ok += bad == 0
            over += bad
        switches = sum(sum(a != b for a, b in zip(list(u.values()), list(u.values())[1:])) for u in used.values())
        print(f"margin {100 * margin:.2f}%: pairs at target {pairs_ok} of {pairs}, size-pairs over 1.02: {over}, "
              f"worst {worst:.4f}, switches per run {switches / len(used):.1f}; over: {', '.join(where) or 'none'}")


if __name__ == "__main__":
    main()
