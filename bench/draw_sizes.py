#!/usr/bin/env python3
"""Held-out sizes for bench/online_sizes.sh (issue 41): a list the main job never measured.

Draws INSIDE sizes inside the main job's range (every extent in [128, 4096]) and BEYOND sizes past
it (some extent in (4096, 8192]), each extent uniform, so odd extents, extents that are not
multiples of 2/4/8/16, rectangles both ways (up to 64:1) and sizes around the L2's capacity come as
they fall. Measured sizes of
the shipped recording (results/recorded/transpose/) and repeats are drawn again. Prints one line:
the sizes as online_sizes.sh's SIZES (cols x rows, comma-separated).

  python3 bench/draw_sizes.py --seed 20261217 [--inside 20] [--beyond 10]
"""
import argparse
import os
import random
import sys

LO, HI, FAR = 128, 4096, 8192


def extent(rng, hi):
    return rng.randint(LO, hi)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--inside", type=int, default=20)
    ap.add_argument("--beyond", type=int, default=10)
    a = ap.parse_args()
    if not (0 <= a.inside <= 1000 and 0 <= a.beyond <= 1000 and a.inside + a.beyond > 0):
        print("draw_sizes.py: --inside and --beyond must be 0..1000, not both 0", file=sys.stderr)
        sys.exit(2)
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "results", "recorded", "transpose")
    seen = {f.split(".")[0] for f in os.listdir(folder)} if os.path.isdir(folder) else set()
    rng = random.Random(a.seed)
    out = []
    while len(out) < a.inside:
        s = f"{extent(rng, HI)}x{extent(rng, HI)}"
        if s not in seen:
            seen.add(s)
            out.append(s)
    while len(out) < a.inside + a.beyond:
        x, y = extent(rng, FAR), extent(rng, FAR)
        s = f"{x}x{y}"
        if max(x, y) > HI and s not in seen:
            seen.add(s)
            out.append(s)
    print(",".join(out))


if __name__ == "__main__":
    main()
