#!/usr/bin/env python3
"""The noise of tune's energy figures (docs/performance.md, "Energy"), from what a GPU call kept.

  energy_noise.py --probe PROBE.csv            (bench/energy_probe.cu's output)
  energy_noise.py --race A.db [B.db]           (energy runs' databases: the raced contenders)

--probe: the counter's update period and its jitter as the host sees it; the power per update
interval by the host's interval (what tune uses) and by the nominal period; the window-to-window
noise of windows of 1 to 4 updates under a steady load (each window over the mean of its two
neighbours, which takes a slow drift out; the spread divided by sqrt(1.5)); the drift over the
load; the instantaneous power field's update interval and its scatter about the counter's power.
--race: per size, each first pass's host period per launch over its timed mean (above 1: the GPU
ran dry or the window's start and end weigh); per raced contender its windows relative to the board's level at their moment (as
decision/energy_race.cpp takes them): the spread of one contender's windows (the race's window
noise); with two databases, each raced configuration's race value in B over A, relative to the
median of those ratios (the run-to-run spread of one configuration's energy).
"""
import csv
import json
import math
import sqlite3
import statistics
import sys


def sd_rel(values):
    return statistics.stdev(values) if len(values) > 1 else float("nan")


def probe(path):
    rows = list(csv.DictReader(open(path)))
    for phase in ("idle", "load", "after"):
        e = [(float(r["t_ms"]), int(r["value"])) for r in rows if r["phase"] == phase and r["what"] == "E"]
        if phase == "idle":
            e = e[1:]  # the probe's first reading, not an update
        if len(e) < 3:
            print(f"{phase}: {len(e)} counter updates")
            continue
        dt = [b[0] - a[0] for a, b in zip(e, e[1:])]
        de = [b[1] - a[1] for a, b in zip(e, e[1:])]
        period = statistics.median(dt)
        host = [x / y for x, y in zip(de, dt)]
        nominal = [x / period for x in de]
        print(f"{phase}: {len(e)} updates; interval median {period:.2f} ms, sd {sd_rel(dt):.2f} ms, "
              f"min {min(dt):.2f}, max {max(dt):.2f}; power {statistics.mean(host):.1f} W")
        print(f"  one interval's power: sd {100 * sd_rel(host) / statistics.mean(host):.2f}% by the host's "
              f"interval, {100 * sd_rel(nominal) / statistics.mean(nominal):.2f}% by the median period")
        if phase != "load":
            continue
        temps = [int(r["value"]) for r in rows if r["phase"] == phase and r["what"] == "T"]
        if temps:
            print(f"  temperature {temps[0]} -> {temps[-1]} C")
        n = len(host)
        tenth = max(1, n // 10)
        print(f"  power: first tenth {statistics.mean(host[:tenth]):.1f} W, last tenth "
              f"{statistics.mean(host[-tenth:]):.1f} W")
        for u in (1, 2, 3, 4, 8):
            for name, per in (("host", None), ("nominal", period)):
                w = []
                for i in range(0, n - u + 1, u):
                    span = sum(dt[i:i + u]) if per is None else u * per
                    w.append(sum(de[i:i + u]) / span)
                if len(w) < 5:
                    continue
                r = [w[i] / ((w[i - 1] + w[i + 1]) / 2) for i in range(1, len(w) - 1)]
                print(f"  windows of {u} update(s), {name:7s}: {len(w)} windows, noise {100 * sd_rel(r) / math.sqrt(1.5):.2f}%")
        p = [(float(r["t_ms"]), int(r["value"]) / 1000) for r in rows if r["phase"] == phase and r["what"] == "P"]
        if len(p) > 2:
            gaps = [b[0] - a[0] for a, b in zip(p, p[1:])]
            ratio = []
            for (t0, _), (t1, _), w in zip(e, e[1:], host):
                inside = [x for t, x in p if t0 <= t < t1]
                ratio += [x / w for x in inside]
            print(f"  instantaneous power: {len(p)} changes, median {statistics.median(gaps):.1f} ms apart; "
                  f"a reading over its interval's counter power: median {statistics.median(ratio):.3f}, "
                  f"sd {sd_rel(ratio):.3f}" if ratio else "")


def raced(db):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    out = {}
    for size, params, energy, extra in con.execute(
            "SELECT m.size, c.params, m.energy_j, m.extra FROM measurements m JOIN configurations c"
            " ON c.id = m.config_id WHERE m.status = 'ok' AND m.energy_j IS NOT NULL"):
        x = json.loads(extra)
        if "energy_race" in x:
            out.setdefault(size, {})[params] = (energy, x["energy_race"])
    return out


def periods(db):
    """Per size: each first pass's host period per launch over its window over its timed mean."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    out = {}
    for size, objective, extra in con.execute(
            "SELECT size, objective, extra FROM measurements WHERE status = 'ok' AND objective > 0"):
        x = json.loads(extra)
        if "energy_ms_per_launch" in x:
            out.setdefault(size, []).append(x["energy_ms_per_launch"] / objective)
    return out


def level_at(levels, n, r, pos):
    last = len(levels) - 1
    if last == 0:
        return levels[0]
    g, half = r * n + pos, (n - 1) / 2
    j = r
    if j == last or (j > 0 and g < r * n + half):
        j = r - 1
    slope = (math.log(levels[j + 1]) - math.log(levels[j])) / n
    return math.exp(math.log(levels[j]) + slope * (g - (j * n + half)))


def race(dbs):
    runs = [raced(db) for db in dbs]
    for name, db in zip("ab", dbs):
        for size, r in sorted(periods(db).items()):
            print(f"run {name} {size}: a first pass's period per launch over its timed mean: median "
                  f"{statistics.median(r):.3f}, {min(r):.3f} to {max(r):.3f} ({len(r)} configurations)")
    for name, run in zip("ab", runs):
        for size in sorted(run, key=lambda s: [int(x) for x in s.split("x")]):
            spreads, drift = [], None
            for params, (_, x) in run[size].items():
                n, k, levels = x["contenders"], x["index"], x["levels_j"]
                rel = []
                for r, w in enumerate(x["windows_j"]):
                    order = list(range(n)) if r % 2 == 0 else list(reversed(range(n)))
                    rel.append(w / level_at(levels, n, r, order.index(k)))
                spreads.append(sd_rel(rel) / statistics.mean(rel))
                drift = levels[-1] / levels[0] - 1
            print(f"run {name} {size}: {len(spreads)} contenders, {len(levels)} rounds; one window's noise "
                  f"(median over contenders) {100 * statistics.median(spreads):.2f}%; level drift over the race "
                  f"{100 * drift:+.2f}%")
    if len(runs) == 2:
        for size in sorted(set(runs[0]) & set(runs[1]), key=lambda s: [int(x) for x in s.split("x")]):
            common = set(runs[0][size]) & set(runs[1][size])
            ratios = [runs[1][size][p][0] / runs[0][size][p][0] for p in common]
            if len(ratios) < 2:
                print(f"{size}: {len(ratios)} configuration(s) raced in both runs")
                continue
            mid = statistics.median(ratios)
            rel = [x / mid for x in ratios]
            print(f"{size}: {len(common)} configurations raced in both; b/a median {mid:.4f}; one configuration's "
                  f"race value, run to run: sd {100 * sd_rel(rel):.2f}%, max |dev| "
                  f"{100 * max(abs(x - 1) for x in rel):.2f}%")


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "--probe":
        probe(sys.argv[2])
    elif len(sys.argv) >= 3 and sys.argv[1] == "--race":
        race(sys.argv[2:4])
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
