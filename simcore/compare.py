"""Run one launch on the simulator and on a real GPU, and compare what they wrote.

    res = simcore.compare.run_both(src, "reverse", (4,), (256,), (out, x, np.int32(n)))
    print(res)            # what ran, and the first differences if any
    res.ok                # True when every array argument agrees (or only the simulator ran)

Each backend gets its own copies of the arguments; the caller's arrays are not modified.
Integer and bool arrays must agree exactly. Floating-point arrays are compared with
``rtol``/``atol`` because the GPU compiler contracts ``a * b + c`` into one fused
multiply-add (one rounding instead of two) and uses its own implementations of ``expf``,
``sinf``... (a few ulp apart from numpy's), so the last bits may legitimately differ.

Without CuPy or a GPU only the simulator runs: ``gpu_ran`` is False and ``reason`` says why.
A fault on the simulator (``simcore.KernelFault``) is raised as is: a kernel with undefined
behaviour has no output to compare.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["ComparisonResult", "run_both", "assert_same", "compare_arrays"]

MAX_SHOWN = 5  # differing elements listed per argument


@dataclass
class ComparisonResult:
    name: str
    gpu_ran: bool
    reason: str                      # why the GPU did (not) run: gpu_available()'s sentence
    sim_args: tuple                  # the arguments after the simulator's launch
    gpu_args: tuple | None = None    # the arguments after the GPU's launch (None: no GPU)
    mismatches: list = field(default_factory=list)   # one message per differing argument
    rtol: float = 1e-5
    atol: float = 1e-6

    @property
    def ok(self) -> bool:
        return not self.mismatches

    @property
    def message(self) -> str:
        if not self.gpu_ran:
            return (f"{self.name}: ran on the simulator only ({self.reason}); "
                    "nothing to compare with")
        if self.ok:
            return (f"{self.name}: simulator and GPU agree on every array argument "
                    f"({self.reason}; floats within rtol={self.rtol:g}, atol={self.atol:g})")
        return (f"{self.name}: simulator and GPU disagree ({self.reason}):\n"
                + "\n".join(self.mismatches))

    def __str__(self) -> str:
        return self.message


def _param_names(kernel, n):
    try:
        names = [p.name for p in kernel.params]
        if len(names) == n:
            return names
    except Exception:
        pass
    return [f"argument {i}" for i in range(n)]


def _fmt(v):
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, (np.integer, np.bool_)):
        return str(v.item())
    return repr(v)


def compare_arrays(label: str, sim: np.ndarray, gpu: np.ndarray, rtol=1e-5, atol=1e-6,
                   other: str = "gpu"):
    """None when equal, else a message naming ``label`` and the first differing elements."""
    if sim.shape != gpu.shape or sim.dtype != gpu.dtype:
        return (f"{label}: shape/dtype differ: sim {sim.shape} {sim.dtype}, "
                f"{other} {gpu.shape} {gpu.dtype}")
    if sim.dtype.kind in "fc":
        close = np.isclose(sim, gpu, rtol=rtol, atol=atol, equal_nan=True)
        how = f"rtol={rtol:g}, atol={atol:g}"
    else:
        close = sim == gpu
        how = "exact"
    if close.all():
        return None
    bad = np.argwhere(~close)
    shown = []
    for idx in bad[:MAX_SHOWN]:
        idx = tuple(int(i) for i in idx)
        where = idx[0] if len(idx) == 1 else idx
        shown.append(f"[{where}] sim={_fmt(sim[idx])} {other}={_fmt(gpu[idx])}")
    more = f" (and {len(bad) - len(shown)} more)" if len(bad) > len(shown) else ""
    return (f"{label}: {len(bad)} of {sim.size} elements differ ({how}): "
            + ", ".join(shown) + more)


def _copy_args(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def run_both(kernel_source, name, grid, block, args, shared_mem=0, options=(),
             rtol=1e-5, atol=1e-6, **sim_options) -> ComparisonResult:
    """Launch ``name`` from ``kernel_source`` on the simulator and, when a GPU is present,
    on CuPy, each with its own copies of ``args``; compare every array argument."""
    import simcore
    from simcore.cupy_backend import gpu_available

    args = tuple(args)
    sim_args = _copy_args(args)
    sim_kernel = simcore.RawModule(code=kernel_source, options=tuple(options),
                                   backend="sim").get_function(name)
    sim_kernel(grid, block, sim_args, shared_mem=shared_mem, **sim_options)

    available, reason = gpu_available()
    result = ComparisonResult(name=name, gpu_ran=False, reason=reason, sim_args=sim_args,
                              rtol=rtol, atol=atol)
    if not available:
        return result

    gpu_args = _copy_args(args)
    gpu_kernel = simcore.RawModule(code=kernel_source, options=tuple(options),
                                   backend="cupy").get_function(name)
    gpu_kernel(grid, block, gpu_args, shared_mem=shared_mem)
    result.gpu_ran = True
    result.gpu_args = gpu_args
    labels = _param_names(sim_kernel, len(args))
    for i, (s, g) in enumerate(zip(sim_args, gpu_args)):
        if isinstance(s, np.ndarray):
            msg = compare_arrays(f"'{labels[i]}' (argument {i})", s, g, rtol, atol)
            if msg:
                result.mismatches.append(msg)
    return result


def assert_same(kernel_source, name, grid, block, args, shared_mem=0, options=(),
                rtol=1e-5, atol=1e-6, **sim_options) -> ComparisonResult:
    """``run_both`` that raises ``AssertionError`` with the differences when they disagree."""
    res = run_both(kernel_source, name, grid, block, args, shared_mem=shared_mem,
                   options=options, rtol=rtol, atol=atol, **sim_options)
    if not res.ok:
        raise AssertionError(res.message)
    return res
