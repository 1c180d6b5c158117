"""The race checks ('race': shared memory, 'global_race': global memory), a plugin.

Shadow memory per granule (the kernel's smallest access size) remembers the last writer and
the readers of the current *barrier interval*. Two accesses race when they come from
different threads of one block, at least one writes (plain, or atomic against plain), and
no barrier separates them: each thread's barrier epoch counts the barriers it has passed,
and lanes of one warp are also ordered by __syncwarp (their warp epoch).

Each granule has a writer's record and, from the region's first read on, a readers' record: one
integer each, whose layout (Layout) is fitted to the launch: what a race report needs and what
the kernel can use, in as few bits as that launch needs. From the low bits up:

  site      the access's memory site (loads, stores and atomics only, numbered densely:
            Site.memory) * 4, + 1 if atomic, + 2 if atomicCAS: the report's line and text, and
            whether a later atomic (or a CAS loop's plain first read) conflicts with the writer.
            (memory sites * 4 + 3).bit_length() bits: 5 up to 7 memory sites, 8 up to 63.
  thread    one thread, or several readers behind two flag bits (see Layout). Shared memory: the
            thread's slot in its block (a shadow entry belongs to one block), bits(slots per block
            - 1) + 2: 10 bits for 256-thread blocks, 12 for 1024. Global memory: the launch-wide
            slot, bits(slots in the launch) + 2: 23 bits at 2^20 threads. (The report derives
            block, warp and lane from it.)
  lag       2 bits, only in kernels with bar.arrive: barrier epochs the thread entered by
            arriving, not waiting (MAX_LAG = 3).
  warp ep.  8 bits, only in kernels with __syncwarp: the __syncwarps the thread passed, mod 256
            (with lane clocks, unused: see below).
  barrier   8 bits, the highest field (so "same interval" is one shift and compare): the
            barriers the thread passed, mod 256. 8 bits are the fewest the sweep allows: every
            SWEEP_EVERY = 64 epochs the stamps all live threads have left behind are made plainly
            old, and a stamp must stay less than half the range from its group's newest epoch:
            SWEEP_EVERY + STALE_GAP = 72 < 128, while 7 bits (half range 64) would not do.

The record is a signed integer with the sign bit clear (NONE, -1, is "nobody"), the cheapest of:
the site inside an int32 (4 bytes); an int32 without it plus a uint8 (or uint16) site array (5 or
6 bytes: global memory of launches up to 2^20 threads, kernels with __syncwarp and many sites);
the site inside an int64 (8: global memory of larger launches); an int64 plus a site array (never
in practice: over 2^26 blocks of one thread). So a shared array read and written costs 8 bytes a
word (10 in 1024-thread blocks with __syncwarp), a global output only written 4 to 8 (the
2^20 reduce, stencil, reverse: 5), an array only read none at all. Once a kernel fences, global
writes add one byte (the fence count). Bytes per written word at 2^20 threads: reduce 7.82,
stencil 5.34, reverse 5.18 (fixed int64/int32 stamps with site arrays took 9.94, 9.11, 9.06).

Readers of one granule in one step (lanes of several warps, or of several blocks) are folded
into one record after the scatter (_record_read): each lane that lost the scatter is folded
against the winner, so the record names the widest group (one warp < several warps of one
block < several blocks) and a writer ordered after one of them by __syncwarp still races with
the others (conformance/y_syncwarp_orders_one_of_two_readers*.cu). A broadcast read (16 lanes of a
tiled matmul reading As[ty][k]) takes a shortcut to that very record where its lanes carry the same
epochs: the lanes are grouped by granule once (_reader_groups), the writer check and the record
are then per granule (_writer_may_conflict, _record_broadcast_read): the tiled matmul with checks
on takes 0.54x (256x256) and 0.51x (512x512) the CPU time of the per-lane fold.

Lanes of one warp: while every __syncwarp of a kernel names the whole warp (its mask is the
constant 0xffffffff: __syncwarp(), a 32-thread tile's sync()), two lanes are ordered once the
later one's warp epoch moved past the earlier access. A partial sync (__syncwarp(mask), a smaller
tile's sync(), a mask from __activemask()) orders only the lanes it names, which one count per
lane cannot say; so a kernel where some __syncwarp's mask is not that constant (decided from
the program: SyncSite.whole_warp) gets *lane clocks*, a vector clock over the lanes of each warp:

  own[l]      the warp syncs lane l took part in (per slot, int32: no wrap-around);
  know[l][m]  the newest own[m] that lane l has heard of, through a chain of syncs.

At a sync of the lanes G of one mask, each lane of G counts it (own[g] += 1, know[g][g] = own[g])
and then every lane of G takes the element-wise max of their rows of `know`. Lanes that exited
are done: the sync also orders the accesses of the exited lanes its mask names (a tail warp's
__syncwarp() names all 32), and only those: a lane outside the mask may exit before or after the
sync, so ordering it when it happened to exit first would make the verdict depend on the run.
An access by lane m carries own[m] at the time (the shadow's w_clock / r_clock, an int32 beside
each record), and an access by lane l of m's warp is ordered after it iff know[l][m] > that
clock. Readers of one warp folded into one record keep every reader's clock in a row of 32
(Shadow.rows, one per granule that ever had them): a lane is ordered after the record iff it is
ordered after each reader but itself; a later reader ordered after all of them replaces the
record, as before. Between warps, and across barriers, nothing changes; the warp epochs in the
records are then not read (nor swept). Shuffles, votes and __activemask() order no memory, with
or without lane clocks. Kernels without a partial sync keep the records, the size and the speed
they had (no clock arrays, one extra test per access).

Kernels that fence: release/acquire hand-offs (release_acquire.py) order accesses too. Each
record then has its thread's own clock beside it (Shadow.w_sync / r_sync; for readers folded
into one record the newest of theirs), each writer's record whether it was a release (a strong
write after a fence: Shadow.w_release), each shadow the granules releases published to
(Shadow.flags). An access is ordered after a record when its thread has heard of a newer
clock of the record's thread (of every thread of a folded record's group); a strong read of a
release's location, and a release's strong write after strong reads, are the hand-off itself.
Kernels without a fence keep their records, sizes and speed (self.sync is None). With lane clocks: 128 bytes per slot of
the wave (know; at most 8 MB), 4 more a record, and a 16-thread tile reduction at 2^16 threads
takes 1.4x the CPU time (its 9 tile syncs: one max over each tile's rows, a view when the tiles
are whole).
"""
from functools import cached_property

