"""The race checks ('race': shared memory, 'global_race': global memory), a plugin.

Two accesses race when they come from different threads, at least one writes (plain, or atomic
against plain), and nothing orders them: in one block no barrier separates them (each thread's
barrier epoch counts the barriers it has passed) and no __syncwarp orders two lanes of one warp;
threads of different blocks are ordered only by a release/acquire hand-off (or, in launches too
large for its clocks, the fence ticket). The pieces, each in its own module:

  race_shadow.py      the records: per granule the last writer's and this interval's readers',
                      in a bit layout fitted to the launch (Layout, Shadow); every slot's current
                      stamp (Stamps)
  lane_clocks.py      the order __syncwarp gives lanes, where a sync may name part of a warp
  release_acquire.py  the vector clocks of fences and strong accesses (kernels that fence)
  race_rule.py        the rule for one lane's access on plain integers (the one-lane fast path)
  here                the hooks, the rule over a wave's lanes (RaceDetector._unordered, one
                      comment per clause, as Oclgrind's RaceDetector::check reads), how readers
                      fold into one record, the sweep of old epochs, the reports

Each access becomes one record (Access: region, granules, lanes, kind, shadow, stamps) that the
rule and the shadow's update read. A write races with the writer's record and the readers' of
its granules; a read with the writer's only, then joins the readers.

Readers of one granule in one step (lanes of several warps, or of several blocks) are folded
into one record after the scatter (_record_read): each lane that lost the scatter is folded
against the winner, so the record names the widest group (one warp < several warps of one
block < several blocks) and a writer ordered after one of them by __syncwarp still races with
the others (conformance/y_syncwarp_orders_one_of_two_readers*.cu). A broadcast read (16 lanes of a
tiled matmul reading As[ty][k]) takes a shortcut to that very record where its lanes carry the same
epochs: the lanes are grouped by granule once (_reader_groups), the writer check and the record
are then per granule (_writer_may_conflict, _record_broadcast_read).

One lane's access (a lone thread's loop: Memory's one-lane path calls on_lane_access) goes the
integer way of race_rule.py where barrier and warp epochs alone decide: it records an access
nothing conflicts with, and leaves one that may race (and kernels with lane clocks, fences or
the ticket) to the vectorised check, which reports it.

Kernels that fence: release/acquire hand-offs (release_acquire.py) order accesses too. Each
record then has its thread's own clock beside it (Shadow.w_sync / r_sync; for readers folded
into one record the newest of theirs), each writer's record whether it was a release (a strong
write after a fence: Shadow.w_release), each shadow the granules releases published to
(Shadow.flags). An access is ordered after a record when its thread has heard of a newer
clock of the record's thread (of every thread of a folded record's group); a strong read of a
release's location, and a release's strong write after strong reads, are the hand-off itself.
Kernels without a fence keep their records, sizes and speed (self.sync is None).
"""
from dataclasses import dataclass

import numpy as np

from ..runtime.wave import EXIT
from . import race_rule
from ..errors import DataRace
from .base import Plugin
from .lane_clocks import LaneClocks, needs_lane_clocks
from .race_shadow import (EPOCH_BITS, FLAG_BITS, FULL, MAX_LAG, NONE, SITE_FLAGS, STALE_GAP, SWEEP_EVERY,  # noqa: F401
                          Layout, Shadow, Stamps, block_of, same_interval, stamp, warp_of)
from .release_acquire import DENSE_LIMIT, ReleaseAcquire


@dataclass(slots=True)
class Access:
    """One checked access of a wave's lanes to one granule each: what the rule and the shadow's
    update read (RaceDetector._access makes it)."""
    region: object          # memory.Region
    gran: np.ndarray        # per lane, the granule in the region
    granule: int            # bytes a granule
    kind: str               # 'read' | 'write' | 'atomic' | 'cas'
    L: object               # the lanes (a slice or slot numbers)
    site: int               # program site
    number: int             # memory site number (what records keep)
    sh: Shadow              # the region's shadow
    st: Stamps              # the wave's stamps for this kind of memory
    key: np.ndarray         # per lane, the shadow entry
    is_global: bool
    atomic: bool            # an atomic (or atomicCAS)
    strong: bool            # atomic or volatile (release/acquire's strong accesses)
    cur: np.ndarray         # per lane, its stamp
    curbar: np.ndarray      # per lane, its barrier epoch


def _increasing(key):
    """Keys strictly increasing with the lane (s[t], a[base + t], ...): no two lanes share a
    granule, so the scatter needs no collision test."""
    head = key[:33]             # a broadcast read (s[k], a tile row) already fails within one warp
    if not (head[1:] > head[:-1]).all():
        return False
    return bool((key[1:] > key[:-1]).all())


