#!/usr/bin/env python3
"""Two independent energy runs agree (issue 45, item 4), by the rule used for time
(bench/repro_table.py): at every size where both runs resolved the energy, the configuration each
run chose for energy, as the other run measured it, is within 2% of the other run's best energy,
the energy of the configuration the other run chose there (its decision). A size where either run
has no resolved energy for these is excluded, and said so. Also, per size and run, what the
energy-optimal choice saves against the time-optimal one and what it costs in time (that run).

  energy_agreement.py PARETO_A.json PARETO_B.json   (each from `tune best --pareto --json`)

"in other": raced (the other run raced it too: a race value) or first pass (the other run did not
count it among its energy contenders: its value there is its first pass, a shorter window at
another moment). Exit 0 when the rule holds at every included size and at least one is included.
"""
import json
import sys

RULE = 0.02


def key(params):
    return json.dumps(params, sort_keys=True)


def load(path):
    out = {}
    for row in json.load(open(path))["sizes"]:
        out[(row["device"], row["size"])] = (row, {key(p["params"]): p for p in row["points"]})
    return out


def main():
    a, b = load(sys.argv[1]), load(sys.argv[2])
    ok, included = True, 0
    print("size        run  own pick mJ  other's pick mJ (other)  own pick in other mJ  in other    within  "
          "saved   time cost")
    order = sorted(set(a) | set(b), key=lambda k: (k[0], [int(x) for x in k[1].split("x")]))
    for k in order:
        size = k[1]
        if k not in a or k not in b or "energy_optimal" not in a[k][0] or "energy_optimal" not in b[k][0]:
            print(f"{size:11s} excluded: no resolved energy in {'run a' if k not in a else 'run b'}")
            continue
        for name, (mine, own_pts), (other, theirs) in (("a", a[k], b[k]), ("b", b[k], a[k])):
            chosen = key(mine["energy_optimal"])
            best = theirs.get(key(other["energy_optimal"]))
            there = theirs.get(chosen)
            if best is None or there is None:
                print(f"{size:11s} {name}    excluded: the counter did not resolve it in the other run")
                continue
            included += 1
            rel = there["energy_j"] / best["energy_j"] - 1
            ok = ok and rel <= RULE
            saved = mine.get("energy_saved")
            how = {True: "raced", False: "first pass"}.get(there.get("raced"), "?")  # "?": an older tune
            print(f"{size:11s} {name}   {1e3 * own_pts[chosen]['energy_j']:11.4f}  {1e3 * best['energy_j']:23.4f}  "
                  f"{1e3 * there['energy_j']:20.4f}  {how:10s}  {100 * rel:+5.2f}%  "
                  f"{'-' if saved is None else f'{100 * saved:+.1f}%':7s} {100 * mine['time_cost']:+.1f}%")
    ok = ok and included > 0
    print(f"agreement (within 2% of the other run's best energy at each of {included // 2 if included else 0} "
          f"included sizes, both ways):", "yes" if ok else "NO")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
