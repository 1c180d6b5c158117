"""Run only a sample of a launch's blocks, with the performance counters attached.

A block's behaviour depends on its blockIdx, so the sample is a few *real* blocks of the grid
(the first, some in the middle, the last, in adjacent pairs), each simulated with its own
blockIdx exactly as in the full launch; the other blocks are not run. Global memory is a copy
of the arguments, so an estimate never changes the caller's arrays.
"""
import time

import numpy as np

from ..launch import launch_options
from ..runner import build_engine, recording
from .counters import PerfCounters

MAX_STEPS_PER_WAVE = 5_000_000


def sample_ranges(num_blocks, pairs=3):
    """[(first block, count)]: adjacent pairs at the start, middle(s) and end of the grid
    (every block when the grid is small)."""
    if num_blocks <= 2 * pairs:
        return [(0, num_blocks)]
    starts = sorted({0, *(int(num_blocks * k / (pairs - 1)) for k in range(1, pairs - 1)), num_blocks - 2})
    starts = [min(s, num_blocks - 2) for s in starts]
    ranges, end = [], -1
    for s in starts:
        s = max(s, end)
        if s < num_blocks:
            count = min(2, num_blocks - s)
            ranges.append((s, count))
            end = s + count
    return ranges


def run_sample(prog, launch, values, pairs=3, budget_s=0.3):
    """Simulate the sampled blocks of `launch` (a module.Launch with grid/block/shared_mem set)
    with `values` (marshalled args). -> the PerfCounters plugin, with the blocks it saw.

    The middle pair runs first, then the first and the last pairs while the simulation has
    taken less than `budget_s` seconds (long-running blocks: fewer samples, same blockIdx)."""
    values = [np.array(v, copy=True) if isinstance(v, np.ndarray) else v for v in values]
    options = launch_options(checks=False, max_steps=MAX_STEPS_PER_WAVE)
    engine = build_engine(prog, launch, values, options, extra_plugins=(PerfCounters,))
    ranges = sample_ranges(launch.num_blocks, pairs)
    middle = len(ranges) // 2
    started = time.perf_counter()
    with recording(engine, launch):
        for k, block_range in enumerate([ranges[middle]] + ranges[:middle] + ranges[middle + 1:]):
            if k and time.perf_counter() - started > budget_s:
                break
            engine.run([block_range])
    return engine.plugins.of_type(PerfCounters)