import numpy as np

from ..context import EXIT
from ..errors import DataRace
from .base import Plugin
from .release_acquire import DENSE_LIMIT, ReleaseAcquire

NONE = -1
MAX_LAG = 3                    # 2 bits: barrier epochs a thread passed by bar.arrive, not waiting
# Epochs are kept modulo 2**EPOCH_BITS, so a stamp that many barriers (or __syncwarps) old would
# read as "this interval". Every SWEEP_EVERY epochs of a block (warp) the stamps all its live
# threads have left behind are made plainly old: cleared (shared memory) or given an epoch no
# live thread will have before the next sweep (global memory, where the thread still matters
# to other blocks).
SWEEP_EVERY = 64
STALE_GAP = 2 * (MAX_LAG + 1)  # a swept stamp's epoch: this far below the group's slowest thread
EPOCH_BITS = 8
FLAG_BITS = 2                  # SEVERAL and WARPS, above a thread number
FULL = 0xFFFFFFFF
SITE_FLAGS = 2                 # atomic, atomicCAS: below the site number


class Layout:
    """Where the fields of a record lie, for one kind of memory in one launch (see the module
    docstring). The thread field holds a thread number, or with the SEVERAL flag several
    readers: of one warp w (low bits w << 5 | 31, so that (field & LOW) >> 5 is the warp in both
    cases), of several warps of one block (SEVERAL | WARPS | block; shared memory: no block), or
    of several blocks (all ones)."""

    def __init__(self, shared, id_bits, nsites, lag, syncwarp):
        self.shared = shared
        self.id_bits = id_bits
        self.nsites = nsites
        tid_bits = id_bits + FLAG_BITS
        self.lag_bits = 2 if lag else 0
        self.wep_bits = EPOCH_BITS if syncwarp else 0
        largest_code = nsites * 4 + 3
        site_bits = largest_code.bit_length()
        rest = tid_bits + self.lag_bits + self.wep_bits + EPOCH_BITS
        # the cheapest of: sites inside an int32; an int32 and a site array; sites inside an int64
        self.site_dtype = None
        if rest + site_bits <= 31:
            self.dtype = np.int32
        elif rest <= 31:
            self.dtype, site_bits, self.site_dtype = np.int32, 0, _narrowest(largest_code)
        elif rest + site_bits <= 63:
            self.dtype = np.int64
        else:
            self.dtype, site_bits, self.site_dtype = np.int64, 0, _narrowest(largest_code)
        self.packed_sites = site_bits > 0
        self.SITE_MASK = (1 << site_bits) - 1
        self.TID_SHIFT = site_bits
        self.TID_MASK = (1 << tid_bits) - 1
        self.SEVERAL = 1 << (tid_bits - 1)
        self.LOW = self.SEVERAL - 1
        self.WARPS = 1 << (tid_bits - 2)
        self.BLOCK_MASK = self.WARPS - 1
        self.MANY_TID = self.TID_MASK
        self.EMASK = (1 << EPOCH_BITS) - 1
        self.HALF = (self.EMASK + 1) // 2
        self.LAG_SHIFT = self.TID_SHIFT + tid_bits
        self.WEP_SHIFT = self.LAG_SHIFT + self.lag_bits
        self.BAR_SHIFT = self.WEP_SHIFT + self.wep_bits
        self.THREAD_BITS = self.TID_MASK << self.TID_SHIFT        # the thread field in place
        assert self.BAR_SHIFT + EPOCH_BITS < 8 * np.dtype(self.dtype).itemsize   # the sign bit stays clear
        assert self.HALF > SWEEP_EVERY + STALE_GAP                             # see RaceDetector._sweep

    @classmethod
    def for_launch(cls, shared, slots, program):
        """The layout for shared memory (slots: per block) or global memory (slots: in the launch).
        A several-warps record must not look like a warp's (its warp field is past the last warp),
        and the several-blocks one (all ones) like a block's: shared slots need bits(slots - 1),
        launch-wide slots bits(slots)."""
        sites = program.sync_sites
        lag = any(s.op == "bar" and s.mode == "arrive" for s in sites)
        syncwarp = any(s.op == "syncwarp" for s in sites)
        id_bits = max(5, (slots - 1).bit_length() if shared else slots.bit_length())
        return cls(shared, id_bits, sum(s.memory for s in program.sites), lag, syncwarp)

    def field(self, rec):
        """The thread field of records (or stamps)."""
        return (rec >> self.TID_SHIFT) & self.TID_MASK

    def in_place(self, field):
        """A thread field's bits, where it lies in a record."""
        return field << self.TID_SHIFT


