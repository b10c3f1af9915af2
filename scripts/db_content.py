#!/usr/bin/env python3
"""Compares what two tune databases hold, not how: every measurement (its configuration, device,
size, status, samples, objective, evaluation order, simulated time), the runs (what ran and how it
ended, not when or where), the configurations and the flags. Ids, timestamps and wall times differ
between any two runs and are left out.

  scripts/db_content.py A.db B.db [--tables measurements,configurations]   exit 0: the same
"""
import sqlite3
import sys

QUERIES = {
    "measurements": """SELECT c.kernel, c.space_hash, c.params, m.device, m.size, m.status, m.error, m.samples,
        m.sample_count, m.median_ms, m.mean_ms, m.objective, m.gbps, m.gflops, m.eval_order, m.simulated_time_ms,
        m.replayed, m.extra FROM measurements m JOIN configurations c ON c.id = m.config_id""",
    "runs": """SELECT spec_hash, kernel, device, strategy, strategy_options, budget, status, kind, notes, timing
        FROM runs""",
    "configurations": "SELECT kernel, space_hash, params FROM configurations",
    "flags": "SELECT kernel, device, size, kind, text FROM flags",
}


def content(path, tables):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    return {t: sorted(db.execute(QUERIES[t]).fetchall(), key=repr) for t in tables}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--tables")]
    tables = list(QUERIES)
    for a in sys.argv[1:]:
        if a.startswith("--tables"):
            tables = a.split("=", 1)[1].split(",")
    a, b = content(args[0], tables), content(args[1], tables)
    same = True
    for t in tables:
        ok = a[t] == b[t]
        same = same and ok
        print(f"{t}: {len(a[t])} and {len(b[t])} rows, {'the same' if ok else 'DIFFERENT'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
