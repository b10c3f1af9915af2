#!/usr/bin/env python3
"""Trim a Kernel Tuner cache for evaluation data: drop each entry's per-launch `times` list and
keep every other field (time, compile/verification/benchmark time, ...), as gzip.

    python3 scripts/trim_cache.py IN.json.gz OUT.json.gz

A replay and `tune evaluate` read `time` and the three cost fields only, so the trimmed file
replays exactly as the original; data/benchmark_hub/PROVENANCE.md lists what was trimmed."""
import gzip
import json
import sys


def main(src: str, dst: str) -> None:
    opener = gzip.open if src.endswith(".gz") else open
    with opener(src, "rt") as f:
        cache = json.load(f)
    for entry in cache["cache"].values():
        entry.pop("times", None)
    with gzip.open(dst, "wt", compresslevel=9) as f:
        json.dump(cache, f, separators=(",", ":"))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
