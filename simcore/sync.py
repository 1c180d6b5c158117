"""Sync resolution: when no lane can run, complete whatever can complete.

In order: reconvergence points (JOIN), parked sides of branches (stack model), warp
collectives (`__syncwarp`, shuffles, votes), barriers (`__syncthreads*`, `bar.sync`,
`bar.arrive`). Anything that completes makes lanes runnable again. When nothing can complete,
`diagnose_stuck` explains why: an invalid mask, a divergent barrier, or a deadlock.

All of it is vectorised over warps and blocks: a convergent kernel's barrier completes for
every block of the wave in a handful of numpy calls.
"""
import numpy as np

from .barrier_phases import BarrierPhases
from .context import BAR, EXIT, JOIN, PARK, RUN, WARP
from .memory import run_starts

FULL = 0xFFFFFFFF
OP_BAR, OP_SYNCWARP, OP_SHFL, OP_VOTE, OP_REDUCE, OP_MATCH = 0, 1, 2, 3, 4, 5
OP_CODES = {"bar": OP_BAR, "syncwarp": OP_SYNCWARP, "shfl": OP_SHFL, "vote": OP_VOTE, "reduce": OP_REDUCE,
            "match": OP_MATCH}
WARP_COLLECTIVES = (OP_SYNCWARP, OP_SHFL, OP_VOTE, OP_REDUCE, OP_MATCH)
ARRIVE_AGAIN_FIX = ("give every hand-off that can be in flight at the same time its own barrier id (a block has 16); "
                    "reuse an id only where the threads that signalled with bar.arrive have since waited "
                    "(bar.sync) for something that comes after that phase completed.")


def count_fix(bar_id):
    return (f"make the count of barrier {bar_id} the number of threads that arrive at it in one phase, both "
            "sides of the hand-off: the threads that signal with bar.arrive and those that wait with bar.sync "
            "(e.g. blockDim.x when every thread of the block takes part, not blockDim.x / 2); if the threads "
            "named here are a separate group, give them their own barrier id, or let them arrive only after "
            "waiting at a barrier that comes after the earlier phase.")


def _threads(w, lanes):
    """'thread 5', 'threads 64-127' or '40 threads (3 to 90)': thread indices within the block."""
    tids = w.slot_thread[np.asarray(lanes)]
    lo, hi = int(tids.min()), int(tids.max())
    if lo == hi:
        return f"thread {lo}"
    n = len(np.unique(tids))
    return f"threads {lo}-{hi}" if n == hi - lo + 1 else f"{n} threads ({lo} to {hi})"


def _grouped(keys):
    """keys sorted ascending -> (start index of each group, group id of each element)."""
    change = run_starts(keys)
    starts = np.flatnonzero(change)
    gid = np.cumsum(change) - 1
    return starts, gid


def _distinct(values):
    """np.unique, fast when (as usual) every lane is at the same site."""
    if len(values) == 0:
        return values
    lo, hi = values.min(), values.max()
    if lo == hi:
        return values[:1]
    return np.unique(values)


