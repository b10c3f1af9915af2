#!/usr/bin/env python3
"""Do two versions of a kernel's program compile to the same machine code? For a refactoring of
kernels_src/ (moving code into a shared header) that must not change what runs on the GPU.

  python3 bench/same_cubins.py SPACE OLD.cu NEW.cu [--count N] [--arch sm_90] [--seed S]

OLD.cu and NEW.cu are whole programs, as tune compiles them: `tune space --space SPACE --program`
prints the current one; `git show REV:kernels_src/K.cu` gives an older one that included nothing.
A random sample of N (default 40) of SPACE's valid configurations (its values and conditions read
as Python, as Kernel Tuner reads them) is compiled from both with NVRTC as tune compiles (the
target, one -D per parameter, the spec's CompilerOptions), and the cubins' bytes are compared.
Prints one line per configuration and a summary; exit 0 when every pair is identical, 1 otherwise,
2 for a usage error. Needs libnvrtc (the CUDA toolkit), no GPU.
"""
import argparse
import ctypes
import glob
import itertools
import json
import os
import random
import sys


def nvrtc():
    home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    for path in sorted(glob.glob(os.path.join(home, "lib64", "libnvrtc.so*"))) + ["libnvrtc.so"]:
        try:
            return ctypes.CDLL(path)
        except OSError:
            pass
    sys.exit(f"same_cubins: no libnvrtc under {home}/lib64 (set CUDA_HOME)")


def cubin(lib, text, options):
    prog = ctypes.c_void_p()
    if lib.nvrtcCreateProgram(ctypes.byref(prog), text.encode(), b"program.cu", 0, None, None) != 0:
        sys.exit("same_cubins: nvrtcCreateProgram failed")
    try:
        opts = [o.encode() for o in options]
        if lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts)) != 0:
            size = ctypes.c_size_t()
            lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
            log = ctypes.create_string_buffer(size.value)
            lib.nvrtcGetProgramLog(prog, log)
            return "failed: " + log.value.decode(errors="replace").strip().splitlines()[-1]
        size = ctypes.c_size_t()
        lib.nvrtcGetCUBINSize(prog, ctypes.byref(size))
        out = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetCUBIN(prog, out)
        return out.raw
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("space")
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    spec = json.load(open(args.space))
    space = spec["ConfigurationSpace"]
    names = [p["Name"] for p in space["TuningParameters"]]
    values = [eval(p["Values"], {}) for p in space["TuningParameters"]]  # the spec's own Python lists
    conditions = [compile(c["Expression"], "condition", "eval") for c in space["Conditions"]]
    valid = [c for c in itertools.product(*values) if all(eval(x, {}, dict(zip(names, c))) for x in conditions)]
    random.seed(args.seed)
    sample = random.sample(valid, min(args.count, len(valid)))
    extra = spec["KernelSpecification"].get("CompilerOptions", [])
    old, new = open(args.old).read(), open(args.new).read()
    lib = nvrtc()
    same = 0
    for config in sample:
        options = [f"--gpu-architecture={args.arch}"] + [f"-D{n}={v}" for n, v in zip(names, config)] + extra
        a, b = cubin(lib, old, options), cubin(lib, new, options)
        verdict = "identical" if a == b and isinstance(a, bytes) else "DIFFERENT"
        same += verdict == "identical"
        detail = f"{len(a)} bytes" if isinstance(a, bytes) and a == b else f"old {a if isinstance(a, str) else len(a)}, new {b if isinstance(b, str) else len(b)}"
        print(f"{','.join(f'{n}={v}' for n, v in zip(names, config))}: {verdict} ({detail})")
    print(f"{args.space}: {same} of {len(sample)} sampled configurations ({len(valid)} valid) compile to identical cubins")
    sys.exit(0 if same == len(sample) else 1)


if __name__ == "__main__":
    main()
