#!/usr/bin/env python3
"""Prints the transpose configurations of the experiments in bench/journal.md ("Kernel notes") (input for
bench.cu's list mode), with the shipped space's winners as baselines repeated at the start, middle
and end of the list (their spread is the run's noise).
  candidates.py 1 > list.txt   round 1: use_shared = 2 (16-byte accesses everywhere) in every tile
                               shape, cp.async loads, 2-3 stage pipelines over several tiles per
                               block, persistent grids, cache hints, tile orders
  candidates.py 2 > list.txt   round 2: band interleave on both schemes, persistence with 2-4
                               tiles per block, the remaining store hints and the L2::256B prefetch
  candidates.py 3 > list.txt   round 3: tile orders only, around both families' winners: bands 2..16
                               and group 2..8 on the padded winners, persistent blocks with group
                               1..128 and 2..8 tiles on three 16-byte tile shapes, bands on those
  candidates.py 4 > list.txt   round 4: column-major tile order (group >= the tile rows) on every
                               16-byte tile shape up to 32 x 256, 1..3 tiles per block, adjacent or
                               a 1/tiles of the matrix apart, and on the padded winners"""
import sys

KEYS = ["block_size_x", "block_size_y", "tile_size_y", "vector", "use_shared", "padding", "diagonal", "group",
        "tiles", "streaming", "cp_async", "stages", "persist", "bands", "persist_grid", "rep"]
DEFAULTS = dict(vector=4, use_shared=2, padding=0, diagonal=0, group=1, tiles=1, streaming=0, cp_async=0, stages=1,
                persist=0, bands=1, persist_grid=0, rep=0)


def cfg(bx, by, tsy, **kw):
    d = dict(DEFAULTS)
    d.update(kw)
    pass
    d.update(block_size_x=bx, block_size_y=by, tile_size_y=tsy)
    return d


def line(d):
    return "kernels_src/transpose.cu transpose " + " ".join(f"{k}={d[k]}" for k in KEYS)


def smem(d):
    return 4 * d["block_size_x"] * d["vector"] * d["block_size_y"] * d["tile_size_y"] * \
        (d["stages"] if d["use_shared"] == 2 else 1)


def old(bx, by, tsy, v, **kw):
    return cfg(bx, by, tsy, vector=v, use_shared=1, padding=1, **kw)


baselines = [old(64, 16, 4, 2, streaming=1), old(32, 32, 2, 4), old(16, 32, 2, 4, tiles=2), old(16, 8, 8, 4),
             old(32, 16, 4, 2), old(32, 16, 4, 2, tiles=2)]
# The five padded winners of the 192-configuration space (rounds 2 to 4 vary them and time them as
# baselines).
PADDED_WINNERS = [old(64, 16, 4, 2, streaming=1), old(32, 32, 2, 4), old(32, 16, 4, 2), old(16, 32, 2, 4, tiles=2),
                  old(16, 8, 8, 4)]


def round1():
    out = []
    # Tile order on the old scheme: group swizzle of the two best.
    for b in baselines[:2]:
        for g in (4, 16, 64):
            out.append(dict(b, group=g))
    # Shapes of the new scheme, plain loads and cp.async.
    shapes = []
    for bx in (8, 16, 32, 64):
        for by in (2, 4, 8, 16, 32):
            for tsy in (4, 8):
                tx, ty, nt = 4 * bx, by * tsy, bx * by
                if ty % 32 or not 32 <= ty <= 128 or not 128 <= nt <= 1024 or tx * ty * 4 > 48 * 1024:
                    continue
                shapes.append((bx, by, tsy))
    for s in shapes:
        for a in (0, 1):
            out.append(cfg(*s, cp_async=a))
    # Pipelines and persistence where two or three stages fit in 48 KiB.
    for s in [(16, 16, 4), (16, 8, 8), (32, 8, 4), (32, 4, 8), (8, 16, 4), (8, 32, 4), (16, 16, 8)]:
        for st in (1, 2, 3):
            base = cfg(*s, cp_async=1, stages=st)
            if smem(base) > 48 * 1024:
                continue
            for t in (2, 4):
                out.append(dict(base, tiles=t))
            for t in (2, 4, 8):
                out.append(dict(base, persist=1, tiles=t))
            out.append(dict(base, persist=1, persist_grid=1))
    # 128 x 64 tiles (one stage fits): several tiles per block, persistent.
    for s in [(32, 16, 4), (32, 8, 8), (16, 32, 4)]:
        for a in (0, 1):
            for t in (2, 4):
                out.append(cfg(*s, cp_async=a, tiles=t))
                out.append(cfg(*s, cp_async=a, persist=1, tiles=t))
            out.append(cfg(*s, cp_async=a, persist=1, persist_grid=1))
    # Cache hints.
    for s in [(32, 16, 4), (16, 16, 4), (16, 8, 8)]:
        for a in (0, 1):
            for h in (1, 2, 3):
                out.append(cfg(*s, cp_async=a, streaming=h))
    # Tile orders of the new scheme.
    for g in (4, 16, 64):
        out.append(cfg(32, 16, 4, cp_async=1, group=g))
        out.append(cfg(16, 16, 4, cp_async=1, stages=2, persist=1, tiles=4, group=g))
        out.append(cfg(16, 16, 4, cp_async=1, stages=2, persist=1, persist_grid=1, group=g))

    return out


