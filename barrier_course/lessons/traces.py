"""Reading a launch's trace (``kernel.last_launch.trace`` after ``trace=True``).

A trace is a ``simcore.Trace`` or anything shaped like one: ``.steps``, each step with
``.index``, ``.event`` (``"step"``, or ``"barrier_release"`` for the snapshot taken when a
barrier lets its threads go), ``.lines``, ``.warps`` (``WarpState``-like objects with
``block``, ``warp``, ``line``, ``active_mask``, ``state``; one per lane group is fine) and
``.barriers`` (``{(block, barrier id): arrivals}``, a count or a collection of threads).
Traces exist only on the simulator (``backend="sim"``); nothing here runs a kernel.

``warp_timeline(trace, blocks)``   per warp and step: state and source line (for pictures).
``warp_passes(trace, block)``      per warp: the steps it ran, which lines, how many lanes.
``barrier_counts(trace)``          per block: how many times it passed barrier 0.
"""

from __future__ import annotations

import numpy as np

from barrier_course.lessons.warps import popcount

__all__ = ["warp_states", "block_key", "keep_blocks", "arrival_count", "warp_timeline",
           "warp_passes", "barrier_counts"]


def warp_states(step):
    """The WarpState entries of one step; a warp may appear once per lane group."""
    out = []
    for w in step.warps:
        if isinstance(w, (list, tuple)) and not hasattr(w, "state"):
            out.extend(w)          # a warp given as a list of lane groups
        else:
            out.append(w)
    return out


def block_key(b):
    """Blocks may be ints or (x, y, z) tuples; keep ints as ints (and (b, 0, 0) as b)."""
    if isinstance(b, (list, tuple)):
        b = tuple(int(v) for v in b)
        return b[0] if len(b) == 1 or not any(b[1:]) else b
    return int(b)


def keep_blocks(blocks):
    """``None`` (keep all) or the set of block keys to keep (``blocks``: one or several)."""
    if blocks is None:
        return None
    if not isinstance(blocks, (list, set, range)):
        blocks = [blocks]
    return {block_key(b) for b in blocks}


def arrival_count(arrivals):
    """Barrier arrivals as a number (the trace may hold a count or a set of threads)."""
    if arrivals is None:
        return 0
    if isinstance(arrivals, (int, np.integer)):
        return int(arrivals)
    try:
        return len(arrivals)
    except TypeError:
        return int(arrivals)


def warp_timeline(trace, blocks=None):
    """Summarise a trace per warp.

    Returns ``(rows, states, lines)``: ``rows`` is the sorted list of ``(block, warp)``
    pairs; ``states[r][s]`` is the state of row ``r`` at step ``s`` (``"split"`` when the
    warp's lane groups are in different states, ``None`` when the warp is not in that
    step); ``lines[r][s]`` the source line (the running group's line when there is one).
    ``blocks`` keeps only those block indices (an int or an iterable).
    """
    keep = keep_blocks(blocks)
    per_step = []
    seen = set()
    for step in trace.steps:
        groups = {}
        for w in warp_states(step):
            key = (block_key(w.block), int(w.warp))
            if keep is not None and key[0] not in keep:
                continue
            groups.setdefault(key, []).append(w)
            seen.add(key)
        per_step.append(groups)
    rows = sorted(seen)
    states = [[None] * len(per_step) for _ in rows]
    lines = [[None] * len(per_step) for _ in rows]
    for s, groups in enumerate(per_step):
        for r, key in enumerate(rows):
            ws = groups.get(key)
            if not ws:
                continue
            kinds = {w.state for w in ws}
            states[r][s] = kinds.pop() if len(kinds) == 1 else "split"
            running = [w for w in ws if w.state == "running"]
            lines[r][s] = (running or ws)[0].line
    return rows, states, lines


def warp_passes(trace, block=0):
    """For every warp of ``block``: the trace steps in which it ran, as
    ``{warp: [(step, first_line, last_line, active_lanes), ...]}``."""
    out = {}
    for step in trace.steps:
        if step.event != "step":
            continue
        for w in warp_states(step):
            if block_key(w.block) != block:
                continue
            out.setdefault(int(w.warp), [])
            if w.state == "running":
                lines = step.lines or [w.line]
                out[int(w.warp)].append((step.index, min(lines), max(lines),
                                         popcount(w.active_mask)))
    return out


def barrier_counts(trace, barrier=0):
    """``{block: how many times it passed barrier ``barrier``}`` (0: ``__syncthreads()``),
    counted from the trace's ``barrier_release`` snapshots; blocks that passed none are
    absent."""
    counts = {}
    # a simcore.Trace builds only its release snapshots; any other trace-shaped object is scanned
    releases = trace.barrier_releases() if hasattr(trace, "barrier_releases") else trace.steps
    for step in releases:
        if step.event != "barrier_release":
            continue
        for (blk, bid), arrived in (step.barriers or {}).items():
            if bid == barrier and arrival_count(arrived):
                counts[block_key(blk)] = counts.get(block_key(blk), 0) + 1
    return dict(sorted(counts.items()))
