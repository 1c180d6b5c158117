"""Measure the timing model's validation sweeps (and ex08's answers) on a real GPU.

    python tools/measure_timing_sweeps.py --out DIR [--reps 25] [--warmup 3] [--answers FILE]
                                          [--only NAME,...] [--roles heldout2,microbench] [--budget-s 400]

Needs CuPy and an NVIDIA GPU; not simcore. Sweeps: `barrier_course/lessons/validation_kernels.py`
(imported from the package, or from a copy next to this script). For each sweep and block size:
compile with NVRTC, launch once and check the outputs against numpy, launch `--warmup` times,
then time `--reps` launches one by one with CUDA events (outputs re-zeroed between launches
where they accumulate) and keep the median, min and max (ms).

--answers FILE: a JSON list of {name, block, source} kernels `sum_all(const float *in,
float *total, int n)` (ex08's answers); each is timed at n = 2^22 and n = 3,000,017 with
ceil(n / block) blocks and its total checked.

Also measured: the empty-kernel launch floor. Writes DIR/timing-sweeps.json after every sweep
(a run cut short still returns what it measured).

--roles: measure only the sweeps of these roles. The times of held-out sweeps (roles in
BLIND_ROLES) are not printed, only whether their outputs were right, so that whoever runs the
measurement does not see them before the model's rules are frozen; they are in the JSON.
A point whose outputs fail the numpy check is still timed and kept, with `check_error` set.
"""
import argparse
import datetime
import json
import pathlib
import statistics
import sys
import time

import numpy as np

BLIND_ROLES = ("heldout2", "heldout3", "heldout4", "heldout5", "heldout6", "heldout7", "heldout8", "heldout9",
               "heldout10", "heldout11")

try:
    from barrier_course.lessons import validation_kernels
except ImportError:       # bare copies of validation_kernels.py and tuning_kernels.py next to this script
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    import validation_kernels


def device_facts(cp):
    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    facts = {k: props.get(k) for k in ("multiProcessorCount", "clockRate", "l2CacheSize", "major", "minor")}
    facts.update(name=name, cuda_runtime=cp.cuda.runtime.runtimeGetVersion(), cupy=cp.__version__)
    return facts


def time_launches(cp, launch, reset, reps, warmup):
    """Median/min/max ms of `reps` launches, each between two CUDA events; `reset` runs before
    each (outside the events)."""
    for _ in range(warmup):
        reset()
        launch()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(reps):
        reset()
        start.record()
        launch()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end))
    return {"median_ms": statistics.median(times), "min_ms": min(times), "max_ms": max(times), "reps": reps}


def measure_sweep_block(cp, sweep, block, reps, warmup):
    kern = cp.RawModule(code=sweep.source, options=validation_kernels.sweep_options(sweep, block)) \
        .get_function(sweep.kernel)
    host = sweep.inputs(np.random.default_rng(0))
    dev = tuple(cp.asarray(a) if isinstance(a, np.ndarray) else a for a in host)
    grid, blk = sweep.shape(block)
    # outputs that accumulate (atomics) start from their initial values at every launch
    initial = [cp.array(a) if isinstance(a, cp.ndarray) else None for a in dev]

    def reset():
        for d, i in zip(dev, initial):
            if i is not None and d.dtype.kind in "fu" and d.size < (1 << 16):
                d[...] = i

    reset()
    kern(grid, blk, dev)
    cp.cuda.Device().synchronize()
    check_error = None
    try:
        sweep.check(host, tuple(cp.asnumpy(a) if isinstance(a, cp.ndarray) else a for a in dev), block)
    except AssertionError as exc:          # keep the time; say the outputs were wrong
        check_error = str(exc)
    row = time_launches(cp, lambda: kern(grid, blk, dev), reset, reps, warmup)
    row.update(block=block, grid=list(grid), block_shape=list(blk), registers=int(kern.num_regs))
    if check_error:
        row["check_error"] = check_error
    return row