class RaceDetector(Plugin):
    checks = ("race", "global_race")
    fault = DataRace

    def __init__(self, launch, program, report, options):
        super().__init__(launch, program, report, options)
        self.check_shared = self.enabled("race")
        self.check_global = self.enabled("global_race")
        self.global_shadows = {}
        self.shared_shadows = {}
        self._stamps = {}
        # per memory site: the serial loop's last shared read there, whose granule-independent
        # part (_read_plan) the next read by the same lane in the same epoch reuses
        self._lane_reads = {}
        self.fences = None          # per launch-wide thread: how many __threadfence() it has run
        self.acquired = None        # per slot, once a bar.arrive ran: the epoch it last waited into
        self.shared_layout = self.global_layout = None     # fitted to the launch at its first wave
        # records name memory sites only (loads, stores, atomics), numbered densely: fewer bits
        self.memory_sites = [i for i, s in enumerate(program.sites) if s.memory]
        self.memory_number = np.full(len(program.sites), -1, np.int64)
        self.memory_number[self.memory_sites] = np.arange(len(self.memory_sites))
        self.memory_numbers = self.memory_number.tolist()      # the same, as Python ints (one-lane reads)
        # Lane clocks (see the module docstring) only where a __syncwarp may name part of a warp:
        # its mask is not the constant 0xffffffff (a variable, __activemask(), a tile under 32)
        self.lane_clocks = needs_lane_clocks(program)
        self.clocks = None          # lane_clocks.LaneClocks of the running wave, where needed
        self._lanes = None          # 0, 1, 2, ...: lane positions, for _reader_groups
        # Release/acquire (release_acquire.py): vector clocks, only in kernels that fence
        self.sync = None
        self.volatile = np.array([program.sites[i].volatile for i in self.memory_sites], bool)
        self.polls = np.array([program.sites[i].polls for i in self.memory_sites], bool)
        # atomicAdd_block and its kin: strong only among the threads of one block
        self.block_scoped = np.array([program.sites[i].scope == "block" for i in self.memory_sites], bool)
        # plain loads whose value an atomicCAS compares with: a CAS loop's guess, which the CAS checks
        self.cas_guess = np.array([program.sites[i].cas_guess for i in self.memory_sites], bool)
        # loads and atomics whose value decides whether a loop goes on: a wait's poll, where strong
        self.waits = np.array([program.sites[i].waits for i in self.memory_sites], bool)
        self.untracked_threads = 0      # a launch too large for the clocks: its thread count
        self.fenced_any = False

    def on_wave_start(self, wave):
        if self.global_layout is None:
            self.shared_layout = Layout.for_launch(True, wave.spb, self.program)
            self.global_layout = Layout.for_launch(False, self.launch.num_blocks * wave.spb, self.program)
            if self.program.fence_scopes:
                n = self.launch.num_blocks * wave.spb
                if n <= DENSE_LIMIT:
                    self.sync = ReleaseAcquire(n, wave.spb)
                else:
                    self.untracked_threads = n      # warned at the first strong write after a fence
        self.shared_shadows = {}
        self._stamps = {}
        self._lane_reads = {}       # (they would keep the last wave's shadows alive)
        self.acquired = None
        self._bar_swept = np.zeros(wave.nblk, np.int64)      # per block: its highest epoch at the last sweep
        self._wep_swept = np.zeros(wave.nwarps, np.int64)    # per warp: the same for __syncwarp epochs
        self._bar_due = self._wep_due = SWEEP_EVERY          # no block (warp) can be due before
        if self.lane_clocks:
            self.clocks = LaneClocks(wave)

    def on_block_fence(self, lanes):
        """__threadfence_block(): one side of a release/acquire hand-off inside a block."""
        self.fenced_any = True
        self._drop_read_plans()
        if self.sync is not None:
            self.sync.fence(lanes + self.wave.gslot_base, False)

    def on_fence(self, lanes):
        """__threadfence() then an atomic (a ticket, a flag) publishes a thread's earlier global
        writes to a block whose own atomic comes later: CUDA's threadFenceReduction protocol.
        A fence alone makes nobody wait, so it publishes nothing by itself. Every fence is also
        one side of a release/acquire hand-off (release_acquire.py)."""
        e = self.wave
        self.fenced_any = True
        self._drop_read_plans()
        if self.sync is not None:
            self.sync.fence(lanes + e.gslot_base, True)
        if self.fences is None:
            n = self.launch.num_blocks * e.spb
            self.fences = np.zeros(n, np.uint8)             # fences run, per launch-wide thread
            self.fence_clock = np.full(n, -1, np.int64)     # when its last fence ran
            self.atomic_clock = np.full(n, -1, np.int64)    # when its last global atomic ran
            self.block_atomic_clock = np.full(self.launch.num_blocks, -1, np.int64)
        g = lanes + e.gslot_base
        self.fences[g] += 1
        self.fence_clock[g] = e.steps << 27

    def _published(self, writer, reader, recorded_fences):
        """Writes by `writer` that a later atomic of the reader's block has been told about."""
        spb = self.wave.spb
        fenced = self.fences[writer] != recorded_fences
        flagged = self.atomic_clock[writer] > self.fence_clock[writer]
        seen = self.block_atomic_clock[reader // spb] > self.atomic_clock[writer]
        return fenced & flagged & seen

    def _drop_read_plans(self):
        """A fence may end _epochs_decide() (fences, fenced_any; lane_clocks and sync are fixed
        from the first wave on, untracked_threads only drops to 0): the serial loop's read
        plans, made where it held, go, and on_lane_access need not test it for them."""
        if self._lane_reads:
            self._lane_reads = {}

    def on_barrier(self, sync, lanes):
        self._stamps = {}        # epochs changed: recompute the stamps
        epochs = self.wave.bar_epoch
        if getattr(sync, "mode", None) == "arrive":
            # bar.arrive publishes the thread's earlier writes (its epoch moved on) but waits for
            # nobody: what it does next is not ordered after the others' accesses
            if self.acquired is None:
                self.acquired = epochs.copy()
                self.acquired[lanes] -= 1
        elif self.acquired is not None:
            self.acquired[lanes] = epochs[lanes]
        if getattr(sync, "grid_wide", False):
            # cg::this_grid().sync(): every global access before it happens before every one after
            self.global_shadows = {}
        e = self.wave
        if self.sync is not None and getattr(sync, "mode", None) != "arrive":
            self._join_sync_clocks(sync, e.lane_index(lanes))
        passed = epochs[lanes]
        if passed.size == 0:
            return
        # one max per barrier; the exact per-block (per-warp) test only when it may be due
        if passed.max() >= self._bar_due and \
                (passed >= self._bar_swept[e.slot_block[lanes]] + SWEEP_EVERY).any():
            self._sweep("bar")
            self._bar_swept = e.bar_epoch.reshape(e.nblk, e.spb).max(axis=1).astype(np.int64)
            self._bar_due = int(self._bar_swept.min()) + SWEEP_EVERY
        if self.lane_clocks:
            if sync.op == "syncwarp":
                self.clocks.join(sync, e.lane_index(lanes))
            return                # the records' warp epochs are not read: nothing to sweep
        if e.warp_epoch[lanes].max() >= self._wep_due and \
                (e.warp_epoch[lanes] >= self._wep_swept[e.slot_warp[lanes]] + SWEEP_EVERY).any():
            self._sweep("warp")
            self._wep_swept = e.warp_epoch.reshape(e.nwarps, 32).max(axis=1).astype(np.int64)
            self._wep_due = int(self._wep_swept.min()) + SWEEP_EVERY

    def _join_sync_clocks(self, sync, lanes):
        """Release/acquire clocks: a barrier orders the threads of each block it completed for, a
        __syncwarp those of one warp and mask (a bar.arrive waits for nobody: it joins nothing)."""
        e = self.wave
        if sync.op == "syncwarp":
            masks = e.R[sync.operands["mask"]][lanes].astype(np.int64) & FULL
            group = e.slot_warp[lanes].astype(np.int64) << 32 | masks
        else:
            group = e.slot_block[lanes].astype(np.int64)
        self.sync.barrier(lanes + e.gslot_base, group)

    def _sweep(self, which):
        """Make plainly old every stamp whose barrier epoch ('bar') or warp epoch ('warp') all live
        threads of its block (warp) have passed by more than the lag: no live thread can share its
        interval any more, and after this no wrap-around can make one seem to.

        Between two sweeps a group's highest epoch moves at most SWEEP_EVERY, and a group is swept
        only while its live threads are less than HALF apart: every stamp left is then at most
        HALF + SWEEP_EVERY + STALE_GAP below the group's highest epoch, less than the epoch range,
        so its true epoch is the one just below that highest (never newer than it really was)."""
        e = self.wave
        if which == "bar":
            epochs, group, margin = e.bar_epoch, e.spb, MAX_LAG + 1
        else:
            epochs, group, margin = e.warp_epoch, 32, 0
        live = (e.st != EXIT).reshape(-1, group)
        ep = epochs.astype(np.int64).reshape(-1, group)
        hi = ep.max(axis=1)            # exited threads too: a stamp may be theirs, never newer than this
        lo = np.where(live, ep, np.iinfo(np.int64).max).min(axis=1)
        for table, lay in ((self.shared_shadows, self.shared_layout), (self.global_shadows, self.global_layout)):
            if which == "warp" and not lay.wep_bits:
                continue                  # no __syncwarp in the kernel: its stamps hold no warp epoch
            shift = lay.BAR_SHIFT if which == "bar" else lay.WEP_SHIFT
            for sh in table.values():
                for arr in (sh.w, sh.r, sh.w_set):
                    if arr is None:
                        continue
                    idx = np.flatnonzero(arr >= 0)
                    rec = arr[idx]
                    field = lay.field(rec)
                    if lay.shared:          # the entry's index says the block; the field, the warp in it
                        block = idx // (sh.n // e.nblk)
                        if which == "bar":
                            g = block
                        else:
                            g = block * e.wpb + warp_of(lay, field)
                            g[warp_of(lay, field) >= e.wpb] = -1         # several warps: no warp
                    elif which == "bar":
                        g = block_of(lay, field, e.spb) - e.gslot_base // e.spb
                    else:
                        g = warp_of(lay, field) - e.gslot_base // 32
                    inside = (g >= 0) & (g < len(hi))
                    idx, rec, g = idx[inside], rec[inside], g[inside]
                    top, bottom = hi[g], lo[g]
                    known = (bottom <= top) & (top - bottom < lay.HALF)      # live threads, close together
                    true = top - ((top - ((rec >> shift) & lay.EMASK)) & lay.EMASK)
                    old = known & (true < bottom - margin)
                    if not old.any():
                        continue
                    if lay.shared and which == "bar":
                        arr[idx[old]] = NONE          # shared memory: only its own block can race with it
                    else:
                        keep = ~(lay.EMASK << shift)
                        if which == "bar" and lay.lag_bits:
                            keep &= ~(MAX_LAG << lay.LAG_SHIFT)
                        arr[idx[old]] = (rec[old] & keep) | (((bottom[old] - STALE_GAP) & lay.EMASK) << shift)

    def stamps(self, kind):
        st = self._stamps.get(kind)
        if st is None:
            st = self._stamps[kind] = Stamps(self.wave, self.global_layout if kind == "global" else self.shared_layout,
                                               self.acquired)
        return st

    def on_memory_access(self, region, offsets, size, kind, L, site):
        if region.kind == "shared":
            if not self.check_shared:
                return
            granule = self.program.shared_access_size
        else:
            if not self.check_global:
                return
            granule = self.program.global_access_size
        if self.wave.nlanes(L) == 0:
            return
        if kind == "read" and region.kind == "global" and region.id not in self.global_shadows \
                and (region.readonly or region.const):
            # Nobody writes a read-only array (a write through a cast starts its shadow, later
            # reads are then checked): reads of it need no shadow at all.
            return
        # granules are powers of two (access sizes): a shift, floor division's result at half the cost
        g0 = offsets >> (granule.bit_length() - 1) if granule & (granule - 1) == 0 else offsets // granule
        for extra in range(max(1, size // granule)):
            self._check(region, g0 + extra, granule, kind, L, site)

    def on_lane_access(self, region, offset, size, kind, L, slot, site):
        """One lane's access: on_memory_access's early outs, then the fast path per granule where
        barrier and warp epochs decide (else, or where it may race, the vectorised check). A read
        of one granule (the serial loop's loads) goes to _read_lane, which decides it in one call
        (a call costs as much as the rule: _epochs_decide's test is written out here). A read
        where the lane's read plan for its site and epoch holds (_read_plan: made only where
        the check is on) is decided first, in a few integer steps: a plan is made only where
        _epochs_decide() holds, and a fence, the only thing that can end that, drops the plans
        (_drop_read_plans), so the test is not made again for it."""
        plan = self._lane_reads.get(site) if kind == "read" else None
        if plan is not None:
            p_region, p_slot, st, granule, base, w_rec, r_rec, bar_shift, bar, record, r_site, code, tid_shift, \
                tid_mask, tid = plan
            if p_region is region and p_slot == slot and size <= granule and st is self._stamps.get(region.kind):
                # _read_lane's answer where the writer's record is of another epoch and the
                # readers' record is of another epoch or this lane's own (a loop that reads a
                # word again): the usual cases; anything else goes the way below
                key = base + offset // granule
                w = w_rec.item(key)
                if w < 0 or (w >> bar_shift) != bar:
                    old = r_rec.item(key)
                    if old < 0 or (old >> bar_shift) != bar or ((old >> tid_shift) & tid_mask) == tid:
                        if r_site is None:
                            r_rec[key] = record | code
                        else:
                            r_rec[key] = record
                            r_site[key] = code
                        return
        if region.kind == "shared":
            if not self.check_shared:
                return
            granule = self.program.shared_access_size
        else:
            if not self.check_global:
                return
            granule = self.program.global_access_size
            if kind == "read" and region.id not in self.global_shadows and (region.readonly or region.const):
                return
        g0 = offset // granule
        fast = not self.lane_clocks and self.sync is None and self.fences is None and \
            not (self.untracked_threads and self.fenced_any)        # = self._epochs_decide()
        if fast and kind == "read" and size <= granule:
            if not self._read_lane(region, g0, granule, slot, site):
                self._check(region, np.array([g0], np.int64), granule, kind, L, site)
            return
        for extra in range(max(1, size // granule)):
            if not (fast and self._check_lane(region, g0 + extra, granule, kind, slot, site)):
                self._check(region, np.array([g0 + extra], np.int64), granule, kind, L, site)

    def on_lane_reads(self, region, offsets, size, lanes, slot, site):
        """One lane's reads at one site, `offsets` (an array) one after another (the serial loop's
        run of a reading loop: runtime/solo.py): on_lane_access's plan path for each, at once.
        -> True when the lane's read plan for the site holds for every one (each is then recorded
        as that path records it); False, with nothing recorded, where any read needs the general
        way (no plan, another epoch, a record of this epoch in the way)."""
        plan = self._lane_reads.get(site)
        if plan is None:
            return False
        p_region, p_slot, st, granule, base, w_rec, r_rec, bar_shift, bar, record, r_site, code, tid_shift, \
            tid_mask, tid = plan
        if p_region is not region or p_slot != slot or size > granule or st is not self._stamps.get(region.kind):
            return False
        keys = base + offsets // granule
        w = w_rec[keys]
        if not ((w < 0) | ((w >> bar_shift) != bar)).all():
            return False
        old = r_rec[keys]
        # (a read of a word read earlier in the run finds this lane's own record: program order)
        if not ((old < 0) | ((old >> bar_shift) != bar) | (((old >> tid_shift) & tid_mask) == tid)).all():
            return False
        if r_site is None:
            r_rec[keys] = record | code
        else:
            r_rec[keys] = record
            r_site[keys] = code
        return True

    def stops_every_unordered_conflict(self):
        # Only where barrier and warp epochs alone order accesses: a fence makes a flag's hand-off
        # legal, and which value the waiter saw first then depends on the order threads ran in;
        # a __syncwarp on part of a warp (lane clocks) too. And only with both checks on.
        return self.check_shared and self.check_global and self._epochs_decide()

    def _epochs_decide(self):
        """Whether barrier and warp epochs alone order this kernel's accesses (no lane clocks, no
        release/acquire clocks, no fence ticket): the one-lane fast path's rule is then complete."""
        return not self.lane_clocks and self.sync is None and self.fences is None and \
            not (self.untracked_threads and self.fenced_any)

    def _check_lane(self, region, gran, granule, kind, slot, site):
        """The fast path for one lane's access to granule `gran` (race_rule.py): record it and
        return True when nothing conflicts; return False, with nothing changed, where it may race
        (then _check decides and reports)."""
        number = int(self.memory_number[site])
        if number < 0:
            return False
        is_global = region.kind == "global"
        sh = (self.global_shadows if is_global else self.shared_shadows).get(region.id) or \
            self._shadow(region, granule)
        st = self._stamps.get(region.kind) or self.stamps(region.kind)
        lay, spb, me = st.lay, self.wave.spb, race_rule.lane_stamp(st, slot)
        key = gran if is_global else slot // self.wave.spb * sh.per + gran      # slot's block: wave.slot_block
        atomic = kind in ("atomic", "cas")
        w = int(sh.w[key])
        if race_rule.unordered(lay, w, me, is_global, spb):
            code = int(sh.w_codes(key, w))
            # atomic against atomic is fine; a plain read of what an atomicCAS wrote, whose value
            # a CAS compares with, is the CAS loop's guess
            if (code & 1) == 0 if atomic else ((code & 2) == 0 or not self.cas_guess[number]):
                return False
            if atomic and is_global and (self.block_scoped[number] or self.block_scoped[code >> 2]):
                return False        # a _block atomic: whether its scope holds both threads is _check's
        if kind == "read":
            old = int(sh.readers()[key])
            sh.read(key, race_rule.folded_reader(lay, old, me, is_global, spb), number * 4)
            return True
        if sh.r is not None and race_rule.unordered(lay, int(sh.r[key]), me, is_global, spb) and \
                not (kind == "cas" and self.cas_guess[sh.r_code(key) >> 2]):
            return False            # (a CAS after a guess of another thread's loop: that CAS checks it)
        sh.write(key, me.stamp, number * 4 + (1 if atomic else 0) + (2 if kind == "cas" else 0))
        if sh.w_set is not None:
            sh.w_set[key] = NONE        # this write set the value (a rewrite of it goes the vectorised way)
        return True

    def _read_lane(self, region, gran, granule, slot, site):
        """_check_lane for a read, in one call (the serial loop's loads): the same rule, records
        and answer. Where neither side lags (no bar.arrive) in shared memory, a record of another
        barrier epoch is ordered before this read and an old readers' record is over: two shifts
        decide that, without race_rule's calls; anything else is race_rule's."""
        number = self.memory_numbers[site]
        if number < 0:
            return False
        is_global = region.kind == "global"
        sh = (self.global_shadows if is_global else self.shared_shadows).get(region.id)
        if sh is None:
            sh = self._shadow(region, granule)
        st = self._stamps.get(region.kind)
        if st is None:
            st = self.stamps(region.kind)
        me = st.lanes.get(slot)
        if me is None:
            me = race_rule.lane_stamp(st, slot)
        lay = st.lay
        key = gran if is_global else slot // self.wave.spb * sh.per + gran      # slot's block: wave.slot_block
        epoch_only = not is_global and me.lag is None       # same interval <=> same barrier epoch
        w = int(sh.w[key])
        if w >= 0 and not (epoch_only and (w >> lay.BAR_SHIFT) != me.bar):
            # a plain read of what an atomicCAS wrote is the CAS loop's guess if a CAS compares with it
            if race_rule.unordered(lay, w, me, is_global, self.wave.spb) and \
                    ((int(sh.w_codes(key, w)) & 2) == 0 or not self.cas_guess[number]):
                return False
        r = sh.r if sh.r is not None else sh.readers()
        old = int(r[key])
        if epoch_only and (old < 0 or (old >> lay.BAR_SHIFT) != me.bar):
            new = me.stamp                                  # the old readers are over
        else:
            new = race_rule.folded_reader(lay, old, me, is_global, self.wave.spb)
        if sh.lay.packed_sites:                             # sh.read(key, new, number * 4)
            r[key] = new | number * 4
        else:
            r[key] = new
            sh.r_site[key] = number * 4
        if epoch_only:
            self._lane_reads[site] = self._read_plan(region, slot, st, granule, key - gran, sh, me, number)
        return True

    @staticmethod
    def _read_plan(region, slot, st, granule, base, sh, me, number):
        """What _read_lane finds for one lane's shared reads at one site in one barrier epoch (the
        shadow entries from `base` on, its stamp, the record's arrays and site code), for
        on_lane_access to decide the next such read without it where no record of the epoch is
        in the way. Valid while the epoch's stamps (`st`, made anew at every barrier and wave) are
        the current ones; the shadow's arrays are never replaced while they are."""
        lay = sh.lay
        # a readers' record of this epoch whose thread is this lane's folds to this lane's stamp
        # (race_rule.folded_reader: program order), as one of another epoch does
        return (region, slot, st, granule, base, sh.w, sh.r, lay.BAR_SHIFT, me.bar, me.stamp,
                None if lay.packed_sites else sh.r_site, number * 4, lay.TID_SHIFT, lay.TID_MASK, me.tid)

    def _shadow(self, region, granule):
        e = self.wave
        table = self.shared_shadows if region.kind == "shared" else self.global_shadows
        sh = table.get(region.id)
        if sh is None:
            per = max(1, region.nbytes // granule)
            ra = self.sync is not None
            sh = table[region.id] = (Shadow(e.nblk * per, self.shared_layout, self.lane_clocks, ra)
                                     if region.kind == "shared" else Shadow(per, self.global_layout, self.lane_clocks, ra))
            sh.per = per            # granules per block's copy (shared memory) or in all (global)
        return sh

    def _access(self, region, gran, granule, kind, L, site):
        """The record of one checked access (Access), for the rule and the shadow's update."""
        number = int(self.memory_number[site])
        if number < 0:
            raise AssertionError(f"memory access at site {site}, which the compiler did not mark as one")
        sh = self._shadow(region, granule)
        is_global = region.kind == "global"
        st = self.stamps(region.kind)
        key = gran.astype(np.int64) if is_global else \
            self.wave.slot_block[L].astype(np.int64) * max(1, region.nbytes // granule) + gran
        atomic = kind in ("atomic", "cas")
        return Access(region, gran, granule, kind, L, site, number, sh, st, key, is_global, atomic,
                      atomic or bool(self.volatile[number]), st.stamp[L], st.bar[L])

    def _check(self, region, gran, granule, kind, L, site):
        acc = self._access(region, gran, granule, kind, L, site)
        sh, key, st = acc.sh, acc.key, acc.st
        # lanes sharing granules (a broadcast read): found once, for the writer check and the record
        repeats = kind == "read" and len(key) > 1 and not _increasing(key)
        shared_reads = self._reader_groups(sh, key, st, L) if repeats and not self.lane_clocks \
            and self.sync is None else None
        if shared_reads is not None and not self._writer_may_conflict(sh, key, st, shared_reads, acc.is_global):
            self._record_read(acc, repeats, shared_reads)
            return
        w = sh.w[key]
        w_conf = self._unordered(acc, w, "write")
        rewrites = None
        if w_conf.any():
            codes = sh.w_codes(key, w)
            if acc.atomic:
                # atomic against atomic is fine, when each one's scope holds both threads
                w_conf &= ((codes & 1) == 0) | self._scopes_apart(acc, w, codes)
            elif self.cas_guess[acc.number]:
                # A plain read of what an atomicCAS writes, whose value a CAS compares with, is the
                # CAS loop's guess (the CAS checks it): the Programming Guide's own idiom, not a
                # race. A read whose value is only used otherwise (the result, read before the
                # CASes are over) and a plain write are races.
                w_conf &= (codes & 2) == 0
            if acc.strong and self.sync is not None:
                # a strong read (volatile, atomic) of a release's flag is the hand-off itself
                w_conf &= ~sh.w_release[key]
            if acc.strong and self.waits[acc.number] and w_conf.any():
                # a wait's poll (a volatile load, or an atomic, whose value decides whether its loop
                # goes on) of a flag another thread wrote with a strong write, fence or none: the
                # two are morally strong (PTX), so no data race, and the loop reads again until it
                # sees the value. (What the writer wrote before it is ordered only by a fence.)
                k = np.flatnonzero(w_conf)
                w_conf[k] = ~self._strong_writes(codes[k]) | self._scopes_apart(acc, w, codes)[k]
            if kind == "write" and acc.strong and w_conf.any():
                # a strong write of a flag after another thread's atomic wait on it (it polled
                # before the flag was set): morally strong, as above
                k = np.flatnonzero(w_conf)
                w_conf[k] = ~(self._strong_writes(codes[k]) & self.waits[codes[k].astype(np.int64) >> 2]) | \
                    self._scopes_apart(acc, w, codes)[k]
            if kind == "write" and acc.strong and self.sync is not None and w_conf.any():
                # a release's strong write after another thread's atomic that only read the flag
                # (a waiter polling with atomicAdd(&f, 0) before it was set): the hand-off, as
                # after the waiter's volatile loads
                k = np.flatnonzero(w_conf)
                releases = self.sync.releases(self.wave.lane_index(L)[k] + self.wave.gslot_base)
                w_conf[k] = ~(releases & self.polls[codes[k].astype(np.int64) >> 2])
            if kind == "write" and not acc.atomic and w_conf.any():
                rewrites = self._rewrites_value(acc, w_conf)
                w_conf &= ~rewrites
            if kind == "read" and sh.w_set is not None and w_conf.any():
                w_conf &= ~self._value_set_before(acc, w_conf)
        if w_conf.any():
            k = int(np.flatnonzero(w_conf)[0])
            ws = int(codes[k])
            plain_flag = self.sync is not None and kind == "read" and not acc.strong and bool(sh.w_release[key[k]])
            self._report("RAW" if kind == "read" else "WAW", acc, k, self._thread(w, st, L, k),
                         self.memory_sites[ws >> 2], "atomic" if ws & 1 else "write", plain_flag=plain_flag,
                         block_scope=acc.strong and bool(self._strong_writes(codes[k:k + 1])[0])
                         and bool(self._scopes_apart(acc, w, codes)[k]))
        if kind == "read":
            self._record_read(acc, repeats, shared_reads)
        else:
            self._keep_setters(acc, w, rewrites)
            self._record_write(acc)
        if self.sync is not None:
            self._hand_off(sh, key, L, kind, acc.strong, acc.number)
        elif self.untracked_threads and self.fenced_any and acc.strong and kind != "read":
            self._warn_untracked()

    # ---- writes of the value memory already holds
    # Two unordered plain writes of one location conflict, but when the second writes the value
    # the first left there the outcome is that value whatever their order: the GPU's memory gives
    # no other result (compute-sanitizer's racecheck compares the values and reports nothing), so
    # the common `if (improved) changed = 1;` from many threads is no race report here (nor is a
# read of that location unordered with such a write: it sees the value either way). C++'s rules
    # still call it a data race: the launch warns, naming the line (a warning costs no points).
    def _keep_setters(self, acc, w, rewrites):
        """Before a write replaces the writers' records `w`: where it rewrites the value of an
        unordered writer (`rewrites`), the write that set that value stays known (Shadow.w_set:
        the first of a run of rewrites keeps it); any other write sets the value itself."""
        sh, key = acc.sh, acc.key
        if rewrites is not None and rewrites.any():
            sets = sh.setters()
            k = key[rewrites]
            fresh = sets[k] < 0
            k = k[fresh]
            sets[k] = w[rewrites][fresh]
            if sh.w_set_sync is not None:
                sh.w_set_sync[k] = sh.w_sync[k]
            if sh.w_set_clock is not None:
                sh.w_set_clock[k] = sh.w_clock[k]
            sets[key[~rewrites]] = NONE      # after: a location written by both kinds of lane stays strict
        elif sh.w_set is not None:
            sh.w_set[key] = NONE

    def _keep_lane_setters(self, acc, lanes):
        """Lanes of one store instruction that wrote one location with equal bytes, and lost the
        scatter to another lane (`lanes`): one of them is kept as a write that set the value (a
        read ordered after it sees the value whichever lane's write it sees)."""
        if not lanes.any():
            return
        sh, key, e = acc.sh, acc.key, self.wave
        sets = sh.setters()
        k = key[lanes]
        fresh = sets[k] < 0
        k = k[fresh]
        rec = acc.cur[lanes][fresh]
        sets[k] = rec | acc.number * 4 if sh.lay.packed_sites else rec
        if sh.w_set_sync is not None:
            sh.w_set_sync[k] = self.sync.own(e.lane_index(acc.L) + e.gslot_base)[lanes][fresh]
        if sh.w_set_clock is not None:
            sh.w_set_clock[k] = self.clocks.own[acc.L][lanes][fresh]

    def _value_set_before(self, acc, lanes):
        """Per lane of a read (only `lanes`, unordered with the last writer, are looked at): whether
        that writer rewrote the value of the write that set it and the read is ordered after that
        write, so that it sees this value whichever write it sees. In a large launch that fences
        the location-blind ticket rule would need the setter's fence count: strict there."""
        sh, key = acc.sh, acc.key
        sets = sh.w_set[key]
        kept = lanes & (sets >= 0)
        if not kept.any() or (self.fences is not None and self.sync is None):
            return np.zeros(len(lanes), bool)
        seen = kept & ~self._unordered(acc, sets, "write", setter=True)
        if seen.any():
            k = int(np.flatnonzero(seen)[0])
            line = self.program.sites[acc.site].line
            elem = int(acc.gran[k]) * acc.granule // max(1, acc.region.dtype.itemsize)
            self.report.warn(("same_value_read", acc.site), (
                f"line {line}: a thread reads {acc.region.name}[{elem}] while another thread, with "
                "nothing ordering the two, writes the value it already holds. The read sees that "
                "value whichever write it sees, but C++ calls the unordered write and read a data "
                "race; __syncthreads_or()/__syncthreads_count() or an atomic says the same without one"))
        return seen

    def _incoming(self, acc):
        """(byte offset, value bytes) per lane of the plain store being checked, or None."""
        got = acc.region.incoming
        if got is None:
            return None
        offsets, values, dtype = got
        n = self.wave.nlanes(acc.L)
        values = np.broadcast_to(np.asarray(values, dtype=dtype), (n,))
        return (np.broadcast_to(np.asarray(offsets, np.int64), (n,)),
                np.ascontiguousarray(values).view(np.uint8).reshape(n, dtype.itemsize))

    def _rewrites_value(self, acc, lanes):
        """Per lane: whether its store writes the bytes memory holds now (only `lanes` are looked at)."""
        same = np.zeros(len(lanes), bool)
        got = self._incoming(acc)
        if got is None:
            return same
        offsets, values = got
        k = np.flatnonzero(lanes)
        cols = offsets[k][:, None] + np.arange(values.shape[1])      # each lane's bytes, at once
        storage = acc.region.storage
        if acc.is_global:
            now = storage[cols]
        else:
            rows = self.wave.slot_block[self.wave.lane_index(acc.L)[k]]
            now = storage[rows[:, None], cols]
        same[k] = (now == values[k]).all(axis=1)
        if same.any():
            self._warn_same_value(acc, int(np.flatnonzero(same)[0]))
        return same

    def _lanes_agree(self, acc, lanes):
        """Per lane of one store instruction: whether every lane storing to its location stores
        the same bytes (only `lanes` are looked at)."""
        got = self._incoming(acc)
        if got is None:
            return np.zeros(len(lanes), bool)
        values = got[1]
        _, first, group = np.unique(acc.key, return_index=True, return_inverse=True)
        equal = (values == values[first][group]).all(axis=1)     # as the location's first lane
        group_agrees = np.ones(len(first), bool)
        np.logical_and.at(group_agrees, group, equal)
        agree = lanes & group_agrees[group]
        if agree.any():
            self._warn_same_value(acc, int(np.flatnonzero(agree)[0]))
        return agree

    def _warn_same_value(self, acc, k):
        line = self.program.sites[acc.site].line
        elem = int(acc.gran[k]) * acc.granule // max(1, acc.region.dtype.itemsize)
        self.report.warn(("same_value_writes", acc.site), (
            f"line {line}: threads write the same value to {acc.region.name}[{elem}] with nothing ordering "
            "the writes. On the GPU the location then holds that value whatever their order (compute-"
            "sanitizer's racecheck reports nothing), but C++ calls unordered writes a data race; "
            "__syncthreads_or()/__syncthreads_count() or an atomic says the same without one"))

    def _only_guesses(self, sh, key):
        """Whether every readers' record of granules `key` is a CAS loop's guess, or none."""
        r = sh.r[key]
        held = r >= 0
        codes = (r[held] & sh.lay.SITE_MASK) if sh.lay.packed_sites else sh.r_site[key][held]
        return bool(self.cas_guess[codes.astype(np.int64) >> 2].all())

    def _strong_writes(self, codes):
        """Which writers' site codes (of records that hold a writer) are strong: an atomic, or a
        volatile store."""
        return ((codes & 1) != 0) | self.volatile[codes.astype(np.int64) >> 2]

    def _scopes_apart(self, acc, other, codes):
        """Per lane of the atomic `acc`: whether it and the atomic recorded as `other` (its site
        codes `codes`) are not morally strong (PTX, memory consistency model): one of them is a
        _block atomic, and the two threads are of different blocks. Shared memory is one block's."""
        held = other >= 0                   # (the codes of a lane with no record mean nothing)
        block = np.zeros(len(codes), bool)
        if acc.is_global:
            block[held] = self.block_scoped[codes[held].astype(np.int64) >> 2] | self.block_scoped[acc.number]
        if not block.any():
            return block
        lay = acc.st.lay
        return block & (block_of(lay, lay.field(other), self.wave.spb) != acc.st.block[acc.L])

    def _warn_untracked(self):
        """A strong write after a fence (a release, maybe) in a launch too large for the clocks:
        races reported from here on may be between a hand-off's two sides. Said once."""
        self.report.warn("release_acquire", (
            f"this launch has {self.untracked_threads} threads, and a thread wrote with an atomic or a "
            f"volatile store after a fence: hand-offs through fences and flags are checked in launches "
            f"of up to {DENSE_LIMIT} threads, here only the last-block ticket orders blocks, so a race "
            "reported between a flag's writer and its reader may be a false alarm: check it with a "
            "smaller grid"))
        self.untracked_threads = 0

    def _synced(self, sh, key, rec, L, clocks, groups=True):
        """Release/acquire: per lane of L, whether the recorded access `rec` (its thread's clock
        in `clocks`; for readers folded together the newest of theirs) happens before this
        lane's access. groups: whether to decide folded records too (each thread of the group
        they name, the warp, the block or the launch, must be ordered), else never ordered."""
        e, lay = self.wave, sh.lay
        field = lay.field(rec).astype(np.int64)
        slots = e.lane_index(L)
        threads = slots + e.gslot_base
        base = (e.gslot_base + e.slot_block[slots].astype(np.int64) * e.spb) if lay.shared else np.zeros(len(slots), np.int64)
        several = (rec >= 0) & ((field & lay.SEVERAL) != 0)
        clock = clocks[key]
        ordered = self.sync.happened_before(threads, np.where((rec < 0) | several, -1, field + base), clock)
        if groups and several.any():
            for i in np.flatnonzero(several):
                lo, hi = self._reader_group(lay, int(field[i]), int(base[i]))
                ordered[i] = self.sync.group_before(int(threads[i]), lo, hi, clock[i])
        return ordered

    def _reader_group(self, lay, field, base):
        """The launch-wide threads [lo, hi) a record of several readers names: one warp, the
        warps of one block, or every thread (base: shared memory's block's first thread)."""
        spb = self.wave.spb
        if field == lay.MANY_TID:
            return 0, self.sync.n
        if field & lay.WARPS:
            first = base if lay.shared else (field & lay.BLOCK_MASK) * spb
            return first, first + spb
        first = base + warp_of(lay, field) * 32
        return first, min(first + 32, (first // spb + 1) * spb if not lay.shared else base + spb)

    def _note_read_clocks(self, sh, key, L, before):
        """Release/acquire: the clock beside each readers' record: its reader's own, or for
        readers folded together the newest of theirs (`before`: the clocks the records had)."""
        own = self.sync.own(self.wave.lane_index(L) + self.wave.gslot_base)
        several = (sh.lay.field(sh.r[key]) & sh.lay.SEVERAL) != 0
        sh.r_sync[key[~several]] = own[~several]
        if several.any():
            k = key[several]
            sh.r_sync[k] = before[several]
            np.maximum.at(sh.r_sync, k, own[several])

    def _hand_off(self, sh, key, L, kind, strong, number):
        """What an access does to the release/acquire state: a strong read observes what a release
        published to its location, a strong write publishes (after a fence) or ends it, an atomic
        does both in lane order, a plain write ends it."""
        threads = self.wave.lane_index(L) + self.wave.gslot_base
        if kind in ("atomic", "cas"):
            self.sync.atomic(sh.flags, key, threads, ticket=kind == "atomic", block_only=bool(self.block_scoped[number]))
        elif kind == "read":
            if strong and sh.flags:
                self.sync.strong_read(sh.flags, key, threads)
        elif strong:
            self.sync.strong_write(sh.flags, key, threads, rmw=False)
        elif sh.flags:
            self.sync.plain_write(sh.flags, key)

    def _thread(self, stamps, st, L, k):
        """The thread (its launch-wide number, or its slot in the wave for shared memory) of the
        single-thread stamp stamps[k] of lane k of L; -1 for a record of several readers."""
        field = int(st.lay.field(stamps[k]))
        if field & st.lay.SEVERAL:
            return -1
        if st.lay.shared:                   # the slot within its block, and lane k is of that block
            return field + int(self.wave.slot_block[L][k]) * self.wave.spb
        return field

    def _unordered(self, acc, other, side, setter=False):
        """The rule: which recorded accesses `other` (records, one per lane of the access `acc`:
        the writer's, side "write", or the readers', side "read"; setter: the value setters' of
        Shadow.w_set, with their clocks) nothing orders before it."""
        st, L, lay = acc.st, acc.L, acc.st.lay
        # 1. no barrier between them: a barrier interval they share (bar.arrive lags included)
        hit = same_interval(lay, other, acc.curbar, st.lag_of(L))
        if not (hit.any() or (acc.is_global and (other >= 0).any())):
            return hit
        # 2. program order: a thread's own accesses are ordered
        otid = lay.field(other)
        hit &= otid != st.tid[L]
        # 3. __syncwarp orders lanes of one warp: the warp epochs say, or the lane clocks where a
        #    sync may name part of a warp
        same_warp = warp_of(lay, otid) == st.warp[L]
        if not self.lane_clocks:
            hit &= ~(same_warp & ((other >> lay.WEP_SHIFT) != st.wep[L]))
        elif (hit & same_warp).any():
            clock = (acc.sh.w_set_clock if setter else acc.sh.w_clock if side == "write" else acc.sh.r_clock)[acc.key]
            hit &= ~(same_warp & self.clocks.ordered(acc.sh, acc.key, other, clock, L, readers=side == "read"))
        if acc.is_global:
            # 4. blocks are never ordered by a barrier: an access of another block is unordered in
            #    any interval (a record of readers of several blocks always holds one of another
            #    block) ...
            same_block = block_of(lay, otid, self.wave.spb) == st.block[L]
            cross = (other >= 0) & ~same_block
            if side == "write" and self.fences is not None and self.sync is None:
                # ... unless the fence ticket published it (the location-blind rule, only where
                # the release/acquire clocks are not kept: a large launch)
                writer = np.minimum(otid, len(self.fences) - 1)
                cross &= ~self._published(writer, st.tid[L], acc.sh.fence_counts()[acc.key])
            hit = (hit & same_block) | cross
        if self.sync is not None and hit.any():
            # 5. a release/acquire hand-off orders them (release_acquire.py)
            clocks = acc.sh.w_set_sync if setter else acc.sh.w_sync if side == "write" else acc.sh.r_sync
            hit &= ~self._synced(acc.sh, acc.key, other, L, clocks)
        return hit

    def _record_write(self, acc):
        """A write or atomic: races with this interval's unordered readers, then it is the last
        writer."""
        e = self.wave
        sh, key, st, L, kind = acc.sh, acc.key, acc.st, acc.L, acc.kind
        site, number = acc.site, acc.number
        cur, atomic, is_global = acc.cur, acc.atomic, acc.is_global
        if sh.r is None or (kind == "cas" and self._only_guesses(sh, key)):
            r_conf = None        # nobody read this region yet; a CAS after CAS loops' guesses (they check them)
        else:
            r = sh.r[key]
            r_conf = self._unordered(acc, r, "read")
            codes = (r & st.lay.SITE_MASK if st.lay.packed_sites else sh.r_site[key]) if r_conf.any() else None
            if codes is not None and (kind == "cas" or acc.strong):
                k = np.flatnonzero(r_conf)          # lanes whose record holds readers
                site = codes[k].astype(np.int64) >> 2
                if kind == "cas":
                    # a CAS after a CAS loop's guess of another thread: that thread's CAS checks it
                    r_conf[k] &= ~self.cas_guess[site]
                if acc.strong:
                    # a strong write of a flag after other threads' volatile waits on it (they read
                    # it before it was set): morally strong (PTX), no data race
                    r_conf[k] &= ~(self.waits[site] & self.volatile[site])
            if self.sync is not None and r_conf.any() and acc.strong:
                # a release's strong write after strong reads of its flag (waiters that read it
                # before it was set): the hand-off itself
                releases = self.sync.releases(e.lane_index(L) + e.gslot_base)
                r_conf &= ~(releases & self.volatile[codes.astype(np.int64) >> 2])
            if kind == "write" and not atomic and r_conf.any():
                r_conf &= ~self._rewrites_value(acc, r_conf)     # the readers saw this value either way
        if r_conf is not None and r_conf.any():
            k = int(np.flatnonzero(r_conf)[0])
            other = st.lay.field(r[k])
            cross = is_global and int(block_of(st.lay, other, e.spb)) != int(st.block[L][k])
            self._report("WAR", acc, k, self._thread(r, st, L, k), self.memory_sites[sh.r_code(key[k]) >> 2], "read",
                         cross=cross)
        sh.write(key, cur, number * 4 + (1 if atomic else 0) + (2 if kind == "cas" else 0))
        if self.lane_clocks:
            sh.w_clock[key] = self.clocks.own[L]
        if self.sync is not None:
            threads = e.lane_index(L) + e.gslot_base
            sh.w_sync[key] = self.sync.own(threads)
            sh.w_release[key] = self.sync.releases(threads) if acc.strong else False
        if len(key) > 1 and not atomic and not _increasing(key):
            # two lanes of this very instruction writing one location: scatter, then read back
            # (one site: the records differ in their threads only)
            back = sh.w[key]
            clash = st.lay.field(back) != st.lay.field(cur)
            if clash.any():
                agree = self._lanes_agree(acc, clash)
                self._keep_lane_setters(acc, agree)
                clash &= ~agree
            if clash.any():
                k = int(np.flatnonzero(clash)[0])
                self._report("WAW", acc, k, self._thread(back, st, L, k), site, "write")
        elif len(key) > 1 and atomic and is_global and self.block_scoped[number]:
            # lanes of two blocks in this one _block atomic on one location (lockstep runs blocks
            # side by side): not atomic with each other
            back = sh.w[key]
            clash = block_of(st.lay, st.lay.field(back), e.spb) != st.block[L]
            if clash.any():
                k = int(np.flatnonzero(clash)[0])
                self._report("WAW", acc, k, self._thread(back, st, L, k), site, "atomic", block_scope=True)
        if is_global and self.fences is not None:
            g = st.lay.field(cur).astype(np.int64)     # launch-wide thread numbers, for the clocks
            sh.fence_counts()[key] = self.fences[g]
            if atomic and not self.block_scoped[number]:      # (a _block atomic is no ticket between blocks)
                # the lanes of one atomic instruction apply in lane order: a finer clock
                clock = (e.steps << 27) + g + 1
                self.atomic_clock[g] = clock
                np.maximum.at(self.block_atomic_clock, g // e.spb, clock)

    def _record_read(self, acc, repeats, shared_reads=None):
        """A read: remember this interval's readers, folded into one record per granule that keeps
        their warp when they share one and their block when they share one. repeats: whether two
        lanes may read one granule; shared_reads: their groups (_reader_groups), where found."""
        sh, key, st, L, curbar, is_global = acc.sh, acc.key, acc.st, acc.L, acc.curbar, acc.is_global
        if self.lane_clocks:
            return self._record_read_with_clocks(acc)
        code = acc.number * 4
        if shared_reads is not None and self._record_broadcast_read(sh, key, st, shared_reads, code, is_global):
            return
        old = sh.readers()[key]
        synced = before = None
        if self.sync is not None:
            before = sh.r_sync[key]
            synced = self._synced(sh, key, old, L, sh.r_sync, groups=False)
        new = self._fold_reader(old, st, L, curbar, is_global, synced=synced)
        sh.read(key, new, code)
        if repeats:
            # lanes of this very instruction reading one location: scatter, then fold the losers in
            back = sh.r[key]
            clash = back != (new | code if st.lay.packed_sites else new)
            if clash.any():
                if isinstance(L, slice) and 2 * np.count_nonzero(clash) > len(key):
                    # most lanes clash (a broadcast read): fold them all through views of the
                    # per-slot tables, then keep the clashing ones (the fold is per lane)
                    folded = self._fold_reader(back, st, L, curbar, is_global)[clash]
                else:
                    lanes = np.arange(len(st.tid))[L][clash]      # L may be a slice
                    folded = self._fold_reader(back[clash], st, lanes, curbar[clash], is_global)
                # Each loser folded against the same winner: the widest fold covers them all
                # (one warp < several warps of one block < several blocks), so store it last.
                lay = st.lay
                f = lay.field(folded)
                width = (f & lay.SEVERAL != 0).astype(np.int8) + (f & lay.WARPS != 0) + (f == lay.MANY_TID)
                if width.min() == width.max():        # as usual, one width: one scatter
                    sh.read(key[clash], folded, code)
                else:
                    for w in np.unique(width):
                        sh.read(key[clash][width == w], folded[width == w], code)
        if self.sync is not None:
            self._note_read_clocks(sh, key, L, before)

    def _reader_groups(self, sh, key, st, L):
        """Lanes L reading granules `key`, some of them the same (a broadcast read: As[ty][k],
        s[0]), grouped by granule: (their slots, each granule's first lane, its last lane: indices
        into L), where the per-granule shortcuts (_writer_may_conflict, _record_broadcast_read)
        hold: the lanes are in slot order and all carry the same epochs (stamp less thread; in
        lockstep, as usual, the whole wave). None where not: the per-lane checks decide.

        In slot order the readers of one granule are monotone in warp and block, so its first and
        last reader say whether they span several warps or blocks."""
        n = len(key)
        slots = self.wave.lane_index(L)
        if not isinstance(L, slice) and not (slots[1:] > slots[:-1]).all():
            return None
        if not st.uniform:
            ep = st.epochs[L]
            if not (ep == ep[0]).all():
                return None
        head = key[:33]                             # granules in lane order (As[ty][k]): run ends
        step = head[1:] - head[:-1]
        if (step >= 0).all():
            step = key[1:] - key[:-1]
            if (step >= 0).all():
                ends = np.flatnonzero(step != 0)
                return slots, np.concatenate(([0], ends + 1)), np.append(ends, n - 1)
        elif (step < 0).all():
            # a reversed tile (tile[n - 1 - t]): falling runs over rising ranges read no granule
            # twice, which the per-lane fold handles at its cheapest
            step = key[1:] - key[:-1]
            up = np.flatnonzero(step >= 0)
            if not (step[up] == 0).any():
                highs, lows = key[np.concatenate(([0], up + 1))], key[np.append(up, n - 1)]
                if (lows[1:] > highs[:-1]).all():
                    return None
        # (Bs[k][tx]): the last, then the first lane per granule, through a table of one instruction
        # (np.empty: only the pages it touches are ever mapped)
        table = np.empty(sh.n, np.int32)
        if self._lanes is None or len(self._lanes) < n:
            self._lanes = np.arange(max(n, self.wave.S), dtype=np.int32)
        lanes = self._lanes[:n]
        table[key] = lanes
        last = np.flatnonzero(table[key] == lanes)
        table[key[::-1]] = lanes[::-1]
        return slots, table[key[last]], last

    def _writer_may_conflict(self, sh, key, st, groups, is_global):
        """Whether a writer's record of the granules a broadcast read shares may conflict with
        it: one of this interval, or in global memory any (another block's is never ordered).
        All lanes of a granule see its record, and they carry the same epochs: one test each."""
        slots, first, last = groups
        w = sh.w[key[last]]
        s_last = slots[last]
        return bool(same_interval(st.lay, w, st.bar[s_last], st.lag_of(s_last)).any()
                    or (is_global and (w >= 0).any()))

    def _record_broadcast_read(self, sh, key, st, groups, code, is_global):
        """_record_read for a broadcast read (groups: _reader_groups), one record update per
        granule instead of a fold per lane; False (nothing done) where a granule's record is
        neither of the two kinds below, and the per-lane fold decides.

        Fresh: a record of another interval (or nobody's), in global memory of the readers' own
        block. Every lane's fold is then its own stamp; the scatter keeps the last lane's, and
        every other lane of the granule folds against it into: several readers of one warp when
        all its readers are of that warp, several warps of one block when they share the block,
        several blocks otherwise (the widest fold wins), with the common epochs.
        Covered: a record of several readers with these very epochs whose group holds every
        reader (one warp: all of that warp; several warps: all of that block; several blocks).
        Every lane's fold gives it back unchanged (only the site is this read's).
        Either way the very record the per-lane fold stores (tests/simcore/checks/test_race_broadcast.py
        replays every use against it)."""
        slots, first, last = groups
        lay = st.lay
        gran = key[last]
        old = sh.readers()[gran]
        s_last, s_first = slots[last], slots[first]
        fresh = ~same_interval(lay, old, st.bar[s_last], st.lag_of(s_last))
        one_warp = st.warp[s_first] == st.warp[s_last]
        if is_global:
            b_first, b_last = st.block[s_first], st.block[s_last]
            one_block = b_first == b_last
            ob = block_of(lay, lay.field(old), st.spb)
            fresh &= (old < 0) | ((ob == b_last) & (ob == b_first))
        covered = None
        if not fresh.all():
            rec = old & lay.dtype(~lay.SITE_MASK)
            covered = (rec == st.several[s_last]) & one_warp
            covered |= (rec == st.several_warps[s_last]) & (one_block if is_global else True)
            if is_global:
                covered |= rec == st.many_blocks[s_last]
            if not (fresh | covered).all():
                return False
        new = np.where(one_warp, st.several[s_last], st.several_warps[s_last])
        if is_global:
            new = np.where(one_block, new, st.many_blocks[s_last])
        new = np.where(first == last, st.stamp[s_last], new)
        sh.read(gran, new if covered is None else np.where(covered, rec, new), code)
        return True

    def _record_read_with_clocks(self, acc):
        """_record_read with lane clocks: the same records, each with its lane's clock, and for
        readers of one warp folded together the row of their clocks (old readers of this interval
        and warp stay in it: a lane ordered after a later reader is ordered after them too)."""
        sh, key, st, L, curbar = acc.sh, acc.key, acc.st, acc.L, acc.curbar
        number, is_global = acc.number, acc.is_global
        e, lay = self.wave, st.lay
        old = sh.readers()[key]
        old_clock = sh.r_clock[key]
        synced = before = None
        if self.sync is not None:
            before = sh.r_sync[key]
            synced = self._synced(sh, key, old, L, sh.r_sync, groups=False)
        new = self._fold_reader(old, st, L, curbar, is_global,
                                self.clocks.ordered(sh, key, old, old_clock, L, readers=True), synced)
        code = number * 4
        sh.read(key, new, code)
        sh.r_clock[key] = self.clocks.own[L]
        if len(key) > 1 and not _increasing(key):
            # lanes of this very instruction reading one location: fold the losers in (no lane is
            # ordered after another's access of the same instruction)
            back = sh.r[key]
            clash = back != (new | code if lay.packed_sites else new)
            if clash.any():
                lanes = e.lane_index(L)[clash]
                folded = self._fold_reader(back[clash], st, lanes, curbar[clash], is_global,
                                           np.zeros(len(lanes), bool))
                f = lay.field(folded)
                width = (f & lay.SEVERAL != 0).astype(np.int8) + (f & lay.WARPS != 0) + (f == lay.MANY_TID)
                for w in np.unique(width):
                    sh.read(key[clash][width == w], folded[width == w], code)
        if self.sync is not None:
            self._note_read_clocks(sh, key, L, before)
        field = lay.field(sh.r[key])
        one_warp = np.flatnonzero((field & (lay.SEVERAL | lay.WARPS)) == lay.SEVERAL)
        if len(one_warp) == 0:
            return
        rows = sh.reader_rows(key[one_warp])
        was, was_field = old[one_warp], lay.field(old[one_warp])
        lag = st.lag_of(L)
        kept = same_interval(lay, was, curbar[one_warp], None if lag is None else lag[one_warp]) & \
            (warp_of(lay, was_field) == st.warp[L][one_warp])
        kept_row = kept & ((was_field & (lay.SEVERAL | lay.WARPS)) == lay.SEVERAL)
        sh.rows[rows[~kept_row]] = -1                         # a row of another interval or warp
        single = kept & ((was_field & lay.SEVERAL) == 0)
        sh.rows[rows[single], was_field[single] & 31] = old_clock[one_warp][single]
        slots = e.lane_index(L)[one_warp]
        sh.rows[rows, e.slot_lane[slots]] = self.clocks.own[slots]

    @staticmethod
    def _fold_reader(r, st, L, curbar, is_global, ordered=None, synced=None):
        """The reader record after lanes L read, given the record `r` (one per lane). ordered:
        with lane clocks, per lane whether a record of its warp is ordered before it; synced:
        in kernels that fence, per lane whether the recorded read happens before it by a
        release/acquire hand-off (then it is over, in any block)."""
        cur, lay = st.stamp[L], st.lay
        same_bar = same_interval(lay, r, curbar, st.lag_of(L))
        otid = lay.field(r)
        if is_global:
            # In global memory a reader of another block stays unordered whatever the interval:
            # never drop it, nor its block.
            other_block = (r >= 0) & (block_of(lay, otid, st.spb) != st.block[L])
        else:
            other_block = np.zeros(len(r), bool)
        if synced is not None:
            other_block &= ~synced
        if not (same_bar.any() or other_block.any()):
            return cur
        same_warp = warp_of(lay, otid) == st.warp[L]
        if ordered is None:
            ordered = (r >> lay.WEP_SHIFT) != st.wep[L]          # by __syncwarp (the warp epochs)
        over = (otid == st.tid[L]) | (same_warp & ordered)      # the old read is over
        if synced is not None:
            over |= synced
        folded = np.where(same_warp, st.several[L], st.several_warps[L])
        new = np.where(~same_bar | over, cur, folded)
        return np.where(other_block, st.many_blocks[L], new)

    def shadow_bytes(self):
        """Bytes the shadows of the current wave hold (global memory's and this wave's shared)."""
        return sum(sh.nbytes for table in (self.global_shadows, self.shared_shadows) for sh in table.values())

    def _report(self, hazard, acc, k, other_tid, other_site, other_kind, cross=None, plain_flag=False,
                block_scope=False):
        """Report the race of lane k of the access `acc` with the recorded access of thread
        `other_tid` (-1: one of several readers) at `other_site`. block_scope: two atomics of
        different blocks, one of them a _block atomic (atomic only inside its block)."""
        e, region = self.wave, acc.region
        tid, site, kind = self._thread(acc.cur, acc.st, acc.L, k), acc.site, "atomic" if acc.atomic else acc.kind
        elem = int(acc.gran[k]) * acc.granule // max(1, region.dtype.itemsize)
        first = {"slot": other_tid, "site": other_site, "kind": other_kind,
                 "who": self._who(other_tid, region) if other_tid >= 0 else "another thread"}
        second = {"slot": tid, "site": site, "kind": kind, "who": self._who(tid, region)}
        if cross is None:
            cross = region.kind == "global" and other_tid >= 0 and other_tid // e.spb != tid // e.spb
        # slots of one wave (shared) or launch-wide ones (global): a warp is 32 of them either way
        partial = None
        if self.lane_clocks and other_tid >= 0 and other_tid // 32 == tid // 32:
            partial = tid if region.kind == "shared" else tid - e.gslot_base
        hand_off = None
        if self.sync is not None:
            hand_off = "plain_flag" if plain_flag else "fences"
            if other_tid >= 0 and not plain_flag:
                base = 0 if region.kind == "global" else e.gslot_base    # launch-wide thread numbers
                if self.sync.saw_unacquired_release(tid + base, other_tid + base):
                    hand_off = "no_acquire_fence"
        if block_scope:
            hand_off = "block_scope"
        self.report.race(hazard, region, elem, first, second, cross_block=cross, partial_warp_sync=partial,
                         hand_off=hand_off)

    def _who(self, tid, region):
        e = self.wave
        slot = tid if region.kind == "shared" else tid - e.gslot_base
        if 0 <= slot < e.S:
            return self.report.who(slot)
        return self.report.who_global(tid)

