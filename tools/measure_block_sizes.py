"""Measure the course's tuning kernels on a real GPU at every block size they allow.

    python tools/measure_block_sizes.py --out DIR [--reps 30] [--warmup 5] [--only NAME] [--scale small]

Needs CuPy and an NVIDIA GPU; not simcore. The kernels, their launch shapes and numpy checks
are `barrier_course/lessons/tuning_kernels.py` (imported from the package, or from a copy of that file
next to this script). For each sweep (kernel x problem size) and block size: compile with
NVRTC, launch once and check the result against numpy, launch `--warmup` times, then time
`--reps` launches one by one with CUDA events and keep the median, min and max (ms).
Writes DIR/block-sweeps.json and DIR/block-sweeps.md (a table).
"""
import argparse
import datetime
import json
import pathlib
import statistics
import sys
import time

import numpy as np

try:
    from barrier_course.lessons import tuning_kernels
except ImportError:                       # a bare copy next to this script (GPU machine)
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    import tuning_kernels


def device_facts(cp):
    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    keys = ("multiProcessorCount", "clockRate", "memoryClockRate", "memoryBusWidth",
            "l2CacheSize", "sharedMemPerMultiprocessor", "sharedMemPerBlockOptin",
            "regsPerMultiprocessor", "maxThreadsPerMultiProcessor", "major", "minor")
    facts = {k: props.get(k) for k in keys}
    facts["name"] = name
    facts["cuda_runtime"] = cp.cuda.runtime.runtimeGetVersion()
    facts["cupy"] = cp.__version__
    return facts


def measure_one(cp, case, block, reps, warmup):
    kern = cp.RawModule(code=case.source, options=case.options(block)).get_function(case.kernel)
    host = case.make_inputs()
    dev = tuple(cp.asarray(a) if isinstance(a, np.ndarray) else a for a in host)
    grid, blk = case.shape(block)
    kern(grid, blk, dev)
    cp.cuda.Device().synchronize()
    case.check(host, tuple(cp.asnumpy(a) if isinstance(a, cp.ndarray) else a for a in dev), block)
    for _ in range(warmup):
        kern(grid, blk, dev)
    start, end = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(reps):
        start.record()
        kern(grid, blk, dev)
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end))
    return {
        "block": block, "grid": list(grid), "block_shape": list(blk),
        "median_ms": statistics.median(times), "min_ms": min(times), "max_ms": max(times),
        "reps": reps, "registers": int(kern.num_regs),
        "static_shared_bytes": int(kern.shared_size_bytes),
    }


def markdown(result):
    lines = [f"# Block-size sweeps measured on {result['device']['name']}", "",
             f"{result['what']}", "",
             "| sweep | block | median ms | min ms | max ms | regs | best? |",
             "| --- | ---: | ---: | ---: | ---: | ---: | :---: |"]
    for sweep in result["sweeps"]:
        best = min(r["median_ms"] for r in sweep["runs"])
        for r in sweep["runs"]:
            mark = "best" if r["median_ms"] == best else ""
            lines.append(f"| {sweep['name']} | {r['block']} | {r['median_ms']:.4f} | {r['min_ms']:.4f} "
                         f"| {r['max_ms']:.4f} | {r['registers']} | {mark} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=pathlib.Path)
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--scale", default="measured", choices=("measured", "small"),
                    help="small: tiny problem sizes, to try the script out")
    ap.add_argument("--only", default=None, help="measure only sweeps whose name contains this")
    args = ap.parse_args(argv)
    import cupy as cp

    args.out.mkdir(parents=True, exist_ok=True)
    result = {
        "what": (f"Kernel time per launch (ms), CUDA events around each launch, median/min/max of "
                 f"{args.reps} launches after {args.warmup} warm-up launches; each block size "
                 f"checked against numpy first. Kernels: barrier_course/tuning_kernels.py."),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "device": device_facts(cp),
        "sweeps": [],
    }
    t0 = time.time()
    for case in tuning_kernels.cases(args.scale):
        if args.only and args.only not in case.name:
            continue
        runs = []
        for b in case.blocks:
            try:
                runs.append(measure_one(cp, case, b, args.reps, args.warmup))
            except Exception as exc:          # keep the other sizes; say what failed
                print(f"{case.name} block {b}: FAILED {type(exc).__name__}: {exc}", flush=True)
        if not runs:
            continue
        result["sweeps"].append({"name": case.name, "kernel": case.kernel, "size": case.size,
                                 "macros": case.macros, "runs": runs})
        best = min(runs, key=lambda r: r["median_ms"])
        print(f"{case.name:28s} " + " ".join(f"{r['block']}:{r['median_ms']:.4f}" for r in runs)
              + f"  best {best['block']}  ({time.time() - t0:.0f} s)", flush=True)
        # written after every sweep, so a run cut short still returns what it measured
        (args.out / "block-sweeps.json").write_text(json.dumps(result, indent=1) + "\n")
    (args.out / "block-sweeps.json").write_text(json.dumps(result, indent=1) + "\n")
    (args.out / "block-sweeps.md").write_text(markdown(result))


if __name__ == "__main__":
    main()
