"""The conformance corpus: CUDA kernels with their launch, arguments, numpy reference and
the verdict simcore must give.

Each entry names a ``.cu`` file in this folder (one ``extern "C" __global__`` kernel each),
how to launch it, a factory for its arguments (seeded numpy arrays and numpy scalars of the
parameter's exact type), and

* ``expect``: ``"ok"`` (defined, no warning), ``"warning"`` (legal but fragile: simcore must
  run it to the end and emit a ``SimWarning``) or a fault kind (``simcore.KernelFault.kind``);
* ``reference``: for defined kernels, a function of the (unlaunched) arguments returning
  ``{argument index: expected array}``; None for undefined kernels;
* ``intended``: optionally, for undefined kernels, what the programmer meant (the GPU run of
  ``tools/gpu_conformance.py`` reports how often real hardware matched it).

Verdicts follow /work/shared/design/SEMANTICS.md (simcore's rules: barriers count threads,
exited threads are not waited for, diverged lanes of a warp wait for each other at the
immediate post-dominator). The reasoning for the less obvious ones is in each entry's ``why``.

Used by tests/test_conformance_corpus.py (simulator), tests/test_nvcc_ptx.py (nvcc) and
tools/gpu_conformance.py (real GPU, compute-sanitizer).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

HERE = Path(__file__).resolve().parent

FAULT_KINDS = (
    "divergent_barrier", "deadlock", "race", "invalid_mask", "undefined_value",
    "uninitialized", "named_barrier", "out_of_bounds", "step_limit", "misaligned",
    "division_by_zero",
)
VERDICTS = ("ok", "warning") + FAULT_KINDS


@dataclass(frozen=True)
class Entry:
    name: str
    kernel: str
    grid: tuple
    block: tuple
    make_args: Callable[[], tuple]
    expect: str
    reference: Callable[[tuple], dict] | None = None
    intended: Callable[[tuple], dict] | None = None
    shared_mem: int = 0
    options: tuple = ()
    sim_options: dict = field(default_factory=dict)
    rtol: float = 1e-5
    atol: float = 1e-6
    why: str = ""
    file: str = ""

    @property
    def path(self) -> Path:
        return HERE / (self.file or f"{self.name}.cu")

    @property
    def source(self) -> str:
        return self.path.read_text()

    @property
    def defined(self) -> bool:
        return self.expect in ("ok", "warning")


# --------------------------------------------------------------------------- helpers
def rng(seed):
    return np.random.default_rng(seed)


def i32(*shape, lo=-1000, hi=1000, seed=0):
    return rng(seed).integers(lo, hi, size=shape, dtype=np.int32)


def f32(n, lo=-1.0, hi=1.0, seed=0):
    return rng(seed).uniform(lo, hi, size=n).astype(np.float32)


def zeros(n, dtype=np.int32):
    return np.zeros(n, dtype=dtype)


def full(n, value, dtype=np.int32):
    return np.full(n, value, dtype=dtype)


def cdiv(a, b):
    """C integer division (truncates toward zero) on Python ints."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def cmod(a, b):
    return a - b * cdiv(a, b)


def wrap32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= (1 << 31) else v


def reverse_blocks(x, tile):
    return x.reshape(-1, tile)[:, ::-1].ravel()


ENTRIES: list[Entry] = []


def entry(name, kernel=None, **kw):
    e = Entry(name=name, kernel=kernel or name, **kw)
    ENTRIES.append(e)
    return e


# --------------------------------------------------------------------------- defined kernels
entry("reverse_tile", grid=(4,), block=(256,),
      make_args=lambda: (zeros(1024, np.float32), f32(1024, seed=1)),
      reference=lambda a: {0: reverse_blocks(a[1], 256)},
      expect="ok")


def _types_ref(a):
    x = a[0]
    n = int(a[6])
    t = np.arange(n)
    out_i = a[1].copy()
    f = x.astype(np.float32) / np.float32(3.0)
    out_i[0::4] = (x > 0).astype(np.int32) + (x & 0x7F)
    out_i[1::4] = (x * 100).astype(np.int16).astype(np.int32)
    out_i[2::4] = (f * np.float32(2.5)).astype(np.int32)
    out_i[3::4] = t * 8 + 4
    out_u = x.astype(np.uint32) + np.uint32(7)
    out_ll = x.astype(np.int64) * 3000000000 + t * 8
    out_d = x.astype(np.float64) / 3.0
    return {1: out_i, 2: out_u, 3: out_ll, 4: f, 5: out_d}


entry("types_scalar", grid=(1,), block=(128,),
      make_args=lambda: (i32(100, seed=2), zeros(400), zeros(100, np.uint32),
                         zeros(100, np.int64), zeros(100, np.float32),
                         zeros(100, np.float64), np.int32(100)),
      reference=_types_ref, expect="ok",
      why="threads 100..127 return early; no barrier follows, so no warning either")


