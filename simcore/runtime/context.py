"""The launch context: what generated block code calls as `X`.

It knows the lanes of the current wave (which slot is which block, warp and lane), forwards
memory operations to `Memory`, and implements C's arithmetic corner cases (integer division
truncates, float-to-int saturates). A fault found here goes to the reporter, or, when a launch
check governs it, to the plugins (the owning check raises); either way with its source site.
"""
import re

import numpy as np

from . import cmath
from .activemask import ActiveMask
from .livelock import CasWatch
from .memory import UNDEF_LOCAL, run_starts
from .wave import LaneIndexing

# The simulated clock (clock64): nominal figures, not an H200's (docs/simcore-api.md, The CUDA subset)
CLOCK_PER_STEP = 32         # cycles per simulated step (one basic block run by one lane group)
NOMINAL_GHZ = 2             # cycles per nanosecond of __nanosleep
MAX_NANOSLEEP_NS = 1_000_000


def c_quotient(a, b):
    """C's integer a / b of broadcast numpy operands, b nonzero: numpy floors, C truncates
    toward zero."""
    if a.dtype.kind == "u":
        return a // b
    q = a // b
    fix = (a - q * b != 0) & ((a < 0) != (b < 0))
    return (q + fix).astype(a.dtype)


def c_remainder(a, b):
    """C's integer a % b of broadcast numpy operands, b nonzero (the sign of a)."""
    if a.dtype.kind == "u":
        return a % b
    return np.fmod(a, b).astype(a.dtype)


