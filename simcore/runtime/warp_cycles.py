"""The random schedule's long look for warps that cycle while memory stands still.

The watchdog's per-warp look under schedule="random" (Watchdog._probe_warps) ends with its probe,
so a warp whose own cycle is longer than a probe's share of steps (a 10,000-iteration cycle in
each of four warps: about 80,000 interleaved steps) was never seen to come back; only the time
limit stopped the launch. This look goes on across probes for as long as nothing that could let
a warp out happens: no memory value changes (Memory.changes), no barrier completes
(Wave.sync_events) and the watchdog gives no lane a turn (a yield, leaving a reconvergence point
early). Each warp keeps one checkpoint of its own state, moved at powers of two of its own
observed steps (Brent's method: a cycle of any length is found within about three of its
lengths, with one saved state per warp, whatever the cycle's length).

The comparison is exact: a checkpoint is the bytes of the warp's lane state (program points,
lane states, sync sites, reconvergence stacks, registers), not a digest, so a verdict never
rests on a hash. A warp has come back when its state equals its checkpoint and every lane of it
that can run has run since (Watchdog.last_ran). When every warp that can run has come back while
memory never moved, no order lets any of them out: each one only reads memory nobody changes,
and repeats itself (docs/semantics.md, section 8).
"""
import numpy as np

from .wave import RUN, WARP


def warp_state_bytes(w, warp):
    """The exact bytes of warp `warp`'s lane state: what its next steps depend on, besides memory."""
    part = slice(warp * WARP, (warp + 1) * WARP)
    arrays = [w.pc, w.st, w.site, w.jstack, w.jdepth, w.top] + [w.R[name] for name in sorted(w.R)]
    return b"".join(np.ascontiguousarray(a[part]).tobytes() for a in arrays)


class WarpCycleLook:
    """One look: valid while memory's change count, the barrier count and the watchdog's turns
    stay what they were at its start (`stamp`)."""

    def __init__(self, stamp, step):
        self.stamp = stamp
        self.start = step
        # warp -> [checkpoint bytes, its step, observed steps since, span, came back]
        self.warps = {}
        self.pcs = {}           # block -> the last step the look saw run it (the loop to name)

    def observe(self, w, warp, state, last_ran):
        """Warp `warp` is about to run at step w.steps in `state` (warp_state_bytes); `last_ran`:
        per slot, the last observed step that ran it. -> True when the warp came back just now."""
        record = self.warps.get(warp)
        if record is None:
            self.warps[warp] = [state, w.steps, 0, 1, False]
            return False
        if record[4]:
            return False
        record[2] += 1
        if state == record[0]:
            part = slice(warp * WARP, (warp + 1) * WARP)
            if not ((w.st[part] == RUN) & (last_ran[part] < record[1])).any():
                record[4] = True
                return True
        if record[2] >= record[3]:
            record[0], record[1], record[2], record[3] = state, w.steps, 0, 2 * record[3]
        return False

    def every_warp_came_back(self, runnable_warps):
        """Has every warp that can run now come back to a state of its own?"""
        warps = self.warps
        return all(warp in warps and warps[warp][4] for warp in runnable_warps)

    def since(self):
        """The earliest checkpoint step of the warps that came back: the cycle's start."""
        return min(record[1] for record in self.warps.values() if record[4])