class Sync:
    """Sync resolution for one launch: the program's sync sites, the reporter and the plugins;
    every operation takes the wave (wave.Wave) whose lanes it completes."""

    def __init__(self, prog, report, plugins, model):
        self.prog = prog
        self.report = report
        self.plugins = plugins
        self.model = model
        # per sync site facts as arrays, so that they can be looked up per lane
        sites = prog.sync_sites
        self.site_op = np.array([OP_CODES[x.op] for x in sites] + [-1], np.int8)
        self.site_is_coll = np.isin(self.site_op, WARP_COLLECTIVES)
        self.site_is_bar = self.site_op == OP_BAR
        self.site_block_wide = np.array([x.block_wide for x in sites] + [False], bool)
        self.site_arrive = np.array([x.mode == "arrive" for x in sites] + [False], bool)
        self.site_grid = np.array([x.grid_wide for x in sites] + [False], bool)
        # which barrier phases each thread knows complete (barrier_phases): only named barriers
        # (bar.sync/bar.arrive with an id) can arrive early or in a phase meant for others, so
        # programs with __syncthreads alone skip the bookkeeping
        self.track_phases = bool((self.site_is_bar & ~self.site_block_wide).any())
        self._phases_wave, self._phases = None, None
        self.bar_sites = np.flatnonzero(self.site_is_bar)
        self.plain_barriers = not self.site_grid.any()     # no grid.sync() in the kernel

    def eager(self, w, site):
        """Right after lanes arrive at a sync point: finish what needs no one else. Warp collectives
        complete as soon as their whole mask is there, and bar.arrive never waits, so a trace shows
        them as cheap as they are. (Block barriers keep waiting until nothing else can run.)"""
        if site.op != "bar":
            self.resolve_collectives(w, hold_split=True)
        elif site.mode == "arrive":
            lanes = np.flatnonzero((w.st == BAR) & (w.site == site.id))
            ids = w.R[site.operands["id"]][lanes].astype(np.int64)
            counts = w.R[site.operands["count"]][lanes].astype(np.int64)
            nb = w.named
            blocks = w.slot_block[lanes]
            for b in _distinct(blocks):
                for i in _distinct(ids[blocks == b]):
                    sel = (blocks == b) & (ids == i)
                    c0 = int(counts[sel][0])
                    if not (0 <= i < 16) or (nb.count[b, i] and nb.count[b, i] != c0):
                        continue        # misuse: left for the named-barrier check
                    if nb.arrived[b, i] + sel.sum() > c0:
                        continue        # too many arrivals: left for the check, which explains it
                    self._check_arrival(w, int(b), int(i), lanes[sel], c0, site.id)
                    nb.arrived[b, i] += int(sel.sum())
                    nb.count[b, i] = c0
                    self._passed_barrier(w, site, lanes[sel])
                    w.release(lanes[sel], self.prog.sync_sites)
                    if nb.arrived[b, i] == c0 and not self._waiting_at(w, b, i):
                        nb.arrived[b, i] = 0      # a phase of arrivals only: complete, nobody waits
                        nb.count[b, i] = 0
                        self._phase_complete(w, int(b), int(i))

    def _waiting_at(self, w, b, bar_id):
        waiting = np.flatnonzero((w.st == BAR) & (w.slot_block == b))
        for s in _distinct(w.site[waiting]):
            site = self.prog.sync_sites[int(s)]
            if site.op == "bar" and site.mode == "sync":
                sel = waiting[w.site[waiting] == s]
                ids = w.R[site.operands["id"]][sel] if "id" in site.operands else np.zeros(len(sel))
                if (ids == bar_id).any():
                    return True
        return False

    def resolve(self, w):
        """Complete one kind of pending sync; True if any lane can run again."""
        if self.resolve_joins(w):
            return True
        if self.model == "stack" and self.unpark(w):
            return True
        if self.resolve_collectives(w):
            return True
        if self.resolve_barriers(w, diagnose=False):
            return True
        # Last: collectives that cannot complete as called. The invalid-mask check reports them;
        # without it they complete anyway (reads from absent lanes are undefined), as they might on
        # hardware.
        return self.resolve_collectives(w, force=True)

    # ===================================================================== reconvergence
    def resolve_joins(self, w):
        """Release the lanes of every reconvergence point that all its lanes have reached."""
        if not w.diverged():
            return False                  # no warp has diverged in this wave
        progressed = False
        while True:
            waiting = w.lanes_in_state(JOIN)
            if len(waiting) == 0:
                return progressed
            done = w.complete_joins(waiting)
            if not done.any():
                return progressed
            w.leave_join(waiting[done])
            progressed = True

    def unpark(self, w):
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

    # ===================================================================== warp collectives
    def resolve_collectives(self, w, force=False, hold_split=False):
        """Complete the warp collectives whose whole mask has arrived. force: complete the others too,
        after telling the plugins (the invalid-mask check raises). hold_split: leave waiting a
        __syncwarp of the second sub-group of a split __activemask() (see _split_syncwarp)."""
        if not self.site_is_coll.any():
            return False
        prog = self.prog
        lanes = w.waiting_at(self.site_is_coll)
        if len(lanes) == 0:
            return False
        masks = self._operand(w, lanes, "mask").astype(np.int64) & FULL
        key = w.slot_warp[lanes].astype(np.int64) << 32 | masks
        if (key[1:] < key[:-1]).any():      # (usually already in order: one mask per warp)
            order = np.argsort(key, kind="stable")
            lanes, masks, key = lanes[order], masks[order], key[order]
        lane_id = w.slot_lane[lanes].astype(np.int64)
        own_ok = ((masks >> lane_id) & 1) == 1
        live_bits = w.live_bits()
        starts, inv = _grouped(key)
        ukeys = key[starts]
        sites_l = w.site[lanes].astype(np.int64)
        bits = np.bitwise_or.reduceat(np.int64(1) << lane_id, starts)
        gwarp = (ukeys >> 32).astype(np.int64)
        gmask = ukeys & FULL
        named_live = gmask & live_bits[gwarp]
        site_first = np.maximum.reduceat(sites_l, starts)
        site_min = np.minimum.reduceat(sites_l, starts)
        own_all = np.logical_and.reduceat(own_ok, starts)
        same_site = site_first == site_min
        all_syncwarp = self.site_op[site_first] == OP_SYNCWARP
        complete = (bits == named_live) & own_all & (same_site | all_syncwarp)
        if w.activemask_second:
            split = self._split_syncwarp(w, gwarp, gmask, all_syncwarp)
            for g in np.flatnonzero(split & complete):
                self.report.split_syncwarp(int(site_first[g]), int(gmask[g]),
                                           w.activemask_second[int(gwarp[g])][int(gmask[g])])
            if hold_split:
                complete &= ~split
        if force:
            bad = np.flatnonzero(~complete)
            if len(bad):
                g = bad[0]
                for hook in self.plugins.invalid_mask:
                    hook(lanes[inv == g], int(gmask[g]), int(gwarp[g]), own_ok[inv == g], int(bits[g]),
                         int(named_live[g]), same_site[g] or all_syncwarp[g])
            complete[:] = True
        if not complete.any():
            return False
        if not complete.all():
            done = complete[inv]
            lanes, inv, masks = lanes[done], inv[done], masks[done]
        # complete per site (results depend on the operation)
        sites = w.site[lanes]
        distinct = _distinct(sites)
        if len(distinct) == 1:      # (usually: every lane at one site, no selection to make)
            self._complete_collective(w, prog.sync_sites[int(distinct[0])], lanes, bits[inv])
            return True
        for s in distinct:
            sel = sites == s
            self._complete_collective(w, prog.sync_sites[int(s)], lanes[sel], bits[inv[sel]])
        return True

    @staticmethod
    def _split_syncwarp(w, gwarp, gmask, is_syncwarp):
        """Per group of a collective: a __syncwarp whose mask is the second sub-group that a
        recent split __activemask() of its warp returned (activemask.py). Such a __syncwarp
        orders only its own lanes, so nothing makes them go on together with the first
        sub-group: eager completion leaves it waiting until nothing else can run (then resolve
        completes it), while the first sub-group runs on, as a GPU may do."""
        held = np.zeros(len(gwarp), bool)
        for g in np.flatnonzero(is_syncwarp):
            held[g] = int(gmask[g]) in w.activemask_second.get(int(gwarp[g]), ())
        return held

    def _operand(self, w, lanes, key):
        """Per-lane operand values: each lane's own sync site decides which register holds them."""
        prog = self.prog
        sites = w.site[lanes]
        distinct = _distinct(sites)
        if len(distinct) == 1:      # one site: its register's values, as the general case types them
            reg = prog.sync_sites[int(distinct[0])].operands.get(key)
            if reg is None:
                return np.full(len(lanes), FULL, np.int64)
            vals = w.R[reg][lanes]
            return vals.astype(np.int64) if vals.dtype.kind in "iub" else vals
        out = None
        for s in distinct:
            reg = prog.sync_sites[int(s)].operands.get(key)
            sel = sites == s
            vals = w.R[reg][lanes[sel]] if reg is not None else np.full(sel.sum(), FULL, np.int64)
            if out is None:
                out = np.zeros(len(lanes), np.int64 if vals.dtype.kind in "iub" else vals.dtype)
            out[sel] = vals
        return out

    def _complete_collective(self, w, site, lanes, part_bits):
        """lanes: participants at this site; part_bits: each lane's group participation bitmask."""
        R = w.R
        lane_id = w.slot_lane[lanes].astype(np.int64)
        if site.op == "syncwarp":
            new = w.warp_epoch[lanes].max() + 1
            w.warp_epoch[lanes] = new
            for hook in self.plugins.barrier:
                hook(site, lanes)
        elif site.op == "vote":
            pred = R[site.operands["predicate"]][lanes].astype(bool)
            warp = w.slot_warp[lanes]
            starts, gid = _grouped(warp)
            b = np.bitwise_or.reduceat(np.where(pred, np.int64(1) << lane_id, 0), starts)[gid]
            # two groups of one warp (disjoint masks, e.g. the halves of a warp as 16-thread
            # tiles) can complete together: each sees only the lanes of its own mask
            b = b & part_bits
            if site.mode == "ballot":
                res = b.astype(np.uint32)
            elif site.mode == "all":
                res = (b == part_bits).astype(np.int32)
            else:
                res = (b != 0).astype(np.int32)
            R[site.result][lanes] = res
        elif site.op == "shfl":
            self._shuffle(w, site, lanes, lane_id, part_bits)
        elif site.op == "reduce":
            self._warp_reduce(w, site, lanes, part_bits)
        elif site.op == "match":
            self._match(w, site, lanes, lane_id, part_bits)
        w.release(lanes, self.prog.sync_sites)

    @staticmethod
    def _groups(w, lanes, part_bits):
        """lanes in order of their group (warp, participating lanes), and per group its start:
        (order, starts, group id of each ordered lane)."""
        key = w.slot_warp[lanes].astype(np.int64) << 32 | part_bits
        order = np.argsort(key, kind="stable")
        starts, gid = _grouped(key[order])
        return order, starts, gid

    def _group_taint(self, w, site, lanes, starts, gid):
        """Result taint: a group's result is undefined where any of its lanes' values is."""
        R = w.R
        if "__u_" + site.result not in R:
            return
        u_value = R.get("__u_" + site.operands["value"])
        taint = (np.bitwise_or.reduceat(u_value[lanes], starts)[gid] if u_value is not None
                 else np.zeros(len(lanes), np.uint8))
        R["__u_" + site.result][lanes] = taint

    def _warp_reduce(self, w, site, lanes, part_bits):
        """redux.sync: the reduction over each group's lanes, 32 bits wide (add wraps)."""
        R = w.R
        order, starts, gid = self._groups(w, lanes, part_bits)
        lanes = lanes[order]
        values = R[site.operands["value"]][lanes]
        if site.mode == "add":
            total = np.add.reduceat(values.astype(np.int64), starts) & FULL
            res = total.astype(np.uint32).view(values.dtype)
        else:
            ufunc = {"min": np.minimum, "max": np.maximum, "and": np.bitwise_and, "or": np.bitwise_or,
                     "xor": np.bitwise_xor}[site.mode]
            res = ufunc.reduceat(values, starts)
        R[site.result][lanes] = res[gid]
        self._group_taint(w, site, lanes, starts, gid)

    def _match(self, w, site, lanes, lane_id, part_bits):
        """match.sync on the bits of the value: any -> the group's lanes holding the caller's
        value; all -> the group's lanes if every one holds the same value, else 0."""
        R = w.R
        order, starts, gid = self._groups(w, lanes, part_bits)
        lanes, lane_id = lanes[order], lane_id[order]
        values = R[site.operands["value"]][lanes]
        bits = values.view(np.uint64 if values.dtype.itemsize == 8 else np.uint32).astype(np.uint64)
        if site.mode == "all":
            same = np.minimum.reduceat(bits, starts) == np.maximum.reduceat(bits, starts)
            res = np.where(same[gid], part_bits[order], 0)
        else:
            # per lane: the lanes of its group with equal bits (sort by group, then value)
            k = np.lexsort((bits, gid))
            runs = np.ones(len(k), bool)
            runs[1:] = (gid[k][1:] != gid[k][:-1]) | (bits[k][1:] != bits[k][:-1])
            rstart = np.flatnonzero(runs)
            rid = np.cumsum(runs) - 1
            members = np.bitwise_or.reduceat(np.int64(1) << lane_id[k], rstart)[rid]
            res = np.empty(len(k), np.int64)
            res[k] = members
        R[site.result][lanes] = (np.asarray(res, np.int64) & FULL).astype(np.uint32)
        self._group_taint(w, site, lanes, starts, gid)

    def _shuffle(self, w, site, lanes, lane_id, part_bits):
        R = w.R
        width = R[site.operands["width"]][lanes].astype(np.int64)
        if ((width & (width - 1)) != 0).any() or (width < 1).any() or (width > 32).any():
            bad = lanes[((width & (width - 1)) != 0) | (width < 1) | (width > 32)]
            self.report.bad_width(site, bad, int(width[np.isin(lanes, bad)][0]))
        src_arg = R[site.operands["lane"]][lanes].astype(np.int64)
        seg = lane_id & ~(width - 1)
        if site.mode == "idx":
            src = seg + (src_arg % width)
        elif site.mode == "up":
            src = lane_id - src_arg
            src = np.where((lane_id - seg) - src_arg < 0, lane_id, src)
        elif site.mode == "down":
            src = lane_id + src_arg
            src = np.where((lane_id - seg) + src_arg >= width, lane_id, src)
        else:   # xor: lanes of later segments are out of reach and give back their own value
            src = lane_id ^ (src_arg & 31)
            src = np.where((src // width) > (lane_id // width), lane_id, src)
        warp_base = lanes - lane_id         # the warp's first slot
        src_slot = warp_base + src
        value_reg = site.operands["value"]
        values = R[value_reg][src_slot]
        # the source lane must take part in this same shuffle; otherwise the value is undefined
        taking_part = ((part_bits >> src) & 1) == 1
        taint = np.where(taking_part, 0, self.report.shuffle_taint(site)).astype(np.uint8)
        if "__u_" + value_reg in R:
            taint |= R["__u_" + value_reg][src_slot]
        R[site.result][lanes] = values
        R["__u_" + site.result][lanes] = taint
        if (~taking_part).any():
            self.report.note_undefined_shuffle(site, lanes[~taking_part], src[~taking_part], part_bits[~taking_part])

    # ===================================================================== barriers
    def resolve_barriers(self, w, diagnose):
        prog = self.prog
        waiting = w.waiting_count[self.bar_sites]
        if not waiting.any():
            return False
        if self.plain_barriers and not w.named.count.any():
            at = np.flatnonzero(waiting)
            if len(at) == 1:
                s = int(self.bar_sites[at[0]])
                if self.site_block_wide[s] and waiting[at[0]] == w.live_count():
                    # the common case, known from the arrival counts: every live thread of the wave
                    # waits at one __syncthreads (what _block_barriers finds by looking at every lane)
                    if diagnose:
                        return False
                    lanes = w.live_slots()
                    blocks = w.slot_block if lanes is w._all else w.slot_block[lanes]
                    self._release_barrier(w, lanes, blocks, w.site[lanes])
                    return True
        lanes = w.waiting_at(self.site_is_bar)
        block_wide = self.site_block_wide[w.site[lanes]]
        progressed = False
        if block_wide.all() and not w.named.count.any():
            return self._block_barriers(w, lanes, diagnose)
        # General path (named barriers, bar.arrive): one (block, id) at a time.
        ids = np.zeros(len(lanes), np.int64)
        counts = np.full(len(lanes), -1, np.int64)
        for s in _distinct(w.site[lanes]):
            site = prog.sync_sites[int(s)]
            sel = w.site[lanes] == s
            if "id" in site.operands:
                ids[sel] = w.R[site.operands["id"]][lanes[sel]]
            if "count" in site.operands:
                counts[sel] = w.R[site.operands["count"]][lanes[sel]]
        blocks = w.slot_block[lanes]
        for b in np.unique(blocks):
            for i in np.unique(ids[blocks == b]):
                sel = (blocks == b) & (ids == i)
                if self._named_phase(w, int(b), int(i), lanes[sel], counts[sel], diagnose):
                    progressed = True
        return progressed

    def _block_barriers(self, w, lanes, diagnose):
        """__syncthreads* only: complete, per block, when every live thread has arrived."""
        if self.site_grid.any():
            lanes = self._grid_barriers(w, lanes, diagnose)
            if lanes is True or len(lanes) == 0:
                return lanes is True
        nblk = w.nblk
        blocks = w.slot_block[lanes]
        if len(lanes) == w.live_count() and w.site[lanes[0]] == w.site[lanes[-1]]:
            sites = w.site[lanes]
            if sites.min() == sites.max():
                # the common case: every live thread of the wave waits at one barrier
                if diagnose:
                    return False
                self._release_barrier(w, lanes, blocks, sites)
                return True
        live = w.live_per_block()
        arrived = np.bincount(blocks, minlength=nblk)
        full = (arrived == live) & (arrived > 0)
        if not full.any():
            return False
        ready = full[blocks]
        lanes, blocks = lanes[ready], blocks[ready]
        sites = w.site[lanes]
        # per block: all at one call site?
        starts, _ = _grouped(blocks)
        divergent = np.zeros(nblk, bool)
        divergent[blocks[starts]] = np.minimum.reduceat(sites, starts) != np.maximum.reduceat(sites, starts)
        if divergent.any():
            b = int(np.flatnonzero(divergent)[0])
            for hook in self.plugins.divergent_barrier:
                hook(b, lanes[blocks == b])
        if diagnose:
            return False
        self._release_barrier(w, lanes, blocks, sites)
        return True

    def _grid_barriers(self, w, lanes, diagnose):
        """cg::this_grid().sync(): completes when every live thread of every block waits at a grid
        barrier (the wave is the whole grid: a cooperative launch). On a GPU thread 0 of each
        block arrives for its block (CUDA's sync_grids_arrive counts blocks): a block whose
        thread 0 has exited never arrives, and the others wait forever.
        -> True if released, else the lanes that wait at block barriers (for the usual path)."""
        grid = self.site_grid[w.site[lanes]]
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
            if diagnose:
                return True
            self._release_barrier(w, lanes, blocks, w.site[lanes])
            return True
        return lanes[~np.isin(blocks, np.flatnonzero(at_grid > 0))]

    def _passed_barrier(self, w, site, lanes):
        """A thread that passes a barrier (or arrives at one with bar.arrive, which publishes its
        earlier writes) starts a new interval: its barrier epoch moves on."""
        w.bar_epoch[w.span(lanes)] += 1
        w.sync_events += 1
        for hook in self.plugins.barrier:
            hook(site, lanes)

    def _release_barrier(self, w, lanes, blocks, sites, whole_block=True, bar_id=0):
        prog = self.prog
        # exited threads are not waited for: legal, but worth a warning once per site
        total = w.tpb
        short = []
        if whole_block and w.exited_any:
            arrived = np.bincount(blocks, minlength=w.nblk)
            short = np.flatnonzero((arrived > 0) & (arrived < total))
        if len(short):
            b = int(short[0])
            s = prog.sync_sites[int(sites[blocks == b][0])]
            self.report.warn(("exited", s.id),
                   f"line {s.line}: {s.name}() completed in block {w.first_block + b} with {arrived[b]} of "
                   f"{total} threads; the other {total - arrived[b]} had already exited. That is legal (exited "
                   "threads are not waited for), but fragile: any code added after the guarded part that "
                   "those threads reach makes the barrier undefined. Prefer an unconditional barrier with a "
                   "predicated fill.")
        for s in _distinct(sites):
            site = prog.sync_sites[int(s)]
            sel = sites == s
            if site.reduce and site.result:
                pred = np.zeros(len(lanes), bool)
                for s2 in _distinct(sites):
                    reg = prog.sync_sites[int(s2)].operands.get("predicate")
                    if reg is not None:
                        pred[sites == s2] = w.R[reg][lanes[sites == s2]].astype(bool)
                nblk = w.nblk
                cnt = np.bincount(blocks, weights=pred, minlength=nblk).astype(np.int64)
                n = np.bincount(blocks, minlength=nblk)
                if site.reduce == "popc":
                    res = cnt
                elif site.reduce == "and":
                    res = (cnt == n).astype(np.int64)
                else:
                    res = (cnt > 0).astype(np.int64)
                w.R[site.result][lanes[sel]] = res[blocks[sel]]
        if self.track_phases:       # the waiters learn that bar_id's phase (0: a block barrier) completed
            self._phases_of(w).complete_blocks(lanes, bar_id)
        first_site = prog.sync_sites[int(sites[0])]
        for hook in self.plugins.barrier_release:
            hook(first_site, lanes)
        self._passed_barrier(w, first_site, lanes)
        w.release(lanes, prog.sync_sites)

    def _named_phase(self, w, b, bar_id, lanes, counts, diagnose):
        """One named barrier (or barrier 0 used with counts) in one block."""
        prog = self.prog
        nb = w.named
        if not 0 <= bar_id < 16:
            self._named_misuse(w, b, bar_id, lanes, f"barrier id {bar_id} is out of range: PTX has barriers 0 to 15")
        live_in_block = w.live_in_block(b)
        eff = np.where(counts < 0, live_in_block, counts)
        c0 = int(eff[0])
        if (eff != c0).any():
            self._named_misuse(w, b, bar_id, lanes, f"threads arriving at barrier {bar_id} disagree on its "
                                   f"thread count ({', '.join(map(str, np.unique(eff)))})")
        if (counts >= 0).any() and (c0 % WARP != 0 or c0 <= 0):
            self._named_misuse(w, b, bar_id, lanes, f"bar.sync {bar_id}, {c0}: the thread count must be a "
                                   "positive multiple of the warp size (32); on an H200 this is an illegal "
                                   "instruction")
        if nb.count[b, bar_id] and nb.count[b, bar_id] != c0:
            self._named_misuse(w, b, bar_id, lanes, f"barrier {bar_id} was opened with count "
                                   f"{nb.count[b, bar_id]} by bar.arrive, then used with count {c0}")
        if (counts < 0).all() and len(lanes) == live_in_block and len(np.unique(w.site[lanes])) > 1:
            for hook in self.plugins.divergent_barrier:
                hook(b, lanes)
        arrive = self.site_arrive[w.site[lanes]]
        if 0 <= bar_id < 16:
            self._check_arrival(w, b, bar_id, lanes, c0)
        total = int(nb.arrived[b, bar_id]) + len(lanes)
        if total > c0:
            self._named_misuse(w, b, bar_id, lanes, f"{total} threads arrived at barrier {bar_id} in one phase "
                                   f"but its count is {c0}: more participants than the count (the group is "
                                   "larger than the barrier expects)", too_many=True)
        if diagnose:
            return False
        if total > c0:
            # (check off) as on hardware: the phase completes at its c0-th arrival; the threads that
            # arrive after that wait for the next phase
            keep = max(0, c0 - int(nb.arrived[b, bar_id]))
            lanes, arrive = lanes[:keep], arrive[:keep]
        if arrive.any():
            # producers: counted, then free to go on without waiting
            al = lanes[arrive]
            nb.arrived[b, bar_id] += len(al)
            nb.count[b, bar_id] = c0
            self._record_arrival(w, b, bar_id, al, int(w.site[al[0]]))
            self._passed_barrier(w, prog.sync_sites[int(w.site[al[0]])], al)
            w.release(al, prog.sync_sites)
            lanes = lanes[~arrive]
        if nb.arrived[b, bar_id] + len(lanes) == c0 and len(lanes) + nb.arrived[b, bar_id] > 0:
            nb.arrived[b, bar_id] = 0
            nb.count[b, bar_id] = 0
            if len(lanes):
                sites = w.site[lanes]
                self._release_barrier(w, lanes, w.slot_block[lanes], sites, whole_block=bool((counts < 0).all()),
                                      bar_id=bar_id)
            else:
                self._phase_complete(w, b, bar_id)
            return True
        if len(lanes):
            nb.count[b, bar_id] = c0
        return bool(arrive.any())

    def _named_misuse(self, w, b, bar_id, lanes, message, too_many=False, fix=None):
        for hook in self.plugins.named_barrier_misuse:
            hook(b, bar_id, lanes, message, too_many, fix)

    # ---- arriving again before the barrier has reset (barrier_phases explains the rule)
    def _phases_of(self, w):
        if self._phases_wave is not w:
            self._phases_wave, self._phases = w, BarrierPhases(w.nblk, w.S, w.slot_block)
        return self._phases

    def _check_arrival(self, w, b, bar_id, lanes, c0, arrive_site=None):
        """lanes of block b arrive at bar_id (count c0): report those whose earlier bar.arrive
        there joined a phase they cannot know to be complete; arrive_site: count them in as
        bar.arrive lanes of that site (eager arrivals), else the caller records them."""
        if not self.track_phases:
            return
        phases = self._phases_of(w)
        early = phases.too_early(lanes, bar_id)
        if early.any():
            unwaited = self._unwaited_phase(w, b, bar_id, int(lanes[early][0]))
            if unwaited is not None:    # the phase was filled by one side alone: the count is wrong
                self._named_misuse(w, b, bar_id, lanes[early],
                                   self._one_side_text(w, bar_id, lanes[early], c0, *unwaited),
                                   fix=count_fix(bar_id))
            among = self._waited_among_themselves(w, b, bar_id, int(lanes[early][0]))
            if among is not None:       # the wait in between was filled by this side alone
                self._named_misuse(w, b, bar_id, lanes[early],
                                   self._among_themselves_text(w, bar_id, lanes[early], c0, *among),
                                   fix=count_fix(among[0]))
            self._named_misuse(w, b, bar_id, lanes[early], self._arrived_again_text(w, bar_id, lanes[early], c0),
                               fix=ARRIVE_AGAIN_FIX)
        if bar_id:
            unordered = phases.unordered(lanes, b, bar_id)
            if unordered.any():
                self._named_misuse(w, b, bar_id, lanes[unordered],
                                   self._unordered_text(w, b, bar_id, lanes[unordered], c0), fix=count_fix(bar_id))
        if arrive_site is not None:
            phases.arrive(b, bar_id, lanes, arrive_site)

    def _record_arrival(self, w, b, bar_id, lanes, arrive_site):
        if self.track_phases:
            self._phases_of(w).arrive(b, bar_id, lanes, arrive_site)

    def _phase_complete(self, w, b, bar_id):
        """A phase made of bar.arrive alone completed: nobody waited, nobody learns of it."""
        if self.track_phases:
            self._phases_of(w).complete_unwaited(b, bar_id)

    def _unwaited_phase(self, w, b, bar_id, lane):
        """The phase lane's earlier bar.arrive joined, if it completed with bar.arrive arrivals
        alone (nobody waited in it): (phase, its members), else None."""
        phases = self._phases_of(w)
        phase = int(phases.arrived_in[lane, bar_id])
        if bar_id == 0 or phases.completed[b, bar_id] <= phase:
            return None
        got = phases.phase_members(b, bar_id, phase)
        if got is None or got[1]:
            return None
        return phase, got[0]

    def _waited_among_themselves(self, w, b, bar_id, lane):
        """After its bar.arrive at bar_id, lane waited at another named barrier; if that phase's
        threads were all among bar_id's signallers (one side of the hand-off met itself, so the
        wait told it nothing of the other side): (that barrier, its phase, its members, its count)."""
        phases = self._phases_of(w)
        other, phase = (int(x) for x in phases.last_wait[lane])
        if other <= 0 or other == bar_id:
            return None
        waited = phases.phase_members(b, other, phase)
        signalled = phases.phase_members(b, bar_id, int(phases.arrived_in[lane, bar_id]))
        if waited is None or signalled is None or not np.isin(waited[0], signalled[0]).all():
            return None
        return other, phase, waited[0]

    def _among_themselves_text(self, w, bar_id, lanes, c0, other, phase, members):
        site = self.prog.sync_sites[int(w.site[lanes[0]])]
        return (f"{_threads(w, lanes)} arrive at barrier {bar_id} again, at {site.where}, before the phase they "
                f"joined with bar.arrive reached its count of {c0}. They did wait in between, at barrier {other}, "
                f"but its phase {phase} completed with {_threads(w, members)} alone, the same threads that signalled "
                f"barrier {bar_id}: the count of barrier {other} ({len(members)}) covers one side of its hand-off "
                f"only, so that wait did not wait for the other side. Expected per phase of barrier {other}: the "
                f"threads that wait there and the threads that signal it; arrived: {len(members)}")

    def _one_side_text(self, w, bar_id, lanes, c0, phase, members):
        site = self.prog.sync_sites[int(w.site[lanes[0]])]
        return (f"{_threads(w, lanes)} arrive at barrier {bar_id} again, at {site.where}, but phase {phase} of "
                f"barrier {bar_id}, which they joined with bar.arrive, reached its count of {c0} with the "
                f"bar.arrive arrivals of {_threads(w, members)} alone: nobody waited in it (bar.sync), so it "
                f"handed nothing over. The count covers one side of the hand-off only: expected {c0} arrivals "
                f"per phase, but the signalling side alone brings {len(members)}, and the threads that wait with "
                f"bar.sync {bar_id} come on top")

    def _unordered_text(self, w, b, bar_id, lanes, c0):
        phases = self._phases_of(w)
        site = self.prog.sync_sites[int(w.site[lanes[0]])]
        phase = phases.known_phase(int(lanes[0]), bar_id)
        got = phases.phase_members(b, bar_id, phase)
        if got is not None:
            members, waited = got
            how = "" if waited else " (all with bar.arrive: nobody waited in it)"
            earlier = f"which reached its count of {c0} with {_threads(w, members)}{how}"
            others = len(members)
        else:
            earlier, others = f"which reached its count of {c0} with other threads", c0
        n = len(lanes)
        return (f"{_threads(w, lanes)} arrive at barrier {bar_id} at {site.where}, and no barrier they waited at "
                f"orders them after phase {phase} of barrier {bar_id}, {earlier}. A barrier counts arrivals, "
                f"not threads: in another timing these {n} threads arrive while phase {phase} is still open and are "
                f"counted in it, so its arrivals are {others} + {n} = {others + n} (or more) where the count "
                f"expects {c0}, and which threads a phase releases depends on the timing (a race or a hang)")

    def _arrived_again_text(self, w, bar_id, lanes, c0):
        site = self.prog.sync_sites[int(w.site[lanes[0]])]
        earlier = self.prog.sync_sites[self._phases_of(w).earlier_site(int(lanes[0]), bar_id)]
        who = _threads(w, lanes)
        before = "at the same place" if earlier.id == site.id else f"at {earlier.where}"
        return (f"{who} arrive at barrier {bar_id} again, at {site.where}, before they can know that the phase "
                f"they joined earlier with bar.arrive ({before}) reached its count of {c0}: no barrier they "
                f"waited at since comes after that phase. A barrier counts arrivals, not threads: in some timing "
                f"both arrivals land in one phase, which then completes without the threads it should wait for "
                f"(a race or a hang). PTX: keep a warp from executing bar.arrive followed by another barrier "
                f"instruction on the same barrier before the barrier resets; two hand-offs that can be in "
                f"flight at once need two barrier ids")

    # ===================================================================== when nothing can move
    def diagnose_stuck(self, w):
        """Nothing can run and nothing completes: find the most specific explanation. (Collectives
        that cannot complete were already reported by the invalid-mask check, or completed.)"""
        self.resolve_barriers(w, diagnose=True)
        self.report.deadlock()
