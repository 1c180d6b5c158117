"""Device memory: the caller's numpy arrays (global), one array per block (shared), one per
thread (local variables whose address escapes).

An address is an int64: region << 40 | (2**39 + byte offset). Every global argument, every
__shared__ array and every addressable local variable is its own region, so pointer
arithmetic never leaves the array it started in, and an out-of-bounds access can always name
the array and the element it missed. Accesses to global and shared memory are reported to the
plugins (the race detector) before they happen; local memory is private to its thread (the
same address names each thread's own copy, as a GPU's local window does), so no other thread
can race on it.
"""
from dataclasses import dataclass

import numpy as np


REGION_SHIFT = 40
HALF = 1 << 39
OFFSET_MASK = (1 << REGION_SHIFT) - 1
FIRST_GLOBAL_REGION = 256
FIRST_LOCAL_REGION = 1 << 16     # addressable local variables (lower/aggregates.py)
GARBAGE_BYTE = 0xCD     # what never-written shared memory holds: visibly wrong, deterministic

UNDEF_SHUFFLE, UNDEF_SHARED, UNDEF_LOCAL = 1, 2, 4
# The other five taint bits name the shuffle an undefined value came from (one bit per shuffle
# site, given out by Reporter.shuffle_taint): taints combine by OR, so a value carries the bits
# of exactly the shuffles whose undefined results flowed into it.
ORIGIN_BITS = (8, 16, 32, 64, 128)
DEFINED = np.uint8(0)       # the taint of a defined value


def run_starts(keys):
    """True where a run of equal (sorted) keys starts."""
    change = np.empty(len(keys), bool)
    change[:1] = True
    np.not_equal(keys[1:], keys[:-1], out=change[1:])
    return change


def overlap_groups(arrays):
    """Group C-contiguous arrays whose bytes overlap: -> [(member indices, byte offset of each
    member, one uint8 view over the union of their bytes)]. Used by the simulator's memory and
    by the GPU backend, so that aliasing arguments alias on both."""
    spans = [(a.__array_interface__["data"][0], a.__array_interface__["data"][0] + a.nbytes) for a in arrays]
    parent = list(range(len(arrays)))

    def root(i):
        while parent[i] != i:
            i = parent[i]
        return i
    for i, (lo, hi) in enumerate(spans):
        for j in range(i):
            lo2, hi2 = spans[j]
            if (lo < hi2 and lo2 < hi) or (lo == lo2 and hi == hi2):
                parent[root(i)] = root(j)
    groups = []
    for r in sorted({root(i) for i in range(len(arrays))}):
        members = [i for i in range(len(arrays)) if root(i) == r]
        lo = min(spans[i][0] for i in members)
        hi = max(spans[i][1] for i in members)
        anchor = arrays[min(members, key=lambda i: spans[i][0])]
        flat = anchor.reshape(-1).view(np.uint8)
        if hi - lo != flat.size:       # the union reaches past the first array: same buffer, wider view
            flat = np.lib.stride_tricks.as_strided(flat, shape=(hi - lo,), strides=(1,))
        groups.append((members, [spans[i][0] - lo for i in members], flat))
    return groups


class PointerTable:
    """The argument of a `T **` parameter: the arrays its pointers point to. Each backend makes
    the table of their device addresses (the simulator its addresses, CuPy its copies'
    `.data.ptr`), so the same launch code runs on both."""

    def __init__(self, arrays):
        self.arrays = list(arrays)

    def __len__(self):
        return len(self.arrays)


class StructArgument:
    """The argument of a struct parameter passed by value: its bytes, and the arrays its pointer
    members point to ((byte offset, name, array)); each backend writes their device addresses
    into the bytes."""

    def __init__(self, data, dtype, pointers=()):
        self.data = data              # uint8 array of the struct's bytes
        self.dtype = dtype            # the struct's numpy structured dtype (C's layout)
        self.pointers = list(pointers)

    def with_addresses(self, addresses):
        """The bytes with the pointer members set to `addresses` (in the order of `pointers`)."""
        out = self.data.copy()
        for (off, _, _), a in zip(self.pointers, addresses):
            out[off:off + 8] = np.frombuffer(np.uint64(a).tobytes(), np.uint8)
        return out


