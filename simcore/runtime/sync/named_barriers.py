"""Named barriers (bar.sync / bar.arrive id[, count], and barrier 0 used with a count): each
(block, id) counts the arrivals of its open phase; the phase completes at its count, releasing
the bar.sync waiters (bar.arrive lanes never wait: they are counted and go on at once).

What the counting meets goes to the plugins as facts, in this order: the arrivals as they come
(ids, counts, the block's live threads), lanes of one block at different calls of barrier 0,
lanes joining a phase, more arrivals than the count, bar.arrive signals, completed phases. The
named-barrier check (checks/named_barriers.py) decides which of them break PTX's rules; without
it the phase completes as it would on hardware."""
import numpy as np

from ..wave import BAR
from .sites import distinct

NUM_BARRIERS = 16       # per block, PTX ids 0 to 15


class NamedBarriers:
    def __init__(self, prog, sites, plugins, barriers):
        self.prog = prog
        self.sites = sites
        self.plugins = plugins
        self.barriers = barriers        # barriers.Barriers: releases the waiters of a phase

    def arrive_eagerly(self, w, site):
        """bar.arrive lanes at `site` are counted in their barrier's open phase and go on at
        once; an arrival that misuses the barrier is left for resolve (and the check)."""
        lanes = np.flatnonzero((w.st == BAR) & (w.site == site.id))
        ids = w.R[site.operands["id"]][lanes].astype(np.int64)
        counts = w.R[site.operands["count"]][lanes].astype(np.int64)
        nb = w.named
        blocks = w.slot_block[lanes]
        for b in distinct(blocks):
            for i in distinct(ids[blocks == b]):
                sel = (blocks == b) & (ids == i)
                c0 = int(counts[sel][0])
                if not (0 <= i < NUM_BARRIERS) or (nb.count[b, i] and nb.count[b, i] != c0):
                    continue        # misuse: left for the named-barrier check
                if nb.arrived[b, i] + sel.sum() > c0:
                    continue        # too many arrivals: left for the check, which explains it
                self.join(int(b), int(i), lanes[sel], c0)
                self.signal(int(b), int(i), lanes[sel], site.id)
                nb.arrived[b, i] += int(sel.sum())
                nb.count[b, i] = c0
                self.barriers.passed(w, site, lanes[sel])
                w.release(lanes[sel], self.prog.sync_sites)
                if nb.arrived[b, i] == c0 and not self.waiting_at(w, b, i):
                    nb.arrived[b, i] = 0      # a phase of arrivals only: complete, nobody waits
                    nb.count[b, i] = 0
                    self.unwaited_complete(int(b), int(i))

    def waiting_at(self, w, b, bar_id):
        """Whether some thread of block b waits (bar.sync) at barrier bar_id."""
        waiting = np.flatnonzero((w.st == BAR) & (w.slot_block == b))
        for s in distinct(w.site[waiting]):
            site = self.prog.sync_sites[int(s)]
            if site.op == "bar" and site.mode == "sync":
                sel = waiting[w.site[waiting] == s]
                ids = w.R[site.operands["id"]][sel] if "id" in site.operands else np.zeros(len(sel))
                if (ids == bar_id).any():
                    return True
        return False

    def resolve(self, w, lanes):
        """The general path (named barriers, bar.arrive): one (block, id) at a time."""
        ids = np.zeros(len(lanes), np.int64)
        counts = np.full(len(lanes), -1, np.int64)
        for s in distinct(w.site[lanes]):
            site = self.prog.sync_sites[int(s)]
            sel = w.site[lanes] == s
            if "id" in site.operands:
                ids[sel] = w.R[site.operands["id"]][lanes[sel]]
            if "count" in site.operands:
                counts[sel] = w.R[site.operands["count"]][lanes[sel]]
        blocks = w.slot_block[lanes]
        progressed = False
        for b in np.unique(blocks):
            for i in np.unique(ids[blocks == b]):
                sel = (blocks == b) & (ids == i)
                if self.phase(w, int(b), int(i), lanes[sel], counts[sel]):
                    progressed = True
        return progressed

    def phase(self, w, b, bar_id, lanes, counts):
        """The waiting lanes of one named barrier (or barrier 0 used with counts) in one block;
        counts: per lane, the count it gave (-1: none, the block's live threads)."""
        nb = w.named
        live_in_block = w.live_in_block(b)
        for hook in self.plugins.named_barrier_arrival:
            hook(b, bar_id, lanes, counts, live_in_block)
        c0 = int(np.where(counts < 0, live_in_block, counts)[0])
        if (counts < 0).all() and len(lanes) == live_in_block and len(np.unique(w.site[lanes])) > 1:
            for hook in self.plugins.divergent_barrier:
                hook(b, lanes)
        arrive = self.sites.arrive[w.site[lanes]]
        if 0 <= bar_id < NUM_BARRIERS:
            self.join(b, bar_id, lanes, c0)
        total = int(nb.arrived[b, bar_id]) + len(lanes)
        if total > c0:
            for hook in self.plugins.named_barrier_overfull:
                hook(b, bar_id, lanes, total, c0)
            # as on hardware: the phase completes at its c0-th arrival; the threads that arrive
            # after that wait for the next phase
            keep = max(0, c0 - int(nb.arrived[b, bar_id]))
            lanes, arrive = lanes[:keep], arrive[:keep]
        if arrive.any():
            # producers: counted, then free to go on without waiting
            al = lanes[arrive]
            nb.arrived[b, bar_id] += len(al)
            nb.count[b, bar_id] = c0
            self.signal(b, bar_id, al, int(w.site[al[0]]))
            self.barriers.passed(w, self.prog.sync_sites[int(w.site[al[0]])], al)
            w.release(al, self.prog.sync_sites)
            lanes = lanes[~arrive]
        if nb.arrived[b, bar_id] + len(lanes) == c0 and len(lanes) + nb.arrived[b, bar_id] > 0:
            nb.arrived[b, bar_id] = 0
            nb.count[b, bar_id] = 0
            if len(lanes):
                sites = w.site[lanes]
                self.barriers.release(w, lanes, w.slot_block[lanes], sites, whole_block=bool((counts < 0).all()),
                                      bar_id=bar_id)
            else:
                self.unwaited_complete(b, bar_id)
            return True
        if len(lanes):
            nb.count[b, bar_id] = c0
        return bool(arrive.any())

    # ---- facts for the plugins
    def join(self, b, bar_id, lanes, count):
        """lanes of block b join the open phase of bar_id (count `count`)."""
        for hook in self.plugins.barrier_phase_join:
            hook(b, bar_id, lanes, count)

    def signal(self, b, bar_id, lanes, site_id):
        """lanes of block b arrived at bar_id with bar.arrive (sync site site_id) and go on."""
        for hook in self.plugins.barrier_signal:
            hook(b, bar_id, lanes, site_id)

    def unwaited_complete(self, b, bar_id):
        """A phase of bar_id made of bar.arrive arrivals alone completed: nobody waited in it."""
        for hook in self.plugins.unwaited_phase_complete:
            hook(b, bar_id)
