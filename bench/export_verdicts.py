#!/usr/bin/env python3
"""What a sweep's decisions saw, out of its database, without the samples and the cubins:

    python3 bench/export_verdicts.py RUN.db OUT_verdicts.json

every verified configuration's objective per size (with its sample count), the stored decisions,
the configurations' ids and the devices. bench/bench_repro.sh and bench/mpi_gpu_check.sh keep
one per run (the databases stay on the GPU machine); bench/keep_margin.py re-decides from them.
"""
import json
import sqlite3
import sys

if len(sys.argv) != 3:
    print("usage: export_verdicts.py RUN.db OUT_verdicts.json", file=sys.stderr)
    sys.exit(2)
try:
    con = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
    m = con.execute("SELECT m.size, c.params, m.objective, m.sample_count FROM measurements m JOIN configurations c"
                    " ON c.id = m.config_id WHERE m.status = 'ok' AND m.objective > 0").fetchall()
    d = con.execute("SELECT d.size, c.params, d.tie_margin, d.candidates, d.rounds, d.noise FROM decisions d"
                    " JOIN configurations c ON c.id = d.winner_id").fetchall()
    ids = dict(con.execute("SELECT id, params FROM configurations").fetchall())
    devices = [r[0] for r in con.execute("SELECT DISTINCT device FROM measurements")]
except sqlite3.Error as e:
    print(f"export_verdicts.py: {sys.argv[1]}: {e}", file=sys.stderr)
    sys.exit(2)
with open(sys.argv[2], "w") as f:
    json.dump({"devices": devices, "measurements": m, "decisions": d, "configurations": ids}, f)
