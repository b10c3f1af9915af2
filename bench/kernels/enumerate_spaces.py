#!/usr/bin/env python3
"""Prints every valid configuration of T1 spec files, one per line: "<kernel file> <kernel>
name=value ...", evaluating Values and Conditions with Python itself (Kernel Tuner's semantics).
Usage: enumerate_spaces.py spaces/*.json > configs.txt   (input for bench/kernels/bench.cu)"""
import itertools
import json
import os
import sys

for path in sys.argv[1:]:
    spec = json.load(open(path))
    params = spec["ConfigurationSpace"]["TuningParameters"]
    names = [p["Name"] for p in params]
    values = [eval(p["Values"]) for p in params]
    conditions = [c["Expression"] for c in spec["ConfigurationSpace"].get("Conditions", [])]
    kernel = spec["KernelSpecification"]
    source = os.path.relpath(os.path.join(os.path.dirname(path), kernel["KernelFile"]))
    for combo in itertools.product(*values):
        env = dict(zip(names, combo))
        if all(eval(c, {}, env) for c in conditions):
            print(source, kernel["KernelName"], " ".join(f"{n}={v}" for n, v in env.items()))
