"""The lane state of one wave of blocks, and the operations on it that the engine, sync
resolution, the reporter and the plugins share.

Every thread of the wave is a *slot* (threads padded to whole warps per block). Per slot:

  pc          the basic block it runs next (or, waiting at a sync point, the one after it)
  st          its state: RUN, BAR (at a sync point), JOIN (at a reconvergence point), EXIT,
              PARK (behind the other side of a branch, stack model)
  site        the sync site it waits at (-1: none)
  jstack, jdepth, top   the reconvergence points it recorded at divergent branches (a stack;
              top is the innermost, -1: none)
  bar_epoch, warp_epoch   barriers / __syncwarp it has passed (the race check's intervals)
  exit_line   where it exited (reports)
  slot_block (block within the wave), slot_thread, slot_warp (warp within the wave), slot_lane
and the registers `R` (name -> array with one row per slot). `named` holds the open phases of
named barriers per block. A lane group is simply "the runnable slots at one pc".

Lanes are given as a slice or an int array of slots; `lane_index` makes either an int array.
"""
import numpy as np

from ..errors import make_fault
from .memory import run_starts

WARP = 32
# A slot's state (see engine.py): runnable, waiting at a sync point, waiting to reconverge,
# exited, parked behind the other side of a branch (stack model).
RUN, BAR, JOIN, EXIT, PARK = range(5)
ALL_TRUE = np.uint64(0x0101010101010101)    # eight numpy bools, all True, as one word
MAX_DEPTH = 64
WARP_SHIFT = WARP.bit_length() - 1     # slot >> WARP_SHIFT: its warp      # divergent branches nested deeper than this within a warp: a fault


class LaneIndexing:
    """Lanes given as a slice or as an index array, over the S slots of a wave (`_all` is
    arange(S)): the wave's and the context's (the context keeps its own copy of the tables,
    which generated code reaches on every step)."""

    def nlanes(self, L):
        if isinstance(L, slice):
            start, stop, _ = L.indices(self.S)
            return stop - start
        return len(L)

    def lane_index(self, L):
        """Lanes given as a slice or an index array -> an index array."""
        return self._all[L] if isinstance(L, slice) else L


class NamedBarriers:
    """Per block and barrier id: threads that arrived with bar.arrive in the open phase."""

    def __init__(self, nblk):
        self.arrived = np.zeros((nblk, 16), np.int64)
        self.count = np.zeros((nblk, 16), np.int64)     # expected count of the open phase (0: none)


class WaveShape:
    """The geometry of a wave, without its state: what a trace keeps per snapshot (keeping the
    wave itself would keep its registers alive as long as the trace)."""
    __slots__ = ("first_block", "nblk", "tpb", "wpb", "spb", "S")

    def __init__(self, first_block, nblk, tpb, wpb, spb, S):
        self.first_block, self.nblk, self.tpb, self.wpb, self.spb, self.S = first_block, nblk, tpb, wpb, spb, S


