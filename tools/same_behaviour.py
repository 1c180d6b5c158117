#!/usr/bin/env python3
"""Does a change to simcore keep its behaviour? Runs the same launches on two source trees and
compares every launch: inputs, outputs (every argument after the launch), the fault (its type,
text and structured report), the warnings, steps, thread-instructions, the trace and the
step-through recording.

The launches: every entry of conformance/ under every schedule (lockstep, round robin, random
with two seeds, adversarial), the stack model, checks off, and with trace=True; the benchmark's
workloads and worst cases (benchmarks.bench, small sizes) with checks on and off and under the
other schedules and models; and, with --tests, every launch the given test files make.

    python tools/same_behaviour.py --base /tmp/main-checkout                 # this tree vs that one
    python tools/same_behaviour.py --base /tmp/main-checkout --tests tests/simcore/recording/test_trace.py tests/barrier_course/lessons/test_player.py

Launches stopped by the wall-clock time limit (time_limit=) differ in steps by nature; they are
listed apart. Exit status 1 when anything else differs.
"""
from __future__ import annotations

import argparse
import atexit
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve()

CONFIGS = [dict(schedule="lockstep"), dict(schedule="round_robin"), dict(schedule="random", seed=0),
           dict(schedule="random", seed=1), dict(schedule="adversarial"), dict(model="stack"),
           dict(checks=False), dict(schedule="random", seed=12345, checks=False), dict(trace=True)]


# ---------------------------------------------------------------------- recording (in each tree)
def digest(value, depth=0):
    """A stable hash of arrays, containers and plain objects (by their fields, not their ids)."""
    h = hashlib.sha1()

    def feed(v, d):
        if d > 6:
            h.update(type(v).__qualname__.encode())    # by name, not module path: trees of different layouts compare
        elif isinstance(v, np.ndarray):
            h.update(str((v.dtype, v.shape)).encode())
            h.update(np.ascontiguousarray(v).tobytes())
        elif isinstance(v, (list, tuple)):
            h.update(b"(")
            for a in v:
                feed(a, d + 1)
            h.update(b")")
        elif isinstance(v, dict):
            for k in sorted(v, key=repr):
                feed(k, d + 1)
                feed(v[k], d + 1)
        elif v is not None and hasattr(type(v), "__slots__") and not isinstance(v, (str, bytes, int, float, np.generic)):
            feed([getattr(v, k, None) for k in type(v).__slots__], d + 1)
        elif hasattr(v, "__dict__") and not callable(v):
            h.update(type(v).__qualname__.encode())    # by name, not module path: trees of different layouts compare
            for k in sorted(vars(v)):
                if k not in ("program", "prog", "wave", "launch"):
                    feed(k, d + 1)
                    feed(getattr(v, k), d + 1)
        else:
            h.update(repr(v).encode())

    feed(value, depth)
    return h.hexdigest()[:16]


def launch_runner():
    """The module of the recorded tree's simcore that holds run_launch (its runner.py), found by
    file, so that trees of different layouts (runner.py at the package's top or in a folder) work."""
    import importlib

    import simcore
    package = Path(simcore.__file__).resolve().parent
    for path in sorted(package.rglob("runner.py")):
        name = ".".join(("simcore",) + path.relative_to(package).with_suffix("").parts)
        module = importlib.import_module(name)
        if hasattr(module, "run_launch"):
            return module
    raise SystemExit(f"same_behaviour: no runner.py with run_launch under {package}")


def stopped_by_time_limit(fault):
    """Did the wall-clock time limit stop this launch? `fault`: the record's [type name, text,
    report digest] or None. Read from the fault's class (simcore.errors.TimeLimit), which keeps
    its name when the message is reworded."""
    return fault is not None and fault[0] == "TimeLimit"


def install_recorder(path):
    """Wrap the runner's run_launch so that every launch appends one JSON line to `path`."""
    runner = launch_runner()
    out = open(path, "a")
    atexit.register(out.close)
    original = runner.run_launch

    def run_launch(prog, launch, values, options, *args, **kwargs):
        rec = {"kernel": prog.name, "code": hashlib.sha1(prog.python_source.encode()).hexdigest()[:10],
               "grid": launch.grid, "block": launch.block,
               "options": [options.schedule, options.model, options.seed, sorted(options.checks.items()),
                           options.trace, options.max_steps],
               "in": digest(list(values)), "fault": None}
        try:
            return original(prog, launch, values, options, *args, **kwargs)
        except BaseException as e:
            rec["fault"] = [type(e).__name__, str(e), digest(getattr(e, "report", None))]
            raise
        finally:
            rec.update(out=digest(list(values)), steps=launch.steps, thread_instructions=launch.thread_instructions,
                       warnings=[str(w) for w in launch.warnings], time_limit=stopped_by_time_limit(rec["fault"]))
            trace = launch.trace
            if trace is not None:
                rec["trace"] = digest(getattr(trace, "raw", None))
                replay = getattr(trace, "replay", None)
                if replay is not None:
                    rec["replay"] = {k: digest(v) for k, v in vars(replay).items()
                                     if k not in ("prog", "fault", "trace", "launch")}
            out.write(json.dumps(rec, default=str) + "\n")
            out.flush()

    runner.run_launch = run_launch