def progress_line(sweep, runs, elapsed):
    """What the log shows of one measured sweep: its times, or for a held-out role only how many
    sizes were measured and whether their outputs were right."""
    bad = [r["block"] for r in runs if "check_error" in r]
    checked = f"outputs wrong at {bad}" if bad else "outputs right"
    if sweep.role in BLIND_ROLES:
        return f"{sweep.role[:8]:8s} {sweep.name:36s} {len(runs)} sizes measured (times not shown), {checked}  ({elapsed:.0f} s)"
    return (f"{sweep.role[:8]:8s} {sweep.name:36s} " + " ".join(f"{r['block']}:{r['median_ms']:.4f}" for r in runs)
            + f"  {checked}  ({elapsed:.0f} s)")


def measure_answer(cp, answer, n, reps, warmup):
    kern = cp.RawModule(code=answer["source"]).get_function("sum_all")
    rng = np.random.default_rng(1)
    x = rng.integers(0, 3, n).astype(np.float32)
    dx, total = cp.asarray(x), cp.zeros(1, cp.float32)
    block = answer["block"]
    grid = (-(-n // block),)
    launch = lambda: kern(grid, (block,), (dx, total, np.int32(n)))     # noqa: E731
    reset = lambda: total.fill(0)                                       # noqa: E731
    reset()
    launch()
    got = float(total.get()[0])
    want = float(x.astype(np.float64).sum())
    row = time_launches(cp, launch, reset, reps, warmup)
    row.update(name=answer["name"], block=block, n=n, grid=list(grid), correct=abs(got - want) < 0.5,
               total=got, expected=want, registers=int(kern.num_regs))
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=pathlib.Path)
    ap.add_argument("--reps", type=int, default=25)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--answers", type=pathlib.Path)
    ap.add_argument("--only", help="comma-separated name parts: measure the sweeps whose name has one")
    ap.add_argument("--roles", help="comma-separated roles to measure (default: every sweep)")
    ap.add_argument("--budget-s", type=float, default=400.0, help="stop starting sweeps after this long")
    args = ap.parse_args(argv)
    import cupy as cp

    args.out.mkdir(parents=True, exist_ok=True)
    result = {
        "what": (f"Kernel time per launch (ms): CUDA events around each launch, median/min/max of {args.reps} "
                 f"launches after {args.warmup} warm-up launches; outputs checked against numpy first. "
                 "Kernels: barrier_course/lessons/validation_kernels.py; script: tools/measure_timing_sweeps.py."),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "device": device_facts(cp), "microbench": {}, "sweeps": [], "ex08_answers": [],
    }
    out = args.out / "timing-sweeps.json"
    t0 = time.time()
    empty = cp.RawModule(code='extern "C" __global__ void empty() {}').get_function("empty")
    result["microbench"]["launch_empty_1x32"] = time_launches(cp, lambda: empty((1,), (32,), ()), lambda: None,
                                                              200, 20)
    if args.answers:
        for answer in json.loads(args.answers.read_text()):
            for n in (1 << 22, 3_000_017):
                try:
                    result["ex08_answers"].append(measure_answer(cp, answer, n, args.reps, args.warmup))
                    r = result["ex08_answers"][-1]
                    print(f"ex08 {answer['name']:34s} n={n:8d} {r['median_ms']:.4f} ms correct={r['correct']}",
                          flush=True)
                except Exception as exc:
                    print(f"ex08 {answer['name']} n={n}: FAILED {type(exc).__name__}: {exc}", flush=True)
        out.write_text(json.dumps(result, indent=1) + "\n")
    for sweep in validation_kernels.SWEEPS:
        if args.only and not any(part in sweep.name for part in args.only.split(",")):
            continue
        if args.roles and sweep.role not in args.roles.split(","):
            continue
        if time.time() - t0 > args.budget_s:
            print(f"budget spent: {sweep.name} and later not measured", flush=True)
            break
        runs = []
        for b in sweep.blocks:
            try:
                runs.append(measure_sweep_block(cp, sweep, b, args.reps, args.warmup))
            except Exception as exc:          # keep the other sizes; say what failed
                print(f"{sweep.name} block {b}: FAILED {type(exc).__name__}: {exc}", flush=True)
        if runs:
            result["sweeps"].append({"name": sweep.name, "role": sweep.role, "kernel": sweep.kernel, "runs": runs})
            print(progress_line(sweep, runs, time.time() - t0), flush=True)
        out.write_text(json.dumps(result, indent=1) + "\n")
    out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