class Wave(LaneIndexing):
    def __init__(self, prog, launch, first_block, nblk, is_join, model, steps=0):
        """is_join: per basic block (plus one for 'end of kernel'), whether it is a reconvergence
        point; model: 'independent' | 'stack'; steps: steps the launch ran before this wave."""
        tpb = launch.threads_per_block
        self.launch = launch              # module.Launch: the launch this wave belongs to
        self.first_block, self.nblk, self.tpb = first_block, nblk, tpb
        self.wpb = (tpb + WARP - 1) // WARP
        self.spb = self.wpb * WARP        # slots per block (threads padded to whole warps)
        self.S = S = nblk * self.spb
        self.nwarps = S // WARP
        self.shape = WaveShape(first_block, nblk, tpb, self.wpb, self.spb, S)
        self.is_join = is_join
        self.model = model
        self.njoins = len(is_join)        # join keys: warp * njoins + reconvergence point
        self.steps = steps                # steps run in the launch so far (this wave's included)
        slots = np.arange(S)
        self._all = slots
        # (repeat, tile and shifts: several times cheaper than dividing every slot number)
        self.slot_block = np.repeat(np.arange(nblk), self.spb)
        self.slot_thread = np.tile(np.arange(self.spb), nblk)
        self.slot_warp = slots >> WARP_SHIFT
        self.slot_lane = slots & (WARP - 1)
        self.gslot_base = first_block * self.spb    # launch-wide number of slot 0
        self.R = self._registers(prog, launch)
        self.pc = np.zeros(S, np.int32)
        self.st = np.full(S, RUN, np.int8)
        if self.spb > tpb:
            self.st[self.slot_thread >= tpb] = EXIT   # padding lanes of a partial last warp
        self.site = np.full(S, -1, np.int32)
        # per sync site (plus one for 'none'): lanes waiting there, counted as they arrive and
        # leave, so that sync resolution knows what waits where without a pass over the wave
        self.waiting_count = np.zeros(len(prog.sync_sites) + 1, np.int64)
        self.jstack = np.full((S, 0), -1, np.int32)    # grows on the first divergence
        self.jdepth = np.zeros(S, np.int32)
        self.top = np.full(S, -1, np.int32)
        self.bar_epoch = np.zeros(S, np.int32)
        self.warp_epoch = np.zeros(S, np.int32)
        # __activemask() split by the schedule (activemask.py), per warp: (site, [first, second
        # sub-group mask]) of its last split; {second sub-group mask: the same} of its recent ones
        self.activemask_split = {}
        self.activemask_second = {}
        self.exit_line = np.zeros(S, np.int32)
        self.named = NamedBarriers(nblk)
        self.exited_any = bool((self.slot_thread >= tpb).any())
        self._live = None
        self._live_slots = None
        self._live_bits = None
        self.joined = False          # a lane started waiting at a reconvergence point this step
        # per warp: may one of its reconvergence points have completed since resolve_joins last
        # looked at it? (A point completes only when a lane of its warp starts waiting there or
        # stops being one it waits for: mark_joins_changed.)
        self.joins_changed = np.zeros(self.nwarps, bool)
        self.no_wait = set()         # (warp, reconvergence point) keys lanes no longer wait at
        self.sync_events = 0         # barriers (and bar.arrive) passed: lanes of different warps met
        self.running = None          # the lanes of the step being run (None between steps)

    def _registers(self, prog, launch):
        S = self.S
        R = {}
        for name, var in prog.vars.items():
            R[name] = np.zeros((S,) + var.shape, var.ctype.dtype)
            if var.tracked:
                R["__u_" + name] = np.zeros((S,) + var.shape, np.uint8)
        bx, by, _ = launch.block
        gx, gy, _ = launch.grid
        # computed per thread of a block and per block, then spread over the slots
        t = np.arange(self.spb)
        gblk = np.arange(self.nblk) + self.first_block
        specials = {"tid_x": lambda: t % bx, "tid_y": lambda: (t // bx) % by, "tid_z": lambda: t // (bx * by),
                    "bid_x": lambda: gblk % gx, "bid_y": lambda: (gblk // gx) % gy,
                    "bid_z": lambda: gblk // (gx * gy)}
        for key, values in specials.items():
            if "sp_" + key in R:
                per = values().astype(np.uint32)
                R["sp_" + key].reshape(self.nblk, self.spb)[:] = per[None, :] if key[0] == "t" else per[:, None]
        for p, value in zip(prog.params, launch.arg_values):
            if p.var:           # (a struct passed by value lives in local memory: memory.py)
                R[p.var][:] = value
        return R

    # ================================================================= lanes (nlanes, lane_index: LaneIndexing)
    @staticmethod
    def as_slice(lanes):
        """Sorted lanes -> a slice when they are contiguous (cheaper to index with)."""
        if len(lanes) and lanes[-1] - lanes[0] + 1 == len(lanes):
            return slice(int(lanes[0]), int(lanes[-1]) + 1)
        return lanes

    def span(self, lanes):
        """Distinct lanes in any order -> a slice when they are exactly one contiguous range (to
        set a value for each of them), else the lanes themselves."""
        if lanes is self._all:
            return slice(0, self.S)         # every slot (a barrier of the whole wave): no pass over them
        if isinstance(lanes, slice) or len(lanes) == 0:
            return lanes
        first, last = lanes[0], lanes[-1]
        if last - first + 1 == len(lanes) and lanes.min() == first and lanes.max() == last:
            return slice(int(first), int(last) + 1)
        return lanes

    @staticmethod
    def whole_warps(idx):
        """Sorted distinct lanes -> the warps they fill (an int array, one per 32 lanes) when they
        are whole warps, else None."""
        n = len(idx)
        if n == 0 or n % WARP or idx[0] % WARP:
            return None
        first = idx[::WARP]
        if idx[-1] - idx[0] + 1 == n:
            return first // WARP        # one contiguous range of whole warps
        if (idx[WARP - 1::WARP] - first == WARP - 1).all() and (first % WARP == 0).all():
            return first // WARP
        return None

    def waiting_at(self, site_filter):
        """Slots waiting at a sync site for which site_filter (a bool per sync site, plus one
        False for 'none') is true: e.g. the lanes waiting at barriers, or at warp collectives."""
        counts = self.waiting_count
        if not counts[site_filter].any():
            return np.empty(0, np.int64)
        waiting = np.flatnonzero(self.st == BAR)
        if not counts[~site_filter].any():
            return waiting          # every waiting lane is at such a site
        return waiting[site_filter[self.site[waiting]]]

    def live_count(self):
        """Threads of the wave that have not exited (cached between exits)."""
        if self._live is None:
            self._live = np.bincount(self.slot_block[self.st != EXIT], minlength=self.nblk)
        return int(self._live.sum())

    def live_slots(self):
        """The slots that have not exited, sorted (cached between exits)."""
        if self._live_slots is None:
            self._live_slots = np.flatnonzero(self.st != EXIT) if self.exited_any else self._all
        return self._live_slots

    def live_per_block(self):
        self.live_count()
        return self._live

    def live_in_block(self, b):
        return int(self.live_per_block()[b])

    def live_bits(self):
        """Per warp of the wave: the bitmask of its lanes that have not exited."""
        if self._live_bits is None:
            alive = (self.st != EXIT).reshape(self.nwarps, WARP)
            weights = (np.int64(1) << np.arange(WARP, dtype=np.int64))
            self._live_bits = (alive * weights).sum(axis=1).astype(np.int64)
        return self._live_bits

    # ================================================================= moving lanes
    def wait_at(self, L, site):
        """Lanes reach sync site `site` (a program.SyncSite) and wait there."""
        self.st[L] = BAR
        self.site[L] = site.id
        self.pc[L] = site.next
        self.waiting_count[site.id] += self.nlanes(L)

    def release(self, lanes, sync_sites):
        """Lanes waiting at sync points go on: each to the block after its own sync point (where
        it may have to wait to reconverge)."""
        if len(lanes) == 0:
            return
        span = self.span(lanes)     # a whole wave or block at one barrier: a slice, cheaper
        sites = self.site[span]
        lo, hi = sites.min(), sites.max()
        if lo == hi:
            self.waiting_count[lo] -= len(lanes)
            self.st[span] = RUN
            self.site[span] = -1
            target = sync_sites[int(lo)].next
            self.pc[span] = target
            self.check_join(span, target)
            return
        sites = self.site[lanes]
        self.st[lanes] = RUN
        self.site[lanes] = -1
        for s in np.unique(sites):
            sel = lanes[sites == s]
            self.waiting_count[s] -= len(sel)
            target = sync_sites[int(s)].next
            self.pc[sel] = target
            self.check_join(sel, target)

    def exit(self, L, line):
        self.st[L] = EXIT
        self.mark_joins_changed(L)      # warp-mates may no longer wait for these lanes
        self.exit_line[L] = line
        self._live = None
        self._live_slots = None
        self._live_bits = None
        self.exited_any = True

    # ================================================================= reconvergence
    def jtop(self, idx):
        """The reconvergence point each lane waits for next (-1: none)."""
        return self.top[idx]

    def set_top(self, idx):
        d = self.jdepth[idx]
        self.top[idx] = np.where(d > 0, self.jstack[idx, np.maximum(d - 1, 0)], -1)

    def check_join(self, L, target):
        """Lanes (a slice or an index array) arriving at a reconvergence point they registered
        for wait there."""
        if not self.is_join[target]:
            return
        wait = self.top[L] == target
        if wait.any():
            idx = self.lane_index(L)[wait]
            if self.no_wait:
                idx = self._go_on(idx)
            self.st[idx] = JOIN
            self.joined = True
            self.mark_joins_changed(idx)

    def check_join_split(self, L, c, t_target, f_target):
        """check_join for the lanes L of a branch: those where c is true went to t_target, the
        others to f_target."""
        t_join, f_join = self.is_join[t_target], self.is_join[f_target]
        if not (t_join or f_join):
            return
        top = self.top[L]
        if t_join and f_join:
            wait = top == np.where(c, t_target, f_target)
        elif t_join:
            wait = c & (top == t_target)
        else:
            wait = ~c & (top == f_target)
        if wait.any():
            idx = self.lane_index(L)[wait]
            if self.no_wait:
                idx = self._go_on(idx)
            self.st[idx] = JOIN
            self.joined = True
            self.mark_joins_changed(idx)

    def diverge(self, idx, c, join, f_lanes):
        """Lanes `idx` of a branch split by condition c: those of a warp that took both sides will
        wait for each other at `join`. f_lanes (stack model): the side to park meanwhile."""
        rows = self.whole_warps(idx)
        if rows is not None:
            # lanes of whole warps (a convergent group): per warp any/all of c, no bincount
            if c.flags.c_contiguous:
                # 32 bools of a warp are 4 machine words: all true is 4 words of 0x01 bytes
                words = c.view(np.uint64).reshape(-1, WARP // 8)
                split_rows = (words != 0).any(axis=1) & (words != ALL_TRUE).any(axis=1)
            else:
                cw = c.reshape(-1, WARP)
                split_rows = cw.any(axis=1) & ~cw.all(axis=1)
            if not split_rows.any():
                return
            split = None            # per warp of the wave: made only where the stack model parks
            members = idx.reshape(-1, WARP)[split_rows].ravel()
        else:
            warps = self.slot_warp[idx]
            t_count = np.bincount(warps[c], minlength=self.nwarps)
            f_count = np.bincount(warps[~c], minlength=self.nwarps)
            split = (t_count > 0) & (f_count > 0)
            members = idx[split[warps]]
        if len(members) == 0:
            return
        fresh = members[self.jtop(members) != join]
        if len(fresh):
            d = self.jdepth[fresh]
            if d.max() + 1 > self.jstack.shape[1]:
                if self.jstack.shape[1] >= MAX_DEPTH:
                    raise make_fault("step_limit", title="Divergence nested too deeply",
                                     explanation="branches nested more than 64 deep diverged within a warp")
                grow = np.full((self.S, max(4, self.jstack.shape[1])), -1, np.int32)
                self.jstack = np.concatenate([self.jstack, grow], axis=1)
            self.jstack[fresh, d] = join
            self.jdepth[fresh] += 1
            self.top[fresh] = join
        if self.model == "stack" and f_lanes is not None:
            # Pre-Volta: the warp runs one side at a time; the other side is parked until the
            # running side reaches the reconvergence point.
            if split is None:
                split = np.zeros(self.nwarps, bool)
                split[rows] = split_rows
            park = f_lanes[split[self.slot_warp[f_lanes]]]
            self.st[park] = PARK

    def diverged(self):
        """Has any warp of this wave diverged yet?"""
        return self.jstack.shape[1] > 0

    def join_keys(self, idx, joins):
        """(warp, reconvergence point) pairs as one int64 key each."""
        return self.slot_warp[idx].astype(np.int64) * self.njoins + joins

    def stack_entries(self, lanes):
        """Every (lane, recorded reconvergence point) pair: a lane belongs to each join on its stack,
        not only to the innermost one (a lane inside a nested divergent branch is still on its way
        to the outer join)."""
        d = self.jdepth[lanes]
        mask = np.arange(self.jstack.shape[1])[None, :] < d[:, None]
        return np.repeat(lanes, d), self.jstack[lanes][mask]

    def complete_joins(self, waiting):
        """waiting: the lanes waiting at reconvergence points (sorted). -> per lane, is its point
        complete: does every live lane of its warp that recorded that point (counted once per
        time it is on the lane's stack) wait there? Only the warps of the waiting lanes are
        looked at (the points are per warp): no pass over the wave, no np.unique."""
        if waiting[0] >> WARP_SHIFT == waiting[-1] >> WARP_SHIFT:
            one = self._complete_join_of_warp(waiting)
            if one is not None:
                return one
        # the distinct (warp, point) pairs the lanes wait at, and how many lanes wait at each
        key = self.slot_warp[waiting].astype(np.int64) * self.njoins + self.top[waiting]
        order = np.argsort(key, kind="stable") if (key[1:] < key[:-1]).any() else None
        skey = key if order is None else key[order]
        first = run_starts(skey)
        starts = np.flatnonzero(first)
        there = np.diff(np.append(starts, len(skey)))
        pair_warp, pair_join = skey[starts] // self.njoins, skey[starts] % self.njoins
        # per pair: the entries equal to its point on the stacks of its warp's live lanes
        slots = pair_warp[:, None] * WARP + np.arange(WARP)         # (pairs, 32)
        depth = np.where(self.st[slots] != EXIT, self.jdepth[slots], 0)
        members = np.zeros(len(starts), np.int64)
        for d in range(int(depth.max())):
            members += ((self.jstack[slots, d] == pair_join[:, None]) & (depth > d)).sum(axis=1)
        complete = (members == there)[np.cumsum(first) - 1]
        if order is None:
            return complete
        out = np.empty(len(key), bool)
        out[order] = complete
        return out

    def _complete_join_of_warp(self, waiting):
        """complete_joins for lanes of one warp that all wait at one point (the usual case: the
        lanes of a divergent branch waiting for the rest of their warp), in a few calls on that
        warp's 32 slots; None when they wait at several points."""
        tops = self.top[waiting]
        join = tops[0]
        if tops.min() != tops.max():
            return None
        base = int(waiting[0]) & ~(WARP - 1)
        warp = slice(base, base + WARP)
        depth = np.where(self.st[warp] != EXIT, self.jdepth[warp], 0)
        stacks = self.jstack[warp]
        on_stack = (stacks == join) & (np.arange(stacks.shape[1]) < depth[:, None])
        return np.full(len(waiting), np.count_nonzero(on_stack) == len(waiting))

    def mark_joins_changed(self, L):
        """The warps of lanes L (a slice or an index array) may have a completed reconvergence
        point: a lane started waiting at one, exited, or forgot one it recorded."""
        if isinstance(L, slice):
            if L.stop > L.start:
                self.joins_changed[L.start >> WARP_SHIFT:((L.stop - 1) >> WARP_SHIFT) + 1] = True
        else:
            self.joins_changed[L >> WARP_SHIFT] = True

    def lanes_waiting_in_changed_warps(self):
        """The lanes waiting at reconvergence points in the warps marked by mark_joins_changed
        (sorted; every waiting lane of each such warp), and the marks cleared. Only those warps
        can hold a point that completed since the last look: the per-warp schedules run one warp
        a step, so the other warps' waiting lanes need not be looked at again."""
        changed = np.flatnonzero(self.joins_changed)
        if len(changed) == 0:
            return changed
        self.joins_changed[changed] = False
        if len(changed) * 4 > self.nwarps:      # many warps: one pass over the wave is cheaper
            return self.lanes_in_state(JOIN)
        lanes = (changed[:, None] * WARP + np.arange(WARP)).ravel()
        return lanes[self.st[lanes] == JOIN]

    def lanes_in_state(self, state):
        """Slots in `state` (sorted); no index pass when there are none."""
        in_state = self.st == state
        if not in_state.any():
            return np.empty(0, np.int64)
        return np.flatnonzero(in_state)

    def leave_join_early(self, lanes):
        """Independent thread scheduling: lanes waiting at reconvergence points go on without the
        warp-mates they wait for (those keep looping: forward progress, docs/semantics.md). Each
        forgets the points it waits at, so nobody waits for it there later."""
        lanes = lanes[self.st[lanes] == JOIN]
        # from now on, lanes of these warps reaching these points do not wait there either: the
        # warp-mates they would wait for loop until someone else has gone on (the next lock
        # holder of a spin lock, a flag's writer)
        self.no_wait.update(self.join_keys(lanes, self.top[lanes]).tolist())
        self.mark_joins_changed(lanes)
        while len(lanes):
            self.jdepth[lanes] -= 1
            self.set_top(lanes)
            self.st[lanes] = RUN
            lanes = lanes[self.top[lanes] == self.pc[lanes]]

    def _go_on(self, idx):
        """Lanes idx arrive at the reconvergence point they recorded last: -> those that wait
        there; the others (a point leave_join_early gave up on) go on, forgetting it."""
        keys = self.join_keys(idx, self.top[idx])
        on = np.isin(keys, np.fromiter(self.no_wait, np.int64, len(self.no_wait)))
        if not on.any():
            return idx
        go = idx[on]
        self.mark_joins_changed(go)
        while len(go):
            self.jdepth[go] -= 1
            self.set_top(go)
            go = go[self.top[go] == self.pc[go]]
        return idx[~on]

    def leave_join(self, lanes):
        """Lanes whose reconvergence point completed go on; one that recorded the same point
        twice (nested) waits there again."""
        self.jdepth[lanes] -= 1
        self.set_top(lanes)
        self.st[lanes] = RUN
        self.mark_joins_changed(lanes)
        again = self.jtop(lanes) == self.pc[lanes]
        if again.any():
            self.st[lanes[again]] = JOIN
