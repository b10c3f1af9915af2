#!/usr/bin/env python3
"""Counts the valid configurations of T1 files with Python itself as the oracle.

Values and Conditions are evaluated by Python's eval (the semantics Kernel Tuner uses); parameters
are grouped by the conditions that connect them so that large spaces stay countable.
usage: bench/python_valid_count.py FILE.json [...]   prints: FILE cartesian valid
"""
import itertools
import json
import math
import sys


def count(path):
    doc = json.load(open(path))
    params = doc["ConfigurationSpace"]["TuningParameters"]
    values = {p["Name"]: list(eval(p["Values"]) if isinstance(p["Values"], str) else p["Values"]) for p in params}
    conds = [compile(c["Expression"], path, "eval") for c in doc["ConfigurationSpace"].get("Conditions", [])]
    parent = {n: n for n in values}

    def find(n):
        while parent[n] != n:
            n = parent[n]
        return n

    used = [[n for n in c.co_names if n in values] for c in conds]
    for names in used:
        for a in names[1:]:
            parent[find(a)] = find(names[0])
    groups = {}
    for n in values:
        groups.setdefault(find(n), []).append(n)
    valid = 1
    for names in groups.values():
        gconds = [c for c, u in zip(conds, used) if u and find(u[0]) == find(names[0])]
        n = 0
        for combo in itertools.product(*(values[k] for k in names)):
            env = dict(zip(names, combo))
            n += all(eval(c, {}, env) for c in gconds)
        valid *= n
    for c, u in zip(conds, used):
        if not u and not eval(c):
            valid = 0
    return math.prod(len(v) for v in values.values()), valid


if __name__ == "__main__":
    for f in sys.argv[1:]:
        cart, valid = count(f)
        print(f, cart, valid)