def wrap_int64(a):
    """A Python int as int64 arithmetic leaves it (two's complement, modulo 2**64)."""
    return a if -INT64_HALF <= a < INT64_HALF else ((a + INT64_HALF) & INT64_MASK) - INT64_HALF


INT64_HALF = 1 << 63
INT64_MASK = (1 << 64) - 1


def region_base(region):
    return (region << REGION_SHIFT) + HALF


@dataclass
class Region:
    id: int
    kind: str            # 'global' | 'shared' | 'local'
    name: str
    nbytes: int
    dtype: np.dtype      # element type as declared (for messages)
    storage: np.ndarray = None   # uint8 bytes; shared: (blocks in wave, nbytes); local: (slots in wave, nbytes)
    readonly: bool = False       # a numpy array passed with writeable=False
    const: bool = False          # every parameter that points into it points to const
    init: np.ndarray = None      # shared: which granules hold a written value (uninitialized check);
                                 # local: which bytes (always tracked: an unwritten local is undefined)
    incoming: tuple = None       # the plain store being checked: (byte offsets, values, dtype), set
                                 # while the write hooks run, so a check can compare it with memory


class Memory:
    def __init__(self, report, plugins):
        # Memory knows the running wave (which slot is in which block), not the context: the
        # context calls memory, never the other way round, so a launch leaves no reference
        # cycle behind and its arrays go as soon as the launch returns.
        self.wave = None
        self.regions = {}
        self._views = {}
        # per memory site: the serial loop's last aligned shared read there (_lane_load_plan)
        self._lane_loads = {}
        self._local_values = {}      # local region -> the bytes each thread's copy starts with, or None
        self.report = report         # report.Reporter: raises the faults found here
        self.plugins = plugins       # plugins.Plugins: told of every access; the checks decide faults
        # while the watchdog watches (a probe): how many writes changed a value, else None (a
        # state repeats only if memory never took another value in between: watchdog.py)
        self.changes = None
        # atomics run on shared or global memory: their order decides their values, so a state that
        # repeats with an atomic in between proves nothing about other orders (watchdog.py)
        self.atomics = 0

    # ---- set-up
    def add_globals(self, args):
        """args: [(name, array, points to const)] for the pointer parameters -> the address each
        one starts at.

        Arrays whose bytes overlap (the same array twice, or two views of one buffer) share one
        region, as on a GPU, so values and races follow the real memory."""
        addresses = [None] * len(args)
        for k, (members, offsets, flat) in enumerate(overlap_groups([a[1] for a in args])):
            rid = FIRST_GLOBAL_REGION + k
            names = "/".join(dict.fromkeys(args[i][0] for i in members))
            first = args[members[0]][1]
            readonly = not all(args[i][1].flags.writeable for i in members)
            const = all(args[i][2] for i in members)
            self.regions[rid] = Region(rid, "global", names, flat.size, first.dtype, flat, readonly=readonly,
                                       const=const)
            if len(members) == 1:
                self._views[(rid, first.dtype)] = first.reshape(-1)
            for i, off in zip(members, offsets):
                addresses[i] = region_base(rid) + off
        return addresses

    def add_module_variables(self, variables, storage):
        """__device__ and __constant__ variables: storage[name] holds each one's bytes (the
        module's, kept between launches)."""
        for var in variables:
            buf = storage[var.name]
            elem = var.ctype
            while elem.is_array:
                elem = elem.base
            self.regions[var.region] = Region(var.region, "global", var.name, var.nbytes, elem.dtype, buf,
                                              readonly=var.constant)

    def check_align(self, addr, align, L, site, kind):
        n = self.wave.nlanes(L)
        addr = np.broadcast_to(np.asarray(addr, dtype=np.int64), (n,))
        off = addr - HALF            # region bases are multiples of 2**40: the offset's low bits
        if n and (off & (align - 1)).any():
            region = self.regions.get(int(addr[0]) >> REGION_SHIFT)
            if region is not None:
                self.report.misaligned(region, off & OFFSET_MASK, align, L, site, kind)

    def add_shared(self, arr, nbytes):
        self.regions[arr.region] = Region(arr.region, "shared", arr.name, nbytes, arr.elem.dtype)

    def add_local(self, var, value=None):
        """An addressable local variable (program.LocalVariable): one copy per thread; value: the
        bytes every thread's copy starts with (a struct parameter passed by value)."""
        elem = var.elem
        dtype = np.dtype(np.int64) if elem.is_pointer else elem.dtype
        self.regions[var.region] = Region(var.region, "local", var.name, var.nbytes, dtype)
        self._local_values[var.region] = value

    def new_wave(self, wave, track_init, granule):
        """Fresh shared memory for the blocks of a wave (garbage-filled, nothing written)."""
        self.wave = wave
        self._lane_loads = {}        # their rows are the old wave's
        blocks = wave.nblk
        for r in self.regions.values():
            if r.kind == "shared":
                r.storage = np.full((blocks, r.nbytes), GARBAGE_BYTE, np.uint8)
                r.init = np.zeros((blocks, max(1, r.nbytes // granule)), bool) if track_init else None
                for key in [k for k in self._views if k[0] == r.id]:
                    del self._views[key]
            elif r.kind == "local":
                value = self._local_values.get(r.id)
                r.storage = np.zeros((wave.S, r.nbytes), np.uint8)
                r.init = np.zeros((wave.S, r.nbytes), bool)
                if value is not None:
                    r.storage[:] = value
                    r.init[:] = True
                for key in [k for k in self._views if k[0] == r.id]:
                    del self._views[key]
        self.granule = granule

    def view(self, region, dtype):
        key = (region.id, dtype)
        v = self._views.get(key)
        if v is None:
            size = dtype.itemsize
            s = region.storage
            if region.kind == "global":
                usable = (s.shape[0] // size) * size
                v = s[:usable].view(dtype)
            else:
                usable = (s.shape[1] // size) * size
                v = s[:, :usable].view(dtype)
            self._views[key] = v
        return v

    # ---- address decoding
    def decode(self, addr, size, L, site, kind, check_align=True):
        """-> (region, byte offsets, lane filter or None). Faults on bad addresses.

        (None, None, None) means the lanes point into different arrays: the caller splits them."""
        n = self.wave.nlanes(L)
        addr = np.asarray(addr, dtype=np.int64)
        if addr.ndim == 0:
            addr = np.broadcast_to(addr, (n,))
        r0 = int(addr[0]) >> REGION_SHIFT if n else 0
        region = self.regions.get(r0)
        off = addr - region_base(r0)
        lo, hi = (int(off.min()), int(off.max())) if n else (0, 0)
        if region is not None and lo >= 0 and hi + size <= region.nbytes:
            pass    # the fast path: one array, all in bounds
        elif n and ((addr >> REGION_SHIFT) != r0).any():
            return None, None, None
        elif region is None:
            self.report.bad_pointer(addr, L, site, kind)
            return region, off, np.zeros(n, bool)
        else:
            bad = (off < 0) | (off + size > region.nbytes)
            for hook in self.plugins.out_of_bounds:
                hook(region, off, size, bad, L, site, kind)
            if size > 1 and (off & (size - 1)).any():
                self.report.misaligned(region, off, size, L, site, kind)
            return region, off, ~bad
        if check_align and size > 1 and (off & (size - 1)).any():
            self.report.misaligned(region, off, size, L, site, kind)
        return region, off, None

    def split_regions(self, addr, L):
        n = self.wave.nlanes(L)
        addr = np.broadcast_to(np.asarray(addr, dtype=np.int64), (n,))
        reg = addr >> REGION_SHIFT
        idx = self.wave.lane_index(L)
        for r in np.unique(reg):
            sel = reg == r
            yield sel, addr[sel], idx[sel]

    # ---- one lane's access (a lone thread's loop): the same steps on Python integers
    def _lone_access(self, addr, size, L, check_align):
        """(region, byte offset, slot) of an access by one lane that lies inside one global or
        shared array, aligned: what decode finds without a fault; None for anything else (more
        lanes, local memory, a bad address), which the general path decides."""
        if isinstance(L, slice):
            if L.step is not None or L.start is None or L.stop is None or L.stop - L.start != 1:
                return None
            slot = L.start
        elif len(L) == 1:
            slot = int(L[0])
        else:
            return None
        a = int(addr[0]) if isinstance(addr, np.ndarray) and addr.ndim else int(addr)
        region = self.regions.get(a >> REGION_SHIFT)
        if region is None or region.kind == "local":
            return None
        off = a - region_base(a >> REGION_SHIFT)
        if off < 0 or off + size > region.nbytes or (check_align and size > 1 and off & (size - 1)):
            return None
        return region, off, slot

    def _lone_load(self, found, dtype, L, site, want_taint):
        region, off, slot = found
        size = dtype.itemsize
        for hook in self.plugins.lane_access:
            hook(region, off, size, "read", L, slot, site)
        view = self.view(region, dtype)
        i = off // size
        taint = DEFINED
        if region.kind == "global":
            vals = view[i:i + 1].copy()
        else:
            row = slot // self.wave.spb       # = wave.slot_block[slot], on Python ints
            vals = view[row, i:i + 1].copy()
            if region.init is not None:
                g = off // self.granule
                n = size // self.granule
                if not (region.init[row, g] if n <= 1 else region.init[row, g:g + n].all()):
                    taint = np.full(1, UNDEF_SHARED, np.uint8)
        return (vals, taint) if want_taint else vals

    def _lone_store(self, found, value, dtype, L, site):
        region, off, slot = found
        size = dtype.itemsize
        region.incoming = (off, value, dtype)
        for hook in self.plugins.lane_access:
            hook(region, off, size, "write", L, slot, site)
        region.incoming = None
        view = self.view(region, dtype)
        i = off // size
        if not (isinstance(value, np.generic) and value.dtype == dtype):
            value = np.asarray(value, dtype=dtype).reshape(-1)[0]       # the cast the general store makes
        if region.kind == "global":
            if self.changes is not None:
                self.count_change(view[i:i + 1], value)
            view[i] = value
        else:
            row = slot // self.wave.spb       # = wave.slot_block[slot], on Python ints
            if self.changes is not None:
                self.count_change(view[row, i:i + 1], value)
            view[row, i] = value
            if region.init is not None:
                g = off // self.granule
                region.init[row, g:g + size // self.granule] = True      # as store's (none if narrower)

    # ---- the serial loop's scalar load (runtime/solo.py): one call per read
    def load_lane(self, addr, dtype, L, slot, site, want_taint, check_align=True):
        """load() for the lone lane `slot` (L: that slot as a slice) of the generated serial loop,
        its value (and definedness) as numpy scalars. The common access, inside one global or
        shared array and aligned, takes _lone_access's and _lone_load's steps here in one call
        (the same hooks, value and taint); everything else (local memory, a bad address, which
        faults) goes the general way. `addr`: a numpy integer, or a Python int congruent to it
        modulo 2**64 (solo.py address_on_ints), wrapped (wrap_int64) past the plan's test."""
        a = addr if type(addr) is int else int(addr[0]) if isinstance(addr, np.ndarray) and addr.ndim else int(addr)
        plan = self._lane_loads.get(site)
        if plan is not None:
            p_slot, p_dtype, base, end, align, region, size, row_view, row_init, granule, granules, hooks = plan
            if p_slot == slot and p_dtype is dtype and base <= a < end and (a - base) & align == 0:
                # the checks below passed for this lane, site and type before, and hold for this
                # address (inside the same array, aligned): their outcome without the look-ups
                off = a - base
                for hook in hooks:
                    hook(region, off, size, "read", L, slot, site)
                value = row_view[off // size]
                if not want_taint:
                    return value
                if row_init is not None:
                    g = off // granule
                    if not (row_init.item(g) if granules <= 1 else row_init[g:g + granules].all()):
                        return value, np.uint8(UNDEF_SHARED)
                return value, DEFINED
        if not -INT64_HALF <= a < INT64_HALF and type(addr) is int:
            a = wrap_int64(a)           # what the numpy expression gave
        rid = a >> REGION_SHIFT
        region = self.regions.get(rid)
        size = dtype.itemsize
        if region is not None and region.kind != "local":
            off = a - ((rid << REGION_SHIFT) + HALF)       # region_base(rid), without the call
            if off >= 0 and off + size <= region.nbytes and not (check_align and size > 1 and off & (size - 1)):
                for hook in self.plugins.lane_access:
                    hook(region, off, size, "read", L, slot, site)
                view = self._views.get((rid, dtype))
                if view is None:
                    view = self.view(region, dtype)
                if region.kind == "global":
                    value = view[off // size]
                    return (value, DEFINED) if want_taint else value
                row = slot // self.wave.spb       # = wave.slot_block[slot], on Python ints
                value = view[row, off // size]
                self._lane_loads[site] = self._lane_load_plan(region, rid, dtype, slot, view, row)
                if not want_taint:
                    return value
                init = region.init
                if init is not None:
                    g = off // self.granule
                    n = size // self.granule
                    if not (init[row, g] if n <= 1 else init[row, g:g + n].all()):
                        return value, np.uint8(UNDEF_SHARED)
                return value, DEFINED
        got = self.load(np.int64(a) if type(addr) is int else addr, dtype, L, site, want_taint, check_align)
        if not want_taint:
            return got[0]
        vals, taint = got
        return vals[0], (taint[0] if isinstance(taint, np.ndarray) else taint)

    def load_lane_run(self, addrs, dtype, L, slot, site):
        """load_lane for the lone lane `slot` at `addrs` (an int64 array, in program order: the
        serial loop's run of a reading loop, runtime/solo.py) at once -> the values (an array), or
        None where not every read would take load_lane's plan path with a defined value and the
        plugins take the reads at once (Plugins.lane_reads): then nothing was done, and the loop
        reads one by one."""
        plan = self._lane_loads.get(site)
        hooks = self.plugins.lane_reads
        if plan is None or hooks is None:
            return None
        p_slot, p_dtype, base, end, align, region, size, row_view, row_init, granule, granules, _ = plan
        if p_slot != slot or p_dtype is not dtype or not len(addrs):
            return None
        off = addrs - base
        if int(addrs.min()) < base or int(addrs.max()) >= end or (off & align).any():
            return None
        if row_init is not None:
            g = off // granule
            if not row_init[g].all() or (granules > 1 and not all(row_init[g + k].all() for k in range(1, granules))):
                return None
        for hook in hooks:
            if not hook(region, off, size, L, slot, site):
                return None
        return row_view[off // size]

    def _lane_load_plan(self, region, rid, dtype, slot, view, row):
        """What load_lane found for a lane's read of shared array `region` as `dtype`: every
        address from the array's base to its last whole element that is a multiple of the size
        from the base passes its checks (inside, aligned), and reads the lane's block's row; the
        plugins' one-lane hooks (fixed for the launch) come with it."""
        size = dtype.itemsize
        base = (rid << REGION_SHIFT) + HALF
        return (slot, dtype, base, base + region.nbytes - size + 1, size - 1, region, size, view[row],
                None if region.init is None else region.init[row], self.granule, size // self.granule,
                tuple(self.plugins.lane_access))

    def store_lane(self, addr, value, dtype, L, slot, site, taint, check_align=True):
        """store() for the lone lane `slot` of the generated serial loop (value and taint numpy
        scalars): a defined value stored inside one writable global or shared array, aligned,
        takes _lone_access's and _lone_store's steps here in one call; everything else (local
        memory, a read-only array, an undefined value, a bad address) goes the general way.
        `addr`: as load_lane's."""
        if type(addr) is int:
            a = addr if -INT64_HALF <= addr < INT64_HALF else wrap_int64(addr)   # what the numpy expression gave
        else:
            a = int(addr[0]) if isinstance(addr, np.ndarray) and addr.ndim else int(addr)     # as _lone_access
        rid = a >> REGION_SHIFT
        region = self.regions.get(rid)
        size = dtype.itemsize
        defined = taint is None or (not taint if isinstance(taint, np.generic) else not np.any(taint))
        if region is not None and region.kind != "local" and not region.readonly and defined:
            off = a - ((rid << REGION_SHIFT) + HALF)       # region_base(rid), without the call
            if off >= 0 and off + size <= region.nbytes and not (check_align and size > 1 and off & (size - 1)):
                region.incoming = (off, value, dtype)
                for hook in self.plugins.lane_access:
                    hook(region, off, size, "write", L, slot, site)
                region.incoming = None
                view = self._views.get((rid, dtype))
                if view is None:
                    view = self.view(region, dtype)
                if not (isinstance(value, np.generic) and value.dtype == dtype):
                    value = np.asarray(value, dtype=dtype).reshape(-1)[0]       # the cast the general store makes
                i = off // size
                if region.kind == "global":
                    if self.changes is not None:
                        self.count_change(view[i:i + 1], value)
                    view[i] = value
                    return
                row = slot // self.wave.spb       # = wave.slot_block[slot], on Python ints
                if self.changes is not None:
                    self.count_change(view[row, i:i + 1], value)
                view[row, i] = value
                if region.init is not None:
                    g = off // self.granule
                    region.init[row, g:g + size // self.granule] = True      # as store's (none if narrower)
                return
        self.store(np.int64(a) if type(addr) is int else addr, value, dtype, L, site, taint, check_align)

    # ---- loads and stores (called from generated code through Context)
    def load(self, addr, dtype, L, site, want_taint, check_align=True):
        found = self._lone_access(addr, dtype.itemsize, L, check_align)
        if found is not None:
            return self._lone_load(found, dtype, L, site, want_taint)
        region, off, keep = self.decode(addr, dtype.itemsize, L, site, "read", check_align)
        if region is None and off is None:
            out = np.zeros(self.wave.nlanes(L), dtype)
            taint = np.zeros(self.wave.nlanes(L), np.uint8)
            for sel, a, sub in self.split_regions(addr, L):
                v, t = self.load(a, dtype, sub, site, True)
                out[sel], taint[sel] = v, t
            return (out, taint) if want_taint else out
        if region is None:
            out = np.zeros(self.wave.nlanes(L), dtype)
            return (out, DEFINED) if want_taint else out
        Lk, offk = L, off
        if keep is not None:
            Lk, offk = self.wave.lane_index(L)[keep], off[keep]
        idx = offk // dtype.itemsize
        if region.kind == "local":
            vals, taint = self._load_local(region, dtype, Lk, offk)
        else:
            for hook in self.plugins.memory_access:
                hook(region, offk, dtype.itemsize, "read", Lk, site)
            view = self.view(region, dtype)
            taint = DEFINED
        if region.kind == "global":
            vals = view[idx]
        elif region.kind == "shared":
            rows = self.wave.slot_block[Lk]
            vals = _gather(view, rows, idx)
            if region.init is not None:
                g = offk // self.granule
                ok = _gather(region.init, rows, g)
                for extra in range(1, dtype.itemsize // self.granule):
                    ok = ok & _gather(region.init, rows, g + extra)
                if not ok.all():
                    taint = np.where(ok, np.uint8(0), np.uint8(UNDEF_SHARED))
        if keep is not None:
            full = np.zeros(self.wave.nlanes(L), dtype)
            full[keep] = vals
            vals = full
            if not np.isscalar(taint):
                t = np.zeros(self.wave.nlanes(L), np.uint8)
                t[keep] = taint
                taint = t
        return (vals, taint) if want_taint else vals

    def store(self, addr, value, dtype, L, site, taint, check_align=True):
        found = self._lone_access(addr, dtype.itemsize, L, check_align)
        if found is not None and not found[0].readonly and _defined(taint):
            return self._lone_store(found, value, dtype, L, site)
        region, off, keep = self.decode(addr, dtype.itemsize, L, site, "write", check_align)
        n = self.wave.nlanes(L)
        value = np.broadcast_to(np.asarray(value, dtype=dtype), (n,))
        if region is None and off is None:
            for sel, a, sub in self.split_regions(addr, L):
                t = None if taint is None or np.isscalar(taint) else np.broadcast_to(taint, (n,))[sel]
                self.store(a, value[sel], dtype, sub, site, t if t is not None else taint)
            return
        if region is None:
            return
        if region.readonly:
            self.report.read_only(region, L, site)
        if taint is not None:
            taint = np.broadcast_to(taint, (n,))
            if taint.any():
                for hook in self.plugins.undefined_store:
                    hook(taint, region, L, site)
        Lk, offk = L, off
        if keep is not None:
            Lk, offk, value = self.wave.lane_index(L)[keep], off[keep], value[keep]
            if taint is not None:
                taint = taint[keep]
        if region.kind == "local":
            self._store_local(region, dtype, Lk, offk, value, taint)
            return
        region.incoming = (offk, value, dtype)
        for hook in self.plugins.memory_access:
            hook(region, offk, dtype.itemsize, "write", Lk, site)
        region.incoming = None
        view = self.view(region, dtype)
        idx = offk // dtype.itemsize
        if region.kind == "global":
            if self.changes is not None:
                self.count_change(view[idx], value)
            view[idx] = value
        else:
            rows = self.wave.slot_block[Lk]
            if self.changes is not None:
                self.count_change(_gather(view, rows, idx), value)
            _scatter(view, rows, idx, value)
            if region.init is not None:
                g = offk // self.granule
                written = True if taint is None else (taint & UNDEF_SHARED) == 0
                for extra in range(dtype.itemsize // self.granule):
                    _scatter(region.init, rows, g + extra, written)

    def atomic(self, op, addr, value, dtype, L, site, compare):
        region, off, keep = self.decode(addr, dtype.itemsize, L, site, "atomic")
        n = self.wave.nlanes(L)
        value = np.broadcast_to(np.asarray(value, dtype=dtype), (n,)).copy()
        if compare is not None:
            compare = np.broadcast_to(np.asarray(compare, dtype=dtype), (n,)).copy()
        if region is None and off is None:
            out = np.zeros(n, dtype)
            for sel, a, sub in self.split_regions(addr, L):
                out[sel] = self.atomic(op, a, value[sel], dtype, sub, site,
                                       None if compare is None else compare[sel])
            return out
        old = np.zeros(n, dtype)
        if region is None:
            return old
        if region.kind == "local":
            self.report.atomic_on_local(region, L, site)
        if region.readonly:
            self.report.read_only(region, L, site)
        Lk, offk = L, off
        if keep is not None:
            Lk, offk, value = self.wave.lane_index(L)[keep], off[keep], value[keep]
            compare = None if compare is None else compare[keep]
        if region.kind != "local":
            self.atomics += 1
            for hook in self.plugins.memory_access:
                hook(region, offk, dtype.itemsize, "cas" if op == "cas" else "atomic", Lk, site)
        view = self.view(region, dtype)
        idx = offk // dtype.itemsize
        if region.kind == "global":
            target, key = view, idx
        else:
            rows = self.wave.slot_block[Lk] if region.kind == "shared" else self.wave.lane_index(Lk)
            target, key = view, (rows, idx)
        got = _apply_atomic(op, target, key, value, compare, dtype)
        if self.changes is not None:
            # some lane's old value is not what the address holds now: the value changed
            self.count_change(got, target[key])
        if keep is not None:
            old[keep] = got
            return old
        return got


    def count_change(self, old, new):
        """While the watchdog watches: count a write whose bytes differ from what they replace
        (`old`, `new`: the elements before and after, lane by lane, of one dtype; bytes, so that
        -0.0 replacing 0.0 counts and a NaN rewritten does not)."""
        if np.asarray(old).tobytes() != np.asarray(new).tobytes():
            self.changes += 1

    # ---- local memory: one row per slot of the wave
    def _local_bytes(self, region, L, off, size):
        """(rows, byte columns) of `size` bytes at `off` in each lane's own copy."""
        rows = self.wave.lane_index(L)
        cols = off[:, None] + np.arange(size)
        return rows[:, None], cols

    def _load_local(self, region, dtype, L, off):
        rows, cols = self._local_bytes(region, L, off, dtype.itemsize)
        raw = np.ascontiguousarray(region.storage[rows, cols])
        vals = raw.view(dtype).reshape(-1)
        written = region.init[rows, cols].all(axis=1)
        taint = DEFINED if written.all() else np.where(written, np.uint8(0), np.uint8(UNDEF_LOCAL))
        return vals, taint

    def _store_local(self, region, dtype, L, off, value, taint):
        rows, cols = self._local_bytes(region, L, off, dtype.itemsize)
        new = np.ascontiguousarray(value, dtype=dtype).view(np.uint8).reshape(len(off), -1)
        if self.changes is not None:
            self.count_change(region.storage[rows, cols], new)
        region.storage[rows, cols] = new
        # an undefined value stored keeps its bytes undefined (a copy of an unwritten local)
        written = True if taint is None else (np.broadcast_to(taint, (len(off),)) == 0)[:, None]
        region.init[rows, cols] = written


def _defined(taint):
    """Whether a stored value's taint (None: not tracked; 0: defined) says it is defined."""
    return taint is None or not np.any(taint)


def _gather(table, rows, cols):
    """table[rows, cols] for a (blocks, n) table: through one flat index when the table is
    contiguous (numpy's two-array fancy indexing is several times slower)."""
    if table.flags.c_contiguous:
        return table.reshape(-1)[rows * table.shape[1] + cols]
    return table[rows, cols]


def _scatter(table, rows, cols, values):
    if table.flags.c_contiguous:
        table.reshape(-1)[rows * table.shape[1] + cols] = values
    else:
        table[rows, cols] = values


def _apply_atomic(op, view, key, value, compare, dtype):
    """Apply one atomic instruction for all lanes, in lane order; return each lane's old value."""
    flat_key = key if not isinstance(key, tuple) else key[0] * view.shape[1] + key[1]
    flat = view.reshape(-1) if isinstance(key, tuple) else view
    n = len(value)
    old = np.empty(n, dtype)
    order = np.argsort(flat_key, kind="stable")
    sk = flat_key[order]
    starts = np.flatnonzero(run_starts(sk))
    ends = np.append(starts[1:], n)
    lens = ends - starts
    if op in ("add", "sub") and lens.max() > 8:
        v = value[order] if op == "add" else (-value[order]).astype(dtype)
        base = flat[sk[starts]]
        if dtype.kind in "iu":
            # Integer sums wrap exactly, so one cumulative sum serves every address at once.
            csum = np.cumsum(v, dtype=dtype)
            before = (csum[starts] - v[starts]).astype(dtype)
            excl = (csum - v - np.repeat(before, lens)).astype(dtype)
            old[order] = (np.repeat(base, lens) + excl).astype(dtype)
            flat[sk[starts]] = (base + (csum[ends - 1] - before)).astype(dtype)
            return old
        if len(starts) <= 1024:
            for s0, e0, b in zip(starts, ends, base):
                seg = np.cumsum(np.r_[np.asarray([b], dtype), v[s0:e0]], dtype=dtype)
                old[order[s0:e0]] = seg[:-1]
                flat[sk[s0]] = seg[-1]
            return old
    if lens.max() > 4 and n <= 16 * lens.max():
        # Many lanes on few addresses (a CAS loop, a lock, a shared counter): rounds would cost a
        # vectorised pass (~30 us) per lane of the busiest address; lane by lane on numpy
        # scalars (~1.5 us a lane) is cheaper, with the same results.
        return _apply_atomic_serially(op, flat, flat_key, order, value, compare, old)
    # Rounds: each round applies the first pending lane of every address, vectorised.
    pending = order
    while len(pending):
        keys = flat_key[pending]
        _, first = np.unique(keys, return_index=True)
        lanes = pending[first]
        k = flat_key[lanes]
        cur = flat[k]
        old[lanes] = cur
        v = value[lanes]
        with np.errstate(all="ignore"):
            if op == "add":
                new = cur + v
            elif op == "sub":
                new = cur - v
            elif op == "min":
                new = np.minimum(cur, v)
            elif op == "max":
                new = np.maximum(cur, v)
            elif op == "exch":
                new = v
            elif op == "and":
                new = cur & v
            elif op == "or":
                new = cur | v
            elif op == "xor":
                new = cur ^ v
            elif op == "inc":
                new = np.where(cur >= v, 0, cur + 1)
            elif op == "dec":
                new = np.where((cur == 0) | (cur > v), v, cur - 1)
            elif op == "cas":
                new = np.where(cur == compare[lanes], v, cur)
        flat[k] = np.asarray(new, dtype=dtype)
        mask = np.ones(len(pending), bool)
        mask[first] = False
        pending = pending[mask]
    return old


def _combine(op, cur, v, compare):
    """One lane's atomic on numpy values of the memory's dtype: the new value at the address."""
    if op == "add":
        return cur + v
    if op == "sub":
        return cur - v
    if op == "min":
        return min(cur, v)
    if op == "max":
        return max(cur, v)
    if op == "exch":
        return v
    if op == "and":
        return cur & v
    if op == "or":
        return cur | v
    if op == "xor":
        return cur ^ v
    if op == "inc":
        return cur.dtype.type(0) if cur >= v else cur + cur.dtype.type(1)
    if op == "dec":
        return v if (cur == 0 or cur > v) else cur - cur.dtype.type(1)
    return v if cur == compare else cur     # cas


def _apply_atomic_serially(op, flat, flat_key, order, value, compare, old):
    """The atomics of one instruction one lane at a time, in lane order per address."""
    with np.errstate(all="ignore"):
        for lane in order.tolist():
            k = flat_key[lane]
            cur = flat[k]
            old[lane] = cur
            flat[k] = _combine(op, cur, value[lane], None if compare is None else compare[lane])
    return old
