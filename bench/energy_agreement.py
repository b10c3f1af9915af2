#!/usr/bin/env python3
"""Two independent energy runs agree (issue 45, item 4): at every size where both resolved the
energy, the configuration each run chose for energy, as the other run measured it, is within 2% of
the other run's best energy (the energy of the configuration the other run chose). Also, per size and run, what the energy-optimal choice saves against
the time-optimal one and what it costs in time (measured in that run).

  energy_agreement.py PARETO_A.json PARETO_B.json   (each from `tune best --pareto --json`)
"""
import json
import sys

RULE = 0.02


def load(path):
    out = {}
    for row in json.load(open(path))["sizes"]:
        pts = {json.dumps(p["params"], sort_keys=True): p for p in row["points"]}
        out[row["size"]] = (row, pts)
    return out


def main():
    a, b = load(sys.argv[1]), load(sys.argv[2])
    ok = True
    print("size        run  energy-opt mJ  other's best mJ  chosen in other  within  saved   time cost")
    for size in sorted(set(a) & set(b), key=lambda s: [int(x) for x in s.split("x")]):
        for name, (mine, _), (other, theirs) in (("a", a[size], b[size]), ("b", b[size], a[size])):
            chosen = json.dumps(mine["energy_optimal"], sort_keys=True)
            best = theirs[json.dumps(other["energy_optimal"], sort_keys=True)]["energy_j"]
            there = theirs.get(chosen)
            if there is None:
                print(f"{size:11s} {name}    not resolved in the other run")
                continue
            rel = there["energy_j"] / best - 1
            ok = ok and rel <= RULE
            saved = mine.get("energy_saved")
            own = json.dumps(mine["energy_optimal"], sort_keys=True)
            print(f"{size:11s} {name}   {1e3 * {json.dumps(p['params'], sort_keys=True): p for p in mine['points']}[own]['energy_j']:13.4f}  "
                  f"{1e3 * best:15.4f}  {1e3 * there['energy_j']:15.4f}  {100 * rel:5.2f}%  "
                  f"{'-' if saved is None else f'{100 * saved:+.1f}%':7s} {100 * mine['time_cost']:+.1f}%")
    print("agreement (within 2% of the other run's best energy at every size):", "yes" if ok else "NO")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
