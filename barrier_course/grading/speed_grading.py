"""Grading a tuned kernel: right first, then fast enough on the timing model of a GPU.

A tuning exercise lets the student choose the block size *in the kernel source*
(``#define BLOCK_SIZE 256``): the isolated grader reads nothing but that source, so the launch
configuration has to live there. :func:`chosen_block_size` reads it back, with a message that
says what to write when it is missing or not allowed.

:func:`check_estimated_time` is the speed test: it first checks the kernel for correctness
(:func:`barrier_course.grading.checks.check_kernel`, lockstep and adversarial schedules, every
simulator check on) and gives no credit for speed to a wrong kernel (racy, divergent, wrong
numbers); then it asks simcore's timing model (``kernel.estimate``, a MODEL of the GPU, not a
measurement) for the launch at one large problem size and compares the estimate with a
limit. The estimate is deterministic: the same source and launch give the same number every
run, so a score never depends on luck or on the machine that grades.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable

import numpy as np

from barrier_course.grading.checks import KernelCheckFailed, check_kernel, refuse_unfinished, try_kernel

__all__ = ["chosen_block_size", "check_estimated_time", "estimate_launch", "try_tuned_kernel"]

_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+BLOCK_SIZE[ \t]+\(?[ \t]*(\d+)[ \t]*\)?[ \t]*(?://.*|/\*.*\*/[ \t]*)?$",
                     re.M)


def chosen_block_size(source: str, kernel_name: str = "the kernel", *, multiple_of: int = 32,
                      largest: int = 1024) -> int:
    """The block size the source chooses with ``#define BLOCK_SIZE <number>``.

    Raises :class:`KernelCheckFailed` (one line a student can act on) when the line is missing,
    repeated, or the number is not a multiple of `multiple_of` between `multiple_of` and
    `largest`."""
    refuse_unfinished(source, kernel_name)
    found = _DEFINE.findall(source if isinstance(source, str) else "")
    if not found:
        raise KernelCheckFailed(
            f"Kernel '{kernel_name}': choose the block size in your source with a line "
            f"`#define BLOCK_SIZE <threads per block>` (a number, e.g. `#define BLOCK_SIZE 256`).")
    if len(set(found)) > 1:
        raise KernelCheckFailed(f"Kernel '{kernel_name}': BLOCK_SIZE is defined more than once "
                                f"({', '.join(found)}); keep one `#define BLOCK_SIZE`.")
    block = int(found[0])
    if block % multiple_of or not multiple_of <= block <= largest:
        raise KernelCheckFailed(
            f"Kernel '{kernel_name}': BLOCK_SIZE is {block}; choose a multiple of {multiple_of} "
            f"from {multiple_of} to {largest} (whole warps; a block has at most {largest} threads).")
    return block


def estimate_launch(source: str, kernel_name: str, *, make_args: Callable, n: int, block: int,
                    gpu: str = "H200", options=()):
    """simcore's MODEL estimate (an ``Estimate``) of one launch of the kernel for `n` elements."""
    import simcore

    kernel = simcore.RawModule(code=source, options=tuple(options), backend="sim").get_function(kernel_name)
    launch = make_args(int(n), int(block), np.random.default_rng(0))
    grid, args = launch[0], launch[1]
    shared_mem = launch[2] if len(launch) > 2 else 0
    return kernel.estimate(grid, (int(block),), args, shared_mem=shared_mem, gpu=gpu)


def _describe(est) -> str:
    parts = ", ".join(f"{k} {v:.4f}" for k, v in est.breakdown.items() if v >= 5e-5)
    return (f"bound by {est.bound}; per resource (ms, MODEL): {parts}; "
            f"{est.occupancy.blocks_per_sm} blocks per SM, {est.waves:.2f} waves; {est.accuracy}")


def check_estimated_time(source: str, kernel_name: str, *, make_args: Callable, reference: Callable,
                         n: int, limit_ms: float, block: int | None = None,
                         correct_sizes: Iterable[int] | Callable | None = None,
                         gpu: str = "H200", target: str = "") -> None:
    """Right first, then fast: raise unless the kernel is correct AND its MODEL estimate for `n`
    elements on `gpu` is at most `limit_ms`.

    block: the launch's block size (default: the source's ``#define BLOCK_SIZE``).
    correct_sizes: the problem sizes of the correctness check (default: check_kernel's).
    target: how the limit was set, said in the message (e.g. "1.3 x the reference solution").
    Returns None (nbgrader reads a returned number as partial credit).
    """
    if block is None:
        block = chosen_block_size(source, kernel_name)
    try:
        check_kernel(source, kernel_name, make_args=make_args, reference=reference, block_sizes=(block,),
                     sizes=correct_sizes, schedules=("lockstep", "adversarial"), on_gpu=False, quiet=True)
    except KernelCheckFailed as failure:
        raise KernelCheckFailed(f"{failure}\n\nNo points for speed: a kernel must give the right "
                                "results, under every schedule, before its time counts.") from None
    try:
        est = estimate_launch(source, kernel_name, make_args=make_args, n=n, block=block, gpu=gpu)
    except Exception as e:  # a launch the model refuses (e.g. too much shared memory): say so
        raise KernelCheckFailed(f"Kernel '{kernel_name}': the timing model could not estimate the launch "
                                f"with {block} threads per block for n = {n}: {e}") from None
    how = f" ({target})" if target else ""
    if est.time_ms > limit_ms:
        raise KernelCheckFailed(
            f"Kernel '{kernel_name}' is correct, but too slow on the {gpu} MODEL: estimated "
            f"{est.time_ms:.4f} ms for n = {n} with BLOCK_SIZE {block}; the limit is {limit_ms:.4f} ms{how}.\n"
            f"  {_describe(est)}\n"
            "  Hint: which resource binds? Barriers and atomics per block, and how many blocks there are, "
            "decide most of it; try another BLOCK_SIZE and fewer barriers.")
    print(f"OK: '{kernel_name}' is correct and its MODEL estimate on the {gpu} is {est.time_ms:.4f} ms "
          f"for n = {n} with BLOCK_SIZE {block} (limit {limit_ms:.4f} ms{how}; {_describe(est)}).")


def try_tuned_kernel(source: str, kernel_name: str, *, make_args: Callable, reference: Callable, n: int,
                     speed_n: int, limit_ms: float, gpu: str = "H200") -> None:
    """The "try it" twin of :func:`check_estimated_time`: one launch on the simulator for `n`
    elements (printed), then the MODEL estimate for `speed_n` elements next to the limit.
    Never raises for a student's mistake."""
    try:
        block = chosen_block_size(source, kernel_name)
    except (NotImplementedError, TypeError) as exc:
        print(f"Nothing to run yet. {exc}")
        return None
    except KernelCheckFailed as exc:
        print(exc)
        return None
    try_kernel(source, kernel_name, make_args=make_args, reference=reference, n=n, block=block)
    try:
        est = estimate_launch(source, kernel_name, make_args=make_args, n=speed_n, block=block, gpu=gpu)
    except Exception as exc:  # the launch above already printed the kernel's own fault, if any
        print(f"No MODEL estimate: {str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__}")
        return None
    verdict = "within the limit" if est.time_ms <= limit_ms else "over the limit"
    print(f"MODEL estimate on the {gpu} for n = {speed_n} with BLOCK_SIZE {block}: {est.time_ms:.4f} ms "
          f"({verdict} of {limit_ms:.4f} ms)\n  {_describe(est)}")
