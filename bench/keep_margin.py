#!/usr/bin/env python3
"""The tie-break across sizes re-decided offline, from the runs of bench/bench_repro.sh.

    python3 bench/keep_margin.py [--margins "0.01 0.0075 0.005"] [--start around|winner|longest] [--no-noise]
                                   RUN_verdicts.json ...

Each RUN_verdicts.json (bench_repro.sh writes one per main job: every verified configuration's
objective per size, and the stored decisions) is one independent run on the same GPU. For each
margin, the configuration each run would use is chosen again as decision::select_across_sizes does
(the winner and the tied configurations within the margin of it, narrowed to the size's stored noise
where that is smaller, as decision::keep_margin does since 2026-11-28; --no-noise: the margin alone,
the rule before; the previous size's pick kept
while it is among them, else the one of them with the lowest mean of its objective over each size's
best at this size and its neighbours; --start winner: else the size's winner (2af1767); --start
longest, the rule before 2026-11-27: else the one that stays among them over the most following
sizes), and
every pair of runs is compared as bench/repro_table.py does: the pick of one run, its objective in
the other run over the other run's pick. Prints per margin the pairs at target (no size over
1.02), the size-pairs over, the worst, and the switches per run. The stored decisions are the
ones the runs made with their own margin (a pick also becomes a contender at the next size), so a
margin other than the runs' own is an estimate.
"""
import argparse
import itertools
import json
import math
import os
import sys

MAX_BYTES = 256 << 20  # an export is about 3 MB per main job


def fail(message):
    """Bad input: one line on stderr, exit 2."""
    print(f"keep_margin.py: {message}", file=sys.stderr)
    sys.exit(2)


def load(path):
    """(objective per size, tied set per size, devices, noise per size) of one export; one error line
    and exit 2 otherwise."""
    try:
        if os.path.getsize(path) > MAX_BYTES:
            raise ValueError(f"larger than {MAX_BYTES >> 20} MB")
        with open(path) as f:
            d = json.load(f)
        ids = {int(k): v for k, v in d["configurations"].items()}
        objective = {}
        for size, params, value, _samples in d["measurements"]:
            objective.setdefault(size, {})[params] = float(value)
        tied, noise = {}, {}
        for size, _winner, _margin, candidates, _rounds, size_noise in d["decisions"]:
            noise[size] = float(size_noise)
            tied[size] = sorted(((ids[x["config_id"]], float(x["value"])) for x in json.loads(candidates)
                                 if x.get("tied")), key=lambda t: t[1])
        for size, t in tied.items():
            if size not in objective or any(p not in objective[size] for p, _ in t):
                raise ValueError(f"decision at {size} names configurations not measured there")
        return objective, tied, tuple(d.get("devices", ())), noise
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError) as e:
        fail(f"{path}: not a bench_repro.sh verdict export: {type(e).__name__}: {e}")


def size_key(s):
    return [int(x) for x in s.split("x")]


def keep_margin(margin, noise):
    """decision::keep_margin: the margin, narrowed to the size's noise; no usable noise, 0."""
    return min(margin, noise) if noise is not None and math.isfinite(noise) and noise >= 0 else 0.0


def regrets(ox, oy, ux, uy):
    """Per size, the regret between two runs as bench/repro_table.py takes it: each run's pick in
    the other run over that run's pick, the larger of the two (inf where one run lacks the other's)."""
    for s in ux:
        yield s, max(oy[s].get(ux[s], float("inf")) / oy[s][uy[s]], ox[s].get(uy[s], float("inf")) / ox[s][ux[s]])


def picks(objective, tied, margin, start="around", noise=None):
    """The configuration used per size; `noise` (per size) narrows the margin, None: the margin alone."""
    sizes = sorted(objective, key=size_key)
    sets = []
    for s in sizes:
        if s in tied and tied[s]:
            limit = tied[s][0][1] * (1 + (margin if noise is None else keep_margin(margin, noise.get(s))))
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

    def around(i, p):  # its mean objective over each size's best, here and at the neighbours
        r = [objective[sizes[j]][p] / min(objective[sizes[j]].values())
             for j in (i - 1, i, i + 1) if 0 <= j < len(sizes) and p in objective[sizes[j]]]
        return sum(r) / len(r)

    out, kept = {}, None
    for i, s in enumerate(sizes):
        if kept in sets[i]:
            pick = kept
        elif start == "longest":
            pick = max(sets[i], key=lambda p: (run_length(i, p), -sets[i].index(p)))
        elif start == "winner":
            pick = sets[i][0]
        else:
            pick = min(sets[i], key=lambda p: (around(i, p), sets[i].index(p)))
        out[s] = kept = pick
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--margins", default="0.01 0.0075 0.005")
    ap.add_argument("--start", choices=("around", "winner", "longest"), default="around",
                    help="where the kept one drops out: the fastest around this size (the rule), the size's "
                    "winner, or the one eligible longest")
    ap.add_argument("--no-noise", action="store_true",
                    help="the margin alone, not narrowed to each size's noise (the rule before 2026-11-28)")
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args()
    if len(a.runs) < 2:
        fail("at least two runs are needed to compare")
    try:
        margins = [float(m) for m in a.margins.split()]
        if not margins or any(not 0 <= m <= 1 for m in margins):
            raise ValueError
    except ValueError:
        fail(f"--margins '{a.margins}': expected fractions between 0 and 1, such as 0.0075")
    runs = {p: load(p) for p in a.runs}
    sizes, devices = set(runs[a.runs[0]][0]), {r[2] for r in runs.values() if r[2]}
    if any(set(r[0]) != sizes for r in runs.values()):
        fail("the runs measured different sizes: not runs of one main job")
    if len(devices) > 1:  # exports before 2026-11-27's fourth session name no device
        fail(f"the runs are from different GPUs ({', '.join(sorted(' / '.join(d) for d in devices))})")
    for margin in margins:
        used = {p: picks(runs[p][0], runs[p][1], margin, a.start, None if a.no_noise else runs[p][3]) for p in runs}
        pairs_ok = pairs = over = 0
        worst, where = 0.0, []
        for x, y in itertools.combinations(runs, 2):
            ox, oy, ux, uy = runs[x][0], runs[y][0], used[x], used[y]
            bad = 0
            for s, r in regrets(ox, oy, ux, uy):
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
