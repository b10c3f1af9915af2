#!/usr/bin/env python3
"""The decision's race against the first pass at one size, per run database.

    python3 bench/race_regime.py SIZE RUN.db ...

For each database (a GPU run of tune with its decisions): every contender raced at SIZE, its race
(the mean of the race's samples, one per placement and round) over its first pass (stored in
measurements.extra.first_pass), fastest race first, and the median of that ratio over the
contenders. Both are the same timing method on the same arguments; the race runs on up to 16
placements, the first pass on 2 (tuning/sweep.h). Bad input: one line on stderr, exit 2.
"""
import json
import os
import re
import sqlite3
import statistics
import sys

MAX_DBS = 256
MAX_DB_BYTES = 4 << 30


def fail(message):
    print(f"race_regime.py: {message}", file=sys.stderr)
    sys.exit(2)


def contenders(path, size):
    """(parameter names, [(race ms, race / first pass, parameter values), ...] fastest race first)."""
    if not os.path.isfile(path):
        fail(f"{path}: no such file")
    if os.path.getsize(path) > MAX_DB_BYTES:
        fail(f"{path}: larger than {MAX_DB_BYTES >> 30} GB")
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        rows = con.execute(
            "SELECT c.params, m.samples, m.extra FROM measurements m JOIN configurations c ON c.id = m.config_id"
            " WHERE m.size = ? AND m.status = 'ok' AND m.extra LIKE '%first_pass%'", (size,)).fetchall()
    except sqlite3.Error as e:
        fail(f"{path}: not a tune database ({e})")
    names, out = [], []
    for params, samples, extra in rows:
        try:
            race = statistics.mean(float(x) for x in json.loads(samples))
            first = float(json.loads(extra)["first_pass"]["objective"])
            values = json.loads(params)
            if not isinstance(values, dict):
                raise TypeError("parameters not an object")
        except (ValueError, KeyError, TypeError, statistics.StatisticsError):
            fail(f"{path}: a measurement at {size} without samples, first pass or parameters")
        if first <= 0:
            fail(f"{path}: a first pass of {first} ms at {size}")
        names = list(values)
        out.append((race, race / first, ",".join(str(v) for v in values.values())))
    return names, sorted(out)


def main():
    if len(sys.argv) < 3:
        fail("usage: race_regime.py SIZE RUN.db ...")
    size, dbs = sys.argv[1], sys.argv[2:]
    if not re.fullmatch(r"[0-9]{1,6}(x[0-9]{1,6}){0,2}", size):
        fail(f"size {size!r}: expected NxN")
    if len(dbs) > MAX_DBS:
        fail(f"{len(dbs)} databases: at most {MAX_DBS}")
    for path in dbs:
        names, rows = contenders(path, size)
        if not rows:
            print(f"{path}: no contenders raced at {size}")
            continue
        ratios = [r for _, r, _ in rows]
        print(f"{path}: {len(rows)} contenders at {size}; race / first pass median {statistics.median(ratios):.3f},"
              f" {min(ratios):.3f} to {max(ratios):.3f}")
        print("    race (us)  race/first  " + ",".join(names))
        for race, ratio, name in rows:
            print(f"    {race * 1000:9.2f}  {ratio:10.3f}  {name}")


if __name__ == "__main__":
    main()
