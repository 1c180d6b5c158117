"""The race checks' shadow memory: the record layout fitted to a launch (Layout), the records
per granule (Shadow) and the current stamp of every slot (Stamps).

Shadow memory per granule (the kernel's smallest access size) remembers the last writer and
the readers of the current *barrier interval*. Each granule has a writer's record and, from the
region's first read on, a readers' record: one integer each, whose layout (Layout) is fitted to
the launch: what a race report needs and what the kernel can use, in as few bits as that launch
needs. From the low bits up:

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
            (with lane clocks, unused: see lane_clocks.py).
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
word (10 in 1024-thread blocks with __syncwarp), a global output only written 4 to 8, an array
only read none at all. Once a kernel fences, global writes add one byte (the fence count).
(Bytes per written word of the benchmark's workloads: benchmarks/RESULTS.md.)
"""
from functools import cached_property

import numpy as np


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
        # Where the last write rewrote the value an unordered earlier write had stored: the record
        # of the write that set that value (NONE: the last writer set it), with its clocks. A read
        # ordered after that write sees the value whichever of the two it sees (from the first
        # such rewrite on; before it: nowhere)
        self.w_set = self.w_set_sync = self.w_set_clock = None

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

    def setters(self):
        """The value setters' records (see __init__), allocated at the region's first rewrite of
        an unordered writer's value."""
        if self.w_set is None:
            self.w_set = np.full(self.n, NONE, self.lay.dtype)
            if self.w_sync is not None:
                self.w_set_sync = np.zeros(self.n, np.int32)
            if self.lane_clocks:
                self.w_set_clock = np.zeros(self.n, np.int32)
        return self.w_set

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
                                      self.r_sync, self.w_set, self.w_set_sync, self.w_set_clock)
                   if a is not None)


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
        self.lanes = {}         # slot -> race_rule.LaneStamp, for the one-lane fast path

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