def _int_ops_ref(a):
    xs, ys = a[0].tolist(), a[1].tolist()
    out = a[2].copy()
    for t, (x, y) in enumerate(zip(xs, ys)):
        o = [0] * 16
        o[0] = cdiv(x, y)
        o[1] = cmod(x, y)
        o[2] = (x & 0xFFFF) << 3
        o[3] = x >> 2
        o[4] = (x & y) | (x ^ 0x55)
        o[5] = ~x
        o[6] = int(x == 0) + int(x != 0 and y != 0) * 2 + int(x != 0 or y > 5) * 4
        o[7] = -x + (x if x > y else y)
        o[8] = (int(x < y) + 2 * int(x <= y) + 4 * int(x > y) + 8 * int(x >= y)
                + 16 * int(x == y) + 32 * int(x != y))
        c = x + y - 3
        c *= 2
        c = cdiv(c, 3)
        c = cmod(c, 7)
        c ^= 0x33
        c |= 5
        c &= 0x3FF
        c <<= 2
        c >>= 1
        o[9] = c
        o[10], o[11], o[12], o[13] = c + 1, c + 2, c + 2, 2 * c
        o[14] = x * y - cdiv(x, 7) * 7
        m = cmod(x, 4)
        o[15] = -1 if m == 0 else (-2 if m == 1 else 3)
        out[t * 16:(t + 1) * 16] = [wrap32(v) for v in o]
    return {2: out}


def _int_ops_args():
    b = i32(100, seed=4)
    b[b == 0] = 7
    b[:4] = [3, -3, 7, -7]
    a = i32(100, seed=3)
    a[:4] = [-7, -7, 7, -7]
    return a, b, zeros(1600), np.int32(100)


entry("int_ops", grid=(1,), block=(128,), make_args=_int_ops_args,
      reference=_int_ops_ref, expect="ok")


def _unsigned_ref(a):
    M = 0xFFFFFFFF
    out = a[2].copy()
    for t, (x, y) in enumerate(zip(a[0].tolist(), a[1].tolist())):
        y |= 1
        out[t * 8:(t + 1) * 8] = [(x + y) & M, (x - y) & M, (x * y) & M, x // y, x % y,
                                  x >> (y & 31), int(x < y), 0]
    return {2: out}


entry("unsigned_ops", grid=(1,), block=(128,),
      make_args=lambda: (rng(5).integers(0, 2**32, 100, dtype=np.uint32),
                         rng(6).integers(0, 2**32, 100, dtype=np.uint32),
                         zeros(800, np.uint32), np.int32(100)),
      reference=_unsigned_ref, expect="ok",
      why="(neg < x) compares as unsigned: -1 becomes 0xffffffff, so it is always false")


def _ll_ref(a):
    M = (1 << 64) - 1
    out, outu = a[1].copy(), a[2].copy()
    for t, x in enumerate(a[0].tolist()):
        out[t * 4:(t + 1) * 4] = [x * 3 + (1 << 40), cdiv(x, 7), cmod(x, 7), x >> 3]
        ux = x & M
        outu[t * 2] = (ux * 0x9E3779B97F4A7C15) & M
        outu[t * 2 + 1] = ((t << 33) ^ ux) & M
    return {1: out, 2: outu}


entry("long_long_ops", grid=(1,), block=(64,),
      make_args=lambda: (rng(7).integers(-2**40, 2**40, 64, dtype=np.int64),
                         zeros(256, np.int64), zeros(128, np.uint64), np.int32(64)),
      reference=_ll_ref, expect="ok")


def _float_math_ref(a):
    v = a[0]
    out = np.stack([np.sqrt(v), np.exp(-v), np.abs(v - np.float32(2)),
                    np.minimum(v, np.float32(1.5)), np.maximum(v, np.float32(1.5)),
                    np.log(v), np.floor(v * np.float32(3)), np.ceil(v) - v], axis=1)
    return {1: out.astype(np.float32).ravel()}


entry("float_math", grid=(1,), block=(128,),
      make_args=lambda: (f32(100, 0.1, 4.0, seed=8), zeros(800, np.float32), np.int32(100)),
      reference=_float_math_ref, expect="ok")


def _double_ref(a):
    v = a[0]
    out = np.stack([np.sqrt(v) + 1.0 / 3.0, np.abs(v - 2.5) * 1e10, np.exp(v) - 1.0,
                    v.astype(np.float32).astype(np.float64) - v], axis=1)
    return {1: out.ravel()}


entry("double_math", grid=(1,), block=(64,),
      make_args=lambda: (rng(9).uniform(0.5, 5.0, 64), zeros(256, np.float64), np.int32(64)),
      reference=_double_ref, expect="ok", rtol=1e-12, atol=1e-12)


