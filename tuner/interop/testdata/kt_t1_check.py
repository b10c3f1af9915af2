#!/usr/bin/env python3
"""Has Kernel Tuner's own T1 reader (kernel_tuner.interface.tune_kernel_T1) read a T1 file, and
reports what it made of it as one JSON object on stdout. Driven by tuner/interop/kt_t1_test.cpp,
which compares the report with what tune makes of the same file.

  kt_t1_check.py read T1 [--keys FILE] [--geometry] [--compile N]
  kt_t1_check.py simulate T1 CACHE

read: the real tune_kernel_T1 runs unchanged (schema validation, parameter/restriction/argument
conversion, tune_kernel's input checks, the argument check against the kernel's signature and the
construction of Kernel Tuner's Searchspace). Nothing is compiled or run: tune_kernel_T1 is called
in simulation mode with a cache that holds no measurements, and with a strategy object that only
records the Searchspace Kernel Tuner built and the options it would launch with, then returns no
results. The wrapper around interface.tune_kernel passes every argument through unchanged; it only
records what tune_kernel_T1 converted the file into. --keys writes one line per valid
configuration, in Kernel Tuner's cache-key form ("v1,v2,..."), followed with --geometry by the grid
and thread block Kernel Tuner would launch that configuration with (util.setup_block_and_grid);
when Kernel Tuner cannot compute them, "geometry_error" says why and the lines hold keys only.

--compile N: up to N valid configurations, chosen so that every value of every parameter appears in
one of them where the first such configurations allow, are made into the kernel string Kernel
Tuner would compile (its KernelSource, util.prepare_kernel_string: the file's text after one
#define per parameter, block and grid dimension), and that string is compiled by NVRTC as Kernel
Tuner's NVRTC backend (backends/nvcuda.py) compiles it: program name "CUDAProgram", the kernel as
a name expression, --std=c++11, --gpu-architecture=compute_90, -I<CUDA home>/include. That backend
needs a GPU to load the result; the compile alone needs only NVRTC, reached here through ctypes. A
quoted #include in the string is found from the working directory (the program name has no
folder), so the compile runs in the kernel file's folder: where Kernel Tuner must be run from, or
given -I of, for kernels that include shared device code (kernels_src/common/). "compiled" lists
each configuration with ok and, when it failed, the start of NVRTC's log.

simulate: tune_kernel_T1 in simulation mode with brute_force over CACHE (a Kernel Tuner cache
file): every valid configuration is looked up in the cache; one missing raises. Where the results
carry NVMLObserver fields, "with_energy" counts them and "best_energy" is the one of least
nvml_energy.

Kernel Tuner looks for the T1 file's KernelFile next to the file (or one folder up, or in the
working directory). The third-party specs in data/ come without their kernels: for those
an empty placeholder is put in a scratch working directory (reported as placeholder_kernel_file).

Exit status: 0 with a report (also when Kernel Tuner rejects the file: "accepted": false), 2 for a
usage error.
"""
import argparse
import contextlib
import importlib.metadata
import json
import os
import re
import sys
import tempfile
import traceback
import warnings
from pathlib import Path

import numpy

import kernel_tuner.interface as kti
from kernel_tuner import util
from kernel_tuner.searchspace import Searchspace


def to_plain(v):
    """numpy scalars and tuples as JSON values."""
    if isinstance(v, numpy.generic):
        return v.item()
    if isinstance(v, (list, tuple)):
        return [to_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: to_plain(x) for k, x in v.items()}
    return v


def prepare_kernel_file(t1_path, spec, scratch):
    """Work in `scratch`; returns whether an empty placeholder stands in for the KernelFile."""
    os.chdir(scratch)
    kernel_file = Path(spec["KernelSpecification"]["KernelFile"])
    if (t1_path.parent / kernel_file).exists() or (t1_path.parent.parent / kernel_file).exists():
        return False
    if kernel_file.is_absolute() or ".." in kernel_file.parts:
        raise SystemExit(f"{t1_path}: KernelFile {kernel_file} is missing and cannot stand in the scratch folder")
    (scratch / kernel_file).parent.mkdir(parents=True, exist_ok=True)
    (scratch / kernel_file).write_text("")
    return True


class RecordSearchspace:
    """A Kernel Tuner strategy (an object with tune()) that evaluates nothing."""

    def __init__(self):
        self.searchspace = None
        self.kernel_options = None

    def tune(self, searchspace, runner, tuning_options):
        self.searchspace = searchspace
        self.kernel_options = runner.kernel_options
        return []


