"""Run only a sample of a launch's blocks, with the performance counters attached.

A block's behaviour depends on its blockIdx, so the sample is *real* blocks of the grid, each
simulated with its own blockIdx exactly as in the full launch; the other blocks are not run:

  * the edges: the first two and the last two blocks (a grid's tail lives there), each
    standing for itself;
  * the interior: blocks spread over the rest of the grid (golden-ratio order) and over the
    residues of blockIdx modulo 32, each standing for an equal share of it. Their positions are spread over the grid and over
    every small period of blockIdx (even/odd, every 8th...), so blocks that do different work
    (early exits, work only in some blocks or at some positions) are found in their
    proportions, and a kernel cannot hide work where a fixed first/middle/last sample never
    looks.

How many interior blocks run is decided by simulated work (steps), never by wall-clock time:
an estimate is the same on every machine. A grid small enough is run whole. Global memory is
a copy of the written arguments, so an estimate never changes the caller's arrays.
"""
import math

import numpy as np

from ..errors import KernelFault, ReadOnlyWrite
from ..launch import launch_options
from ..runtime.runner import build_engine, recording
from .counters import PerfCounters
from .loop_skip import LoopSkip, StaleRead

MAX_STEPS_PER_WAVE = 5_000_000
INTERIOR_BLOCKS = 30           # at most, when the budget allows
STEP_BUDGET = 12_000           # steps after which no more interior blocks start
_GOLDEN = (math.sqrt(5) - 1) / 2


def interior_blocks(num_blocks, count=INTERIOR_BLOCKS):
    """Distinct blocks of 2 .. num_blocks - 3 (deterministic): the k-th lies in a group of 32
    blocks placed in golden-ratio order over the grid, at place 13 k mod 32 in its group, so
    the positions spread over the grid and blockIdx's residues mod 2, 4, 8, 16, 32 come out
    in equal shares."""
    inner = num_blocks - 4
    if inner <= 0:
        return []
    picked, seen = [], set()
    k = 0
    while len(picked) < min(count, inner) and k < 50 * count:
        pos = int(inner * ((0.5 + k * _GOLDEN) % 1.0))
        b = 2 + min(inner - 1, pos - pos % 32 + (13 * k) % 32)
        k += 1
        if b not in seen:
            seen.add(b)
            picked.append(b)
    return picked


def sample_plan(num_blocks):
    """[(first block, count)] in the order they run: the edges, then the interior blocks
    (every block when the grid is small)."""
    if num_blocks <= INTERIOR_BLOCKS + 4:
        return [(0, num_blocks)]
    return [(0, 2), (num_blocks - 2, 2)] + [(b, 1) for b in interior_blocks(num_blocks)]


def assign_weights(counters, num_blocks):
    """Each sampled block's `weight`: the number of the grid's blocks it stands for."""
    blocks = counters.blocks
    edges = [b for b in blocks if b < 2 or b >= num_blocks - 2]
    interior = [b for b in blocks if b not in edges]
    if len(blocks) == num_blocks:
        for counts in blocks.values():
            counts.weight = 1.0
        return
    for b in edges:
        blocks[b].weight = 1.0
    share = (num_blocks - len(edges)) / max(1, len(interior))
    for b in interior:
        blocks[b].weight = share
    if not interior:            # the budget ran out on the edges: they stand for everything
        for b in edges:
            blocks[b].weight = num_blocks / len(edges)


def _private_copies(prog, values, writable):
    """The arguments the simulation may write: copies of the arrays (all of them, or only
    those behind non-const pointers, with read-only views of the others)."""
    out = []
    params = list(prog.params)
    for i, v in enumerate(values):
        if not isinstance(v, np.ndarray):
            out.append(v)
            continue
        const = i < len(params) and params[i].type.replace(" ", "").startswith("const")
        if const and not writable:
            view = v.view()
            view.flags.writeable = False
            out.append(view)
        else:
            out.append(np.array(v, copy=True))
    return out


def run_sample(prog, launch, values, pairs=None, step_budget=STEP_BUDGET, l1_sectors=0, skip_loops=True):
    """Simulate the sampled blocks of `launch` (a module.Launch with grid/block/shared_mem set)
    with `values` (marshalled args). -> the PerfCounters plugin, with the blocks it saw, each
    with its `weight` (and `skipped`: the loop iterations counted without being simulated;
    `fell_back`: why a run that skipped was replaced by a whole one, or None);
    l1_sectors: each block's share of the L1 (0: none); skip_loops: let LoopSkip add up the
    iterations of counted loops that repeat (loop_skip.py). `pairs` is accepted for callers of
    the earlier first/middle/last sample."""
    counters = PerfCounters.with_l1(l1_sectors) if l1_sectors else PerfCounters
    fell_back = None
    if skip_loops and LoopSkip.has_loops(prog):
        try:
            return _sample(prog, launch, values, step_budget, counters, True)
        except StaleRead as e:
            # a value that steers the kernel was read where skipped iterations would have written
            fell_back = f"stale read ({e})"
        except KernelFault as e:
            fell_back = f"fault ({e.kind})"         # a fault of the kernel's own shows again below
        except Exception as e:          # a bug in the skipping: the estimate must not pay for it
            fell_back = f"error in loop_skip ({type(e).__name__}: {e})"
    found = _sample(prog, launch, values, step_budget, counters, False)
    found.fell_back = fell_back     # why the iterations were all simulated after a try (None: no try)
    return found


def _sample(prog, launch, values, step_budget, counters, skip_loops):
    try:
        return _run(prog, launch, _private_copies(prog, values, writable=False), step_budget, counters, skip_loops)
    except ReadOnlyWrite:                     # a kernel that writes through a const pointer
        return _run(prog, launch, _private_copies(prog, values, writable=True), step_budget, counters, skip_loops)


def _run(prog, launch, values, step_budget, counters_type=PerfCounters, skip_loops=False):
    options = launch_options(checks=False, max_steps=MAX_STEPS_PER_WAVE)
    extra = (counters_type, LoopSkip) if skip_loops else (counters_type,)
    engine = build_engine(prog, launch, values, options, extra_plugins=extra)
    skipper = engine.plugins.of_type(LoopSkip)
    if skipper is not None:
        skipper.counters = engine.plugins.of_type(PerfCounters)
    plan = sample_plan(launch.num_blocks)
    with recording(engine, launch):
        for k, block_range in enumerate(plan):
            if k >= 1 and engine.steps > step_budget:
                break
            engine.run([block_range])
    counters = engine.plugins.of_type(PerfCounters)
    counters.skipped = skipper.skipped if skipper is not None else 0
    counters.fell_back = None
    assign_weights(counters, launch.num_blocks)
    return counters