def _fdz_args():
    x = f32(64, 0.5, 2.0, seed=10)
    x[1::2] *= -1
    y = f32(64, 1.0, 3.0, seed=11)
    y[::5] = 0.0
    return x, y, zeros(64, np.float32), np.int32(64)


def _fdz_ref(a):
    with np.errstate(divide="ignore"):
        return {2: a[0] / a[1]}


entry("float_div_zero", grid=(1,), block=(64,), make_args=_fdz_args, reference=_fdz_ref,
      expect="ok",
      why="IEEE 754 defines x/0.0f as +-inf and CUDA follows it; only integer division by "
          "zero is undefined (division_by_zero)")


def _ptr_ref(a):
    x, n = a[0], int(a[2])
    out = a[1].copy()
    for i in range(n):
        v = x[i]
        if i % 128:
            v = np.float32(v + x[i - 1])
        out[i] = np.float32(np.float32(v + np.float32(1)) * np.float32(2))
    return {1: out}


entry("pointer_arith", grid=(2,), block=(128,),
      make_args=lambda: (f32(200, seed=12), zeros(200, np.float32), np.int32(200)),
      reference=_ptr_ref, expect="ok")

entry("pointer_cast", grid=(1,), block=(64,),
      make_args=lambda: (f32(64, -100, 100, seed=13), zeros(64, np.uint32),
                         zeros(64, np.uint8), np.int32(64)),
      reference=lambda a: {1: a[0].view(np.uint32).copy(),
                           2: a[0].view(np.uint8)[0::4].copy()},
      expect="ok", why="numpy and the GPU are both little-endian")


def _local_ref(a):
    out = a[1].copy()
    for t, x in enumerate(a[0].tolist()):
        r = [x * (k + 1) for k in range(8)]
        r[x & 7] = -r[x & 7]
        acc = 0
        for k in range(7, -1, -1):
            acc = acc * 3 + cmod(r[k], 5)
        out[t] = acc
    return {1: out}


entry("local_array", grid=(1,), block=(128,),
      make_args=lambda: (i32(100, lo=-50, hi=50, seed=14), zeros(100), np.int32(100)),
      reference=_local_ref, expect="ok")

entry("transpose_2d", grid=(3, 2), block=(16, 16),
      make_args=lambda: (zeros(40 * 24, np.float32), f32(24 * 40, seed=15),
                         np.int32(40), np.int32(24)),
      reference=lambda a: {0: a[1].reshape(24, 40).T.ravel().copy()},
      expect="ok",
      why="40x24 is not a multiple of the tile: edge tiles are partly loaded, and only "
          "loaded slots are read")

entry("extern_shared_reduce", grid=(4,), block=(128,), shared_mem=128 * 4,
      make_args=lambda: (i32(512, lo=-100, hi=100, seed=16), zeros(4)),
      reference=lambda a: {1: a[0].reshape(4, 128).sum(axis=1).astype(np.int32)},
      expect="ok")


def _cf_args():
    x = i32(100, lo=0, hi=100, seed=17)
    x[5] = 42
    x[6] = 0
    x[7] = 1
    return x, zeros(400), np.int32(100)


def _cf_ref(a):
    out = a[1].copy()
    for t, x in enumerate(a[0].tolist()):
        if x == 42:
            out[t * 4:t * 4 + 4] = -1
            continue
        acc = 0
        for i in range(10):
            if i == x % 7:
                continue
            if i * x > 300:
                break
            acc += i
        w, steps = x, 0
        while w > 1:
            w = w // 2 if w % 2 == 0 else 3 * w + 1
            steps += 1
        d = 0
        while True:
            d += 2
            if not d < x % 5:
                break
        s = {0: 10, 1: 20, 2: 20, 3: 31, 4: 1}.get(x % 6, 99)
        out[t * 4:t * 4 + 4] = [acc, steps, d, s]
    return {1: out}


entry("control_flow", grid=(1,), block=(128,), make_args=_cf_args, reference=_cf_ref,
      expect="ok")


def _macros_ref(a):
    v = a[0].astype(np.int64)
    idx = np.arange(128)
    r, c = idx // 16, idx % 16
    return {1: ((v + 1) ** 2 * 3 + np.maximum(np.maximum(r, c), v)).astype(np.int32)}


entry("macros", grid=(1,), block=(16, 8), options=("-DSCALE=3",),
      make_args=lambda: (i32(128, lo=-20, hi=20, seed=18), zeros(128)),
      reference=_macros_ref, expect="ok",
      why="SCALE comes from options=('-DSCALE=3',)")


def _devfn_ref(a):
    v = a[0]
    out = np.empty(200, np.int32)
    out[0::2] = np.clip(v, -10, 10)
    out[1::2] = np.clip(v * 2, 0, 50)
    x = v.astype(np.float32) * np.float32(0.125)
    return {1: out, 2: (np.float32(1) + x * (np.float32(0.5) + x * np.float32(0.25)))}


