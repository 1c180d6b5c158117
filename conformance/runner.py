"""Run corpus entries on the simulator (or the GPU) and classify the outcome.

    from conformance import corpus, runner
    res = runner.run_sim(corpus.get("reverse_tile"))
    res.verdict      # "ok", "warning", a fault kind, or "compile_error"/"launch_error"/"crash"
    res.args         # the arguments after the launch
    runner.check_outputs(entry, entry.make_args(), res.args)   # None or a message
"""
from __future__ import annotations

import traceback
import warnings
from dataclasses import dataclass, field

import numpy as np

from .corpus import Entry


@dataclass
class RunResult:
    verdict: str
    args: tuple | None = None
    detail: str = ""                       # fault/exception text, or the warnings
    warnings: list = field(default_factory=list)
    line: int | None = None                # fault line, when simcore gives one


def copy_args(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def set_globals(module, entry: Entry):
    """Copy each of entry.globals into the module's variable (simcore.RawModule or CupyModule)."""
    for name, make in entry.globals.items():
        value = np.ascontiguousarray(make())
        module.get_global(name).copy_from_host(value, value.nbytes)


def run_sim(entry: Entry, **overrides) -> RunResult:
    """One launch on the simulator with every check on."""
    import simcore

    args = copy_args(entry.make_args())
    opts = {"checks": True, **entry.sim_options, **overrides}
    try:
        mod = simcore.RawModule(code=entry.source, options=entry.options, backend="sim")
        kern = mod.get_function(entry.kernel)
        set_globals(mod, entry)
    except simcore.CompileError as exc:
        return RunResult("compile_error", detail=str(exc))
    caught = []
    try:
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            kern(entry.grid, entry.block, args, shared_mem=entry.shared_mem, **opts)
        caught = [w.message for w in rec if issubclass(w.category, simcore.SimWarning)]
    except simcore.KernelFault as exc:
        return RunResult(exc.kind, args, str(exc), line=getattr(exc, "line", None))
    except simcore.CompileError as exc:
        return RunResult("compile_error", args, str(exc))
    except simcore.LaunchError as exc:
        return RunResult("launch_error", args, str(exc))
    except Exception:  # a simulator bug: report it as such, never hide it
        return RunResult("crash", args, traceback.format_exc())
    launch = getattr(kern, "last_launch", None)
    sim_warnings = list(getattr(launch, "warnings", None) or []) or caught
    verdict = "warning" if sim_warnings else "ok"
    return RunResult(verdict, args, "\n".join(str(w) for w in sim_warnings),
                     warnings=sim_warnings)


def check_outputs(expected: dict, args: tuple, rtol=1e-5, atol=1e-6, other="reference"):
    """Compare the arrays of ``expected`` (argument index -> array) with ``args``.
    Returns None when equal, else one message per differing argument."""
    from simcore.compare import compare_arrays

    problems = []
    for i, want in sorted(expected.items()):
        got = args[i]
        msg = compare_arrays(f"argument {i}", got, np.asarray(want, dtype=got.dtype),
                             rtol=rtol, atol=atol, other=other)
        if msg:
            problems.append(msg.replace("sim=", "got="))
    return "\n".join(problems) or None


def expected_outputs(entry: Entry, intended=False):
    fn = entry.intended if intended else entry.reference
    if fn is None:
        return None
    return fn(copy_args(entry.make_args()))
