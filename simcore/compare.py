"""Run one launch on the simulator and on a real GPU, and compare what they wrote.

    res = simcore.compare.run_both(src, "reverse", (4,), (256,), (out, x, np.int32(n)))
    print(res)            # what ran, and the first differences if any
    res.ok                # True when every array argument agrees (or only the simulator ran)

Each backend gets its own copies of the arguments; the caller's arrays are not modified.
Every array is compared by :func:`array_difference`, the project's one element-by-element
comparison (the course's graders and widgets use it too). Its rule:

* integer and bool arrays must agree exactly;
* when either side is floating point (or complex), elements agree when
  ``|actual - expected| <= atol + rtol * |expected|`` (``numpy.isclose``), because the GPU
  compiler contracts ``a * b + c`` into one fused multiply-add (one rounding instead of two)
  and uses its own ``expf``, ``sinf``... (a few ulp apart from numpy's), so the last bits may
  legitimately differ;
* a NaN agrees with a NaN in the same place (both sides say "not a number") and never with
  a number; an infinity agrees only with the same infinity.

Without CuPy or a GPU only the simulator runs: ``gpu_ran`` is False and ``reason`` says why.
A fault on the simulator (``simcore.KernelFault``) is raised as is: a kernel with undefined
behaviour has no output to compare.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["ArrayDifference", "array_difference", "ComparisonResult", "run_both", "assert_same",
           "compare_arrays"]

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


@dataclass(frozen=True)
class ArrayDifference:
    """What :func:`array_difference` found: ``wrong`` of ``total`` elements differ."""

    wrong: int
    total: int
    examples: tuple      # the first differing elements: ((index, expected, actual), ...)
    rule: str            # "exact", or the tolerances used: "rtol=1e-05, atol=1e-06"

    @property
    def ok(self) -> bool:
        return self.wrong == 0


def array_difference(actual, expected, rtol=1e-5, atol=1e-6,
                     max_examples=MAX_SHOWN) -> ArrayDifference:
    """Compare ``actual`` with ``expected`` element by element, by the rule in this module's
    docstring (exact for integers; ``rtol``/``atol`` when either side is floating point; NaN
    agrees only with NaN).

    ``actual`` may hold more elements than ``expected`` (an output buffer longer than the
    part a reference describes): its first ``expected.size`` elements, in C order, are
    compared. Fewer elements is a ``ValueError``. An example's index is an int for 1-D
    arrays, a tuple otherwise; its values are numpy scalars.
    """
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    if actual.shape != expected.shape:
        if actual.size < expected.size:
            raise ValueError(f"the array has {actual.size} element(s), "
                             f"the expected values {expected.size}")
        actual = actual.reshape(-1)[: expected.size].reshape(expected.shape)
    kinds = actual.dtype.kind + expected.dtype.kind
    if "f" in kinds or "c" in kinds:
        as_type = np.complex128 if "c" in kinds else np.float64
        close = np.isclose(actual.astype(as_type), expected.astype(as_type),
                           rtol=rtol, atol=atol, equal_nan=True)
        rule = f"rtol={rtol:g}, atol={atol:g}"
    else:
        close = actual == expected
        rule = "exact"
    bad = np.argwhere(~np.asarray(close))
    examples = []
    for idx in bad[:max_examples]:
        idx = tuple(int(i) for i in idx)
        examples.append((idx[0] if len(idx) == 1 else idx, expected[idx], actual[idx]))
    return ArrayDifference(int(bad.shape[0]), int(expected.size), tuple(examples), rule)


def compare_arrays(label: str, sim: np.ndarray, gpu: np.ndarray, rtol=1e-5, atol=1e-6,
                   other: str = "gpu"):
    """None when equal (by :func:`array_difference`), else a message naming ``label`` and
    the first differing elements."""
    if sim.shape != gpu.shape or sim.dtype != gpu.dtype:
        return (f"{label}: shape/dtype differ: sim {sim.shape} {sim.dtype}, "
                f"{other} {gpu.shape} {gpu.dtype}")
    diff = array_difference(sim, gpu, rtol, atol)
    if diff.ok:
        return None
    shown = [f"[{where}] sim={_fmt(s)} {other}={_fmt(g)}" for where, g, s in diff.examples]
    more = f" (and {diff.wrong - len(shown)} more)" if diff.wrong > len(shown) else ""
    return (f"{label}: {diff.wrong} of {diff.total} elements differ ({diff.rule}): "
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
