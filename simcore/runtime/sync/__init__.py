"""Sync resolution: when no lane can run, complete whatever can complete.

In order: reconvergence points and parked sides of branches (reconvergence.py), warp
collectives (collectives.py: `__syncwarp`, shuffles, votes, reductions, matches, each completed
by its kind in lower/sync_points.py), barriers (barriers.py: `__syncthreads*`, grid.sync();
named_barriers.py: `bar.sync`, `bar.arrive`). Anything that completes makes lanes runnable
again. The resolvers only report facts to the plugins (lanes at different calls of one
barrier, a mask that cannot complete, arrivals at a named barrier); the checks decide what is a
fault. When nothing can complete, the launch is a deadlock.

All of it is vectorised over warps and blocks: a convergent kernel's barrier completes for
every block of the wave in a handful of numpy calls.
"""
from .barriers import Barriers
from .collectives import Collectives
from .named_barriers import NamedBarriers
from .reconvergence import resolve_joins, unpark
from .sites import SiteFacts


class Sync:
    """Sync resolution for one launch: the program's sync sites, the reporter and the plugins;
    every operation takes the wave (wave.Wave) whose lanes it completes."""

    def __init__(self, prog, report, plugins, model):
        self.report = report
        self.model = model
        sites = SiteFacts(prog)
        self.collectives = Collectives(prog, sites, report, plugins)
        self.barriers = Barriers(prog, sites, report, plugins)
        self.named = NamedBarriers(prog, sites, plugins, self.barriers)

    def eager(self, w, site):
        """Right after lanes arrive at a sync point: finish what needs no one else. Warp collectives
        complete as soon as their whole mask is there, and bar.arrive never waits, so a trace shows
        them as cheap as they are. (Block barriers keep waiting until nothing else can run.)"""
        if site.point.collective:
            self.collectives.resolve(w, hold_split=True)
        elif site.mode == "arrive":
            self.named.arrive_eagerly(w, site)

    def resolve_joins(self, w):
        """Release the lanes of every reconvergence point that all its lanes have reached."""
        return resolve_joins(w)

    def resolve(self, w):
        """Complete one kind of pending sync; True if any lane can run again."""
        if resolve_joins(w):
            return True
        if self.model == "stack" and unpark(w):
            return True
        if self.collectives.resolve(w):
            return True
        if self.barriers.resolve(w, self.named):
            return True
        # Last: collectives that cannot complete as called. The invalid-mask check reports them;
        # without it they complete anyway (reads from absent lanes are undefined), as they might on
        # hardware.
        return self.collectives.resolve(w, force=True)

    def complete_reached(self, w):
        """Complete the block and named barriers that every thread they wait for has reached, even
        while other lanes can run (resolve waits until none can): for the watchdog, when lanes
        loop waiting for what such a barrier's threads do next. True if any lane can run again."""
        return self.barriers.resolve(w, self.named)

    def none_can_complete(self, w):
        """No lane waits at a sync point, or only at block barriers that some live thread of each
        of their blocks has not reached: complete_reached would complete nothing (asked without
        completing). False where that is not worked out (named or grid barriers, collectives)."""
        return not w.waiting_count.any() or self.barriers.none_can_complete(w)

    def diagnose_stuck(self, w):
        """Nothing can run and nothing completes: a deadlock. (resolve, which found nothing to
        complete, has already told the checks every misuse it met on the way: a divergent or
        misused barrier raised there.)"""
        self.report.deadlock()