def stamp(lay, tid, bar, wep, lag=None):
    """One stamp per access (see Layout): a record without its site.

    The lag is how many of the thread's barrier epochs it entered by bar.arrive, which publishes
    its earlier writes but waits for nobody: its accesses since its last waiting barrier are
    unordered with every interval from that one to its current one.

    Same barrier interval <=> equal bits from BAR_SHIFT up; NONE (-1) never matches."""
    dt = lay.dtype
    st = ((bar.astype(dt) & lay.EMASK) << lay.BAR_SHIFT) | lay.in_place(tid.astype(dt))
    if lay.wep_bits:
        st |= (wep.astype(dt) & lay.EMASK) << lay.WEP_SHIFT
    return st if lag is None else st | (lag.astype(dt) << lay.LAG_SHIFT)


def same_interval(lay, other, curbar, curlag):
    """Which recorded stamps `other` fall in a barrier interval this access (epoch curbar, lag
    curlag; None: no thread lags) shares: the same epoch, or, for a lagging side, an epoch
    between its last waiting barrier and its current one. NONE never matches."""
    ob = other >> lay.BAR_SHIFT
    if curlag is None:
        return ob == curbar
    olag = (other >> lay.LAG_SHIFT) & MAX_LAG
    d = (curbar - ob) & lay.EMASK
    return (other >= 0) & ((d <= curlag) | (((-d) & lay.EMASK) <= olag))


def _increasing(key):
    """Keys strictly increasing with the lane (s[t], a[base + t], ...): no two lanes share a
    granule, so the scatter needs no collision test."""
    head = key[:33]             # a broadcast read (s[k], a tile row) already fails within one warp
    if not (head[1:] > head[:-1]).all():
        return False
    return bool((key[1:] > key[:-1]).all())


def warp_of(lay, field):
    """The warp of a thread field; for a several-warps record a number no warp has."""
    return (field & lay.LOW) >> 5


