"""Reconvergence: the lanes of a warp that wait at a join (the end of a branch or loop) go on
together once all of them are there; under the stack model a parked side runs once the
running side of its warp has reached the join."""
import numpy as np

from ..wave import EXIT, JOIN, PARK, RUN


def resolve_joins(w):
    """Release the lanes of every reconvergence point that all its lanes have reached."""
    if not w.diverged():
        return False                  # no warp has diverged in this wave
    progressed = False
    while True:
        # (only warps whose lanes changed since the last look can hold a completed point)
        waiting = w.lanes_waiting_in_changed_warps()
        if len(waiting) == 0:
            return progressed
        done = w.complete_joins(waiting)
        if not done.any():
            return progressed
        w.leave_join(waiting[done])
        progressed = True


def unpark(w):
    """Stack model: parked lanes run once the running side of their warp has reached the join."""
    parked = np.flatnonzero(w.st == PARK)
    if len(parked) == 0:
        return False
    live = np.flatnonzero((w.st != EXIT) & (w.jdepth > 0))
    busy = live[(w.st[live] != JOIN) & (w.st[live] != PARK)]
    owner, joins = w.stack_entries(busy)
    busy_keys = np.unique(w.join_keys(owner, joins))
    pk = w.join_keys(parked, w.jtop(parked))
    free = ~np.isin(pk, busy_keys)
    if not free.any():
        return False
    # release one warp-side at a time: the parked lanes of each free key
    w.st[parked[free]] = RUN
    return True