def pytest_configure(config):
    """As a pytest plugin (-p same_behaviour): record the launches of the tests."""
    install_recorder(os.environ["SAME_BEHAVIOUR_LOG"])


def record(path):
    install_recorder(path)
    # the benchmark's workloads come from this checkout, for both trees (they use only simcore's API)
    sys.path.append(str(HERE.parent.parent))
    from conformance import corpus, runner
    from benchmarks import bench
    for entry in corpus.ENTRIES:
        for cfg in CONFIGS:
            runner.run_sim(entry, **cfg)
    warnings.simplefilter("ignore")
    for case in [bench.course_case(n, 2 ** 18) for n in bench.WORKLOADS] + bench.worst_cases(quick=True):
        for checks in (True, False):
            bench.kernel_of(case)(case.grid, case.block, case.make_args(), checks=checks, max_steps=10 ** 8)
    for case in [bench.course_case(n, 2 ** 12) for n in bench.WORKLOADS]:
        for schedule, seed in (("round_robin", 0), ("random", 3), ("adversarial", 0)):
            for model in ("independent", "stack"):
                bench.kernel_of(case)(case.grid, case.block, case.make_args(), schedule=schedule, seed=seed,
                                      model=model, max_steps=10 ** 8)


# ---------------------------------------------------------------------- driver
def run_tree(tree, log, tests):
    env = dict(os.environ, PYTHONPATH=f"{tree}{os.pathsep}{HERE.parent}", SAME_BEHAVIOUR_LOG=str(log))
    subprocess.run([sys.executable, str(HERE), "--record", str(log)], cwd=tree, env=env, check=True)
    if tests:
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-p", "same_behaviour",
                        *tests], cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL)


def keyed(log):
    """The launches of a log by (kernel, grid, block, options, which such launch): a launch added
    to or removed from one tree (a new corpus entry, a new test) does not shift the others."""
    seen, out = {}, {}
    for line in open(log):
        rec = json.loads(line)
        key = json.dumps([rec["kernel"], rec.get("grid"), rec.get("block"), rec["options"]])
        seen[key] = seen.get(key, 0) + 1
        out[(key, seen[key])] = rec
    return out


def compare(base_log, new_log):
    base, new = keyed(base_log), keyed(new_log)
    differ, timed = [], []
    only = [(k, "base") for k in base if k not in new] + [(k, "new tree") for k in new if k not in base]
    for (key, n), where in only:
        kernel, _, _, options = json.loads(key)
        differ.append(f"{kernel} {options[:3]}: launched on the {where} only")
    for k, a in base.items():
        b = new.get(k)
        if b is not None and a != b:
            keys = sorted(f for f in set(a) | set(b) if a.get(f) != b.get(f))
            line = f"{a['kernel']} {a['options'][:3]}: {', '.join(keys)} differ"
            (timed if a.get("time_limit") and b.get("time_limit") else differ).append(line)
    return len(base), differ, timed


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", help="the other source tree (e.g. a checkout of main)")
    ap.add_argument("--new", default=str(HERE.parents[1]), help="this tree (default: the one holding this script)")
    ap.add_argument("--tests", nargs="*", default=[], help="test files whose launches to compare as well")
    ap.add_argument("--record", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.record:
        record(a.record)
        return 0
    if not a.base:
        ap.error("--base is required")
    with tempfile.TemporaryDirectory() as tmp:
        logs = {}
        for name, tree in (("base", a.base), ("new", a.new)):
            logs[name] = Path(tmp) / f"{name}.jsonl"
            run_tree(Path(tree).resolve(), logs[name], a.tests)
        n, differ, timed = compare(logs["base"], logs["new"])
    print(f"{n} launches compared: {len(differ)} differ" + (f"; {len(timed)} stopped by the time limit "
                                                           "(steps differ by nature)" if timed else ""))
    for line in differ + [f"(time limit) {t}" for t in timed]:
        print("  " + line)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