def read(args, t1_path, spec, report):
    seen = {}
    real_tune_kernel = kti.tune_kernel

    def recording_tune_kernel(*a, **kw):
        seen["args"], seen["kwargs"] = a, kw
        return real_tune_kernel(*a, **kw)

    kti.tune_kernel = recording_tune_kernel
    ks = spec["KernelSpecification"]
    # A cache without measurements: simulation mode needs one, and never touches a GPU.
    empty_cache = Path.cwd() / "no_measurements.json"
    header = {"device_name": "no device", "kernel_name": ks["KernelName"], "problem_size": ks.get("ProblemSize"),
              "tune_params_keys": [p["Name"] for p in spec["ConfigurationSpace"]["TuningParameters"]], "cache": {}}
    empty_cache.write_text(json.dumps(header, indent=""))  # ends in "}\n}": a closed cache to Kernel Tuner
    strategy = RecordSearchspace()
    kti.tune_kernel_T1(t1_path, cache_filepath=empty_cache, simulation_mode=True, output_T4=False,
                       device="no device", strategy=strategy)

    name, source, problem_size, arguments, tune_params = seen["args"]
    kw = seen["kwargs"]
    report.update({
        "kernel_name": name,
        "kernel_source": str(source),
        "lang": kw["lang"],
        "problem_size": to_plain(problem_size),
        "grid_div": [to_plain(kw["grid_div_x"]), to_plain(kw["grid_div_y"]), to_plain(kw["grid_div_z"])],
        "tune_params": to_plain(tune_params),
        "restrictions": list(kw["restrictions"]),
        "arguments": [{"dtype": str(a.dtype), "size": int(a.size)} if isinstance(a, numpy.ndarray)
                      else {"dtype": str(a.dtype), "value": to_plain(a)} for a in arguments],
        "cmem_args": list(kw["cmem_args"].keys()),
        # kernel argument lists util.check_argument_list compared the converted arguments with (its
        # regex); a mismatch would be in "warnings"
        "signatures_checked": len(re.findall(name + r"[ \n\t]*\(", Path(source).read_text())),
        "valid": strategy.searchspace.size,
        "max_threads": int(strategy.searchspace.max_threads),
    })
    if strategy.searchspace.size <= 100000:
        # On a GPU the Searchspace also drops configurations over the device's threads per block
        # (block_size_x * block_size_y * block_size_z); 1024 on current NVIDIA GPUs.
        report["valid_at_1024_threads"] = Searchspace(tune_params, list(report["restrictions"]), 1024).size
    if args.compile:
        compile_configurations(args, strategy, tune_params, name, source, report)
    if args.keys:
        keys = (",".join(str(v) for v in config) for config in strategy.searchspace.list)
        if args.geometry:
            try:
                keys = [key + " " + geometry for key, geometry in zip(keys, launch_geometry(strategy, tune_params))]
            except Exception as e:  # Kernel Tuner could not set up a launch: say why, keep the keys
                report["geometry_error"] = f"{type(e).__name__}: {e}"
                keys = (",".join(str(v) for v in config) for config in strategy.searchspace.list)
        with open(args.keys, "w") as out:
            for key in keys:
                out.write(key + "\n")


def launch_geometry(strategy, tune_params):
    """"gx,gy,gz bx,by,bz" per valid configuration: what DeviceInterface.create_kernel_instance
    would launch it with (util.setup_block_and_grid over the options tune_kernel built)."""
    ko = strategy.kernel_options
    grid_div = (ko.grid_div_x, ko.grid_div_y, ko.grid_div_z)
    names = list(tune_params.keys())
    out = []
    for config in strategy.searchspace.list:
        threads, grid = util.setup_block_and_grid(ko.problem_size, grid_div, dict(zip(names, config)), ko.block_size_names)
        out.append(",".join(str(int(g)) for g in grid) + " " + ",".join(str(int(t)) for t in threads))
    return out


def nvrtc_library():
    """libnvrtc through ctypes, from Kernel Tuner's own CUDA home lookup, or None."""
    import ctypes
    import glob
    from kernel_tuner.utils.nvcuda import find_cuda_home
    home = find_cuda_home() or "/usr/local/cuda"
    for path in sorted(glob.glob(os.path.join(home, "lib64", "libnvrtc.so*"))) + ["libnvrtc.so"]:
        with contextlib.suppress(OSError):
            return ctypes.CDLL(path), home
    return None, home