entry("device_functions", grid=(1,), block=(128,),
      make_args=lambda: (i32(100, lo=-30, hi=30, seed=19), zeros(200),
                         zeros(100, np.float32), np.int32(100)),
      reference=_devfn_ref, expect="ok")


def _b3_ref(a):
    out = a[0].copy()
    G, B = (2, 3, 2), (4, 2, 3)
    for bz in range(G[2]):
        for by in range(G[1]):
            for bx in range(G[0]):
                bid = bx + G[0] * (by + G[1] * bz)
                for tz in range(B[2]):
                    for ty in range(B[1]):
                        for tx in range(B[0]):
                            tid = tx + B[0] * (ty + B[1] * tz)
                            g = bid * 24 + tid
                            out[g * 4:g * 4 + 4] = [tx * 100 + ty * 10 + tz,
                                                    bx * 100 + by * 10 + bz, 423, 232]
    return {0: out}


entry("builtins_3d", grid=(2, 3, 2), block=(4, 2, 3),
      make_args=lambda: (zeros(12 * 24 * 4),), reference=_b3_ref, expect="ok",
      why="24 threads per block: each block is one partial warp")

entry("warp_size", grid=(2,), block=(96,), make_args=lambda: (zeros(192),),
      reference=lambda a: {0: np.array([3200000 + (t % 96 // 32) * 1000 + t % 32
                                        for t in range(192)], np.int32)},
      expect="ok")


def _mm_ref(a):
    x, y = a[0], a[1]
    out = np.stack([np.minimum(x, y), np.maximum(x, y), np.abs(x - y),
                    np.minimum(x + 1000, y + 1000)], axis=1).astype(np.int32).ravel()
    xf, yf = x.astype(np.float32), y.astype(np.float32)
    outf = np.stack([np.minimum(xf, yf) * np.float32(0.5),
                     np.abs(np.maximum(xf, yf) - np.float32(3))], axis=1).ravel()
    return {2: out, 3: outf}


entry("minmax_abs", grid=(1,), block=(128,),
      make_args=lambda: (i32(100, lo=-500, hi=500, seed=20), i32(100, lo=-500, hi=500, seed=21),
                         zeros(400), zeros(200, np.float32), np.int32(100)),
      reference=_mm_ref, expect="ok")


def _stc_args():
    x = i32(256, lo=0, hi=98, seed=22)
    x[17] = 99          # block 0: some value > 98
    x[128 + 40] = -3    # block 1: one negative value, so __syncthreads_and is 0
    return x, zeros(768)


def _stc_ref(a):
    out = a[1].copy().reshape(2, 128, 3)
    for b in range(2):
        v = a[0][b * 128:(b + 1) * 128]
        out[b, :, 0] = (v > 50).sum()
        out[b, :, 1] = int((v >= 0).all())
        out[b, :, 2] = int((v > 98).any())
    return {1: out.ravel()}


entry("syncthreads_count", grid=(2,), block=(128,), make_args=_stc_args,
      reference=_stc_ref, expect="ok")

entry("syncwarp_exchange", grid=(2,), block=(128,),
      make_args=lambda: (i32(256, seed=23), zeros(256)),
      reference=lambda a: {1: reverse_blocks(a[0], 32)},
      expect="ok", why="only warp-mates communicate, and __syncwarp orders them")

entry("shfl_reduce", grid=(2,), block=(128,),
      make_args=lambda: (i32(256, seed=24), zeros(8)),
      reference=lambda a: {1: a[0].reshape(8, 32).sum(axis=1).astype(np.int32)},
      expect="ok",
      why="lanes 16-31 read past the segment and keep their own value: defined; only "
          "lane 0 stores")


def _shfl_var_ref(a):
    v = a[0]
    out = a[1].copy().reshape(64, 6)
    outf = a[2].copy()
    for g in range(64):
        base, lane = g & ~31, g & 31
        out[g] = [v[base + (lane & ~7) + 3],
                  v[base + (lane - 2 if lane % 16 >= 2 else lane)],
                  v[base + (lane + 3 if lane % 16 + 3 < 16 else lane)],
                  v[base + (lane ^ 5)],
                  v[base + (lane ^ 3)],
                  v[base + (lane + 1) % 32]]
        outf[g] = np.float32(v[base + (lane + 1 if lane < 31 else lane)]) * np.float32(0.5)
    return {1: out.ravel(), 2: outf}


entry("shfl_variants", grid=(1,), block=(64,),
      make_args=lambda: (i32(64, seed=25), zeros(384), zeros(64, np.float32)),
      reference=_shfl_var_ref, expect="ok")


def _vote_args():
    x = i32(96, lo=0, hi=90, seed=26)
    x[32:64] &= ~1        # warp 1: all even, ballot 0, __ffs(0) == 0
    x[70] = 95            # warp 2: one value > 90
    x[80] = -4            # warp 2: one negative value, __all_sync false
    return x, zeros(576, np.uint32)


def _vote_ref(a):
    x = a[0]
    out = a[1].copy().reshape(96, 6)
    for w in range(3):
        v = x[w * 32:(w + 1) * 32]
        b = sum(1 << i for i in range(32) if v[i] & 1)
        ffs = (b & -b).bit_length()
        out[w * 32:(w + 1) * 32] = [b, int((v >= 0).all()), int((v > 90).any()),
                                    0xFFFFFFFF, bin(b).count("1"), ffs]
    return {1: out.ravel()}


entry("vote_ops", grid=(1,), block=(96,), make_args=_vote_args, reference=_vote_ref,
      expect="ok", why="__activemask() in converged code: all 32 lanes")


def _atomg_args():
    return (i32(256, lo=0, hi=1000, seed=27),
            np.array([0, 0, 1000000, -1000000, -1, 0], np.int32), zeros(1024),
            np.array([0xFFFFFFFF, 0, 0, 0], np.uint32), zeros(16))


def _atomg_ref(a):
    v = a[0].astype(np.int64)
    counters = np.array([256, -v.sum(), v.min(), v.max(), -7, 256], np.int32)
    seen = np.zeros(1024, np.int32)
    seen[0:256] = 1
    seen[256:513] = 1
    seen[600:856] = 1
    orr = 0
    xor = 0
    for x in v.tolist():
        orr |= 1 << (x % 32)
        xor ^= x
    bits = np.array([1, orr, xor, 0], np.uint32)
    return {1: counters, 2: seen, 3: bits, 4: np.full(16, 16, np.int32)}


entry("atomics_global", grid=(1,), block=(256,), make_args=_atomg_args,
      reference=_atomg_ref, expect="ok",
      why="every return value is used in an order-independent way (see the .cu comment)")

entry("atomics_shared", grid=(2,), block=(256,),
      make_args=lambda: (i32(512, lo=0, hi=1000, seed=28), zeros(16), zeros(512)),
      reference=lambda a: {1: np.bincount(a[0] & 15, minlength=16).astype(np.int32),
                           2: np.ones(512, np.int32)},
      expect="ok")

entry("threadfence_block", grid=(1,), block=(64,),
      make_args=lambda: (i32(64, seed=29), zeros(64)),
      reference=lambda a: {1: (a[0] * 2)[::-1].copy()}, expect="ok")

entry("named_barrier_halves", grid=(2,), block=(512,),
      make_args=lambda: (i32(1024, seed=30), zeros(1024)),
      reference=lambda a: {1: reverse_blocks(a[0], 256)},
      expect="ok", why="each half uses its own barrier (1 or 2) with count 256 = its size")

entry("ptx_bar_literal", grid=(2,), block=(256,),
      make_args=lambda: (i32(512, seed=31), zeros(512)),
      reference=lambda a: {1: (np.roll(a[0].reshape(2, 256), -128, axis=1) + 1).ravel()},
      expect="ok")

entry("ptx_bar_arrive", grid=(1,), block=(256,),
      make_args=lambda: (i32(128, seed=32), zeros(128)),
      reference=lambda a: {1: a[0] * 3 + (a[0] * 3)[::-1]},
      expect="ok",
      why="128 producers bar.arrive + 128 consumers bar.sync = count 256; bar.arrive "
          "orders the producers' writes before the consumers' reads")

entry("ptx_barrier_sync", grid=(2,), block=(128,),
      make_args=lambda: (zeros(256, np.float32), f32(256, seed=33)),
      reference=lambda a: {0: reverse_blocks(a[1], 128)}, expect="ok")


def _pf_ref(a):
    x, n = a[1], int(a[2])
    out = a[0].copy()
    for i in range(n):
        src = (i // 128) * 128 + 127 - i % 128
        out[i] = x[src] if src < n else 0.0
    return {0: out}


entry("predicated_fill", grid=(3,), block=(128,),
      make_args=lambda: (zeros(300, np.float32), f32(300, seed=34), np.int32(300)),
      reference=_pf_ref, expect="ok",
      why="the fix of early_return_tile: every thread reaches the barrier")

entry("half_warp_reduce", grid=(1,), block=(64,),
      make_args=lambda: (zeros(2), i32(64, seed=35)),
      reference=lambda a: {0: a[1].reshape(2, 32)[:, :16].sum(axis=1).astype(np.int32)},
      expect="ok",
      why="lanes 8-15 read lanes 16-23, which do not take part: undefined values, but "
          "they never reach lane 0's sum nor any store (SEMANTICS: fault only on use)")


def _partial_ref(a):
    x = a[1]
    out = a[0].copy()
    for w in range(2):
        v = x[w * 32:(w + 1) * 32]
        nv = [v[l ^ 1] if l < 16 else v[l ^ 2] + 1000 for l in range(32)]
        bit0 = int(nv[0] > 500)
        out[w * 32:(w + 1) * 32] = [nv[l] + bit0 for l in range(32)]
    return {0: out}


entry("shfl_partial_mask", grid=(1,), block=(64,),
      make_args=lambda: (zeros(64), i32(64, lo=0, hi=1000, seed=36)),
      reference=_partial_ref, expect="ok",
      why="disjoint masks, each naming exactly the lanes of its branch, are legal")

entry("global_exchange_barrier", grid=(2,), block=(128,),
      make_args=lambda: (zeros(256), zeros(256)),
      reference=lambda a: {0: np.array([7 * (g % 128) + g // 128 for g in range(256)], np.int32),
                           1: np.array([7 * (127 - g % 128) + g // 128 for g in range(256)],
                                       np.int32)},
      expect="ok", why="__syncthreads orders global memory among the block's threads too")

entry("scan_loop_barrier", grid=(2,), block=(256,),
      make_args=lambda: (zeros(512), i32(512, lo=-100, hi=100, seed=37)),
      reference=lambda a: {0: np.cumsum(a[1].reshape(2, 256), axis=1).astype(np.int32).ravel()},
      expect="ok")


def _wsf_ref(a):
    s = a[1].astype(np.int64).copy()
    v = s[:32] + s[32:64]
    s[:32] = v
    for off in (16, 8, 4, 2, 1):
        v = v + s[np.arange(32) + off]
        s[:32] = v
    out = a[0].copy()
    out[0] = s[0]
    return {0: out}


entry("warp_sync_fixed", grid=(1,), block=(64,),
      make_args=lambda: (zeros(1), i32(64, lo=-100, hi=100, seed=38)),
      reference=_wsf_ref, expect="ok")

def _incdec_ref(a):
    c = a[0].astype(np.int64)
    return {1: np.stack([c, c + 2, c + 2, c, c], axis=1).astype(np.int32).ravel()}


entry("incdec", grid=(1,), block=(32,),
      make_args=lambda: (i32(32, seed=61), zeros(160)),
      reference=_incdec_ref, expect="ok", why="postfix ++/-- yield the value before the update")

entry("size_t_index", grid=(2,), block=(64,),
      make_args=lambda: (i32(100, seed=62), zeros(100, np.int64), np.int32(100)),
      reference=lambda a: {1: np.arange(100, dtype=np.int64) * 8 + 3 + a[0]},
      expect="ok")


def _nested_ref(a):
    v = a[0]
    out = np.empty(64, np.int32)
    out[0::2] = np.clip(v, -10, 10)
    out[1::2] = np.clip(np.clip(v * 2, -5, 40), 0, 50)
    return {1: out}


entry("device_call_nested", grid=(1,), block=(32,),
      make_args=lambda: (i32(32, lo=-30, hi=30, seed=63), zeros(64)),
      reference=_nested_ref, expect="ok")

entry("shared_scalar", grid=(2,), block=(64,),
      make_args=lambda: (i32(2, seed=64), zeros(128)),
      reference=lambda a: {1: np.tile(a[0][0] + a[0][1] + np.arange(64) // 2, 2).astype(np.int32)},
      expect="ok")


# --------------------------------------------------------------------------- legal but fragile
entry("early_return_safe", grid=(3,), block=(128,),
      make_args=lambda: (zeros(300), i32(300, seed=39), np.int32(300)),
      reference=lambda a: {0: a[1][np.arange(300) ^ 1]},
      expect="warning",
      why="threads 300..383 return before the barrier; the barrier completes with the "
          "others (exited threads are not waited for) and nobody reads their slots. An "
          "early return is a non-uniform condition whose skipping threads exit: warning")


def _guard_ref(active):
    def ref(a):
        out = a[0].copy()
        out[:active] = a[-2][:active][::-1]
        res = {0: out}
        if len(a) == 4:
            res[1] = np.arange(256, dtype=np.int32) * 2
        return res
    return ref


entry("guard_nothing_after", grid=(1,), block=(256,),
      make_args=lambda: (full(256, -1), i32(256, seed=40), np.int32(100)),
      reference=_guard_ref(100), expect="warning",
      why="lanes 100-127 of warp 3 skip the if; their reconvergence point is the end of "
          "the kernel, so they exit and the barrier completes (H200: always correct)")

entry("guard_aligned_code_after", grid=(1,), block=(256,),
      make_args=lambda: (full(256, -1), zeros(256), i32(256, seed=41), np.int32(128)),
      reference=_guard_ref(128), expect="warning",
      why="active = 128 is a warp boundary: warps 4-7 skip the if entirely, run the store "
          "after it and exit; the barrier then completes with warps 0-3. Legal (exited "
          "threads do not count), fragile (active = 100 deadlocks: guard_code_after)")

# --------------------------------------------------------------------------- undefined kernels
entry("reverse_tile_nobarrier", grid=(4,), block=(256,),
      make_args=lambda: (zeros(1024, np.float32), f32(1024, seed=1)),
      intended=lambda a: {0: reverse_blocks(a[1], 256)},
      expect="race", why="read-after-write on tile without a barrier (H200: ~43% wrong)")

entry("early_return_tile", grid=(3,), block=(128,),
      make_args=lambda: (zeros(300, np.float32), f32(300, seed=34), np.int32(300)),
      intended=_pf_ref, expect="uninitialized",
      why="the barrier is legal (returned threads are not waited for) but threads 256..299 "
          "read tile[84..127], never written because threads 300..383 returned; the value "
          "is stored to out")

entry("ifelse_warp_aligned", grid=(2,), block=(256,),
      make_args=lambda: (zeros(512), i32(512, seed=42)),
      intended=lambda a: {0: (reverse_blocks(a[1], 256).reshape(2, 256)
                              + (np.arange(256) >= 128) * 1000).astype(np.int32).ravel()},
      expect="divergent_barrier",
      why="barrier 0 reached from two call sites; simcore reports it even though every "
          "warp is uniform (as synccheck does)")

entry("ifelse_straddle", grid=(2,), block=(256,),
      make_args=lambda: (zeros(512), i32(512, seed=42)),
      intended=lambda a: {0: (reverse_blocks(a[1], 256).reshape(2, 256)
                              + (np.arange(256) >= 80) * 1000).astype(np.int32).ravel()},
      expect="divergent_barrier",
      why="two call sites, and warp 2 is split between them; under the independent model "
          "the else-lanes run to the other barrier, so every live thread is at barrier 0 "
          "from two sites: divergent barrier, not deadlock")

entry("guard_code_after", grid=(1,), block=(256,),
      make_args=lambda: (full(256, -1), zeros(256), i32(256, seed=41), np.int32(100)),
      expect="deadlock",
      why="lanes 100-127 wait at the end of the if for lanes 96-99, which wait at the "
          "barrier; they never exit, so the barrier never completes")

entry("guard_then_barrier", grid=(1,), block=(256,),
      make_args=lambda: (zeros(256), i32(256, seed=43)),
      expect="divergent_barrier",
      why="warps 0-3 wait at the barrier in the if, warps 4-7 at the one after it: all live "
          "threads at barrier 0 from two call sites")

entry("loop_per_thread_trip", grid=(1,), block=(256,),
      make_args=lambda: (zeros(256), i32(256, seed=44)),
      expect="deadlock",
      why="lanes that finish the loop wait at its exit for warp-mates, which wait at the "
          "barrier for them (H200: hung at 256 threads)")

entry("loop_per_warp_trip", grid=(1,), block=(256,),
      make_args=lambda: (zeros(256), i32(256, seed=45)),
      intended=lambda a: {0: np.array([a[1][u] + u // 32 for u in
                                       ((np.arange(256) + 32) % 256)], np.int32)},
      expect="race",
      why="each warp is uniform, so barriers complete (warps that left exit); warp w reads "
          "warp w+1's slots while warp w+1 still rewrites them in its next iteration "
          "(H200: completed with some wrong answers)")

entry("activemask_loop", grid=(1,), block=(32,),
      make_args=lambda: (zeros(32), i32(32, seed=46)),
      expect="undefined_value",
      why="in iteration 1, lane 4k+3 (4 trips) reads lane 4k+4 (1 trip), which has left "
          "the loop; the mask from __activemask() names exactly the lanes in the loop, so "
          "the mask itself is consistent but the value read is undefined, and it is stored. "
          "(A schedule that splits the loop group could also produce invalid_mask.)")

entry("shfl_inactive_source", grid=(1,), block=(32,),
      make_args=lambda: (zeros(32), i32(32, seed=47)),
      expect="undefined_value",
      why="mask 0x0000ffff is legal for lanes 0-15; their source lanes 16-31 do not take "
          "part, so the values are undefined and stored")

entry("shfl_mask_divergent", grid=(1,), block=(32,),
      make_args=lambda: (zeros(32), i32(32, seed=48)),
      expect="invalid_mask",
      why="full mask names lanes 16-31, alive (they store after the if) and not calling")

entry("syncwarp_mask_divergent", grid=(1,), block=(32,),
      make_args=lambda: (zeros(32), i32(32, seed=49)),
      expect="invalid_mask",
      why="__syncwarp(full) called by lanes 0-15 only; lanes 16-31 are alive")

entry("named_count_large", grid=(1,), block=(512,),
      make_args=lambda: (i32(512, seed=50), zeros(512)),
      expect="deadlock", why="each half gets 256 arrivals of the 512 it waits for (H200: hung)")

entry("named_count_not_mult32", grid=(1,), block=(512,),
      make_args=lambda: (i32(512, seed=51), zeros(512)),
      expect="named_barrier", why="count 250 is not a multiple of 32 (H200: illegal instruction)")

entry("named_count_small", grid=(1,), block=(512,),
      make_args=lambda: (i32(512, seed=52), zeros(512)),
      intended=lambda a: {1: reverse_blocks(a[0], 256)},
      expect="named_barrier",
      why="256 threads arrive at a barrier of count 128: more arrivals than count "
          "(H200: completed, racecheck 2048 hazards)")

entry("oob_global_write", grid=(2,), block=(128,), make_args=lambda: (zeros(200),),
      expect="out_of_bounds", why="threads 200..255 write past the 200-element array")

entry("oob_global_read", grid=(2,), block=(128,),
      make_args=lambda: (zeros(256), i32(256, seed=53), np.int32(256)),
      expect="out_of_bounds", why="thread 255 reads in[256]")

entry("oob_shared", grid=(1,), block=(128,),
      make_args=lambda: (zeros(128), i32(128, seed=54)),
      expect="out_of_bounds", why="s has 64 elements, threads 64..127 write past it")

entry("spin_forever", grid=(1,), block=(32,), make_args=lambda: (zeros(1), zeros(32)),
      expect="step_limit", why="the flag is never set: endless loop")

entry("shared_counter_race", grid=(2,), block=(128,), make_args=lambda: (zeros(2),),
      intended=lambda a: {0: np.full(2, 128, np.int32)},
      expect="race", why="non-atomic read-modify-write of one shared int by every thread")

entry("war_race", grid=(1,), block=(256,),
      make_args=lambda: (zeros(256), i32(256, seed=55)),
      intended=lambda a: {0: np.roll(a[1], -1) * 2},
      expect="race", why="thread t reads tile[t+1] in the interval where thread t+1 writes it")

entry("atomic_vs_plain", grid=(1,), block=(128,),
      make_args=lambda: (zeros(1), i32(128, seed=56)),
      intended=lambda a: {0: np.array([a[1].sum()], np.int32)},
      expect="race", why="plain read of total while other threads atomically add to it")

entry("uninit_shared", grid=(1,), block=(256,),
      make_args=lambda: (zeros(256), i32(128, seed=57)),
      expect="uninitialized", why="s[128..255] is never written and is stored to out")

entry("misaligned_load", grid=(1,), block=(32,),
      make_args=lambda: (zeros(32), i32(64, seed=58)),
      expect="misaligned", why="a 4-byte load at byte offset 2 (+4k)")


def _dbz_args():
    x = i32(64, lo=4, hi=100, seed=59)
    x[20] = 3
    return zeros(64), x, np.int32(64)


entry("div_by_zero", grid=(1,), block=(64,), make_args=_dbz_args,
      expect="division_by_zero", why="in[20] == 3, so thread 20 divides by zero")

entry("global_cross_block", grid=(4,), block=(64,),
      make_args=lambda: (zeros(256), zeros(256)),
      intended=lambda a: {1: np.array([((g // 64 + 1) % 4) * 1000 + g % 64 for g in range(256)],
                                      np.int32)},
      expect="race",
      why="block b reads what block b+1 writes; __syncthreads orders nothing across blocks "
          "(global_race check)")

entry("global_race_in_block", grid=(1,), block=(64,),
      make_args=lambda: (zeros(64), zeros(64)),
      intended=lambda a: {1: (np.arange(64) ^ 32) * 3},
      expect="race",
      why="thread t reads buf[t ^ 32], written by another warp of the same block with no "
          "barrier in between (global_race check)")

entry("warp_sync_nosync", grid=(1,), block=(64,),
      make_args=lambda: (zeros(1), i32(64, lo=-100, hi=100, seed=60)),
      intended=lambda a: {0: np.array([a[1].sum()], np.int32)},
      expect="race",
      why="lanes of warp 0 read slots that other lanes write in the same step with no "
          "__syncwarp: a race under independent thread scheduling")


BY_NAME = {e.name: e for e in ENTRIES}


def get(name: str) -> Entry:
    return BY_NAME[name]


def _check_corpus():
    names = [e.name for e in ENTRIES]
    assert len(names) == len(set(names)), "duplicate entry names"
    for e in ENTRIES:
        assert e.expect in VERDICTS, (e.name, e.expect)
        assert (e.reference is not None) == e.defined, e.name


_check_corpus()