def round2():
    out = []
    for b in PADDED_WINNERS:
        for k in (2, 3, 4, 8):
            out.append(dict(b, bands=k))
    for s in [(32, 16, 4, 0), (32, 16, 4, 1), (16, 16, 4, 1)]:
        for k in (1, 2, 4):
            out.append(cfg(*s[:3], cp_async=s[3], bands=k))
    for s in [(32, 16, 4), (16, 16, 4), (16, 32, 4)]:
        for a in (0, 1):
            for t in (2, 3, 4):
                out.append(cfg(*s, cp_async=a, persist=1, tiles=t))
        out.append(cfg(*s, cp_async=1, persist=1, tiles=4, group=64))
    for a in (0, 1):
        for h in (4, 5, 6):
            out.append(cfg(32, 16, 4, cp_async=a, streaming=h))
    return out


def round3():
    out = []
    for b in PADDED_WINNERS:
        for k in (2, 3, 4, 5, 6, 8, 12, 16):
            out.append(dict(b, bands=k))
        if b["streaming"] == 0 and b["tiles"] == 1:
            for g in (2, 3, 8):
                out.append(dict(b, group=g))
    for s in [(16, 32, 4), (32, 16, 4), (16, 16, 4)]:
        for t in (2, 4, 8):
            for g in (1, 8, 16, 32, 64, 128):
                for st in (1, 2):
                    d = cfg(*s, cp_async=1, stages=st, persist=1, tiles=t, group=g)
                    if smem(d) <= 48 * 1024:
                        out.append(d)
        for a in (0, 1):
            for k in (2, 3, 4):
                out.append(cfg(*s, cp_async=a, bands=k))
    return out


def round4():
    out = []
    col = 1024  # at least the tile rows of any matrix up to 16384 rows with tiles >= 16 rows
    for s in [(16, 32, 4), (32, 16, 4), (16, 16, 4), (8, 64, 4), (8, 32, 8), (16, 16, 8), (8, 32, 4)]:
        for a in (0, 1):
            out.append(cfg(*s, cp_async=a, group=col))  # one tile per block, column-major grid
            for t in (2, 3):
                out.append(cfg(*s, cp_async=a, persist=1, tiles=t, group=col))  # tiles 1/t apart
                out.append(cfg(*s, cp_async=a, tiles=t, group=col))  # t adjacent tiles per block
    for b in [b for b in PADDED_WINNERS if b["tiles"] == 1] + [old(32, 16, 4, 2, tiles=2), old(16, 32, 4, 2),
                                                              old(8, 32, 4, 4)]:
        out.append(dict(b, group=col))
    return out


round_ = sys.argv[1] if len(sys.argv) > 1 else "1"
out = {"1": round1, "2": round2, "3": round3, "4": round4}[round_]()
if round_ != "1":
    baselines = PADDED_WINNERS + ([] if round_ == "2" else [cfg(16, 32, 4, cp_async=1, persist=1, tiles=4, group=64)])

# Baselines at the start, the middle and the end.
half = len(out) // 2
lines = [line(dict(b, rep=0)) for b in baselines] + [line(d) for d in out[:half]] + \
        [line(dict(b, rep=1)) for b in baselines] + [line(d) for d in out[half:]] + \
        [line(dict(b, rep=2)) for b in baselines]
print("\n".join(lines))
print(f"{len(lines)} configurations", file=sys.stderr)