class Context(LaneIndexing):
    M = cmath               # the CUDA math functions numpy lacks (X.M.sinpi, X.M.rounded, ...)
    DEFINED = np.uint8(0)
    UNSET = np.uint8(UNDEF_LOCAL)

    def __init__(self, launch, prog, report, plugins, active_mask=None):
        self.launch = launch
        self.active_mask = active_mask or ActiveMask()     # what __activemask() returns (activemask.py)
        self.prog = prog
        self.memory = None      # memory.Memory of the launch (set once it exists)
        self.report = report    # report.Reporter: raises the faults found here
        self.plugins = plugins  # plugins.Plugins: the checks decide what is a fault
        bx, by, bz = launch.block
        gx, gy, gz = launch.grid
        self.bdim_x, self.bdim_y, self.bdim_z = (np.uint32(v) for v in (bx, by, bz))
        self.gdim_x, self.gdim_y, self.gdim_z = (np.uint32(v) for v in (gx, gy, gz))
        self.cas_watch = CasWatch(launch)

    # ---- lanes of the wave
    def set_wave(self, wave):
        # copies of the wave's slot tables: generated code reaches them through X on every step
        self.slot_block = wave.slot_block
        self.slot_lane = wave.slot_lane
        self.slot_warp = wave.slot_warp
        self.S = wave.S
        self._all = np.arange(wave.S)
        self.activemask_split = wave.activemask_split
        self.activemask_second = wave.activemask_second
        self.wave = wave
        self.cas_watch.set_wave(wave)
        self.slept = np.zeros(wave.S, np.int64)     # cycles each slot's __nanosleep calls added

    def subset(self, L, keep):
        return self.lane_index(L)[keep]

    def block_of(self, L):
        return self.slot_block[L]

    def lane_of(self, L):
        return self.slot_lane[L].astype(np.uint32)

    # ---- memory
    def ld(self, addr, dtype, L, site, check_align=True):
        return self.memory.load(addr, dtype, L, site, False, check_align)

    def ldu(self, addr, dtype, L, site, check_align=True):
        return self.memory.load(addr, dtype, L, site, True, check_align)

    def st(self, addr, value, dtype, L, site, taint, check_align=True):
        self.memory.store(addr, value, dtype, L, site, taint, check_align)

    def check_align(self, addr, align, L, site, kind, may_be_misaligned=True):
        """A vector access (float4, a struct with __align__(n)) needs an address aligned to n."""
        if may_be_misaligned:
            self.memory.check_align(addr, align, L, site, kind)

    def atomic(self, op, addr, value, dtype, L, site, compare):
        old = self.memory.atomic(op, addr, value, dtype, L, site, compare)
        if op == "cas" and self.cas_watch.observe(site, old, compare, addr, L):
            self.report.cas_livelock(site, L, self.cas_watch.fails[site])
        return old

    # ---- per-thread local arrays
    def lget(self, arr, idx, L, site):
        n = arr.shape[0]
        length = arr.shape[1]
        if np.ndim(idx) == 0:
            k = int(idx)
            if not 0 <= k < length:
                self.fault_local_bounds(np.full(n, k), length, L, site)
                return np.zeros(n, arr.dtype)
            return arr[:, k].copy()
        idx = np.asarray(idx)
        bad = (idx < 0) | (idx >= length)
        if bad.any():
            self.fault_local_bounds(idx, length, L, site)
            idx = np.where(bad, 0, idx)
        return arr[np.arange(n), idx]

    def lset(self, arr, idx, value, L, site):
        n, length = arr.shape
        if np.ndim(idx) == 0:
            k = int(idx)
            if not 0 <= k < length:
                self.fault_local_bounds(np.full(n, k), length, L, site)
                return
            arr[:, k] = value
            return
        idx = np.asarray(idx)
        bad = (idx < 0) | (idx >= length)
        rows = np.arange(n)
        if bad.any():
            self.fault_local_bounds(idx, length, L, site)
            rows, idx = rows[~bad], idx[~bad]
            value = np.broadcast_to(value, (n,))[~bad]
        arr[rows, idx] = value

    # ---- arithmetic with C semantics
    def _divisor(self, a, b, L, site):
        """Broadcast the operands; a zero divisor is a fault (else replaced to keep going)."""
        a, b = np.broadcast_arrays(a, b)
        zero = b == 0
        if zero.any():
            self.fault_div_zero(zero, L, site)
            b = np.where(zero, 1, b).astype(a.dtype)
        return a, b

    def idiv(self, a, b, L, site):
        a, b = self._divisor(a, b, L, site)
        return c_quotient(a, b)

    def imod(self, a, b, L, site):
        a, b = self._divisor(a, b, L, site)
        return c_remainder(a, b)

    def smul(self, a, b, L, site):
        """a * b of signed integers, wrapping as a GPU does; an overflow (undefined in C) is a
        warning, once per site (never a fault: what a GPU computes is the wrapped product)."""
        r = a * b
        if r.dtype.itemsize < 8:
            over = (np.asarray(a).astype(np.int64) * b) != r
            if not over.any():
                return r
            a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
            over = np.broadcast_to(over, a.shape)
        else:
            a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
            with np.errstate(all="ignore"):
                near = np.abs(a.astype(np.float64)) * np.abs(b.astype(np.float64)) >= 2.0 ** 62
            over = np.zeros(a.shape, bool)
            for k in np.flatnonzero(near):
                p = int(a.flat[k]) * int(b.flat[k])
                over.flat[k] = not -2 ** 63 <= p < 2 ** 63
        if over.any():
            self.report.signed_overflow(over, a, b, L, site)
        return r

    def shl(self, a, b, L, site):
        """a << b, with a count outside 0..width-1 a fault (C: undefined)."""
        return self._shift(np.left_shift, a, b, L, site)

    def shr(self, a, b, L, site):
        return self._shift(np.right_shift, a, b, L, site)

    def _shift(self, fn, a, b, L, site):
        a = np.asarray(a)
        bits = a.dtype.itemsize * 8
        b = np.asarray(b)
        bad = (b < 0) | (b >= bits)
        if bad.any():
            self.report.bad_shift(np.broadcast_to(bad, np.broadcast_shapes(a.shape, b.shape, (self.nlanes(L),))),
                                  b, bits, L, site)
        return fn(a, b)             # lowering gave both operands the promoted type

    @staticmethod
    def f2i(x, dtype):
        """float -> integer: truncate toward zero, saturate, NaN -> 0 (what cvt.rzi does)."""
        info = np.iinfo(dtype)
        x = np.asarray(x)
        with np.errstate(all="ignore"):
            t = np.trunc(x)
            t = np.where(np.isnan(t), 0, t)
            t = np.clip(t, info.min, info.max)
        if dtype.itemsize == 8:
            # float64 cannot hold 2**63-1 exactly; clip again after the conversion
            out = t.astype(np.float64)
            big = out >= float(info.max)
            res = out.astype(dtype)
            return np.where(big, info.max, res).astype(dtype)
        return t.astype(dtype)

    @staticmethod
    def bitcast(x, frm, to):
        """__int_as_float and friends: the same bits, read as another type."""
        return np.ascontiguousarray(np.asarray(x, dtype=frm)).view(to)

    @staticmethod
    def round(x):
        return (np.sign(x) * np.floor(np.abs(x) + x.dtype.type(0.5))).astype(x.dtype)

    @staticmethod
    def rsqrt(x):
        return (x.dtype.type(1) / np.sqrt(x)).astype(x.dtype)

    @staticmethod
    def saturate(x):
        return np.clip(x, 0, 1).astype(x.dtype)

    @staticmethod
    def fma(a, b, c, dtype):
        if dtype == np.float32:
            return (a.astype(np.float64) * b + c).astype(np.float32)
        return a * b + c

    @staticmethod
    def popc(x):
        x = np.asarray(x)
        bits = x.dtype.itemsize * 8
        u = x.astype(np.uint64) & np.uint64((1 << bits) - 1)
        return np.bitwise_count(u).astype(np.int32) if hasattr(np, "bitwise_count") else \
            np.array([bin(int(v)).count("1") for v in np.ravel(u)], np.int32).reshape(np.shape(u))

    @staticmethod
    def ffs(x):
        x = np.asarray(x)
        bits = x.dtype.itemsize * 8
        u = x.astype(np.uint64) & np.uint64((1 << bits) - 1)
        low = u & (~u + np.uint64(1))      # lowest set bit
        pos = np.where(u == 0, 0, np.log2(np.where(low == 0, 1, low).astype(np.float64)).astype(np.int32) + 1)
        return pos.astype(np.int32)

    @staticmethod
    def clz(x):
        u = np.asarray(x).astype(np.uint32).astype(np.uint64)
        out = np.full(u.shape, 32, np.int32)
        nz = u != 0
        out[nz] = 31 - np.floor(np.log2(u[nz].astype(np.float64))).astype(np.int32)
        return out

    @staticmethod
    def brev(x):
        u = np.asarray(x).astype(np.uint32)
        out = np.zeros_like(u)
        for i in range(32):
            out |= ((u >> np.uint32(i)) & np.uint32(1)) << np.uint32(31 - i)
        return out

    def activemask(self, L, site=None):
        """__activemask(): the lanes of each warp that execute this point together (the lanes in
        L); under a splitting schedule, only the caller's sub-group of them (activemask.py)."""
        idx = self.lane_index(L)
        warps = self.slot_warp[idx]
        bits = (np.uint32(1) << self.slot_lane[idx].astype(np.uint32)).astype(np.uint32)
        change = run_starts(warps)
        starts = np.flatnonzero(change)
        masks = np.bitwise_or.reduceat(bits, starts)[np.cumsum(change) - 1]
        if not self.active_mask.splits:
            return masks
        masks = masks.copy()
        for first, end in zip(starts, np.append(starts[1:], len(idx))):
            group = self.active_mask.sub_groups(int(end - first))
            if not group.any():
                continue
            run_bits = bits[first:end]
            sub = [np.bitwise_or.reduce(run_bits[group == g]) for g in (0, 1)]
            masks[first:end] = np.where(group == 0, sub[0], sub[1])
            warp, split = int(warps[first]), (site, [int(m) for m in sub])
            self.activemask_split[warp] = split
            second = self.activemask_second.setdefault(warp, {})
            second.pop(split[1][1], None)
            second[split[1][1]] = split
            if len(second) > 8:         # the recent ones: enough for the sub-groups still apart
                del second[next(iter(second))]
        return masks

    def nth_lane(self, mask, n, L):
        """Lane of the n-th (from 0) set bit of each lane's mask; the lane itself when there is
        none (coalesced_group's shuffles: CUDA's __fns, then "if (lane >= 32) lane = laneid")."""
        own = self.lane_of(L)
        mask = np.broadcast_to(np.asarray(mask).astype(np.uint32), own.shape)
        n = np.broadcast_to(np.asarray(n).astype(np.int64), own.shape)
        bits = (mask[:, None] >> np.arange(32, dtype=np.uint32)) & np.uint32(1)
        hit = (bits == 1) & (np.cumsum(bits, axis=1) == n[:, None] + 1)
        return np.where(hit.any(axis=1), hit.argmax(axis=1), own).astype(np.uint32)

    @staticmethod
    def pack_lanes(bits, mask):
        """The bits of `bits` at the mask's lanes, packed from bit 0 (bit i: the i-th lane of mask)."""
        bits, mask = np.broadcast_arrays(np.asarray(bits).astype(np.uint32), np.asarray(mask).astype(np.uint32))
        out = np.zeros(bits.shape, np.uint32)
        rank = np.zeros(bits.shape, np.uint32)
        for k in range(32):
            inside = (mask >> np.uint32(k)) & np.uint32(1)
            out |= (((bits >> np.uint32(k)) & np.uint32(1)) * inside) << rank
            rank += inside
        return out

    def threadfence(self, L):
        """__threadfence(), __threadfence_system(): memory is sequentially consistent here; only
        plugins (the race detector) care."""
        for hook in self.plugins.fence:
            hook(self.lane_index(L))

    def threadfence_block(self, L):
        """__threadfence_block(): the same, at block scope."""
        for hook in self.plugins.block_fence:
            hook(self.lane_index(L))

    # ---- the simulated clock: clock(), clock64(), __nanosleep
    def clock64(self, L):
        """clock64(): simulated cycles, never an H200's. Every step the launch has run counts
        CLOCK_PER_STEP cycles (the same for every thread: each thread's clock moves on with the
        simulated work, however its loop is scheduled), plus what the thread's own __nanosleep
        calls added; so it never goes back for a thread, and a "spin for N cycles" loop ends."""
        idx = self.lane_index(L)
        return np.int64(self.wave.steps) * np.int64(CLOCK_PER_STEP) + self.slept[idx]

    def clock32(self, L):
        """clock(): the low 32 bits of the same counter, sign-extended to clock_t (`long`), as
        CUDA's clock() reads the 32-bit %clock register."""
        return self.clock64(L).astype(np.int32).astype(np.int64)

    def nanosleep(self, ns, L):
        """__nanosleep(ns): the thread's clock moves on by ns nanoseconds (CUDA caps a sleep at
        about a millisecond), at NOMINAL_GHZ cycles per nanosecond; nothing else waits."""
        idx = self.lane_index(L)
        ns = np.broadcast_to(np.asarray(ns).astype(np.int64), idx.shape)
        self.slept[idx] += np.clip(ns, 0, MAX_NANOSLEEP_NS) * NOMINAL_GHZ

    # ---- device printf
    MAX_PRINTF_LINES = 4096
    MAX_PRINTF_BYTES = 1 << 20      # CUDA's default printf buffer (cudaLimitPrintfFifoSize): 1 MB

    def printf(self, fmt, values, L, site):
        """Format one line per lane (C conversions mapped onto Python's %), kept for the launch.
        Output stops at MAX_PRINTF_LINES lines or MAX_PRINTF_BYTES bytes, as a GPU's printf buffer
        fills up, with one line saying which limit was reached."""
        out = self.launch.printed
        if self.launch.printf_full:
            return
        # a field width beyond the buffer is cut by the buffer anyway (and must not build a
        # gigabyte string first)
        py = re.sub(r"%([-+ #0]*)(\d*)(?:\.(\d+))?(?:hh|h|ll|l|z)?([diouxXeEfgGcsp%])", self._printf_conversion, fmt)
        n = self.nlanes(L)
        cols = [np.broadcast_to(np.asarray(v), (n,)) for v in values]
        for k in range(n):
            if len(out) >= self.MAX_PRINTF_LINES:
                return self._printf_stop(f"{self.MAX_PRINTF_LINES:,} lines")
            row = tuple(c[k].item() for c in cols)
            try:
                text = py % row
            except (TypeError, ValueError) as err:
                text = f"<printf format {fmt!r} does not match its arguments: {err}>\n"
            room = self.MAX_PRINTF_BYTES - self.launch.printed_bytes
            size = len(text.encode("utf-8", "replace"))
            if size > room:
                if room > 0:
                    out.append(text.encode("utf-8", "replace")[:room].decode("utf-8", "ignore"))
                    self.launch.printed_bytes = self.MAX_PRINTF_BYTES
                return self._printf_stop(f"{self.MAX_PRINTF_BYTES:,} bytes (CUDA's default printf buffer, "
                                         "cudaLimitPrintfFifoSize)")
            out.append(text)
            self.launch.printed_bytes += size

    def _printf_conversion(self, m):
        flags, width, precision, conv = m.groups()
        if conv == "%":
            return "%%"
        cap = self.MAX_PRINTF_BYTES + 1
        width = str(min(int(width), cap)) if width else ""
        precision = "." + str(min(int(precision), cap)) if precision is not None else ""
        return "%" + flags + width + precision + {"u": "d", "p": "x", "i": "d"}.get(conv, conv)

    def _printf_stop(self, limit):
        self.launch.printf_full = True
        self.launch.printed.append(f"\n<simcore: device printf output stopped at {limit}; the rest of "
                                   "this launch's printf output is dropped, as on a GPU whose printf buffer "
                                   "is full>\n")

    # ---- undefined values
    def bad_function_pointer(self, value, L, site):
        """A call through a function pointer that names no function of the module (null)."""
        self.report.bad_function_pointer(np.broadcast_to(np.asarray(value), (self.nlanes(L),)), L, site)

    def use_check(self, taint, L, site, what):
        """An undefined value decides control flow or an address: that is the fault."""
        t = np.asarray(taint)
        if not t.any():
            return
        if t.ndim == 0:
            t = np.full(self.nlanes(L), t)
        for hook in self.plugins.undefined_use:
            hook(t, L, site, what)

    # ---- faults found while a block runs: straight to the reporter, or to the check that owns them
    def fault_local_bounds(self, idx, length, L, site):
        for hook in self.plugins.local_out_of_bounds:
            hook(idx, length, L, site)

    def fault_div_zero(self, zero, L, site):
        self.report.div_zero(zero, L, site)
