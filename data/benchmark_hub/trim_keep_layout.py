#!/usr/bin/env python3
"""Drop each entry's per-launch `times` list from a Kernel Tuner cache (gzip), keeping Kernel
Tuner's own layout (the header as written, one entry per line, json.dumps separators), so that the
export tests that compare bytes with the original still apply. Every other field is kept.

    python3 data/benchmark_hub/trim_keep_layout.py UPSTREAM.json.gz OUT.json.gz
"""
import gzip
import json
import sys

if len(sys.argv) != 3:
    sys.exit(__doc__)
src, dst = sys.argv[1], sys.argv[2]
with gzip.open(src, "rt") as f:
    lines = f.read().split("\n")
out = []
in_cache = False
for line in lines:
    if in_cache and line.startswith('"') and '": {' in line:
        key, rest = line.split(": ", 1)
        entry, end = json.JSONDecoder().raw_decode(rest)
        assert json.dumps(entry) == rest[:end], "layout not reproducible: " + key
        entry.pop("times", None)
        line = key + ": " + json.dumps(entry) + rest[end:]
    if line == '"cache": {':
        in_cache = True
    out.append(line)
text = "\n".join(out)
# the same content apart from `times`
with gzip.open(src, "rt") as f:
    a = json.load(f)
for e in a["cache"].values():
    e.pop("times", None)
assert a == json.loads(text)
with open(dst, "wb") as raw, gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=raw, mtime=0) as f:
    f.write(text.encode())  # no name or time in the gzip header: the output is reproducible