def compile_like_nvcuda(lib, home, kernel_string, kernel_name):
    """(ok, log) of NVRTC on the string with Kernel Tuner's nvcuda backend's options."""
    import ctypes
    prog = ctypes.c_void_p()
    if lib.nvrtcCreateProgram(ctypes.byref(prog), kernel_string.encode(), b"CUDAProgram", 0, None, None) != 0:
        return False, "nvrtcCreateProgram failed"
    try:
        lib.nvrtcAddNameExpression(prog, kernel_name.encode())
        options = [b"--std=c++11", b"--gpu-architecture=compute_90", ("-I" + os.path.join(home, "include")).encode()]
        result = lib.nvrtcCompileProgram(prog, len(options), (ctypes.c_char_p * len(options))(*options))
        size = ctypes.c_size_t()
        lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetProgramLog(prog, log)
        return result == 0, log.value.decode(errors="replace")
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


def compile_configurations(args, strategy, tune_params, name, source, report):
    names = list(tune_params.keys())
    covered, chosen = set(), []
    for config in strategy.searchspace.list:
        pairs = set(zip(names, config))
        if not chosen or not pairs <= covered:
            chosen.append(config)
            covered |= pairs
        if len(chosen) >= args.compile:
            break
    lib, home = nvrtc_library()
    if lib is None:
        report["compiled"] = None
        report["compile_error"] = f"no libnvrtc under {home}"
        return
    ko = strategy.kernel_options
    grid_div = (ko.grid_div_x, ko.grid_div_y, ko.grid_div_z)
    text = Path(source).read_text()
    here = os.getcwd()
    os.chdir(Path(source).resolve().parent)
    try:
        report["compiled"] = []
        for config in chosen:
            params = dict(zip(names, config))
            threads, grid = util.setup_block_and_grid(ko.problem_size, grid_div, params, ko.block_size_names)
            _, kernel_string = util.prepare_kernel_string(name, text, params, grid, threads, ko.block_size_names,
                                                          ko.lang, None)
            ok, log = compile_like_nvcuda(lib, home, kernel_string, name)
            entry = {"config": ",".join(str(v) for v in config), "ok": ok}
            if not ok:
                entry["log"] = log[:2000]
            report["compiled"].append(entry)
    finally:
        os.chdir(here)


def simulate(args, t1_path, spec, report):
    results, env = kti.tune_kernel_T1(t1_path, cache_filepath=Path(args.cache).resolve(), simulation_mode=True,
                                      output_T4=False, device="no device", strategy="brute_force")
    ok = [r for r in results if "__error__" not in r]
    best = min(ok, key=lambda r: r["time"]) if ok else None
    names = [p["Name"] for p in spec["ConfigurationSpace"]["TuningParameters"]] + ["time"]
    report.update({
        "results": len(results),
        "errors": len(results) - len(ok),
        "best": to_plain({k: best[k] for k in names}) if best else None,
        "device_name": env.get("device_name"),
        "simulated": bool(env.get("simulation")),
    })
    # NVMLObserver fields as Kernel Tuner loaded them from the cache: how many results carry
    # nvml_energy, and the one with the least.
    energy = [r for r in ok if isinstance(r.get("nvml_energy"), (int, float))]
    if energy:
        least = min(energy, key=lambda r: r["nvml_energy"])
        report["with_energy"] = len(energy)
        report["best_energy"] = to_plain({k: least[k] for k in names + ["nvml_energy", "nvml_power"] if k in least})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["read", "simulate"])
    parser.add_argument("t1")
    parser.add_argument("cache", nargs="?")
    parser.add_argument("--keys")
    parser.add_argument("--geometry", action="store_true")
    parser.add_argument("--compile", type=int, default=0, metavar="N")
    args = parser.parse_args()
    if (args.mode == "simulate") != (args.cache is not None):
        parser.error("simulate takes T1 CACHE, read takes T1")
    t1_path = Path(args.t1).resolve()
    if args.keys:
        args.keys = str(Path(args.keys).resolve())
    spec = json.loads(t1_path.read_text())
    report = {"kernel_tuner": importlib.metadata.version("kernel_tuner"), "file": str(t1_path)}
    with tempfile.TemporaryDirectory() as scratch, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report["placeholder_kernel_file"] = prepare_kernel_file(t1_path, spec, Path(scratch))
        try:
            with contextlib.redirect_stdout(sys.stderr):  # stdout carries the report only
                (read if args.mode == "read" else simulate)(args, t1_path, spec, report)
            report["accepted"] = True
        except Exception as e:  # Kernel Tuner rejected the file: say where and why
            report["accepted"] = False
            report["error"] = type(e).__name__
            report["message"] = str(e).splitlines()[0] if str(e) else ""
            report["json_path"] = [str(p) for p in getattr(e, "absolute_path", [])]
            traceback.print_exc(file=sys.stderr)
        os.chdir("/")
        report["warnings"] = [f"{w.category.__name__}: {w.message}" for w in caught]
    print(json.dumps(report))


if __name__ == "__main__":
    main()