def block_of(lay, field, spb):
    """The block of a global thread field (`spb` slots a block): one thread's, or the one block
    that several readers share, or lay.BLOCK_MASK when readers of several blocks are folded
    together."""
    several_warps = (field & (lay.SEVERAL | lay.WARPS)) == (lay.SEVERAL | lay.WARPS)
    return np.where(several_warps, field & lay.BLOCK_MASK, warp_of(lay, field) * 32 // spb)


def _narrowest(largest):
    """The smallest unsigned integer type that holds 0..largest (site codes are never negative)."""
    for t in (np.uint8, np.uint16, np.uint32):
        if largest <= np.iinfo(t).max:
            return t
    return np.int64


class Shadow:
    """One record per granule: the last writer's, and from the region's first read on the
    readers' (the last reader's site, the readers folded as Layout says). A global array only
    ever written (an output) costs one record a granule, a shared one read and written two. Plus
    1 byte for the writer's fence count once a kernel fences; plus the site arrays (1 or 2 bytes
    a record) where the layout keeps the sites apart."""

    def __init__(self, n, lay, lane_clocks=False, release_acquire=False):
        self.n = n
        self.lay = lay
        # Kernels that fence (release_acquire.py): the accessing thread's own clock beside each
        # record, whether the last write was a release, and the granules releases published to
        self.w_sync = np.zeros(n, np.int32) if release_acquire else None
        self.w_release = np.zeros(n, bool) if release_acquire else None
        self.r_sync = None
        self.flags = {} if release_acquire else None
        self.w_fence = None                      # global memory: the writer's fence count at the write
        self.w = np.full(n, NONE, lay.dtype)    # last writer's record
        self.r = None                            # readers' record, from the first read on
        self.w_site = self.r_site = None         # sites apart (a layout that could not hold them)
        if not lay.packed_sites:
            self.w_site = np.zeros(n, lay.site_dtype)
        # Kernels with a partial warp sync (LaneClocks): the accessing lane's own clock beside each
        # record, and for readers of one warp folded together, each reader's clock (a row of 32
        # per granule that ever had such readers: row_of says which row; -1 none; in a row, -1:
        # that lane did not read).
        self.lane_clocks = lane_clocks
        self.w_clock = np.zeros(n, np.int32) if lane_clocks else None
        self.r_clock = None
        self.row_of = None
        self.rows = None
        self.nrows = 0

    def readers(self):
        """The readers' records, allocated at the region's first read (before it: nobody read)."""
        if self.r is None:
            self.r = np.full(self.n, NONE, self.lay.dtype)
            if not self.lay.packed_sites:
                self.r_site = np.zeros(self.n, self.lay.site_dtype)
            if self.lane_clocks:
                self.r_clock = np.zeros(self.n, np.int32)
            if self.w_sync is not None:
                self.r_sync = np.zeros(self.n, np.int32)
        return self.r

    def reader_rows(self, key):
        """The rows (indices into self.rows) of granules `key`, made where a granule has none."""
        if self.row_of is None:
            self.row_of = np.full(self.n, -1, np.int32)
            self.rows = np.full((max(16, len(key)), 32), -1, np.int32)
        idx = self.row_of[key]
        new = np.unique(key[idx < 0])
        if len(new):
            if self.nrows + len(new) > len(self.rows):
                grown = np.full((max(2 * len(self.rows), self.nrows + len(new)), 32), -1, np.int32)
                grown[:self.nrows] = self.rows[:self.nrows]
                self.rows = grown
            self.row_of[new] = np.arange(self.nrows, self.nrows + len(new), dtype=np.int32)
            self.nrows += len(new)
            idx = self.row_of[key]
        return idx

    def write(self, key, records, code):
        """Store writers' stamps with their site code (site * 4 + flags)."""
        if self.lay.packed_sites:
            self.w[key] = records | code
        else:
            self.w[key] = records
            self.w_site[key] = code

    def read(self, key, records, code):
        if self.lay.packed_sites:
            self.r[key] = records | code
        else:
            self.r[key] = records
            self.r_site[key] = code

    def w_codes(self, key, records):
        """The site codes of the writer records `records` (= self.w[key])."""
        return records & self.lay.SITE_MASK if self.lay.packed_sites else self.w_site[key]

    def r_code(self, key):
        return int(self.r[key] & self.lay.SITE_MASK) if self.lay.packed_sites else int(self.r_site[key])

    def fence_counts(self):
        """The writers' fence counts, from the first fence on (writes before it: count 0)."""
        if self.w_fence is None:
            self.w_fence = np.zeros(len(self.w), np.uint8)
        return self.w_fence

    @property
    def nbytes(self):
        return sum(a.nbytes for a in (self.w_fence, self.w, self.w_site, self.r, self.r_site, self.w_clock,
                                      self.r_clock, self.row_of, self.rows, self.w_sync, self.w_release,
                                      self.r_sync) if a is not None)


class Stamps:
    """The current stamp of every slot, and what the checks derive from it (cached per epoch;
    each derived array is computed the first time a check needs it)."""

    def __init__(self, wave, lay, acquired=None):
        self.lay = lay
        if lay.shared:
            self.tid = wave.slot_thread.astype(lay.dtype)          # the slot within its block
        else:
            self.tid = np.arange(wave.S, dtype=lay.dtype) + lay.dtype(wave.gslot_base)
        self.spb = wave.spb
        # lag: barrier epochs entered by bar.arrive since the thread last waited (None: nobody lags)
        self.lag = None if acquired is None else np.minimum(wave.bar_epoch - acquired, MAX_LAG)
        self.stamp = stamp(lay, self.tid, wave.bar_epoch, wave.warp_epoch, self.lag)
        self.bar = self.stamp >> lay.BAR_SHIFT

    def lag_of(self, L):
        return None if self.lag is None else self.lag[L]

    @cached_property
    def uniform(self):
        """Whether every slot of the wave carries the same epochs (the usual case in lockstep)."""
        ep = self.epochs
        return bool((ep == ep[0]).all())

    @cached_property
    def wep(self):
        return self.stamp >> self.lay.WEP_SHIFT

    @cached_property
    def warp(self):
        return self.tid >> 5

    @cached_property
    def epochs(self):
        return self.stamp & self.lay.dtype(~self.lay.THREAD_BITS)

    @cached_property
    def several(self):
        lay = self.lay
        return self.epochs | lay.in_place(lay.SEVERAL | (self.warp << 5) | 31)

    @cached_property
    def block(self):
        return self.tid // self.spb

    @cached_property
    def several_warps(self):
        lay = self.lay
        if lay.shared:                      # the shadow entry says which block
            return self.epochs | lay.in_place(lay.SEVERAL | lay.WARPS)
        return self.epochs | lay.in_place(lay.SEVERAL | lay.WARPS | self.block)

    @cached_property
    def many_blocks(self):
        return self.epochs | self.lay.in_place(self.lay.MANY_TID)


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
        self.fences = None          # per launch-wide thread: how many __threadfence() it has run
        self.acquired = None        # per slot, once a bar.arrive ran: the epoch it last waited into
        self.shared_layout = self.global_layout = None     # fitted to the launch at its first wave
        # records name memory sites only (loads, stores, atomics), numbered densely: fewer bits
        self.memory_sites = [i for i, s in enumerate(program.sites) if s.memory]
        self.memory_number = np.full(len(program.sites), -1, np.int64)
        self.memory_number[self.memory_sites] = np.arange(len(self.memory_sites))
        # Lane clocks (see the module docstring) only where a __syncwarp may name part of a warp:
        # its mask is not the constant 0xffffffff (a variable, __activemask(), a tile under 32)
        self.lane_clocks = any(s.op == "syncwarp" and not getattr(s, "whole_warp", False)
                               for s in program.sync_sites)
        self.own = self.know = None
        self._lanes = None          # 0, 1, 2, ...: lane positions, for _reader_groups
        # Release/acquire (release_acquire.py): vector clocks, only in kernels that fence
        self.sync = None
        self.volatile = np.array([program.sites[i].volatile for i in self.memory_sites], bool)
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
        self.acquired = None
        self._bar_swept = np.zeros(wave.nblk, np.int64)      # per block: its highest epoch at the last sweep
        self._wep_swept = np.zeros(wave.nwarps, np.int64)    # per warp: the same for __syncwarp epochs
        self._bar_due = self._wep_due = SWEEP_EVERY          # no block (warp) can be due before
        if self.lane_clocks:
            self.own = np.zeros(wave.S, np.int32)               # per slot: the warp syncs it took part in
            self.know = np.zeros((wave.S, 32), np.int32)        # per slot: the clocks of its warp it knows

    def on_block_fence(self, lanes):
        """__threadfence_block(): one side of a release/acquire hand-off inside a block."""
        self.fenced_any = True
        if self.sync is not None:
            self.sync.fence(lanes + self.wave.gslot_base, False)

    def on_fence(self, lanes):
        """__threadfence() then an atomic (a ticket, a flag) publishes a thread's earlier global
        writes to a block whose own atomic comes later: CUDA's threadFenceReduction protocol.
        A fence alone makes nobody wait, so it publishes nothing by itself. Every fence is also
        one side of a release/acquire hand-off (release_acquire.py)."""
        e = self.wave
        self.fenced_any = True
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
                self._join_clocks(sync, e.lane_index(lanes))
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

    def _join_clocks(self, sync, lanes):
        """A __syncwarp (or tile.sync()) completed for `lanes`, in groups of one warp and one mask:
        each lane's own clock moves on, then every lane of a group knows what any of them knew.
        The lanes that exited are done: a group orders the accesses of those its mask names (a
        tail warp's full mask names them all), never of lanes outside it."""
        e = self.wave
        masks = e.R[sync.operands["mask"]][lanes].astype(np.int64) & FULL
        key = e.slot_warp[lanes].astype(np.int64) << 32 | masks
        if not (key[1:] >= key[:-1]).all():            # usually in slot order already
            order = np.argsort(key, kind="stable")
            lanes, key = lanes[order], key[order]
        change = np.ones(len(key), bool)
        change[1:] = key[1:] != key[:-1]
        starts = np.flatnonzero(change)
        group = np.cumsum(change) - 1
        own, know = self.own, self.know
        own[lanes] += 1
        col = e.slot_lane[lanes]
        know[lanes, col] = own[lanes]
        n, size = len(lanes), (len(lanes) // len(starts))
        first = int(lanes[0])
        # as usual (tiles of a whole wave): consecutive slots in groups of one size, a view each
        rows = know[first:first + n] if int(lanes[-1]) - first == n - 1 and (np.diff(lanes) == 1).all() else None
        if rows is not None and size * len(starts) == n and (np.diff(starts) == size).all():
            joined = rows.reshape(-1, size, 32).max(axis=1)
        else:
            rows = None
            joined = np.maximum.reduceat(know[lanes], starts, axis=0)
        members = np.bitwise_or.reduceat(np.int64(1) << col, starts)
        gwarp = key[starts] >> 32
        live = e.live_bits()[gwarp]
        # the exited lanes it orders: those its mask names, and only those. (Whether a lane outside
        # the mask has already exited when the sync runs is up to the schedule: ordering it then
        # would make the verdict depend on the run.)
        exited = ~live & key[starts] & FULL
        g = np.flatnonzero(exited)
        if len(g):
            lane = np.arange(32)
            gone = ((exited[g][:, None] >> lane) & 1) == 1
            after = own[gwarp[g][:, None] * 32 + lane] + 1        # after every access they made
            joined[g] = np.where(gone, np.maximum(joined[g], after), joined[g])
        if rows is not None:
            rows.reshape(-1, size, 32)[:] = joined[:, None, :]
        else:
            know[lanes] = joined[group]

    def _lane_ordered(self, sh, key, rec, clock, L, readers):
        """Lane clocks: per lane of L, whether the recorded access `rec` (a lane of its own warp;
        its clock `clock`) is ordered before it: its lane knows a clock of that lane newer than
        the access. A record of several readers of one warp (readers=True): every reader's,
        except the lane's own read (program order)."""
        e = self.wave
        lay = sh.lay
        slots = e.lane_index(L)
        field = lay.field(rec)
        ordered = self.know.ravel()[slots * 32 + (field & 31)] > clock
        if readers and sh.row_of is not None:
            one_warp = np.flatnonzero((rec >= 0) & ((field & (lay.SEVERAL | lay.WARPS)) == lay.SEVERAL))
            if len(one_warp):
                rows = sh.rows[sh.row_of[key[one_warp]]]
                ok = (rows < 0) | (self.know[slots[one_warp]] > rows)
                ok[np.arange(len(one_warp)), e.slot_lane[slots[one_warp]]] = True
                ordered[one_warp] = ok.all(axis=1)
        return ordered

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
                for arr in (sh.w, sh.r):
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

    def _shadow(self, region, granule):
        e = self.wave
        table = self.shared_shadows if region.kind == "shared" else self.global_shadows
        sh = table.get(region.id)
        if sh is None:
            per = max(1, region.nbytes // granule)
            ra = self.sync is not None
            sh = table[region.id] = (Shadow(e.nblk * per, self.shared_layout, self.lane_clocks, ra)
                                     if region.kind == "shared" else Shadow(per, self.global_layout, self.lane_clocks, ra))
        return sh

    def _check(self, region, gran, granule, kind, L, site):
        e = self.wave
        number = int(self.memory_number[site])
        if number < 0:
            raise AssertionError(f"memory access at site {site}, which the compiler did not mark as one")
        sh = self._shadow(region, granule)
        is_global = region.kind == "global"
        st = self.stamps(region.kind)
        cur, curbar = st.stamp[L], st.bar[L]
        if is_global:
            key = gran.astype(np.int64)
        else:
            key = e.slot_block[L].astype(np.int64) * max(1, region.nbytes // granule) + gran
        atomic = kind in ("atomic", "cas")
        # lanes sharing granules (a broadcast read): found once, for the writer check and the record
        repeats = kind == "read" and len(key) > 1 and not _increasing(key)
        shared_reads = self._reader_groups(sh, key, st, L) if repeats and not self.lane_clocks \
            and self.sync is None else None
        if shared_reads is not None and not self._writer_may_conflict(sh, key, st, shared_reads, is_global):
            self._record_read(sh, key, st, L, curbar, number, is_global, repeats, shared_reads)
            return
        w = sh.w[key]
        published = None
        if is_global and self.fences is not None and self.sync is None:
            # the location-blind ticket rule, only where the clocks are not kept (a large launch)
            def published(otid):
                writer = np.minimum(otid, len(self.fences) - 1)
                return self._published(writer, st.tid[L], sh.fence_counts()[key])
        ordered = None
        if self.lane_clocks:
            def ordered():
                return self._lane_ordered(sh, key, w, sh.w_clock[key], L, readers=False)
        synced = None
        strong = atomic or bool(self.volatile[number])
        if self.sync is not None:
            def synced():
                return self._synced(sh, key, w, L, sh.w_sync)
        w_conf = self._unordered(w, st, L, curbar, is_global, published, ordered, synced)
        if w_conf.any():
            codes = sh.w_codes(key, w)
            if atomic:
                w_conf &= (codes & 1) == 0       # atomic against atomic is fine
            else:
                # A plain read of what an atomicCAS writes is the CAS loop's first guess (the CAS
                # checks it): the Programming Guide's own idiom, not a race.
                w_conf &= (codes & 2) == 0
            if strong and self.sync is not None:
                # a strong read (volatile, atomic) of a release's flag is the hand-off itself
                w_conf &= ~sh.w_release[key]
        if w_conf.any():
            k = int(np.flatnonzero(w_conf)[0])
            ws = int(codes[k])
            plain_flag = self.sync is not None and kind == "read" and not strong and bool(sh.w_release[key[k]])
            self._report("RAW" if kind == "read" else "WAW", region, gran[k], granule, self._thread(w, st, L, k),
                         self.memory_sites[ws >> 2], "atomic" if ws & 1 else "write", self._thread(cur, st, L, k), site,
                         "atomic" if atomic else kind, plain_flag=plain_flag)
        if kind == "read":
            self._record_read(sh, key, st, L, curbar, number, is_global, repeats, shared_reads)
        else:
            self._record_write(sh, key, st, L, curbar, site, number, region, gran, granule, kind, is_global)
        if self.sync is not None:
            self._hand_off(sh, key, L, kind, strong)
        elif self.untracked_threads and self.fenced_any and strong and kind != "read":
            self._warn_untracked()

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

    def _hand_off(self, sh, key, L, kind, strong):
        """What an access does to the release/acquire state: a strong read observes what a release
        published to its location, a strong write publishes (after a fence) or ends it, an atomic
        does both in lane order, a plain write ends it."""
        threads = self.wave.lane_index(L) + self.wave.gslot_base
        if kind in ("atomic", "cas"):
            self.sync.atomic(sh.flags, key, threads, ticket=kind == "atomic")
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

    def _unordered(self, other, st, L, curbar, is_global, published=None, ordered=None, synced=None):
        """Which recorded accesses `other` (stamps, one per lane) nothing orders before this
        lane's access: in this block, the same barrier interval by another thread (not ordered by
        __syncwarp); in global memory, also any access by a thread of another block (unless that
        thread has since published it: `published(thread ids)`). ordered: with lane clocks, a
        function giving, per lane, whether a record of its own warp is ordered before it (else
        the warp epochs say)."""
        lay = st.lay
        hit = same_interval(lay, other, curbar, st.lag_of(L))    # a barrier interval they share
        if not (hit.any() or (is_global and (other >= 0).any())):
            return hit
        otid, tid = lay.field(other), st.tid[L]
        hit &= otid != tid
        owarp = warp_of(lay, otid)
        same_warp = owarp == st.warp[L]
        if ordered is None:
            hit &= ~(same_warp & ((other >> lay.WEP_SHIFT) != st.wep[L]))   # ordered by __syncwarp
        elif (hit & same_warp).any():
            hit &= ~(same_warp & ordered())
        if is_global:
            # Blocks are never ordered by a barrier: an access of another block is unordered in any
            # interval. A record of readers of several blocks always holds one of another block.
            same_block = block_of(lay, otid, self.wave.spb) == st.block[L]
            cross = (other >= 0) & ~same_block
            if published is not None:
                cross &= ~published(otid)
            hit = (hit & same_block) | cross
        if synced is not None and hit.any():
            hit &= ~synced()        # a release/acquire hand-off orders them
        return hit

    def _record_write(self, sh, key, st, L, curbar, site, number, region, gran, granule, kind, is_global):
        """A write or atomic (at `site`, memory site `number`): races with this interval's
        unordered readers, then it is the last writer."""
        e = self.wave
        cur = st.stamp[L]
        atomic = kind in ("atomic", "cas")
        if sh.r is None or kind == "cas":         # nobody read this region yet; a CAS checks what it read
            r_conf = None
        else:
            r = sh.r[key]
            ordered = None
            if self.lane_clocks:
                def ordered():
                    return self._lane_ordered(sh, key, r, sh.r_clock[key], L, readers=True)
            synced = None
            if self.sync is not None:
                def synced():
                    return self._synced(sh, key, r, L, sh.r_sync)
            r_conf = self._unordered(r, st, L, curbar, is_global, ordered=ordered, synced=synced)
            if self.sync is not None and r_conf.any() and (atomic or self.volatile[number]):
                # a release's strong write after strong reads of its flag (waiters that read it
                # before it was set): the hand-off itself
                codes = r & st.lay.SITE_MASK if st.lay.packed_sites else sh.r_site[key]
                releases = self.sync.releases(e.lane_index(L) + e.gslot_base)
                r_conf &= ~(releases & self.volatile[codes.astype(np.int64) >> 2])
        if r_conf is not None and r_conf.any():
            k = int(np.flatnonzero(r_conf)[0])
            other = st.lay.field(r[k])
            cross = is_global and int(block_of(st.lay, other, e.spb)) != int(st.block[L][k])
            self._report("WAR", region, gran[k], granule, self._thread(r, st, L, k),
                         self.memory_sites[sh.r_code(key[k]) >> 2], "read", self._thread(cur, st, L, k), site,
                         "atomic" if atomic else kind, cross=cross)
        sh.write(key, cur, number * 4 + (1 if atomic else 0) + (2 if kind == "cas" else 0))
        if self.lane_clocks:
            sh.w_clock[key] = self.own[L]
        if self.sync is not None:
            threads = e.lane_index(L) + e.gslot_base
            sh.w_sync[key] = self.sync.own(threads)
            sh.w_release[key] = self.sync.releases(threads) if (atomic or self.volatile[number]) else False
        if len(key) > 1 and not atomic and not _increasing(key):
            # two lanes of this very instruction writing one location: scatter, then read back
            # (one site: the records differ in their threads only)
            back = sh.w[key]
            clash = st.lay.field(back) != st.lay.field(cur)
            if clash.any():
                k = int(np.flatnonzero(clash)[0])
                self._report("WAW", region, gran[k], granule, self._thread(back, st, L, k), site, "write",
                             self._thread(cur, st, L, k), site, kind)
        if is_global and self.fences is not None:
            g = st.lay.field(cur).astype(np.int64)     # launch-wide thread numbers, for the clocks
            sh.fence_counts()[key] = self.fences[g]
            if atomic:
                # the lanes of one atomic instruction apply in lane order: a finer clock
                clock = (e.steps << 27) + g + 1
                self.atomic_clock[g] = clock
                np.maximum.at(self.block_atomic_clock, g // e.spb, clock)

    def _record_read(self, sh, key, st, L, curbar, number, is_global, repeats, shared_reads=None):
        """A read: remember this interval's readers, folded into one record per granule that keeps
        their warp when they share one and their block when they share one. repeats: whether two
        lanes may read one granule; shared_reads: their groups (_reader_groups), where found."""
        if self.lane_clocks:
            return self._record_read_with_clocks(sh, key, st, L, curbar, number, is_global)
        code = number * 4
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
        Either way the very record the per-lane fold stores (tests/test_race_broadcast.py
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

    def _record_read_with_clocks(self, sh, key, st, L, curbar, number, is_global):
        """_record_read with lane clocks: the same records, each with its lane's clock, and for
        readers of one warp folded together the row of their clocks (old readers of this interval
        and warp stay in it: a lane ordered after a later reader is ordered after them too)."""
        e, lay = self.wave, st.lay
        old = sh.readers()[key]
        old_clock = sh.r_clock[key]
        synced = before = None
        if self.sync is not None:
            before = sh.r_sync[key]
            synced = self._synced(sh, key, old, L, sh.r_sync, groups=False)
        new = self._fold_reader(old, st, L, curbar, is_global,
                                self._lane_ordered(sh, key, old, old_clock, L, readers=True), synced)
        code = number * 4
        sh.read(key, new, code)
        sh.r_clock[key] = self.own[L]
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
        sh.rows[rows, e.slot_lane[slots]] = self.own[slots]

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

    def _report(self, hazard, region, gran, granule, other_tid, other_site, other_kind, tid, site, kind, cross=None,
                plain_flag=False):
        e = self.wave
        elem = int(gran) * granule // max(1, region.dtype.itemsize)
        first = {"slot": other_tid, "site": other_site, "kind": other_kind,
                 "who": self._who(other_tid, region) if other_tid >= 0 else "another thread"}
        second = {"slot": tid, "site": site, "kind": kind, "who": self._who(tid, region)}
        if cross is None:
            cross = region.kind == "global" and other_tid >= 0 and other_tid // e.spb != tid // e.spb
        # slots of one wave (shared) or launch-wide ones (global): a warp is 32 of them either way
        partial = None
        if self.lane_clocks and other_tid >= 0 and other_tid // 32 == tid // 32:
            partial = tid if region.kind == "shared" else tid - e.gslot_base
        hand_off = None if self.sync is None else ("plain_flag" if plain_flag else "fences")
        self.report.race(hazard, region, elem, first, second, cross_block=cross, partial_warp_sync=partial,
                         hand_off=hand_off)

    def _who(self, tid, region):
        e = self.wave
        slot = tid if region.kind == "shared" else tid - e.gslot_base
        if 0 <= slot < e.S:
            return self.report.who(slot)
        return self.report.who_global(tid)

