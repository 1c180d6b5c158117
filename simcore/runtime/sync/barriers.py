"""Block barriers (__syncthreads*, and cg::this_grid().sync() in a cooperative launch): a block's
barrier completes when every live thread of the block waits at it. Lanes of one block at
different calls of barrier 0 are a fact for the divergent-barrier check (then the barrier
completes anyway, as it may on hardware). Named barriers and bar.arrive go to named_barriers.py;
releasing the waiters of any barrier is `release` here."""
import numpy as np

from ..wave import EXIT
from ...lower.sync_points import grouped
from .sites import distinct


def full_blocks(w, blocks):
    """Per block of the wave: have all its live threads arrived? (`blocks`: the block of each
    waiting lane.) A block-wide barrier completes exactly there."""
    arrived = np.bincount(blocks, minlength=w.nblk)
    return (arrived == w.live_per_block()) & (arrived > 0)


class Barriers:
    def __init__(self, prog, sites, report, plugins):
        self.prog = prog
        self.sites = sites
        self.report = report
        self.plugins = plugins

    def resolve(self, w, named):
        """Complete the barriers every thread they wait for has reached; True if any did.
        named: the named-barrier resolver (named_barriers.NamedBarriers), for the general path."""
        facts = self.sites
        waiting = w.waiting_count[facts.bar_sites]
        if not waiting.any():
            return False
        if facts.plain_barriers and not w.named.count.any():
            at = np.flatnonzero(waiting)
            if len(at) == 1:
                s = int(facts.bar_sites[at[0]])
                if facts.block_wide[s] and waiting[at[0]] == w.live_count():
                    # the common case, known from the arrival counts: every live thread of the wave
                    # waits at one __syncthreads (what block_barriers finds by looking at every lane)
                    lanes = w.live_slots()
                    blocks = w.slot_block if lanes is w._all else w.slot_block[lanes]
                    self.release(w, lanes, blocks, w.site[lanes])
                    return True
        lanes = w.waiting_at(facts.is_bar)
        if facts.block_wide[w.site[lanes]].all() and not w.named.count.any():
            return self.block_barriers(w, lanes)
        return named.resolve(w, lanes)

    def none_can_complete(self, w):
        """True when lanes wait only at __syncthreads-style block barriers (no named, no grid
        barrier, no warp collective) and no block has all its live threads there: resolve would
        complete nothing, and nothing but those threads' arrival can change that. Asked without
        completing anything (the watchdog's long look, which must not change the schedule). False
        wherever that is not worked out here."""
        facts = self.sites
        counts = w.waiting_count
        if counts[~facts.is_bar].any() or not facts.plain_barriers or w.named.count.any():
            return False
        lanes = w.waiting_at(facts.is_bar)
        if len(lanes) == 0:
            return True
        if not facts.block_wide[w.site[lanes]].all():
            return False
        return not full_blocks(w, w.slot_block[lanes]).any()

    def block_barriers(self, w, lanes):
        """__syncthreads* only: complete, per block, when every live thread has arrived."""
        if self.sites.grid.any():
            lanes = self.grid_barriers(w, lanes)
            if lanes is True or len(lanes) == 0:
                return lanes is True
        nblk = w.nblk
        blocks = w.slot_block[lanes]
        if len(lanes) == w.live_count() and w.site[lanes[0]] == w.site[lanes[-1]]:
            sites = w.site[lanes]
            if sites.min() == sites.max():
                # the common case: every live thread of the wave waits at one barrier
                self.release(w, lanes, blocks, sites)
                return True
        full = full_blocks(w, blocks)
        if not full.any():
            return False
        ready = full[blocks]
        lanes, blocks = lanes[ready], blocks[ready]
        sites = w.site[lanes]
        # per block: all at one call site?
        starts, _ = grouped(blocks)
        divergent = np.zeros(nblk, bool)
        divergent[blocks[starts]] = np.minimum.reduceat(sites, starts) != np.maximum.reduceat(sites, starts)
        if divergent.any():
            b = int(np.flatnonzero(divergent)[0])
            for hook in self.plugins.divergent_barrier:
                hook(b, lanes[blocks == b])
        self.release(w, lanes, blocks, sites)
        return True

    def grid_barriers(self, w, lanes):
        """cg::this_grid().sync(): completes when every live thread of every block waits at a grid
        barrier (the wave is the whole grid: a cooperative launch). On a GPU thread 0 of each
        block arrives for its block (CUDA's sync_grids_arrive counts blocks): a block whose
        thread 0 has exited never arrives, and the others wait forever.
        -> True if released, else the lanes that wait at block barriers (for the usual path)."""
        grid = self.sites.grid[w.site[lanes]]
        if not grid.any():
            return lanes
        blocks = w.slot_block[lanes]
        live = w.live_per_block()
        arrived = np.bincount(blocks, minlength=w.nblk)
        at_grid = np.bincount(blocks[grid], minlength=w.nblk)
        # a block split between grid.sync() and __syncthreads(): divergent, like two barrier sites
        mixed = np.flatnonzero((arrived == live) & (at_grid > 0) & (at_grid < arrived))
        if len(mixed):
            b = int(mixed[0])
            for hook in self.plugins.divergent_barrier:
                hook(b, lanes[blocks == b])
        masters_live = w.st[np.arange(w.nblk) * w.spb] != EXIT
        if (at_grid == live).all() and masters_live.all():
            self.release(w, lanes, blocks, w.site[lanes])
            return True
        return lanes[~np.isin(blocks, np.flatnonzero(at_grid > 0))]

    def passed(self, w, site, lanes):
        """A thread that passes a barrier (or arrives at one with bar.arrive, which publishes its
        earlier writes) starts a new interval: its barrier epoch moves on."""
        w.bar_epoch[w.span(lanes)] += 1
        w.sync_events += 1
        for hook in self.plugins.barrier:
            hook(site, lanes)

    def release(self, w, lanes, blocks, sites, whole_block=True, bar_id=0):
        """The waiters `lanes` of a completed barrier (bar_id's phase; 0: a block barrier) go on."""
        prog = self.prog
        if whole_block and w.exited_any:
            self.warn_exited(w, blocks, sites)
        for s in distinct(sites):
            site = prog.sync_sites[int(s)]
            if site.reduce and site.result:
                self.reduce(w, site, lanes, blocks, sites)
        for hook in self.plugins.barrier_phase_complete:   # the waiters learn that the phase completed
            hook(bar_id, lanes)
        first_site = prog.sync_sites[int(sites[0])]
        for hook in self.plugins.barrier_release:
            hook(first_site, lanes)
        self.passed(w, first_site, lanes)
        w.release(lanes, prog.sync_sites)

    def reduce(self, w, site, lanes, blocks, sites):
        """__syncthreads_count/and/or: the block's reduced predicate, to the lanes at `site`."""
        sel = sites == site.id
        pred = np.zeros(len(lanes), bool)
        for s2 in distinct(sites):
            reg = self.prog.sync_sites[int(s2)].operands.get("predicate")
            if reg is not None:
                pred[sites == s2] = w.R[reg][lanes[sites == s2]].astype(bool)
        nblk = w.nblk
        cnt = np.bincount(blocks, weights=pred, minlength=nblk).astype(np.int64)
        n = np.bincount(blocks, minlength=nblk)
        w.R[site.result][lanes[sel]] = site.point.block_results(cnt, n)[blocks[sel]]

    def warn_exited(self, w, blocks, sites):
        """Exited threads are not waited for: legal, but worth a warning once per site."""
        total = w.tpb
        arrived = np.bincount(blocks, minlength=w.nblk)
        short = np.flatnonzero((arrived > 0) & (arrived < total))
        if not len(short):
            return
        b = int(short[0])
        s = self.prog.sync_sites[int(sites[blocks == b][0])]
        self.report.warn(("exited", s.id),
                         f"line {s.line}: {s.name}() completed in block {w.first_block + b} with {arrived[b]} of "
                         f"{total} threads; the other {total - arrived[b]} had already exited. That is legal "
                         "(exited threads are not waited for), but fragile: any code added after the guarded "
                         "part that those threads reach makes the barrier undefined. Prefer an unconditional "
                         "barrier with a predicated fill.")
