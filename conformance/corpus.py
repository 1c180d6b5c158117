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
  ``tools/gpu_conformance.py`` reports how often real hardware matched it);
* ``globals``: optionally, ``__device__``/``__constant__`` variables to set before the launch
  (name -> factory of a numpy value), through ``RawModule.get_global`` on both backends
  (``conformance.runner.set_globals``; ``tools/run_one.py`` does the same on the GPU);
* ``cooperative``: launch cooperatively (``RawModule(..., enable_cooperative_groups=True)``,
  CuPy's ``cuLaunchCooperativeKernel``), for ``cg::this_grid().sync()``;
* ``name_expressions``: for a template kernel (C++ linkage, not ``extern "C"``), the
  instances to build; ``kernel`` is one of them (``"tpl_reverse_block<128, float>"``).

Verdicts follow docs/semantics.md (simcore's rules: barriers count threads,
exited threads are not waited for, diverged lanes of a warp wait for each other at the
immediate post-dominator). The reasoning for the less obvious ones is in each entry's ``why``.

Used by tests/conformance/test_conformance_corpus.py (simulator), tests/conformance/test_nvcc_ptx.py (nvcc) and
tools/gpu_conformance.py (real GPU, compute-sanitizer).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import math

import numpy as np

from simcore.plugins import CHECK_FAULT_KINDS

HERE = Path(__file__).resolve().parent

# the kinds a corpus entry may expect: each check's (from simcore's plugin registry) and the
# faults the core raises itself
CORE_FAULT_KINDS = ("deadlock", "step_limit", "misaligned", "division_by_zero", "undefined_shift")
FAULT_KINDS = CHECK_FAULT_KINDS + CORE_FAULT_KINDS
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
    cooperative: bool = False      # launched cooperatively (RawModule(..., enable_cooperative_groups=True))
    name_expressions: tuple = ()   # a template kernel: RawModule(..., name_expressions=...); kernel is one of them
    # __device__/__constant__ variables the host sets before the launch (RawModule.get_global):
    # name -> factory of a numpy value (its bytes are copied, as cudaMemcpyToSymbol does)
    globals: dict = field(default_factory=dict)

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


def _math_api_float_ref(a):
    """True values in float64 (Python's math, and simcore.runtime.cmath for what math lacks: its
    Bessel, erfinv/erfcinv/normcdfinv and erfcx are checked against tables in
    tests/simcore/lower/test_clock_math_and_memory_builtins.py), rounded to float."""
    from simcore.runtime import cmath as cm
    v = a[0].astype(np.float64)
    w = v - 1.5
    vf = np.vectorize
    cols = [np.arcsinh(w), np.arccosh(v + 1), np.arctanh(w / 2), np.cbrt(w), 10.0 ** w, np.expm1(w), np.log1p(v),
            np.sin(np.pi * w), np.cos(np.pi * w), vf(math.erf)(w), vf(math.erfc)(w), cm.erfinv(w / 2),
            cm.erfcinv(v / 2), vf(lambda z: 0.5 * math.erfc(-z / math.sqrt(2)))(w), cm.normcdfinv(v / 4),
            vf(math.gamma)(v), vf(math.lgamma)(v), cm.bessel_j(0, v), cm.bessel_j(1, v), cm.bessel_y(0, v),
            cm.bessel_y(1, v), cm.bessel_j(2, v), 1 / np.cbrt(v), 1 / np.hypot(v, w), np.sqrt(v * v + w * w + 1),
            10.0 ** w, np.log2(v), v ** w, np.tan(w), cm.erfcx(v), cm.bessel_i(0, w),
            np.sin(np.pi * w) + 2 * np.cos(np.pi * w)]
    return {1: np.stack(cols, axis=1).astype(np.float32).ravel()}


def _math_api_double_ref(a):
    from fractions import Fraction

    from simcore.runtime import cmath as cm
    v = a[0]
    w = v - 1.5
    t = np.arange(len(v))
    vf = np.vectorize
    e = np.frexp(v)
    f = v.astype(np.float32)
    cols = [vf(math.gamma)(v), vf(math.lgamma)(v), cm.erfinv(w / 2), cm.erfcx(v), cm.bessel_j(0, v),
            cm.bessel_y(1, v), cm.bessel_y(3, v), np.sin(np.pi * w), vf(math.remainder)(v * 7.0, 1.25),
            np.maximum(v - 1.0, 0.0), np.floor(np.log2(v * 100.0)), v / 8,
            cm.rounded("add", "rd", np.float64, v, 1e-17), cm.rounded("add", "ru", np.float64, v, 1e-17),
            cm.rounded("div", "rz", np.float64, 1.0, v), cm.rounded("sqrt", "ru", np.float64, v),
            cm.rounded("fma", "rd", np.float64, v, w, 0.1),
            cm.rounded("add", "ru", np.float32, f, np.float32(1e-9)).astype(np.float64),
            cm.rounded("div", "rd", np.float32, np.float32(1), f).astype(np.float64),
            cm.rounded("rcp", "ru", np.float32, f).astype(np.float64),
            np.array([float(cm.round_exact(Fraction(16777217 + k), np.float32, "rd")) for k in t]),
            np.array([float(cm.round_exact(Fraction(float(x)), np.float32, "ru")) for x in v]),
            e[0] + e[1], np.floor(np.log2(v * 1000.0)) + np.rint(w * 3.0)]
    u = (v * 1e9).astype(np.uint64).astype(np.uint32)
    bits = []
    for k, x in enumerate(u.tolist()):
        pool = (0x12345678 << 32) | x
        perm = sum(((pool >> (8 * ((0x7531 >> (4 * n)) & 7))) & 0xFF) << (8 * n) for n in range(4))
        fl = ((((0xdeadbeef << 32) | x) << (k & 31)) >> 32) & 0xFFFFFFFF
        fr = (((0xdeadbeef << 32) | x) >> min(k + 20, 32)) & 0xFFFFFFFF
        sx = x - 2 ** 32 if x >= 2 ** 31 else x
        hi = (((x << 30) & (2 ** 64 - 1)) * 0x9e3779b97f4a7c15) >> 64
        by = [(x >> (8 * n)) & 0xFF for n in range(4)]
        by = [b - 256 if b >= 128 else b for b in by]
        cb = [0x80, 0x7f, 0xff, 0x01]
        cb = [b - 256 if b >= 128 else b for b in cb]
        dp = (sum(p * q for p, q in zip(by, cb)) + 3) & 0xFFFFFFFF
        bits.append([perm, fl, fr, (x + 0xffffffff + 1) >> 1, ((sx - 7) >> 1) & 0xFFFFFFFF,
                     64 - ((x << 20).bit_length()), hi & 0xFFFFFFFF, dp])
    return {1: np.stack(cols, axis=1).ravel(), 2: np.array(bits, np.uint32).ravel()}


def _memcpy_ref(a):
    out, inp = a[0].copy(), a[1]
    t = np.arange(64)
    out[:64] = inp[4 * t] + inp[4 * t + 3]
    out[64:128] = t
    by = a[3].copy()
    by[:13] = 7
    by[100:110] = np.frombuffer(inp[:3].tobytes()[:10], np.uint8)
    return {0: out, 2: np.full(128, -1, np.int32), 3: by}


entry("memcpy_memset", grid=(1,), block=(64,),
      make_args=lambda: (full(128, 9, np.float32), np.arange(256, dtype=np.float32), zeros(128), zeros(200, np.uint8),
                         np.int32(13)),
      reference=_memcpy_ref, expect="ok",
      why="memcpy/memset: element copies of local, shared and global arrays, bytes (NVRTC has no __builtin_ forms: H200)")

entry("shift_count_width", grid=(1,), block=(64,),
      make_args=lambda: (np.arange(64, dtype=np.int32) % 33, zeros(64, np.uint32)),
      intended=lambda a: {1: np.array([(1 << int(n)) - 1 for n in a[0]], np.uint32)},
      expect="undefined_shift",
      why="(1u << lanes) - 1 with lanes == 32 (threads 32): C leaves a shift by the width undefined")

entry("signed_mul_overflow", grid=(1,), block=(64,),
      make_args=lambda: (np.arange(64, dtype=np.int32) * 1000, zeros(64)),
      reference=lambda a: {1: (a[0].astype(np.int64) * 1000003).astype(np.int32)},
      expect="warning",
      why="x * 1000003 overflows int for x >= 2148 (undefined in C): a warning; the GPU wraps, as simcore does")

entry("math_api_float", grid=(1,), block=(64,),
      make_args=lambda: (f32(64, 0.1, 3.0, seed=41), zeros(64 * 32, np.float32), np.int32(64)),
      reference=_math_api_float_ref, expect="ok", rtol=2e-5, atol=2e-5,
      why="the float functions and fast intrinsics added for issue 19; a GPU's are within their documented "
          "ulp errors (the fast __exp10f/__powf/__tanf/__log2f and j0f/y0f's absolute error the loosest)")

entry("math_api_double", grid=(1,), block=(64,),
      make_args=lambda: (rng(42).uniform(0.1, 3.0, 64), zeros(64 * 24, np.float64), zeros(64 * 8, np.uint32),
                         np.int32(64)),
      reference=_math_api_double_ref, expect="ok", rtol=1e-12, atol=1e-13,
      why="double functions, rounding-mode and conversion intrinsics (exact), integer intrinsics (exact)")

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


NVRTC_PROBED = ("__CUDACC__", "__CUDACC_RTC__", "__CUDA_ARCH__", "__CUDACC_VER_MAJOR__", "__CUDACC_VER_MINOR__",
                "__cplusplus", "__CUDA_ARCH_LIST__", "__NVCC__", "__NVCC_DIAG_PRAGMA_SUPPORT__",
                "__CUDACC_VER_BUILD__")


def _nvrtc_environment_ref(a):
    import json   # noqa: PLC0415
    table = json.loads((HERE.parent / "simcore" / "data" / "nvrtc_environment.json").read_text())["macros"]
    out = np.zeros(2 * len(NVRTC_PROBED), np.int64)
    for k, name in enumerate(NVRTC_PROBED):
        if name in table:
            out[2 * k], out[2 * k + 1] = 1, int(table[name]["value"].rstrip("uUlL"))
    return {0: out}


entry("nvrtc_environment", grid=(1,), block=(32,),
      make_args=lambda: (np.full(2 * len(NVRTC_PROBED), -1, np.int64),),
      reference=_nvrtc_environment_ref, expect="ok",
      why="the macros a kernel can test are NVRTC's (simcore/data/nvrtc_environment.json): on the GPU a "
          "difference from the reference is a wrong row of that table (copy conformance/results/nvrtc_environment.json from tools/nvrtc_environment.py)")


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
          "they never reach lane 0's sum nor any store (docs/semantics.md: fault only on use)")


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


entry("clock_spin_backoff", grid=(1,), block=(64,),
      make_args=lambda: (zeros(64), zeros(1), np.int32(2000)),
      reference=lambda a: {0: np.full(64, 7, np.int32), 1: np.ones(1, np.int32)}, expect="ok",
      why="clock64()/clock()/__nanosleep: the spin and the back-off loop end, the clock is monotone per thread")

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


# --------------------------------------------------------------------------- x_: course-style kernels
# Realistic kernels of the kind students and course authors write (tiling, scans, sorting,
# stencils, histograms, warp-level reductions, compaction, C integer corners), with a few of
# their classic bugs.
def _matmul_args(M, N, K, seed):
    return (i32(M * K, lo=-20, hi=20, seed=seed), i32(K * N, lo=-20, hi=20, seed=seed + 1),
            full(M * N, -1), np.int32(M), np.int32(N), np.int32(K))


def _matmul_ref(a):
    M, N, K = int(a[3]), int(a[4]), int(a[5])
    A = a[0].reshape(M, K).astype(np.int64)
    B = a[1].reshape(K, N).astype(np.int64)
    return {2: (A @ B).astype(np.int32).ravel()}


entry("x_matmul_tiled", grid=(3, 3), block=(16, 16),
      make_args=lambda: _matmul_args(37, 41, 45, 100), reference=_matmul_ref, expect="ok",
      why="37x45 times 45x41: every edge tile is partly loaded and zero-filled")

entry("x_matmul_no_second_barrier", grid=(3, 3), block=(16, 16),
      make_args=lambda: _matmul_args(37, 41, 45, 100), intended=_matmul_ref, expect="race",
      why="without the barrier at the end of the k-loop, a fast warp overwrites As/Bs for "
          "the next tile while slower warps still read the current one (write after read)")

entry("x_matmul_unfilled_edge", grid=(2, 2), block=(16, 16),
      make_args=lambda: _matmul_args(20, 20, 10, 102), intended=_matmul_ref,
      expect="uninitialized",
      why="K = 10 < 16: As[ty][10..15] and Bs[10..15][tx] are never written, yet every "
          "thread multiplies them into acc, which is stored")


def _transpose_args(w, h, seed):
    return zeros(w * h, np.float32), f32(w * h, seed=seed), np.int32(w), np.int32(h)


def _transpose_ref(a):
    w, h = int(a[2]), int(a[3])
    return {0: a[1].reshape(h, w).T.ravel().copy()}


entry("x_transpose_pad33", grid=(3, 2), block=(32, 8),
      make_args=lambda: _transpose_args(70, 45, 103), reference=_transpose_ref, expect="ok",
      why="each thread loads 4 rows of the 32x33 tile; 70x45 leaves partial edge tiles")

entry("x_transpose_nobarrier", grid=(3, 2), block=(32, 8),
      make_args=lambda: _transpose_args(70, 45, 103), intended=_transpose_ref, expect="race",
      why="thread (x, y) reads tile[x][y + j], written by another warp, with no barrier")


def _scan_ref(a):
    n = int(a[2])
    out = a[0].copy()
    x = a[1].astype(np.int64)
    for b in range(0, n, 256):
        out[b:min(n, b + 256)] = np.cumsum(x[b:min(n, b + 256)])
    return {0: out}


entry("x_scan_hillis_steele", grid=(3,), block=(256,),
      make_args=lambda: (full(700, 7), i32(700, lo=-50, hi=50, seed=104), np.int32(700)),
      reference=_scan_ref, expect="ok",
      why="double buffering: one barrier per step suffices (reads from pin, writes to pout)")

entry("x_scan_inplace_one_barrier", grid=(2,), block=(256,),
      make_args=lambda: (zeros(512), i32(512, lo=-50, hi=50, seed=105)),
      intended=lambda a: {0: np.cumsum(a[1].reshape(2, 256), axis=1).astype(np.int32).ravel()},
      expect="race",
      why="single buffer: thread t reads s[t - offset] in the same interval in which thread "
          "t - offset writes it; the first barrier of the loop body is missing")


def _blelloch_ref(a):
    x = a[1].astype(np.int64).reshape(-1, 512)
    excl = np.cumsum(x, axis=1) - x
    return {0: excl.astype(np.int32).ravel(), 2: x.sum(axis=1).astype(np.int32)}


entry("x_scan_blelloch", grid=(3,), block=(256,), shared_mem=512 * 4,
      make_args=lambda: (zeros(1536), i32(1536, lo=-100, hi=100, seed=106), zeros(3)),
      reference=_blelloch_ref, expect="ok",
      why="the barrier sits at the top of each sweep iteration, outside the `if (t < d)`")


def _bitonic_args():
    x = i32(1024, lo=-500, hi=500, seed=107)
    x[5:9] = 3           # duplicates
    return (x,)


entry("x_bitonic_sort", grid=(2,), block=(512,), make_args=_bitonic_args,
      reference=lambda a: {0: np.sort(a[0].reshape(2, 512), axis=1).ravel()}, expect="ok")

entry("x_bitonic_barrier_in_if", grid=(2,), block=(512,), make_args=_bitonic_args,
      intended=lambda a: {0: np.sort(a[0].reshape(2, 512), axis=1).ravel()},
      expect="deadlock",
      why="k=2, j=1: even lanes enter the if and wait at its barrier; odd lanes skip it and "
          "wait at the end of the if (their reconvergence point) for the even lanes: "
          "nobody can move (a barrier in non-uniform code is undefined on any model)")


entry("x_nested_if_barrier", grid=(1,), block=(64,),
      make_args=lambda: (zeros(64), i32(64, lo=-500, hi=500, seed=108)),
      expect="deadlock",
      why="odd lanes wait at the barrier inside the if; even lanes wait for them at the end "
          "of the if (their reconvergence point, with code after it): like guard_code_after. "
          "The inner if diverges among the odd lanes, which must not release the even ones")


def _stencil2d_args(w, h, seed):
    return full(w * h, -1), i32(w * h, lo=-100, hi=100, seed=seed), np.int32(w), np.int32(h)


def _stencil2d_ref(a):
    w, h = int(a[2]), int(a[3])
    x = np.pad(a[1].reshape(h, w).astype(np.int64), 1, mode="edge")
    c = x[1:-1, 1:-1]
    out = 4 * c - x[:-2, 1:-1] - x[2:, 1:-1] - x[1:-1, :-2] - x[1:-1, 2:]
    return {0: out.astype(np.int32).ravel()}


entry("x_stencil2d_halo", grid=(3, 2), block=(16, 16),
      make_args=lambda: _stencil2d_args(40, 27, 109), reference=_stencil2d_ref, expect="ok",
      why="edge threads load the halo under non-uniform ifs (no barrier inside them), then "
          "one barrier; threads outside the image still load (clamped) and reach the barrier")

entry("x_stencil2d_halo_late", grid=(3, 2), block=(16, 16),
      make_args=lambda: _stencil2d_args(40, 27, 110), reference=_stencil2d_ref, expect="ok",
      why="halo cells written after the barrier, but each is read only by the thread that "
          "wrote it (5-point stencil, no corners): no race, no uninitialized read")

entry("x_stencil_no_clamp", grid=(3, 2), block=(16, 16),
      make_args=lambda: _stencil2d_args(40, 27, 110), intended=_stencil2d_ref,
      expect="out_of_bounds",
      why="block (0, 0), thread (0, 0) loads in[0 * w + 0 - 1] = in[-1]")


def _stencil1d_ref(a):
    n = int(a[2])
    x = np.pad(a[1].astype(np.int64), 3)
    out = sum(x[3 + k:3 + k + n] for k in range(-3, 4))
    return {0: out.astype(np.int32)}


entry("x_stencil1d", grid=(4,), block=(128,),
      make_args=lambda: (full(500, -1), i32(500, lo=-100, hi=100, seed=111), np.int32(500)),
      reference=_stencil1d_ref, expect="ok",
      why="threads 0-2 load both halos (zero outside the array); threads past n still "
          "fill their slot and reach the barrier")

entry("x_stencil1d_halo_after_barrier", grid=(4,), block=(128,),
      make_args=lambda: (full(500, -1), i32(500, lo=-100, hi=100, seed=111), np.int32(500)),
      intended=_stencil1d_ref, expect="race",
      why="thread 3 reads temp[0..2], written by threads 0-2 after the barrier: nothing "
          "orders the write and the read")


def _hist_args():
    d = rng(112).integers(0, 256, 5000).astype(np.uint8)
    d[:300] = 7          # many equal bytes: collisions on one bin
    return d, zeros(256, np.uint32), np.int32(5000)


entry("x_histogram_shared", grid=(4,), block=(192,), make_args=_hist_args,
      reference=lambda a: {1: np.bincount(a[0], minlength=256).astype(np.uint32)},
      expect="ok", why="shared atomics per block, then one global atomicAdd per non-empty bin")

entry("x_histogram_plain_inc", grid=(4,), block=(192,), make_args=_hist_args,
      intended=lambda a: {1: np.bincount(a[0], minlength=256).astype(np.uint32)},
      expect="race", why="local[data[i]]++ is a read-modify-write; threads of one block with "
                         "equal bytes update one bin concurrently")


def _rsb_args():
    return i32(1000, lo=-1000, hi=1000, seed=113), zeros(1), full(4, -1), np.int32(1000)


def _rsb_ref(a):
    x = np.concatenate([a[0].astype(np.int64), np.zeros(280, np.int64)]).reshape(4, 320)
    p = x.sum(axis=1)
    return {1: np.array([p.sum()], np.int32), 2: p.astype(np.int32)}


entry("x_reduce_shfl_block", grid=(4,), block=(320,), make_args=_rsb_args,
      reference=_rsb_ref, expect="ok",
      why="10 warps; warp 0 reads shared[lane] only for lane < 10, others use 0; the "
          "second warpReduceSum is inside `if (wid == 0)`: warp-uniform, full mask is right")

entry("x_reduce_last_warp_volatile", grid=(3,), block=(256,),
      make_args=lambda: (i32(1536, lo=-1000, hi=1000, seed=114), full(3, -1)),
      reference=lambda a: {1: a[0].reshape(3, 512).sum(axis=1).astype(np.int32)},
      expect="ok",
      why="each step reads into a register, __syncwarp, stores, __syncwarp: the lanes of "
          "warp 0 are ordered; lanes whose partial sums are not needed read stale values "
          "harmlessly")

entry("x_reduce_last_warp_nosync", grid=(3,), block=(256,),
      make_args=lambda: (i32(1536, lo=-1000, hi=1000, seed=114), full(3, -1)),
      intended=lambda a: {1: a[0].reshape(3, 512).sum(axis=1).astype(np.int32)},
      expect="race",
      why="volatile forces the loads and stores but does not order lanes: lane t reads "
          "sdata[t + 16] while lane t + 16 writes it (no __syncwarp since Volta)")

entry("x_reduce_barrier_in_if", grid=(2,), block=(256,),
      make_args=lambda: (i32(512, lo=-100, hi=100, seed=115), full(2, -1)),
      intended=lambda a: {1: a[0].reshape(2, 256).sum(axis=1).astype(np.int32)},
      expect="deadlock",
      why="warps that skip the if uniformly run to the end and exit (fine), but at s = 16 "
          "warp 0 splits: lanes 16-31 wait at the end of the if for lanes 0-15, which wait "
          "at the barrier")


def _saxpy_args():
    return np.int32(1000), np.float32(2.5), f32(1000, seed=116), f32(1000, seed=117)


entry("x_grid_stride_saxpy", grid=(3,), block=(128,), make_args=_saxpy_args,
      reference=lambda a: {3: (a[1] * a[2] + a[3]).astype(np.float32)}, expect="ok",
      why="384 threads cover 1000 elements in 3 strides; nvcc may fuse a*x+y into an FMA "
          "(one rounding): compared with the default tolerance")


def _dot_args():
    return (i32(3000, lo=-1000, hi=1000, seed=118), i32(3000, lo=-1000, hi=1000, seed=119),
            zeros(1, np.uint64), np.int32(3000))


entry("x_dot_atomic", grid=(5,), block=(128,), make_args=_dot_args,
      reference=lambda a: {2: np.array([int((a[0].astype(np.int64) * a[1]).sum())
                                        & 0xFFFFFFFFFFFFFFFF], np.uint64)},
      expect="ok", why="64-bit integer atomicAdd of block partials: order-independent")

entry("x_dot_plain_accumulate", grid=(5,), block=(128,),
      make_args=lambda: _dot_args()[:2] + (zeros(1, np.int64), np.int32(3000)),
      intended=lambda a: {2: np.array([(a[0].astype(np.int64) * a[1]).sum()], np.int64)},
      expect="race", why="five blocks do *result += partial without atomics (global_race)")


def _compact_args():
    return full(768, -7), full(3, -1), i32(700, lo=-100, hi=100, seed=120), np.int32(700), \
        np.int32(20)


def _compact_ref(a):
    out, counts = a[0].copy(), a[1].copy()
    x, thr = a[2], int(a[4])
    for b in range(3):
        kept = [v for v in x[b * 256:(b + 1) * 256] if v > thr]
        out[b * 256:b * 256 + len(kept)] = kept
        counts[b] = len(kept)
    return {0: out, 1: counts}


entry("x_compact_block", grid=(3,), block=(256,), make_args=_compact_args,
      reference=_compact_ref, expect="ok",
      why="__syncthreads_count in uniform code, then a two-barrier in-place scan")


def _minmax_args():
    u = rng(121).integers(0, 2**32, 300, dtype=np.uint32)
    u[10] = 0xFFFFFFF0
    s = i32(300, lo=-100000, hi=100000, seed=122)
    return (u, s, np.array([0, 0xFFFFFFFF], np.uint32), np.array([-2**31, 2**31 - 1], np.int32),
            np.array([0, 2**64 - 1], np.uint64), np.int32(300))


def _minmax_ref(a):
    u, s = a[0], a[1]
    keys = [(int(v) << 32) | i for i, v in enumerate(u.tolist())]
    return {2: np.array([u.max(), u.min()], np.uint32), 3: np.array([s.max(), s.min()], np.int32),
            4: np.array([max(keys), min(keys)], np.uint64)}


entry("x_atomic_minmax", grid=(3,), block=(128,), make_args=_minmax_args,
      reference=_minmax_ref, expect="ok",
      why="unsigned atomicMax sees 0xfffffff0 as the largest value (as a signed int it would "
          "be negative); threads 300..383 return before any atomic")


def _casmax_args():
    x = f32(500, -50, 50, seed=123)
    return x, np.array([-1e30], np.float32), zeros(1), zeros(500), np.int32(500)


entry("x_cas_float_max", grid=(4,), block=(128,), make_args=_casmax_args,
      reference=lambda a: {1: np.array([a[0].max()], np.float32), 2: np.array([500], np.int32),
                           3: np.ones(500, np.int32)},
      expect="ok",
      why="the CUDA Programming Guide's CAS-loop idiom: the plain first read of *addr is only "
          "a guess that atomicCAS checks; a stale guess just costs one more iteration. The "
          "result (max, count, unique tickets) does not depend on the order")


entry("x_cas_counter", grid=(4,), block=(128,),
      make_args=lambda: (zeros(1), zeros(500), np.int32(500)),
      reference=lambda a: {0: np.array([500], np.int32), 1: np.ones(500, np.int32)},
      expect="ok",
      why="the Programming Guide's CAS idiom: the plain first read is a guess that atomicCAS "
          "verifies; every thread gets a unique ticket whatever the order")


def _syncwarp_reduce_ref(a):
    return {1: a[0].reshape(-1, 32).sum(axis=1).astype(np.int32)}


entry("x_syncwarp_reduce", grid=(2,), block=(128,),
      make_args=lambda: (i32(256, lo=-1000, hi=1000, seed=124), full(8, -1)),
      reference=_syncwarp_reduce_ref, expect="ok",
      why="lanes that stop working stop calling, and the masks name exactly the lanes below "
          "2*off, which all call __syncwarp(mask)")


def _vote_compact_args():
    return i32(300, lo=-50, hi=50, seed=125), full(320, -7), full(10, -9), zeros(1), np.int32(300)


def _vote_compact_ref(a):
    x, n = a[0], int(a[4])
    out, counts = a[1].copy(), a[2].copy()
    total = 0
    for w in range(10):
        lanes = range(w * 32, w * 32 + 32)
        keep = [i for i in lanes if i < n and x[i] % 3 == 0]   # numpy % is floored; v % 3 == 0 same
        c = len(keep)
        counts[w] = c
        total += c
        for k, i in enumerate(keep):
            out[w * 32 + k] = x[i]
        for i in lanes:
            if i not in keep and i - w * 32 >= c:
                out[i] = -1
    return {1: out, 2: counts, 3: np.array([total], np.int32)}


entry("x_vote_compact", grid=(2,), block=(160,), make_args=_vote_compact_args,
      reference=_vote_compact_ref, expect="ok",
      why="__ballot_sync and __shfl_sync with the full mask in converged code; lanes past n "
          "still vote (keep = false); 160 threads = 5 whole warps per block")

entry("x_compact_activemask", grid=(1,), block=(64,),
      make_args=lambda: (i32(64, lo=-50, hi=50, seed=126), full(64, -1), full(64, -2)),
      expect="invalid_mask",
      why="__activemask() before the if returns all 32 lanes; inside the if only the lanes "
          "with v > 0 call __ballot_sync(mask, 1), whose mask names the others, alive (they "
          "store counts[t] after the if) and not calling. Without code after the if they "
          "would exit, and a mask naming exited lanes is legal")


def _seg_ref(a):
    v = a[0].astype(np.int64)
    s8 = v.reshape(-1, 8).sum(axis=1)
    m16 = np.repeat(v.reshape(-1, 16).max(axis=1), 16)
    f16 = np.repeat(v.reshape(-1, 16)[:, 0], 16)
    return {1: s8.astype(np.int32), 2: m16.astype(np.int32), 3: f16.astype(np.int32)}


entry("x_shfl_segments", grid=(2,), block=(64,),
      make_args=lambda: (i32(128, seed=127), full(16, -1), full(128, -1), full(128, -1)),
      reference=_seg_ref, expect="ok",
      why="with width 8, __shfl_down_sync past the end of a segment keeps the lane's own "
          "value (only lane 0 of each segment, which never reads past it, stores); xor "
          "partners stay inside a 16-lane segment")


def _bcast_ref(a):
    p, x = a[0], a[1].astype(np.int64)
    out = np.empty(len(x), np.int64)
    for w in range(len(x) // 32):
        out[w * 32:(w + 1) * 32] = np.cumsum(x[w * 32:(w + 1) * 32] * p[w])
    return {2: out.astype(np.int32)}


entry("x_shfl_broadcast", grid=(2,), block=(96,),
      make_args=lambda: (i32(6, lo=-5, hi=5, seed=128), i32(192, lo=-100, hi=100, seed=129),
                         zeros(192)),
      reference=_bcast_ref, expect="ok",
      why="only lane 0 loads p; the other lanes' p (0) is replaced by the broadcast")



def _small_args():
    x = i32(100, lo=-100000, hi=100000, seed=130)
    x[:6] = [0, 255, 256, -1, -128, 127]
    return x, zeros(800), zeros(100, np.uint8), zeros(100, np.int16), np.int32(100)


def _small_ref(a):
    out, by, sh_out = a[1].copy(), a[2].copy(), a[3].copy()

    def sx(v, bits):
        v &= (1 << bits) - 1
        return v - (1 << bits) if v >= 1 << (bits - 1) else v

    for t, x in enumerate(a[0].tolist()):
        uc, sc, sh, us = x & 0xFF, sx(x, 8), sx(x * 300, 16), x & 0xFFFF
        out[t * 8:t * 8 + 8] = [uc, sc, sh, us, (uc + 200) & 0xFF, uc + 200,
                                65 + (x & 15) + ((uc << 1) & 0xFF), -uc + (sc >> 2)]
        by[t] = (uc * 3) & 0xFF
        sh_out[t] = sx(sh + us, 16)
    return {1: out, 2: by, 3: sh_out}


entry("x_small_int_types", grid=(1,), block=(128,), make_args=_small_args,
      reference=_small_ref, expect="ok",
      why="arithmetic on char/short happens in int after promotion; only the store truncates "
          "(the conversion to a signed narrow type is modular on NVCC)")


def _sucmp_args():
    a = i32(100, lo=-2**31, hi=2**31 - 1, seed=131)
    b = rng(132).integers(0, 2**32, 100, dtype=np.uint32)
    a[:4] = [-1, 5, -5, 0]
    b[:4] = [0, 3, 7, 2**31 + 5]
    return a, b, zeros(300), np.int32(100)


def _sucmp_ref(a):
    out = a[2].copy()
    for t, (x, u) in enumerate(zip(a[0].tolist(), a[1].tolist())):
        xu = x & 0xFFFFFFFF
        r = 0
        r |= 1 if xu < u else 0
        r |= 2 if x < wrap32(u) else 0
        r |= 4 if x < u else 0
        r |= 16 if ((u - 5) & 0xFFFFFFFF) > u else 0
        r |= 32 if xu // 2 > 1000000000 else 0
        r |= 64 if cdiv(x, 2) > 1000000000 else 0
        out[t * 3:t * 3 + 3] = [r, (u >> 28) + 8 + 2, cmod(abs(x), 7) if x != -2**31 else
                                cmod(-2**31, 7)]
    return {2: out}


entry("x_signed_unsigned_cmp", grid=(1,), block=(128,), make_args=_sucmp_args,
      reference=_sucmp_ref, expect="ok",
      why="x < u converts x to unsigned; -1 < 0u is false; u - 5u wraps for u < 5")


def _divneg_args():
    x = i32(128, lo=-100000, hi=100000, seed=133)
    x[:8] = [-1, -2, -3, -4, -5, -7, -2**31 + 1, 2**31 - 1]
    return x, zeros(1024), zeros(384, np.uint32), np.int32(128)


def _divneg_ref(a):
    out, uout = a[1].copy(), a[2].copy()
    for t, x in enumerate(a[0].tolist()):
        out[t * 8:t * 8 + 8] = [cdiv(x, 4), x >> 2, cmod(x, 4), x & 3, cdiv(x, -3), cmod(x, -3),
                                wrap32(cdiv(-x, 7) * 7 + cmod(-x, 7)), (x >> 31) | 1]
        u = x & 0xFFFFFFFF
        uout[t * 3:t * 3 + 3] = [u >> 4, u // 10, ((u << 3) + u % 10) & 0xFFFFFFFF]
    return {1: out, 2: uout}


entry("x_div_shift_neg", grid=(1,), block=(128,), make_args=_divneg_args,
      reference=_divneg_ref, expect="ok",
      why="-5 / 4 == -1 but -5 >> 2 == -2 (arithmetic shift); -5 % 4 == -1; x % -3 takes the "
          "sign of x")


def _f2i_args():
    f = f32(100, -1000, 1000, seed=134)
    f[:8] = [2.5, -2.5, 0.5, -0.5, 3.7, -3.7, 1.5, -0.0]
    d = rng(135).uniform(-1e6, 1e6, 100)
    d[:3] = [-2.999, 2.999, -0.5]
    big = i32(100, lo=-2**31, hi=2**31 - 1, seed=136)
    big[:3] = [16777217, 16777219, -16777217]
    return f, d, big, zeros(700), zeros(100, np.float32), np.int32(100)


def _f2i_ref(a):
    f, d = a[0], a[1]
    out = a[3].copy()
    for t in range(100):
        x = f[t]
        ten = np.float32(x * np.float32(10.0))
        out[t * 7:t * 7 + 7] = [int(x), int(d[t]), int(abs(x)), int(np.rint(x)),
                                int(np.sign(x) * np.floor(abs(np.float64(x)) + 0.5)),
                                int(np.floor(x)), cdiv(int(ten), 3)]
    return {3: out, 4: a[2].astype(np.float32)}


entry("x_float_to_int", grid=(1,), block=(128,), make_args=_f2i_args, reference=_f2i_ref,
      expect="ok",
      why="(int)-3.7f == -3 (truncation); rintf rounds half to even, roundf half away from "
          "zero; (float)16777217 == 16777216")


def _b3o_ref(a):
    x = a[0].reshape(8, 300)
    out = x[:, ::-1] * 1000 + np.arange(8)[:, None]
    return {1: out.astype(np.int32).ravel()}


entry("x_block3d_odd", grid=(2, 2, 2), block=(10, 10, 3),
      make_args=lambda: (i32(2400, lo=-1000, hi=1000, seed=137), zeros(2400)),
      reference=_b3o_ref, expect="ok",
      why="300 threads per block: warps of 32 cut across threadIdx.y and z; the 10th warp "
          "has 12 lanes")


def _b1000_ref(a):
    x = a[0].reshape(2, 1000).astype(np.int64)
    return {1: x.sum(axis=1).astype(np.int32), 2: x.max(axis=1).astype(np.int32)}


entry("x_block1000", grid=(2,), block=(1000,),
      make_args=lambda: (i32(2000, seed=138), zeros(2), zeros(2)),
      reference=_b1000_ref, expect="ok",
      why="p = 1024, first step folds threads 512..999 onto 0..487; guards keep reads in "
          "bounds of the 1000 written slots")


def _e2_args():
    k = i32(256, lo=0, hi=50, seed=139)    # many equal keys: ties broken by index
    return k, f32(256, seed=140), zeros(256, np.float32)


def _e2_ref(a):
    out = a[2].copy()
    for b in range(2):
        k = a[0][b * 128:(b + 1) * 128]
        v = a[1][b * 128:(b + 1) * 128]
        order = np.argsort(k, kind="stable")
        out[b * 128:(b + 1) * 128] = v[order] * np.float32(2)
    return {2: out}


entry("x_extern_two_arrays", grid=(2,), block=(128,), shared_mem=128 * 8,
      make_args=_e2_args, reference=_e2_ref, expect="ok",
      why="svals starts right after the n ints of skeys in the same dynamic buffer")


def _lsort_ref(a):
    x = a[0].reshape(-1, 8)
    out = a[1].copy()
    for t in range(int(a[2])):
        s = sorted(x[t].tolist())
        out[t * 3:t * 3 + 3] = [s[3] + s[4], s[s[0] & 7], s[7] - s[0]]
    return {1: out}


entry("x_local_sort", grid=(2,), block=(64,),
      make_args=lambda: (i32(100 * 8, lo=-1000, hi=1000, seed=141), zeros(300), np.int32(100)),
      reference=_lsort_ref, expect="ok",
      why="a[j] with j from the data (j reaches -1 only in the loop test, never indexed); "
          "a[0] & 7 is in 0..7 also for negative a[0]")


def _tern_ref(a):
    x, y, n, st = a[0], a[1], int(a[3]), int(a[4])
    out = a[2].copy()
    for i in range(n):
        src = x if i % 3 == 0 else y
        acc = sum(int(src[i + k * st]) for k in range(3) if i + k * st < n)
        out[n - 1 - i] = acc
    return {2: out}


entry("x_ternary_ptr", grid=(2,), block=(128,),
      make_args=lambda: (i32(200, seed=142), i32(200, seed=143), full(200, -1), np.uint64(200),
                         np.int32(7)),
      reference=_tern_ref, expect="ok",
      why="p may point past the end of src, but is compared, never dereferenced, there")


def _macro_fn_ref(a):
    w, h = int(a[2]), int(a[3])
    m = a[0].reshape(h, w).astype(np.int64)
    r, c = np.indices((h, w))
    v0 = (m - 7) ** 2
    v1 = np.maximum(np.maximum(m, r), c + 7)
    return {1: np.stack([v0, v1], axis=-1).astype(np.int32).ravel()}


entry("x_macro_fn", grid=(2, 3), block=(16, 8), options=("-DOFFSET=7",),
      make_args=lambda: (i32(20 * 19, lo=-50, hi=50, seed=144), zeros(2 * 20 * 19),
                         np.int32(20), np.int32(19)),
      reference=_macro_fn_ref, expect="ok",
      why="OFFSET comes from -DOFFSET=7 (overriding the #ifndef default); STORE2 is a "
          "do { } while (0) macro")


def _sw_ref(a):
    out = a[1].copy()
    for t, x in enumerate(a[0].tolist()):
        c = x & 7
        if c == 0:
            r = 11
        elif c == 1:
            r = 10
        elif c in (4, 5):
            r = 0
            for i in range(10):
                if i * i > x:
                    break
                r += i
        elif c == 7:
            r = 77
        else:
            r = -x
        k, y = 0, x
        while True:
            y = cdiv(y, 3)
            k += 1
            if not y > 0:
                break
        cls = 0 if x < 10 else 1 if x < 100 else 2 if x < 1000 else 3
        out[t * 3:t * 3 + 3] = [r, k, cls]
    return {1: out}


entry("x_switch_dowhile", grid=(2,), block=(64,),
      make_args=lambda: (i32(100, lo=-200, hi=3000, seed=145), zeros(300), np.int32(100)),
      reference=_sw_ref, expect="ok",
      why="case 0 falls through into case 1; default sits between cases; x & 7 of a "
          "negative x is still 0..7")


def _dfe_args():
    table = i32(40, lo=0, hi=200, seed=146)
    table[30] = 5000
    keys = i32(100, lo=0, hi=200, seed=147)
    keys[:4] = [table[3], table[29], 0, 1]
    return table, keys, zeros(300), np.int32(40), np.int32(100)


def _dfe_ref(a):
    import math
    table, keys = a[0].tolist(), a[1].tolist()
    out = a[2].copy()
    for t, k in enumerate(keys):
        f = -1
        for i, v in enumerate(table):
            if v == k:
                f = i
                break
            if v > 1000:
                f = -2
                break
        prime = int(k >= 2 and all(k % d for d in range(2, int(k ** 0.5) + 1)))
        out[t * 3:t * 3 + 3] = [f, prime, math.gcd(k, 360)]
    return {2: out}


entry("x_devfn_early_return", grid=(2,), block=(64,), make_args=_dfe_args,
      reference=_dfe_ref, expect="ok",
      why="returns from inside loops of __device__ functions, with per-lane trip counts")


def _lbb_ref(a):
    x = a[0]
    acc = np.empty(256, np.int64)
    for t, v in enumerate(x.tolist()):
        s = 0
        for i in range(64):
            if (i + v) % 3 == 0:
                continue
            s += i
            if s > v:
                break
        acc[t] = s
    acc = acc.reshape(2, 128)
    return {1: (acc - np.roll(acc, -1, axis=1)).astype(np.int32).ravel()}


entry("x_loop_break_barrier", grid=(2,), block=(128,),
      make_args=lambda: (i32(256, lo=0, hi=500, seed=148), zeros(256)),
      reference=_lbb_ref, expect="ok",
      why="lanes leave the loop at different iterations but the barrier is after the loop, "
          "where the warp has reconverged and every thread arrives")


def _dacc_ref(a):
    v, m = a[0], a[1]
    p = ((0.25 * v - 1.5) * v + 2.0) * v - 3.0
    h = np.array([sum(1.0 / k for k in range(1, mm + 1)) for mm in m.tolist()])
    third = np.sqrt(v * v + 1.0) / (m + 1) + np.trunc(v * 1000.0)
    return {2: np.stack([p, h, third], axis=1).ravel()}


entry("x_double_accum", grid=(1,), block=(64,),
      make_args=lambda: (rng(149).uniform(-4.0, 4.0, 50), i32(50, lo=0, hi=40, seed=150),
                         np.zeros(150), np.int32(50)),
      reference=_dacc_ref, expect="ok", rtol=1e-12, atol=1e-12,
      why="nvcc contracts the Horner steps into FMAs: compared with a 1e-12 tolerance")


entry("x_reduce_non_pow2_block", grid=(2,), block=(200,),
      make_args=lambda: (i32(400, lo=-100, hi=100, seed=151), zeros(2)),
      intended=lambda a: {1: a[0].reshape(2, 200).sum(axis=1).astype(np.int32)},
      expect="uninitialized",
      why="threads 72..127 add s[200..255], never written (only 200 threads), and the sum "
          "reaches out[blockIdx.x]")

entry("x_scan_barrier_in_if", grid=(1,), block=(128,),
      make_args=lambda: (zeros(128), i32(128, lo=-50, hi=50, seed=152)),
      intended=lambda a: {0: np.cumsum(a[1]).astype(np.int32)},
      expect="deadlock",
      why="offset = 1: lane 0 skips the if and waits at its end for lanes 1-31, which wait "
          "at the barrier inside it")


def _fas_ref(a):
    x = a[0].astype(np.float64)
    xp = np.concatenate([x, np.zeros(24)]).reshape(4, 256)
    return {1: np.array([x.sum()], np.float32), 2: xp.sum(axis=1).astype(np.float32)}


entry("x_float_atomic_sum", grid=(4,), block=(256,),
      make_args=lambda: (f32(1000, seed=153), zeros(1, np.float32), zeros(4, np.float32),
                         np.int32(1000)),
      reference=_fas_ref, expect="ok", rtol=1e-4, atol=1e-4,
      why="float atomicAdd on shared and global memory: defined, but the summation order "
          "(so the last bits) varies: tolerance 1e-4")


def _ws_ref(a):
    x = a[0].astype(np.int64)
    out = np.empty(128, np.int64)
    t = np.arange(64)
    out[:64] = x[t] * 2 + x[t + 64] + x[63 - t] * 2
    out[64:] = x[63 - t] * 2
    return {1: out.astype(np.int32)}


entry("x_warp_specialized", grid=(1,), block=(128,),
      make_args=lambda: (i32(128, lo=-1000, hi=1000, seed=154), zeros(128)),
      reference=_ws_ref, expect="ok",
      why="producer warps bar.arrive and consumer warps bar.sync on barrier 1 (64 + 64 = "
          "count 128), then the roles swap on barrier 2; the producers' read of buf[0] "
          "written by other producers is ordered through both barriers")


# --------------------------------------------------------------------------- y_: subtle cases
# Legal code that a naive checker would flag (uniform conditions, whole-block exits,
# barriers in device functions, exited lanes in shuffles, byte-sized neighbours), and
# undefined code that a naive checker would miss. Verdicts follow docs/semantics.md.
def _y_blockidx_ref(a):
    x = a[1].reshape(4, 128)
    out = np.where((np.arange(4) % 2 == 0)[:, None], x[:, ::-1], -x)
    return {0: out.ravel()}


entry("y_blockidx_if_barrier", grid=(4,), block=(128,),
      make_args=lambda: (zeros(512), i32(512, seed=200)),
      reference=_y_blockidx_ref, expect="ok",
      why="blockIdx.x % 2 == 0 is the same for every thread of a block: odd blocks skip the "
          "barrier as a whole")


def _y_param_ifelse_ref(a):
    x, n = a[1].reshape(2, 128), int(a[2])
    out = np.roll(x, -1, axis=1) + n if n > 64 else np.roll(x, 1, axis=1) - n
    return {0: out.ravel()}


entry("y_param_ifelse_barriers", grid=(2,), block=(128,),
      make_args=lambda: (zeros(256), i32(256, seed=201), np.int32(100)),
      reference=_y_param_ifelse_ref, expect="ok",
      why="n is a kernel parameter: every thread takes the then-side and its barrier")

entry("y_param_ifelse_barriers_else", "y_param_ifelse_barriers", grid=(2,), block=(128,),
      file="y_param_ifelse_barriers.cu",
      make_args=lambda: (zeros(256), i32(256, seed=202), np.int32(10)),
      reference=_y_param_ifelse_ref, expect="ok",
      why="n = 10: every thread takes the else-side and its barrier (one site per launch)")


def _y_bre_ref(a):
    x, nb = a[1].reshape(6, 64), int(a[2])
    out = a[0].copy().reshape(6, 64)
    t = np.arange(64)
    out[:nb] = 2 * x[:nb, 63 - (t + 5) % 64]
    return {0: out.ravel()}


entry("y_block_return_early", grid=(6,), block=(64,),
      make_args=lambda: (full(384, -1), i32(384, seed=203), np.int32(4)),
      reference=_y_bre_ref, expect="ok",
      why="blocks 4 and 5 return as a whole before any barrier; blocks 0-3 keep every "
          "thread: no barrier completes with part of a block missing, so not even a warning")


def _y_dfb_ref(a):
    x = a[1].reshape(2, 256).astype(np.int64)
    a1 = np.roll(x, -3, axis=1) * 10 + 1
    return {0: np.roll(a1, 1, axis=1).astype(np.int32).ravel()}


entry("y_devfn_barrier_twice", grid=(2,), block=(256,),
      make_args=lambda: (zeros(512), i32(512, seed=204)),
      reference=_y_dfb_ref, expect="ok",
      why="the barrier lives in a __device__ function, inlined at two call sites; every "
          "thread reaches each call site, so each barrier is reached by the whole block")


def _y_lut_ref(a):
    x, iters = a[1].reshape(3, 64).astype(np.int64), int(a[2])
    v = x.copy()
    for _ in range(iters):
        v = np.roll(v, -1, axis=1) + np.roll(v, 1, axis=1)
    for b in range(3):
        for _ in range(b + 1):
            v[b] = v[b] - v[b][::-1]
    return {0: v.astype(np.int32).ravel()}


entry("y_loop_uniform_trips", grid=(3,), block=(64,),
      make_args=lambda: (zeros(192), i32(192, lo=-100, hi=100, seed=205), np.int32(3)),
      reference=_y_lut_ref, expect="ok",
      why="trip counts from a parameter (iters) and from blockIdx.x are uniform per block")


entry("y_reduce_syncwarp_tail", grid=(2,), block=(256,),
      make_args=lambda: (i32(512, seed=206), full(2, -1)),
      reference=lambda a: {1: a[0].reshape(2, 256).sum(axis=1).astype(np.int32)},
      expect="ok",
      why="barriers while k > 32 (k = 128, 64), then warp 0 alone with __syncwarp between "
          "every read and write; s[t + 32] was written before the last barrier")


def _y_swub_ref(a):
    x = a[0].reshape(-1, 32)
    out = np.empty_like(x)
    for w in range(x.shape[0]):
        out[w] = x[w].sum() if w % 4 < 2 else x[w][::-1]
    return {1: out.ravel()}


entry("y_shfl_warp_uniform_branch", grid=(2,), block=(128,),
      make_args=lambda: (i32(256, seed=207), zeros(256)),
      reference=_y_swub_ref, expect="ok",
      why="t < 64 is uniform per warp with blocks of 128: all 32 lanes of warps 0 and 1 call "
          "the full-mask shuffles, all lanes of warps 2 and 3 call the other one")


def _y_sae_ref(a):
    x, n = a[0], int(a[2])
    out = a[1].copy()
    for i in range(n):
        r = int(x[i])
        if i + 1 < n and i % 32 != 31:
            r = r + int(x[i + 1])
        if (i ^ 1) < n:
            r = r * 2 + int(x[i ^ 1])
        out[i] = r
    return {1: out}


entry("y_shfl_after_exit", grid=(2,), block=(64,),
      make_args=lambda: (i32(128, seed=208), full(128, -1), np.int32(99)),
      reference=_y_sae_ref, expect="ok",
      why="threads 99..127 exit; the full masks name them, which is legal (exited lanes are "
          "ignored). Thread 98 reads lane 3 of warp 1 (exited) in both shuffles, an undefined "
          "value it never uses (the guards test i + 1 < n and (i ^ 1) < n)")


def _y_bab_ref(a):
    x = a[0].reshape(2, 128).astype(np.int64)
    out = np.empty_like(x)
    t = np.arange(128)
    for b in range(2):
        scale = cmod(int(x[b, 0]), 7) + 10
        vals = x[b, 100:104]
        out[b] = x[b] * scale + vals[t % 4] + vals[0]
    return {1: out.astype(np.int32).ravel()}


entry("y_broadcast_after_barrier", grid=(2,), block=(128,),
      make_args=lambda: (i32(256, seed=209), zeros(256)),
      reference=_y_bab_ref, expect="ok",
      why="one writer, a barrier, then 128 readers of the same element: reads do not race")


def _y_db_ref(a):
    x, iters = a[0].astype(np.int64), int(a[2])
    t = np.arange(64)
    acc = np.zeros(64, np.int64)
    for k in range(iters):
        acc += x[k * 64 + (t + k) % 64] * (k + 1)
    return {1: np.concatenate([acc, acc + 1]).astype(np.int32)}


entry("y_double_buffer_one_barrier", grid=(2,), block=(64,),
      make_args=lambda: (i32(5 * 64, seed=210), zeros(128), np.int32(5)),
      reference=_y_db_ref, expect="ok",
      why="iteration k writes buf[(k+1)&1] while others read buf[k&1]; the one barrier per "
          "iteration separates each write from the reads of the previous use of that buffer "
          "(iteration k-1) and from the reads that follow (iteration k+1)")


def _y_ro_ref(a):
    coef, x, nc, n = a[0].astype(np.int64), a[1].astype(np.int64), int(a[3]), int(a[4])
    out = a[2].copy()
    xp = np.concatenate([x[:n], np.zeros(nc, np.int64)])
    for i in range(n):
        out[i] = int((coef * xp[i:i + nc]).sum() + coef[0])
    return {2: out}


entry("y_readonly_shared_input", grid=(4,), block=(64,),
      make_args=lambda: (i32(5, lo=-9, hi=9, seed=211), i32(256, seed=212), full(256, -1),
                         np.int32(5), np.int32(250)),
      reference=_y_ro_ref, expect="ok",
      why="all four blocks read coef[] and overlapping parts of x[]; read-read is no race")


def _y_acb_args():
    c = np.array([0, 0, 2**31 - 1, -2**31, 0], np.int32)
    return i32(500, seed=213), c, zeros(500), np.int32(500)


def _y_acb_ref(a):
    x = a[0].astype(np.int64)
    orr = 0
    for v in a[0].tolist():
        orr |= 1 << (v & 15)
    c = np.array([500, wrap32(int(x.sum())), x.min(), x.max(), orr], np.int64)
    return {1: c.astype(np.int32), 2: np.ones(500, np.int32)}


entry("y_atomic_counter_blocks", grid=(4,), block=(128,), make_args=_y_acb_args,
      reference=_y_acb_ref, expect="ok",
      why="atomics from all blocks on the same words, never read with a plain load inside "
          "the kernel; the ticket from atomicAdd is unique whatever the order")


def _y_sol_ref(a):
    x = a[0].reshape(2, 128)
    out = np.maximum.accumulate(x, axis=1)
    rounds = a[2].copy()
    for b in range(2):
        v = x[b].copy()
        r = 0
        while True:
            left = np.concatenate([v[:1], v[:-1]])
            nv = np.maximum(v, left)
            r += 1
            ch = (nv != v).any()
            v = nv
            if not ch:
                break
        rounds[b] = r
    return {1: out.ravel(), 2: rounds}


entry("y_syncthreads_or_loop", grid=(2,), block=(128,),
      make_args=lambda: (i32(256, seed=214), zeros(256), full(2, -1)),
      reference=_y_sol_ref, expect="ok",
      why="the loop condition is __syncthreads_or(changed): one value for the whole block, "
          "so every thread runs the same number of rounds; read, barrier, write, barrier")


def _y_b2d_ref(a):
    x = a[0].reshape(2, 8, 32).astype(np.int64)
    rs = x.sum(axis=2)
    out = np.empty_like(x)
    xs = np.arange(32)
    for b in range(2):
        for y in range(8):
            out[b, y] = x[b, y] * 8 - rs[b, (y + 1) % 8] + x[b, y][(xs + y) & 31]
    return {1: out.astype(np.int32).ravel(), 2: rs.astype(np.int32).ravel()}


entry("y_block2d_rows", grid=(2,), block=(32, 8),
      make_args=lambda: (i32(512, seed=215), zeros(512), zeros(16)),
      reference=_y_b2d_ref, expect="ok",
      why="with blockDim.x = 32 each threadIdx.y row is one whole warp")


def _y_b48_ref(a):
    x = a[0].reshape(2, 3, 16).astype(np.int64)
    g = np.repeat(x.sum(axis=2), 16, axis=1)          # (2, 48): group sums
    t = np.arange(48)
    out = g[:, (t + 16) % 48] - g
    masks = np.array([0xFFFFFFFF, 0xFFFF] * 2, np.uint32)
    return {1: out.astype(np.int32).ravel(), 2: masks}


entry("y_block48_activemask", grid=(2,), block=(48,),
      make_args=lambda: (i32(96, seed=216), zeros(96), zeros(4, np.uint32)),
      reference=_y_b48_ref, expect="ok",
      why="warp 1 has 16 lanes: __activemask() at the kernel's start is 0x0000ffff there (on the "
          "H200 and under the corpus's lockstep schedule) and the xor partners (offsets 8..1) are "
          "all inside it; the barrier waits for 48 threads. Schedule-dependent all the same: a "
          "GPU may split a warp at __activemask(), and the adversarial and random schedules do "
          "(docs/semantics.md, section 3), which makes the shuffles read outside the mask")


def _y_cab_ref(a):
    x = a[0]
    s = (x.reshape(3, 50) & 0xFF).astype(np.int64)
    out = ((s[:, ::-1] + 1) & 0xFF).astype(np.uint8).ravel()
    return {1: out, 2: (x.astype(np.int64) * 3).astype(np.int16)}


entry("y_char_adjacent_bytes", grid=(3,), block=(50,),
      make_args=lambda: (i32(150, seed=217), zeros(150, np.uint8), zeros(150, np.int16)),
      reference=_y_cab_ref, expect="ok",
      why="each thread writes its own byte (and its own short); neighbours share a 4-byte "
          "word, even across blocks (block 0 writes bytes 0..49, block 1 from 50), but not a "
          "byte: no race")

entry("y_barrier_if_always_true", grid=(2,), block=(96,),
      make_args=lambda: (zeros(192), i32(192, seed=218)),
      reference=lambda a: {0: np.roll(a[1].reshape(2, 96), -40, axis=1).ravel()},
      expect="ok",
      why="threadIdx.x < blockDim.x holds for every thread: a uniform condition")


def _y_ltud_args():
    cnt = np.array([1, 2, 3], np.int32)
    reps = np.repeat(np.array([2, 0, 1], np.int32), 64)
    return cnt, reps, i32(192, lo=-100, hi=100, seed=219), zeros(192)


def _y_ltud_ref(a):
    cnt, reps = a[0], a[1]
    v = a[2].reshape(3, 64).astype(np.int64)
    for b in range(3):
        for _ in range(int(cnt[b])):
            v[b] = v[b] + np.roll(v[b], -1)
        for _ in range(int(reps[b * 64])):
            h = np.roll(v[b], -7)
            v[b] = v[b] - np.trunc(h / 2).astype(np.int64)
    return {3: v.astype(np.int32).ravel()}


entry("y_loop_trip_uniform_data", grid=(3,), block=(64,), make_args=_y_ltud_args,
      reference=_y_ltud_ref, expect="ok",
      why="trip counts loaded from memory: cnt[blockIdx.x] is the same for a block, and "
          "reps[i] is loaded per thread but holds one value per block. Uniformity is a "
          "property of the values at run time, not of how they were computed")


def _y_swhm_ref(a):
    x = a[0].reshape(-1, 32)
    out = x.copy()
    out[:, :16] = 3 * x[:, 15::-1]
    return {1: out.ravel()}


entry("y_syncwarp_half_mask", grid=(2,), block=(128,),
      make_args=lambda: (i32(256, seed=220), zeros(256)),
      reference=_y_swhm_ref, expect="ok",
      why="lanes 0-15 call __syncwarp(0x0000ffff): the mask names exactly the callers; lanes "
          "16-31 are alive but not named, which is legal")


def _y_sacg_ref(a):
    x = a[0].reshape(-1, 32).astype(np.int64)
    out = x.copy()
    out[:, :31] = x[:, :31] * 100 + x[:, 1:]
    return {1: out.astype(np.int32).ravel()}


entry("y_shfl_all_call_guarded_use", grid=(2,), block=(64,),
      make_args=lambda: (i32(128, seed=221), zeros(128)),
      reference=_y_sacg_ref, expect="ok",
      why="all 32 lanes call the shuffle (lane 31's source is out of range: its own value), "
          "only the use is guarded")


def _y_ng_ref(a):
    x = a[0].reshape(2, 128)
    out = np.empty_like(x)
    t = np.arange(96)
    out[:, :96] = x[:, 95 - (t + 1) % 96] + 1
    t = np.arange(96, 128)
    u = 96 + (t - 95) % 32
    out[:, 96:] = x[:, 96 + 127 - u] - 1
    return {1: out.ravel()}


entry("y_named_groups_96_32", grid=(2,), block=(128,),
      make_args=lambda: (i32(256, seed=222), zeros(256)),
      reference=_y_ng_ref, expect="ok",
      why="barrier 1 with count 96 for warps 0-2 and barrier 2 with count 32 for warp 3; "
          "each group reads only slots its own members wrote")

# ---- y_ undefined
entry("y_barrier_if_odd", grid=(1,), block=(96,),
      make_args=lambda: (zeros(96), i32(96, seed=223)),
      intended=lambda a: {0: np.roll(a[1], -40)},
      expect="deadlock",
      why="threadIdx.x % 2 splits every warp; the even lanes skip the if and wait at its end "
          "(the reconvergence point, followed by the store) for the odd lanes, which wait at "
          "the barrier for the even lanes (like guard_code_after)")

entry("y_barrier_in_switch", grid=(1,), block=(128,),
      make_args=lambda: (zeros(128), i32(128, seed=224)),
      expect="deadlock",
      why="case 0 (t % 4 == 0) has the barrier; lanes of cases 1 and default break to the end "
          "of the switch and wait there for their warp-mates, which wait at the barrier")

entry("y_barrier_switch_warp", grid=(1,), block=(128,),
      make_args=lambda: (zeros(128), i32(128, seed=225)),
      expect="divergent_barrier",
      why="the switch is on the warp number, so no warp is split: warp 0 waits at the barrier "
          "in case 0, warps 1-3 at the barrier after the switch; every live thread is at "
          "barrier 0 but from two call sites (synccheck: divergent threads in block)")

entry("y_devfn_barrier_partial", grid=(1,), block=(128,),
      make_args=lambda: (zeros(128), i32(128, seed=226)),
      expect="divergent_barrier",
      why="the device function's barrier is reached only by warps 0-1 (t < 64); warps 2-3 "
          "wait at the barrier after the if: two sites of barrier 0")

entry("y_devfn_barrier_both_branches", grid=(1,), block=(128,),
      make_args=lambda: (zeros(128), i32(128, seed=227)),
      expect="divergent_barrier",
      why="one source line, but the function is inlined into the then- and the else-call: "
          "warps 0-1 reach one barrier instruction, warps 2-3 another (what nvcc generates "
          "and synccheck reports); the condition t < 64 is not uniform over the block")


def _y_ltptd_args():
    reps = i32(64, lo=0, hi=4, seed=228)
    reps[:2] = [0, 3]
    return reps, i32(64, lo=-100, hi=100, seed=229), zeros(64)


entry("y_loop_trip_per_thread_data", grid=(1,), block=(64,), make_args=_y_ltptd_args,
      expect="deadlock",
      why="reps[t] differs between lanes of a warp; lanes that finish wait at the loop exit "
          "for warp-mates that wait at the barrier in the loop (loop_per_thread_trip)")

entry("y_inplace_neighbour_race", grid=(2,), block=(64,),
      make_args=lambda: (i32(128, seed=230), np.int32(128)),
      expect="race",
      why="thread i reads a[i-1] and a[i+1], threads i-1 and i+1 write them; nothing orders "
          "them (global_race; at the block edge 63/64 the race is between blocks)")

entry("y_waw_same_warp", grid=(1,), block=(128,),
      make_args=lambda: (i32(128, seed=231), zeros(128)),
      expect="race",
      why="lanes 0 and 1 of one warp write leader[w] with different values and no __syncwarp "
          "between: lanes of a warp are not ordered since Volta (write-after-write)")

entry("y_global_raw_two_warps", grid=(2,), block=(64,),
      make_args=lambda: (i32(128, seed=232), zeros(128), zeros(128)),
      expect="race",
      why="warp 1 reads tmp[] written by warp 0 of the same block without a barrier "
          "(global_race, read-after-write)")

entry("y_reduce_missing_last_barrier", grid=(2,), block=(128,),
      make_args=lambda: (i32(256, seed=233), zeros(2)),
      intended=lambda a: {1: a[0].reshape(2, 128).sum(axis=1).astype(np.int32)},
      expect="race",
      why="barriers sit at the start of each step; thread 1 writes s[1] in the last step "
          "(k = 2) and thread 0 reads it right after the loop with no barrier or __syncwarp "
          "between (same warp does not order them)")

entry("y_syncwarp_mask_missing_callers", grid=(1,), block=(64,),
      make_args=lambda: (i32(64, seed=234), zeros(64)),
      expect="invalid_mask",
      why="lanes 16-31 call __syncwarp(0x0000ffff) whose mask omits the caller")

entry("y_shfl_down_lane31_excluded", grid=(1,), block=(64,),
      make_args=lambda: (i32(64, seed=235), zeros(64)),
      expect="invalid_mask",
      why="the full mask names lane 31, which is alive (it stores after the if) but does not "
          "execute the shuffle")

entry("y_named_barrier_id_reuse", grid=(1,), block=(128,),
      make_args=lambda: (i32(128, seed=236), zeros(128)),
      expect="named_barrier",
      why="barrier 1 used with count 64 by warps 0-1 and count 128 by warps 2-3: "
          "mismatching counts for one barrier")

entry("y_named_barrier_shared_id", grid=(1,), block=(128,),
      make_args=lambda: (i32(128, seed=237), zeros(128)),
      expect="named_barrier",
      why="both groups of 64 use barrier 1 with count 64: 128 arrivals in one phase of a "
          "64-thread barrier; the hardware may release warps 0 and 2 together, and group 1's "
          "reads of slots written by warp 1 are then unordered")

entry("y_spin_flag_other_block", grid=(2,), block=(32,),
      make_args=lambda: (zeros(1), zeros(32)),
      expect="race",
      why="block 0's plain loads of flag[0] and block 1's plain store are unordered (nothing "
          "orders blocks; the compiler may also hoist the load and spin forever)")

entry("y_shfl_from_exited_used", grid=(2,), block=(64,),
      make_args=lambda: (i32(128, seed=238), zeros(128), np.int32(99)),
      expect="undefined_value",
      why="thread 98 (lane 2 of warp 1, block 1) reads lane 3, which exited: the value is "
          "undefined and it is stored")


def _y_asm_args():
    x = i32(64, lo=-100, hi=100, seed=239)
    x[0] = -5
    x[1] = 7
    return x, zeros(64)


entry("y_activemask_src_missing", grid=(1,), block=(64,), make_args=_y_asm_args,
      expect="undefined_value",
      why="in warp 0 lane 0 has v <= 0 and does not enter the if: the shuffle's source lane is "
          "not in the mask, the value read is undefined, and it is stored")

entry("y_shfl_fullmask_half_warp_branch", grid=(1,), block=(64,),
      make_args=lambda: (i32(64, seed=240), zeros(64)),
      expect="invalid_mask",
      why="t < 48 splits warp 1: the full mask names lanes 16-31 of warp 1, alive and not "
          "calling")

entry("y_single_buffer_one_barrier", grid=(1,), block=(64,),
      make_args=lambda: (i32(4 * 64, seed=241), zeros(64), np.int32(4)),
      expect="race",
      why="one buffer, one barrier per iteration: the write in iteration k+1 and a slower "
          "thread's read in iteration k have no barrier between (write-after-read)")

entry("y_atomic_then_plain_read", grid=(4,), block=(64,),
      make_args=lambda: (i32(256, seed=242), zeros(1), zeros(4)),
      expect="race",
      why="__syncthreads() orders the block only; the plain read of counter[0] races with "
          "other blocks' atomicAdds (atomics against plain accesses count)")

entry("y_uniform_flag_racy", grid=(1,), block=(64,),
      make_args=lambda: (i32(64, seed=243), zeros(64)),
      expect="race",
      why="thread 0 writes go and the others read it with no barrier between (read-after-"
          "write); the condition would be uniform only if the read were ordered")


entry("same_value_flag_writes", grid=(4,), block=(128,),
      make_args=lambda: (i32(512, lo=-40, hi=2, seed=281), zeros(4)),
      reference=lambda a: {1: (a[0].reshape(4, 128) > 0).any(axis=1).astype(np.int32)},
      expect="warning",
      why="unordered writes of one value leave that value in any order: defined on the GPU "
          "(PTX does not require data-race freedom; racecheck compares the values), a race "
          "under C++'s rules, hence a warning")

entry("different_value_flag_writes", grid=(4,), block=(128,),
      make_args=lambda: (i32(512, lo=-40, hi=2, seed=281), zeros(4)),
      intended=lambda a: {1: np.array([max(np.flatnonzero(r > 0), default=-1)
                                       for r in a[0].reshape(4, 128)], np.int32)},
      expect="race",
      why="the writers store different values, so the one left depends on their order")


def _y_lbbb_args():
    x = i32(64, lo=0, hi=200, seed=244)
    x[:2] = [10, 190]
    return x, zeros(64)


entry("y_loop_break_before_barrier", grid=(1,), block=(64,), make_args=_y_lbbb_args,
      expect="deadlock",
      why="lanes break out (v < 0) at different iterations, before the barrier; they wait at "
          "the loop exit for warp-mates that wait at the barrier for them")


def _y_sw2_ref(a):
    x = a[0].reshape(2, 32).astype(np.int64)
    out = np.empty_like(x)
    out[:, :16] = x[:, 16:] + 1
    out[:, 16:] = x[:, :16] * 2
    return {1: out.astype(np.int32).ravel()}


entry("y_syncwarp_two_sites", grid=(1,), block=(64,),
      make_args=lambda: (i32(64, seed=245), zeros(64)),
      reference=_y_sw2_ref, expect="ok",
      why="on sm_70 and later, __syncwarp() calls at different places with the same mask "
          "match each other (PTX bar.warp.sync: only sm_6x requires the same instruction); "
          "both halves call it with the full mask, so the exchange is ordered")

entry("y_uninit_select_unused", grid=(1,), block=(64,),
      make_args=lambda: (i32(64, seed=246), zeros(64)),
      reference=lambda a: {1: np.where(np.arange(64) < 63, np.roll(a[0], -1) - a[0], -1)
                           .astype(np.int32)},
      expect="ok",
      why="thread 63 loads s[64], never written, but the ?: (a select) stores -1 for it: the "
          "never-written value does not reach global memory")


def _y_sdhm_ref(a):
    x = a[0].reshape(4, 16).astype(np.int64)
    out = np.empty_like(x)
    for h in range(4):
        out[h] = x[h] * 10 + (x[h][3] if h % 2 == 0 else -x[h][5])
    return {1: out.astype(np.int32).ravel()}


entry("y_shfl_disjoint_half_masks", grid=(1,), block=(64,),
      make_args=lambda: (i32(64, seed=247), zeros(64)),
      reference=_y_sdhm_ref, expect="ok",
      why="both sides of a divergent branch shuffle, each with a mask naming exactly its own "
          "half-warp (disjoint masks are legal in divergent code); with width 16, srcLane 5 "
          "is lane 21 for the upper half")

entry("y_rows16_fullmask", grid=(1,), block=(16, 4),
      make_args=lambda: (i32(64, seed=248), zeros(64)),
      expect="invalid_mask",
      why="with blockDim.x = 16 a warp holds rows y and y+1: threadIdx.y % 2 == 0 splits "
          "every warp, and the full mask names the odd row's lanes, alive (they store after "
          "the if) and not calling (compare y_block2d_rows, where rows are warps)")


def _y_wq_ref(a):
    x, n = a[0].astype(np.int64), int(a[2])
    i = np.arange(n)
    return {1: (x * 3 + (i // 64) * 64).astype(np.int32)}


entry("y_work_queue_uniform_break", grid=(1,), block=(64,),
      make_args=lambda: (i32(300, seed=249), zeros(300), np.int32(300)),
      reference=_y_wq_ref, expect="ok",
      why="every thread reads the shared cursor between the same two barriers, so cur and "
          "the break are uniform; thread 0 writes next only after the barrier that follows "
          "everyone's read, and the barrier at the loop's end orders it before the next read")


def _y_cub_ref(a):
    v = a[0].astype(np.int64)
    for k in range(6):
        if k % 3 == 1:
            continue
        v = v + np.roll(v, -(k + 1))
    return {1: v.astype(np.int32)}


entry("y_continue_uniform_barrier", grid=(1,), block=(64,),
      make_args=lambda: (i32(64, lo=-100, hi=100, seed=250), zeros(64)),
      reference=_y_cub_ref, expect="ok",
      why="continue before the barriers depends only on the loop counter: every thread skips "
          "the same iterations")


def _y_cptb_args():
    x = i32(64, lo=0, hi=1000, seed=251)
    x[:4] = [0, 1, 2, 3]
    return x, zeros(64)


entry("y_continue_per_thread_barrier", grid=(1,), block=(64,), make_args=_y_cptb_args,
      expect="deadlock",
      why="(v & 3) == k differs between lanes of a warp: the lanes that continue wait at the "
          "loop latch (the if's reconvergence point) for warp-mates that wait at the barrier")


entry("y_ballot_mask_partial_reduce", grid=(2,), block=(64,),
      make_args=lambda: (i32(128, seed=252), zeros(1), zeros(128), np.int32(100)),
      reference=lambda a: {1: np.array([a[0][:100].astype(np.int64).sum()], np.int32),
                           2: np.where(np.arange(128) < 100, 1, 2).astype(np.int32)},
      expect="ok",
      why="the mask comes from __ballot_sync(full, i < n) before the guard: it names exactly "
          "the lanes that shuffle (threads 100..127 stay alive but are not named). Shuffles "
          "from lanes outside the mask give undefined values that the mask-bit test discards")


# --------------------------------------------------------------------------- Cooperative Groups
# Each CG entry mirrors an intrinsic entry above: the verdict must be the same.
entry("cg_block_sync_reverse", grid=(4,), block=(256,),
      make_args=lambda: (zeros(1024), i32(1024, seed=301)),
      reference=lambda a: {0: reverse_blocks(a[1], 256)}, expect="ok",
      why="reverse_tile with block.sync() / cg::sync(block): the same __syncthreads() barrier")

entry("cg_block_sync_straddle", grid=(2,), block=(256,),
      make_args=lambda: (zeros(512), i32(512, seed=42)),
      intended=lambda a: {0: (reverse_blocks(a[1], 256).reshape(2, 256)
                              + (np.arange(256) >= 80) * 1000).astype(np.int32).ravel()},
      expect="divergent_barrier",
      why="ifelse_straddle written with block.sync(): thread_block::sync() is __syncthreads() "
          "(barrier 0 for the whole block), so the two call sites make it divergent as there")

entry("cg_tile_shfl_exited_used", grid=(2,), block=(64,),
      make_args=lambda: (i32(128, seed=238), zeros(128), np.int32(99)),
      expect="undefined_value",
      why="y_shfl_from_exited_used with tile.shfl_down(v, 1): a 32-thread tile's shuffle is "
          "__shfl_down_sync(0xffffffff, v, 1, 32); thread 98 reads exited lane 3 and stores it")

entry("cg_tile_shfl_exited_unused", grid=(2,), block=(64,),
      make_args=lambda: (i32(128, seed=208), full(128, -1), np.int32(99)),
      reference=_y_sae_ref, expect="ok",
      why="y_shfl_after_exit with tile.shfl_down / tile.shfl_xor: exited lanes are ignored by the "
          "full-tile mask, and the undefined values read from them are never used")


def _cg_rbs_ref(a):
    x = np.concatenate([a[0].astype(np.int64), np.zeros(280, np.int64)]).reshape(4, 320)
    p = x.sum(axis=1)
    return {1: np.array([p.sum()], np.int32), 2: p.astype(np.int32)}


entry("cg_reduce_block_sum", grid=(4,), block=(320,),
      make_args=lambda: (i32(1000, lo=-1000, hi=1000, seed=302), zeros(1), full(4, -1), np.int32(1000)),
      reference=_cg_rbs_ref, expect="ok",
      why="x_reduce_shfl_block with cg::reduce over 32-thread tiles and block.sync(); tile 0 "
          "reads shared[rank] only for rank < meta_group_size() (10)")


def _cg_t16_ref(a):
    g = a[0].astype(np.int64).reshape(-1, 16)
    r = np.arange(16)
    down = np.where(r + 3 < 16, np.roll(g, -3, axis=1), g) + 10000 * (g > 900).any(1, keepdims=True) \
        + 20000 * (g > -900).all(1, keepdims=True)
    ballot = ((g > 0).astype(np.int64) << r).sum(1)
    minmax = g.min(1) * 4096 + g.max(1)
    return {1: down.astype(np.int32).ravel(), 2: np.repeat(ballot, 16).astype(np.uint32),
            3: np.repeat(minmax, 16).astype(np.int32)}


entry("cg_tile16_collectives", grid=(2,), block=(96,),
      make_args=lambda: (i32(192, seed=303), zeros(192), zeros(192, np.uint32), zeros(192)),
      reference=_cg_t16_ref, expect="ok",
      why="16-thread tiles: shuffles with width 16 and a 16-lane mask, votes of one half-warp, "
          "ballot shifted to the tile's ranks (CUDA's thread_block_tile::ballot), cg::reduce "
          "as a butterfly within the tile")


def _cg_coal_ref(a):
    x = a[0].reshape(-1, 32)
    take = x % 3 == 0
    rank = np.where(take, np.cumsum(take, axis=1) - 1, -1)
    size = np.where(take, take.sum(1, keepdims=True), -1)
    return {1: np.array([take.sum()], np.int32), 2: rank.astype(np.int32).ravel(),
            3: size.astype(np.int32).ravel()}


entry("cg_coalesced_aggregate", grid=(2,), block=(128,),
      make_args=lambda: (i32(256, seed=304), zeros(1), full(256, -1), full(256, -1)),
      reference=_cg_coal_ref, expect="ok",
      why="coalesced_threads() inside the branch is the warp's active lanes there (like "
          "__activemask()); ranks count those lanes, the leader adds the group's size once")

entry("cg_grid_sync_exchange", grid=(8,), block=(64,), cooperative=True,
      make_args=lambda: (zeros(512), zeros(512), np.int32(512)),
      reference=lambda a: {0: 3 * np.arange(512, dtype=np.int32) + 1,
                           1: (3 * ((np.arange(512) + 64) % 512) + 1).astype(np.int32)},
      expect="ok",
      why="a cooperative launch of 8 blocks: grid.sync() orders every block's writes before "
          "every block's reads")

entry("cg_grid_exchange_nosync", grid=(8,), block=(64,), cooperative=True,
      make_args=lambda: (zeros(512), zeros(512), np.int32(512)),
      intended=lambda a: {1: (3 * ((np.arange(512) + 64) % 512) + 1).astype(np.int32)},
      expect="race",
      why="without grid.sync() each thread reads an element that a thread of the next block "
          "writes, unordered: a race between blocks")


# --------------------------------------------------------------------------- templates
def _tpl_rev_ref(a):
    rev = reverse_blocks(a[1], 128).reshape(4, 128)
    return {0: (rev * np.where(np.arange(4) % 2, -1, 1)[:, None]).astype(np.float32).ravel()}


entry("tpl_reverse_block", kernel="tpl_reverse_block<128, float>", grid=(4,), block=(128,),
      name_expressions=("tpl_reverse_block<128, float>",),
      make_args=lambda: (zeros(512, np.float32), f32(512, seed=305)),
      reference=_tpl_rev_ref, expect="ok",
      why="a template over BLOCK and T, instantiated through name_expressions as CuPy does; the "
          "__device__ helper is instantiated by its explicit call negate_if<T>(...)")



# ---------------------------------------------------------------- structs, vector types, module variables
def _particles_args():
    ps = f32(4 * 64, -10, 10, seed=201)      # 64 Particle {x, y, vx, vy}: float32 bytes, as CuPy users pass them
    return ps, zeros(64, np.float32), np.float32(0.5)


def _particles_ref(a):
    p = a[0].reshape(64, 4).copy()
    p[:, 0] += p[:, 2] * np.float32(0.5)
    p[:, 1] += p[:, 3] * np.float32(0.5)
    mirror = np.concatenate([p[:32, 0][::-1], p[32:, 0][::-1]]) + np.float32(16)
    return {0: p.ravel(), 1: mirror.astype(np.float32)}


entry("struct_particles", grid=(2,), block=(32,), make_args=_particles_args, reference=_particles_ref,
      expect="ok", why="an array of structs as a float32 array; struct copies, ->, a __shared__ array of structs")


def _complex_args():
    r = rng(202)
    a = (r.uniform(-1, 1, 100) + 1j * r.uniform(-1, 1, 100)).astype(np.complex64)
    b = (r.uniform(-1, 1, 100) + 1j * r.uniform(-1, 1, 100)).astype(np.complex64)
    return a, b, np.zeros(100, np.complex64), np.int32(100)


entry("struct_complex", grid=(4,), block=(32,), make_args=_complex_args,
      reference=lambda a: {2: (a[0] * a[1] + a[0]).astype(np.complex64)},
      expect="ok", why="complex64 arrays have the bytes of struct {float re, im}")


def _layout_ref(a):
    t = np.arange(32)
    qr = np.stack([(t + 100) // 7, (t + 100) % 7], axis=1).astype(np.int32).ravel()
    return {0: np.array([24, 4, 16, 16 + 8 * 100, 16 + 12 * 100], np.int32), 1: qr}


entry("struct_layout", grid=(1,), block=(32,), make_args=lambda: (zeros(5, np.int32), zeros(64, np.int32)),
      reference=_layout_ref, expect="ok",
      why="char+double+int is 24 bytes with C's padding; __align__(16) rounds a 4-byte struct up to 16")


def _float4_ref(a):
    v = a[0].reshape(-1, 4)
    w = np.stack([v[:, 3], v[:, 2], v[:, 1], v[:, 0] + 1], axis=1).astype(np.float32)
    i = np.arange(len(v))
    return {1: w.ravel(), 2: np.stack([i, i * i + 1], axis=1).astype(np.int32).ravel()}


entry("vector_float4", grid=(2,), block=(32,),
      make_args=lambda: (f32(4 * 50, seed=203), zeros(4 * 50, np.float32), zeros(2 * 50, np.int32), np.int32(50)),
      reference=_float4_ref, expect="ok", why="numpy arrays start 16-byte aligned, as cudaMalloc's do")

entry("vector_misaligned", grid=(1,), block=(32,), make_args=lambda: (f32(4 * 33, seed=204), zeros(32, np.float32)),
      expect="misaligned", why="reinterpret_cast<const float4*>(in + 1): 4 bytes past a 16-byte boundary")


def _conv_ref(a):
    x = a[0].astype(np.float64)
    mask = np.float32([0.1, 0.2, 0.4, 0.2, 0.1]).astype(np.float64)
    out = np.zeros_like(x)
    for k in range(-2, 3):
        shifted = np.zeros_like(x)
        if k >= 0:
            shifted[:len(x) - k] = x[k:]
        else:
            shifted[-k:] = x[:k]
        out += mask[k + 2] * shifted
    return {1: (out * 2).astype(np.float32)}


entry("constant_conv", grid=(4,), block=(32,), make_args=lambda: (f32(100, seed=205), zeros(100, np.float32), np.int32(100)),
      reference=_conv_ref, expect="ok", rtol=1e-5, atol=1e-5,
      why="__constant__ arrays and scalars with initializers, read by every thread")


def _coef_ref(a):
    x = a[0].astype(np.float32)
    c = _POLY
    return {1: (((c[3] * x + c[2]) * x + c[1]) * x + c[0]).astype(np.float32) * np.float32(_POLY_SCALE)}


_POLY = np.float32([0.5, -1.0, 0.25, 2.0])
_POLY_SCALE = 3.0

entry("constant_from_host", grid=(2,), block=(64,), make_args=lambda: (f32(128, seed=207), zeros(128, np.float32)),
      globals={"coef": lambda: _POLY, "scale": lambda: np.float32(_POLY_SCALE)},
      reference=_coef_ref, expect="ok", rtol=1e-5, atol=1e-5,
      why="__constant__ coefficients written by the host through RawModule.get_global (cudaMemcpyToSymbol's role)")


def _ticket_args():
    return i32(4 * 64, lo=-100, hi=100, seed=206), zeros(4, np.int32), zeros(1, np.int32)


entry("device_ticket", grid=(4,), block=(64,), make_args=_ticket_args,
      reference=lambda a: {1: a[0].reshape(4, 64).sum(axis=1).astype(np.int32),
                           2: np.array([a[0].sum()], np.int32)},
      expect="ok", why="__threadfence() before the ticket orders each partial sum before the last block reads it")



def _first_reader_only(n, readers):
    v = np.zeros(n, np.int32)
    v[list(readers)] = 1
    return v


entry("y_syncwarp_orders_one_of_two_readers", grid=(1,), block=(64,),
      make_args=lambda: (zeros(64),),
      intended=lambda a: {0: _first_reader_only(64, (0, 32))},
      expect="race",
      why="threads 0 and 32 read s[0] (simcore: in one step), then __syncwarp() and thread 1 "
          "writes it: the warp sync orders the write after thread 0's read, not thread 32's "
          "(warp 1): write-after-read. The readers' record must keep both warps")

entry("y_syncwarp_orders_one_of_two_readers_global", grid=(2,), block=(64,),
      make_args=lambda: (full(2, 1), zeros(128)),
      intended=lambda a: {1: np.tile(_first_reader_only(64, (0, 32)), 2)},
      expect="race",
      why="global memory, the writer in the other reader's warp: thread 33 writes flag[b] "
          "after __syncwarp(), ordered after thread 32's read but not thread 0's")

entry("y_syncwarp_orders_both_readers", grid=(1,), block=(64,),
      make_args=lambda: (zeros(64),),
      reference=lambda a: {0: np.where(np.isin(np.arange(64), (0, 2)), 1,
                                        np.arange(64)).astype(np.int32)},
      expect="ok",
      why="both readers (threads 0 and 2) are in the writer's warp: __syncwarp() orders the "
          "write by thread 1 after both reads")


def _other_half(a):
    x = a[0].reshape(-1, 32)
    return {1: np.roll(x, -16, axis=1).ravel()}


entry("y_tile_sync_other_half", grid=(2,), block=(64,),
      make_args=lambda: (i32(128, seed=250), zeros(128)),
      intended=_other_half, expect="race",
      why="tile.sync() of a 16-thread tile orders that tile's threads only; the value read was "
          "written by the other half of the warp, with nothing between (read-after-write)")

entry("y_tile_sync_own_half", grid=(2,), block=(64,),
      make_args=lambda: (i32(128, seed=251), zeros(128)),
      reference=lambda a: {1: a[0].reshape(-1, 16)[:, ::-1].ravel()}, expect="ok",
      why="each thread reads a value of its own 16-thread tile after tile.sync(): ordered")

entry("y_syncwarp_partial_mask_skips_reader", grid=(1,), block=(32,),
      make_args=lambda: (zeros(32),),
      intended=lambda a: {0: np.where(np.arange(32) == 1, 1, 0).astype(np.int32)},
      expect="race",
      why="__syncwarp(0x5) orders threads 0 and 2, not thread 1: thread 1's read of s[0] and "
          "thread 2's later write are unordered (write-after-read)")

# --------------------------------------------------------------------------- w_: warp reduce, match, named-barrier counts
# The warp-reduce (compute capability 8.0+) and match (7.0+) intrinsics, bit-exact with the
# CUDA programming guide's definitions and with their masks checked like the shuffles'; and
# named-barrier counts that do or do not cover every thread arriving per phase.
def _per_warp(x, fn):
    """fn(values of one warp) -> per-lane results, for every warp of x."""
    return np.concatenate([fn(w) for w in x.reshape(-1, 32)])


def _wrap_sum(w):
    return wrap32(int(w.astype(np.int64).sum()))


def _reduce_ops_ref(a):
    x = a[0]

    def warp(w):
        u = [int(v) for v in w.view(np.uint32)]
        res = [_wrap_sum(w), int(w.min()), int(w.max()), wrap32(sum(u)), wrap32(min(u)), wrap32(max(u)),
               wrap32(np.bitwise_and.reduce(np.array([v | 0x01010101 for v in u], np.uint64)).item()),
               wrap32(np.bitwise_or.reduce(np.array([v & 0x7f7f7f7f for v in u], np.uint64)).item()),
               wrap32(np.bitwise_xor.reduce(np.array(u, np.uint64)).item())]
        return np.tile(np.array(res, np.int64), (32, 1))

    return {1: _per_warp(x, warp).astype(np.int32).ravel()}


entry("w_reduce_ops", grid=(2,), block=(96,),
      make_args=lambda: (i32(192, lo=-2**31, hi=2**31 - 1, seed=301), zeros(192 * 9)),
      reference=_reduce_ops_ref, expect="ok",
      why="__reduce_{add,min,max}_sync on int and unsigned and __reduce_{and,or,xor}_sync over full "
          "warps (CUDA programming guide, Warp Reduce Functions; PTX redux.sync): add truncates to 32 bits")


def _disjoint_ref(a):
    def warp(w):
        lo = np.full(12, _wrap_sum(w[:12]), np.int64)
        hi = np.full(20, int(w[12:].view(np.uint32).min()), np.int64)
        return np.concatenate([lo, hi])
    return {1: np.array([wrap32(int(v)) for v in _per_warp(a[0], warp)], np.int32)}


entry("w_reduce_disjoint_halves", grid=(2,), block=(64,),
      make_args=lambda: (i32(128, lo=-2**31, hi=2**31 - 1, seed=302), zeros(128)),
      reference=_disjoint_ref, expect="ok",
      why="two groups of one warp with disjoint masks in divergent code, each named lane executing "
          "its group's intrinsic: legal, each sees only its own mask's lanes")


def _tail_ref(a):
    x = a[0].reshape(2, 100).astype(np.int64)
    out = np.empty((2, 100), np.int64)
    for b in range(2):
        for w0 in range(0, 100, 32):
            w = x[b, w0:w0 + 32]
            out[b, w0:w0 + 32] = w.sum() + 7 * w.max()
    return {1: out.astype(np.int32).ravel()}


entry("w_reduce_tail_warp", grid=(2,), block=(100,),
      make_args=lambda: (i32(200, seed=303), zeros(200)),
      reference=_tail_ref, expect="ok",
      why="a full mask in the 4-lane tail warp of a 100-thread block: the lanes it names that do not "
          "exist never execute, like exited lanes (redux.sync waits for and reduces over the non-exited "
          "threads of the mask)")

entry("w_reduce_mask_divergent", grid=(1,), block=(64,),
      make_args=lambda: (i32(64, seed=304), zeros(64)),
      expect="invalid_mask",
      why="__reduce_add_sync(0xffffffff, v) reached by lanes 0-15 only: the mask names live lanes that "
          "never execute it")


def _match_ref(a):
    x, f = a[0], a[1]
    n = len(x)
    out = np.zeros((n, 8), np.uint64)

    def any_of(vals):
        res = np.zeros(32, np.uint64)
        for i in range(32):
            res[i] = sum(1 << j for j in range(32) if vals[j] == vals[i])
        return res

    v = np.fmod(x, 4).astype(np.int64)            # C's %: the sign of the dividend
    for w0 in range(0, n, 32):
        s = slice(w0, w0 + 32)
        vw = v[s]
        fw = f[s]
        out[s, 0] = any_of(list(vw))
        out[s, 1] = any_of(list(vw.astype(np.uint32) * np.uint32(3)))
        out[s, 2] = any_of(list(vw << 40))
        out[s, 3] = any_of(list(vw & 1))
        out[s, 4] = any_of(list(fw.view(np.uint32)))
        out[s, 5] = any_of(list(fw.astype(np.float64).view(np.uint64)))
        first = (w0 % 64) == 0                    # warp 0 of its block (blocks of 64)
        out[s, 6] = 0xFFFFFFFF if first else 0
        out[s, 7] = 1 if first else 0
    return {2: out.astype(np.uint32).ravel()}


def _match_args():
    f = (rng(306).integers(0, 3, 128) - 1).astype(np.float32) * np.float32(0.0)   # 0.0 and -0.0
    f[::5] = np.float32(1.5)
    return (i32(128, seed=305), f, zeros(128 * 8, np.uint32))


entry("w_match_ops", grid=(2,), block=(64,),
      make_args=_match_args,
      reference=_match_ref, expect="ok",
      why="__match_any_sync on int, unsigned, long long, unsigned long long, float and double, and "
          "__match_all_sync with its predicate (CUDA programming guide, Warp Match Functions; PTX "
          "match.sync): floats compare bit-wise, so 0.0 and -0.0 are different values")

entry("w_match_mask_missing", grid=(1,), block=(64,),
      make_args=lambda: (i32(64, seed=307), zeros(64, np.uint32)),
      expect="invalid_mask",
      why="__match_any_sync(0xffffffff, ...) reached by the odd lanes only: the mask names the even "
          "lanes, alive but not executing it")


def _pipeline_ref(a):
    x = a[0]
    return {1: x.reshape(-1, 64)[:, ::-1].ravel().copy()}


def _pipeline_args(seed):
    return lambda: (i32(192, seed=seed), zeros(192), np.int32(3))


entry("w_named_count_both_sides", grid=(1,), block=(128,),
      make_args=_pipeline_args(310), reference=_pipeline_ref, expect="ok",
      why="both barriers count both sides of their hand-off (64 bar.arrive + 64 bar.sync = 128), and "
          "the producers arrive at barrier 1 again only after waiting at barrier 2, which the consumers "
          "signal after they passed barrier 1: legal over three tiles")

entry("w_named_count_sync_both_sides", grid=(1,), block=(128,),
      make_args=_pipeline_args(311), reference=_pipeline_ref, expect="ok",
      why="the same pipeline with bar.sync on both sides and counts of 128: legal")

entry("w_named_count_one_side", grid=(1,), block=(128,),
      make_args=_pipeline_args(312), intended=_pipeline_ref, expect="named_barrier",
      why="counts of 64 (blockDim.x / 2) where 64 + 64 threads arrive per phase: each side can fill a "
          "phase by itself, so the consumers may read a tile before it is written; the report names "
          "the count (expected 64, arriving 128)")

entry("w_named_count_empty_side", grid=(1,), block=(128,),
      make_args=_pipeline_args(313), intended=_pipeline_ref, expect="named_barrier",
      why="barrier 1 counts both sides (128), barrier 2 only one (64): the producers can pass barrier 2 "
          "among themselves and overwrite buf while the consumers still read it")

entry("w_named_count_sync_one_side", grid=(1,), block=(128,),
      make_args=_pipeline_args(314), intended=_pipeline_ref, expect="named_barrier",
      why="bar.sync on both sides, barrier 1 with count 64 where 128 threads arrive per phase: producers "
          "and consumers can each complete a phase alone")

entry("w_named_count_one_tile", grid=(1,), block=(128,),
      make_args=lambda: (i32(64, seed=315), zeros(64)),
      intended=lambda a: {1: a[0][::-1].copy()}, expect="named_barrier",
      why="one hand-off with count 64 where 64 bar.arrive + 64 bar.sync arrive: the bar.arrive side "
          "alone fills a phase (in lockstep it did so silently before), or the consumers complete one "
          "before the producers wrote buf")

entry("w_named_groups_in_turn", grid=(1,), block=(128,),
      make_args=lambda: (i32(128, seed=316), zeros(128)),
      reference=lambda a: {1: np.concatenate([a[0][:64][::-1], a[0][64:][::-1] + 1]).astype(np.int32)},
      expect="ok",
      why="barrier 1 (count 64) used by threads 0-63, then, after __syncthreads(), by threads 64-127: "
          "the block barrier orders every arrival of the second group after the first group's phase")
# --------------------------------------------------------------------------- issue 19: C/C++ constructs
def _escape_ref(a):
    x0, n = a[0].astype(np.int64), int(a[2])
    i = np.arange(n)
    x, y = x0.copy(), -x0
    x = np.where(i & 1, x, x + 3)
    y = np.where(i & 1, y + 3, y)
    s = 10 * (i % 5)
    p = np.where(s > 10, s, np.where(i & 1, y, x))
    out = a[1].copy()
    out[:n] = (x * 1000 + y + s + p).astype(np.int32)
    return {1: out}


entry("local_pointer_escape", grid=(2,), block=(64,),
      make_args=lambda: (i32(120, lo=-100, hi=100, seed=191), zeros(128), np.int32(120)),
      reference=_escape_ref, expect="ok",
      why="pointers to locals reassigned per thread, stepped and chosen by ?: (the locals live in local memory)")


def _table_rows():
    return [f32(200, seed=300 + r) for r in range(3)]


entry("pointer_table", grid=(3,), block=(128,),
      make_args=lambda: (_table_rows(), np.int32(3), zeros(3, np.float32), np.int32(200)),
      reference=lambda a: {2: np.array([r.astype(np.float64).sum() for r in a[0]], np.float32)},
      expect="ok", rtol=1e-4,
      why="float **: a table of row pointers (the order of the float sums differs from numpy's: rtol)")


def _by_value_args():
    return ({"n": 100, "scale": [2.0, -0.5], "bias": 0.25, "in": {"src": f32(200, seed=192), "stride": 2}},
            zeros(128, np.float32))


def _by_value_ref(a):
    i = np.arange(100)
    out = a[1].copy()
    src = a[0]["in"]["src"]
    out[:100] = (src[i * 2] * np.where(i & 1, np.float32(-0.5), np.float32(2.0))
                 + (0.25 + i).astype(np.float32)).astype(np.float32)
    return {1: out}


entry("struct_by_value", grid=(2,), block=(64,), make_args=_by_value_args, reference=_by_value_ref,
      expect="ok",
      why="a struct by value with an array member and a nested pointer member (read through); each thread "
          "changes its own copy")

def _auto_ref(a):
    x = a[0][:int(a[3])]
    half = (x / np.float32(2)).astype(np.float32)
    v = x.copy()
    for _ in range(3):
        v = (v + half).astype(np.float32)
    out, wrapped = a[1].copy(), a[2].copy()
    out[:len(x)] = v
    i = np.arange(len(x))
    wrapped[:len(x)] = ((i % 64) - 40) % 2 ** 32
    return {1: out, 2: wrapped}


entry("cxx_auto", grid=(2,), block=(64,),
      make_args=lambda: (f32(120, -10, 10, seed=193), zeros(128, np.float32), zeros(128, np.uint32), np.int32(120)),
      reference=_auto_ref, expect="ok", why="auto takes the initializer's type: unsigned wraps, x / 2 stays float")


def _union_ref(a):
    n = int(a[4])
    x = a[0][:n]
    bits, top, high = a[1].copy(), a[2].copy(), a[3].copy()
    bits[:n] = x.view(np.uint32)
    top[:n] = x.view(np.uint32) >> 24
    high[:n] = x.astype(np.float64).view(np.int32)[1::2]
    return {1: bits, 2: top, 3: high}


entry("cxx_union", grid=(2,), block=(64,),
      make_args=lambda: (f32(100, -1000, 1000, seed=194), zeros(128, np.uint32), zeros(128, np.uint32),
                         zeros(128, np.int32), np.int32(100)),
      reference=_union_ref, expect="ok", why="a union's members share its bytes (little-endian on both)")


ACC = np.dtype([("sum", np.float32), ("n", np.int32)])


def _methods_ref(a):
    n = int(a[4])
    x = a[0][:n]
    i = np.arange(n)
    total = np.zeros(n, np.float32)
    for k in range(3):
        total = (total + (x + np.float32(k)).astype(np.float32)).astype(np.float32)
    means, accs, counts = a[1].copy(), a[2].copy(), a[3].copy()
    means[:n] = ((total / np.float32(3)).astype(np.float32) * np.float32(2)).astype(np.float32)
    accs["sum"][:n] = (accs["sum"][:n] + x + np.float32(1)).astype(np.float32)
    accs["n"][:n] += 2
    counts[:n] = i + 1
    return {1: means, 2: accs, 3: counts}


entry("cxx_member_functions", grid=(2,), block=(64,),
      make_args=lambda: (f32(100, seed=195), zeros(128, np.float32), np.zeros(128, ACC), zeros(128), np.int32(100)),
      reference=_methods_ref, expect="ok",
      why="member functions inlined with this; a base struct's members and member functions")

def _double4_ref(a):
    n = int(a[3])
    v = a[0][:4 * n].reshape(-1, 4)
    out, sums = a[1].copy(), a[2].copy()
    out[:4 * n] = np.stack([v[:, 3], v[:, 2], v[:, 1], v[:, 0] + v[:, 3]], axis=1).ravel()
    i = np.arange(n)
    sums[:n] = 6 * i + v[:, 0].astype(np.int64)
    return {1: out, 2: sums}


entry("vector_double4", grid=(2,), block=(64,),
      make_args=lambda: (np.round(f32(4 * 128, -1000, 1000, seed=196)).astype(np.float64), zeros(4 * 128, np.float64),
                         zeros(128, np.int64), np.int32(100)),
      reference=_double4_ref, expect="ok",
      why="double4 is 32 bytes aligned to 16 (double4_32a to 32); cudaMalloc and simcore start every array at "
          "an address aligned far beyond that")

def _fp_ref(a):
    n = int(a[2])
    x = a[0][:n]
    i = np.arange(n)
    sq = i % 3 == 0
    f_x = np.where(sq, x * x, np.float32(2) * x).astype(np.float32)
    f_1 = np.where(sq, np.float32(1), np.float32(2)).astype(np.float32)
    out = a[1].copy()
    out[:n] = (f_x + (f_1 + np.float32(1))).astype(np.float32)
    return {1: out}


entry("cxx_function_pointers", grid=(2,), block=(64,),
      make_args=lambda: (f32(100, -3, 3, seed=197), zeros(128, np.float32), np.int32(100)),
      reference=_fp_ref, expect="ok", why="a call through a function pointer reaches the function each thread holds")
# ---- loops of barriers whose memory moves every round (docs/semantics.md, forward progress): a
# state seen again at a barrier is a cycle of every order when only barriers hand values over
entry("barrier_counter_wraps", grid=(2,), block=(128,), make_args=lambda: (zeros(256), np.int32(200), np.int32(199)),
      reference=lambda a: {0: np.full(256, 199, np.int32)}, expect="ok",
      why="the count goes 1, 2, ..., 199 and the block stops there; every order runs the same rounds")

entry("barrier_counter_wraps_never_stops", kernel="barrier_counter_wraps", file="barrier_counter_wraps.cu",
      grid=(2,), block=(128,), make_args=lambda: (zeros(256), np.int32(200), np.int32(200)),
      intended=lambda a: {0: np.full(256, 200, np.int32)}, expect="step_limit",
      why="a count modulo 200 is never 200: the block goes round the same 200 rounds forever, in every "
          "order (memory moves, but only barriers hand values over)")

entry("barrier_rotate_until_found", grid=(2,), block=(128,), make_args=lambda: (zeros(256), np.int32(77)),
      reference=lambda a: {0: np.tile((np.arange(128) + 77) % 128, 2).astype(np.int32)}, expect="ok",
      why="value 77 reaches thread 0 after 77 rounds of values handed on through barriers")

entry("barrier_rotate_never_found", kernel="barrier_rotate_until_found", file="barrier_rotate_until_found.cu",
      grid=(2,), block=(128,), make_args=lambda: (zeros(256), np.int32(128)),
      intended=lambda a: {0: np.zeros(256, np.int32)}, expect="step_limit",
      why="the values are 0..127: 128 never reaches thread 0, and the block's state comes back every 128 "
          "rounds in every order")

# ---- forward progress (docs/semantics.md, section 8): spin locks and flag waits, legal from
# Volta on under every fair schedule, next to their broken twins (which hang on any GPU)
_PROGRESS_WHY = ("independent thread scheduling (compute capability 7.0+): every thread makes progress, "
                 "so the lock holder / flag writer runs while the others spin (a starvation-free wait is legal)")

entry("progress_lock_warp", grid=(2,), block=(64,), make_args=lambda: (zeros(1), zeros(1)),
      reference=lambda a: {1: np.array([128], np.int32)}, expect="ok",
      why="every lane takes the lock in turn; " + _PROGRESS_WHY + "; the holder must not wait at the loop's end "
          "for its spinning warp-mates (under model='stack', pre-Volta, it does: a hang)")

entry("progress_lock_warp_unreleased", grid=(2,), block=(64,), make_args=lambda: (zeros(1), zeros(1)),
      intended=lambda a: {1: np.array([128], np.int32)}, expect="step_limit",
      why="the lock is never released: every thread but the first spins forever")

entry("progress_lock_block", grid=(4,), block=(64,), make_args=lambda: (zeros(1), zeros(1)),
      reference=lambda a: {1: np.array([4], np.int32)}, expect="ok",
      why="one thread per block takes a global lock; " + _PROGRESS_WHY)

entry("progress_lock_block_wrong_release", grid=(4,), block=(64,), make_args=lambda: (zeros(1), zeros(1)),
      intended=lambda a: {1: np.array([4], np.int32)}, expect="step_limit",
      why="the release writes the taken value (1): the lock stays taken, the other blocks spin forever")

entry("progress_flag_in_warp", grid=(2,), block=(64,), make_args=lambda: (zeros(4), zeros(1)),
      reference=lambda a: {1: np.array([124], np.int32)}, expect="ok",
      why="lanes 0-30 wait for a flag that lane 31 of their own warp sets; " + _PROGRESS_WHY)

entry("progress_flag_in_warp_never_set", grid=(2,), block=(64,), make_args=lambda: (zeros(4), zeros(1)),
      intended=lambda a: {1: np.array([124], np.int32)}, expect="step_limit",
      why="the writer's condition (lane 32) is never true: the waiters spin forever")

entry("progress_flag_between_warps", grid=(2,), block=(64,), make_args=lambda: (zeros(4), zeros(1)),
      reference=lambda a: {1: np.array([64], np.int32)}, expect="ok",
      why="warp 0 waits for a flag set by another warp of its block; " + _PROGRESS_WHY)

entry("progress_flag_between_warps_circular", grid=(2,), block=(64,), make_args=lambda: (zeros(4), zeros(1)),
      intended=lambda a: {1: np.array([64], np.int32)}, expect="step_limit",
      why="the writer waits for a flag the waiters set only after their own wait: both wait forever")

def _heartbeat_ref(a, grid=2, block=64):
    beat = np.full(grid * block, -1, np.int32)
    beat[block - 1::block] = sum(range(200))
    return {0: np.ones(2, np.int32), 1: beat, 2: np.array([grid * (block - 1)], np.int32)}


entry("progress_heartbeat_flag", grid=(2,), block=(64,), make_args=lambda: (zeros(2), zeros(128), zeros(1)),
      reference=_heartbeat_ref, expect="ok",
      why="each waiter writes a heartbeat of its own while the block's last thread works, then sets the flag; "
          + _PROGRESS_WHY)

entry("progress_heartbeat_flag_never_set", grid=(2,), block=(64,), make_args=lambda: (zeros(2), zeros(128), zeros(1)),
      intended=_heartbeat_ref, expect="step_limit",
      why="the writer's condition is never true: every thread keeps its heartbeat going forever (memory moves, "
          "only in words of one thread each)")

entry("progress_flag_between_blocks", grid=(2,), block=(64,), make_args=lambda: (zeros(1), zeros(1)),
      reference=lambda a: {1: np.array([64], np.int32)}, expect="ok",
      why="block 0 waits for a flag block 1 sets: both blocks are resident together (one wave in simcore; "
          "two blocks fit on every GPU of the course), and resident threads make progress")

entry("progress_flag_between_blocks_circular", grid=(2,), block=(64,), make_args=lambda: (zeros(2), zeros(1)),
      intended=lambda a: {1: np.array([2], np.int32)}, expect="step_limit",
      why="each block waits for the other's flag before setting its own: both wait forever")
# ---- release and acquire (docs/semantics.md, "Fences and flags"): a legal twin and broken twins
# per pattern. compute-sanitizer's racecheck does not model fences (it checks shared memory
# only, by barrier intervals), so on the GPU only the outputs of the legal twins are evidence;
# the verdicts of the broken twins come from the PTX memory model's rules, not from the GPU.
NO_REFEREE = (" (racecheck does not model fences or flags: the GPU run checks the outputs only, "
              "the verdict follows PTX's memory model)")


def _handoff_args():
    return i32(128, seed=260), zeros(128), zeros(1), zeros(64)


def _handoff_ref(add=0, mul=1):
    return lambda a: {1: a[0] * mul + add, 3: (a[0][:64] * mul + add)[::-1].copy()}


entry("ra_fence_atomic_flag", grid=(2,), block=(64,), make_args=_handoff_args,
      reference=_handoff_ref(mul=3), expect="ok",
      why="__threadfence() then atomicExch is a release, the atomic read that saw 1 then "
          "__threadfence() an acquire; the barriers pass the order on to every thread of both "
          "blocks" + NO_REFEREE)

entry("ra_flag_without_fence", grid=(2,), block=(64,), make_args=_handoff_args,
      intended=_handoff_ref(mul=3), expect="race",
      why="the atomics alone are no release and no acquire: block 1's reads of data are "
          "unordered with block 0's writes" + NO_REFEREE)

entry("ra_fence_after_flag", grid=(2,), block=(64,), make_args=_handoff_args,
      intended=_handoff_ref(mul=3), expect="race",
      why="the writer's fence comes after the flag: nothing before the flag is released" + NO_REFEREE)

entry("ra_block_fence_between_blocks", grid=(2,), block=(64,), make_args=_handoff_args,
      intended=_handoff_ref(mul=3), expect="race",
      why="__threadfence_block() orders memory for its own block only: a hand-off between "
          "blocks needs __threadfence() on both sides" + NO_REFEREE)

entry("ra_volatile_flag", grid=(2,), block=(64,), make_args=_handoff_args,
      reference=_handoff_ref(add=7), expect="ok",
      why="__threadfence() then a volatile store releases, a volatile load that saw 1 then "
          "__threadfence() acquires" + NO_REFEREE)

entry("ra_volatile_flag_fence_before_wait", grid=(2,), block=(64,), make_args=_handoff_args,
      intended=_handoff_ref(add=7), expect="race",
      why="the reader's fence comes before its wait: it acquires nothing" + NO_REFEREE)

entry("ra_plain_load_flag", grid=(2,), block=(64,), make_args=_handoff_args,
      intended=_handoff_ref(add=7), expect="race",
      why="the reader spins on a plain load: no strong read, so no acquire, and the compiler may "
          "hoist the load out of the loop (the plain read of the flag races with its volatile "
          "store)" + NO_REFEREE)


def _lock_args():
    return i32(8, lo=1, hi=100, seed=261), zeros(1), zeros(2), full(8, -1)


entry("ra_spin_lock", grid=(8,), block=(32,), make_args=_lock_args,
      reference=lambda a: {2: np.array([a[0].sum(), 8], np.int32)}, expect="ok",
      why="atomicCAS then __threadfence() acquires the lock, __threadfence() then atomicExch "
          "releases it: every critical section is ordered after the one before (the order in "
          "which blocks take the lock varies: only the sum and the count are compared)" + NO_REFEREE)

entry("ra_spin_lock_without_fence", grid=(8,), block=(32,), make_args=_lock_args,
      intended=lambda a: {2: np.array([a[0].sum(), 8], np.int32)}, expect="race",
      why="without the fences the lock's atomics order only themselves: one holder's plain "
          "writes of total race with the next holder's reads" + NO_REFEREE)

entry("ra_block_fence_shared", grid=(2,), block=(64,),
      make_args=lambda: (i32(32, seed=262), zeros(2)),
      reference=lambda a: {1: np.full(2, 2 * a[0].sum(), np.int32)}, expect="ok",
      why="inside one block, __threadfence_block() then a volatile store of a shared flag "
          "releases the tile, a volatile load that saw it then __threadfence_block() acquires it "
          "(block scope holds both threads)" + NO_REFEREE)

entry("ra_block_flag_shared_no_fence", grid=(2,), block=(64,),
      make_args=lambda: (i32(32, seed=262), zeros(2)),
      intended=lambda a: {1: np.full(2, 2 * a[0].sum(), np.int32)}, expect="race",
      why="volatile alone orders nothing but the flag's own accesses: thread 32's reads of the "
          "tile are unordered with thread 0's writes" + NO_REFEREE)


# --------------------------------------------------------------------------- hunt_*: kernels
# written the way people write them after the barrier lessons (helpers, macros, templates,
# early returns, cg groups, volatile, partial masks), each legal one with a broken twin
def _hunt_list():
    order = np.random.default_rng(311).permutation(np.arange(1, 64))
    nxt = np.zeros(64, np.int32)
    prev = 0
    for v in order:
        nxt[prev] = v
        prev = v
    return nxt


def _hunt_warp_trip_ref(a):
    x = a[1].reshape(4, 32).astype(np.int64)
    for w in range(4):
        for _ in range(int(a[0][w])):
            x[w] = x[w] + np.roll(x[w], -1)
    return {2: x.ravel().astype(np.int32)}


def _hunt_syncwarp_ref(a):
    x = a[0]
    out = x.copy()
    for t in range(64):
        if t % 32 < 16:
            out[t] = x[t] + x[(t & ~15) + ((t % 32 + 1) & 15)]
    return {1: out}


def _hunt_smooth_ref(a):
    x = a[1].reshape(2, 128).copy()
    for b in range(2):
        for _ in range(int(a[0][b])):
            x[b] = np.float32(0.5) * (x[b] + np.roll(x[b], 1))
    return {2: x.ravel()}


def _hunt_cg_ref(a):
    x = a[0].reshape(4, 8, 8).copy()
    x[0], x[1] = x[0].T.copy(), x[1].T.copy()
    return {1: x.ravel()}


def _hunt_long_ref(a):
    s = a[0].copy()
    for _ in range(int(a[1])):
        s = (np.float32(0.75) * s + np.float32(0.25) * np.roll(s, -1)).astype(np.float32)
    return {0: s}

entry("hunt_cas_float_add", grid=(4,), block=(64,),
      make_args=lambda: (f32(250, seed=301), zeros(1, np.float32), np.int32(250)),
      reference=lambda a: {1: np.array([a[0].sum()], np.float32)}, expect="ok", rtol=1e-4, atol=1e-4,
      why="float atomicAdd written as the Programming Guide's atomicCAS loop in a __device__ helper, an early return guards the tail: the plain first read of the word is the CAS loop's guess (the sum's order varies: compared to 1e-4)")

entry("hunt_cas_float_add_plain", grid=(4,), block=(64,),
      make_args=lambda: (f32(250, seed=301), zeros(1, np.float32), np.int32(250)),
      expect="race",
      why="*sum = *sum + x[i] from every thread: unordered plain read-modify-writes of one word, in and between blocks")

entry("hunt_cas_float_max_block", grid=(3,), block=(96,),
      make_args=lambda: (f32(288, seed=302), zeros(3, np.float32)),
      reference=lambda a: {1: a[0].reshape(3, 96).max(axis=1)}, expect="ok",
      why="a float atomicMax on shared memory as a template helper with an early exit (atomicCAS loop that stops when the stored value is already larger); barriers before and after")

entry("hunt_cas_float_max_block_nosync", grid=(3,), block=(96,),
      make_args=lambda: (f32(288, seed=302), zeros(3, np.float32)),
      expect="race",
      why="hunt_cas_float_max_block without the barrier after the atomicCAS loops: thread 0's read of the "
          "result is no CAS loop's guess (no atomicCAS compares with its value), and the other threads' "
          "CASes may still be running (simcore used to excuse every plain read of a CAS's location)")

entry("hunt_ticket_lock", grid=(6,), block=(32,),
      make_args=lambda: (i32(6, seed=303), zeros(1), zeros(1), zeros(1)),
      reference=lambda a: {3: np.array([a[0].sum()], np.int32)}, expect="ok",
      why="a ticket lock between blocks: atomicAdd takes a ticket, a poll with atomicAdd(&serving, 0) then __threadfence() acquires, __threadfence() then atomicAdd(serving, 1) releases; " + _PROGRESS_WHY + NO_REFEREE)

entry("hunt_ticket_lock_nofence", grid=(6,), block=(32,),
      make_args=lambda: (i32(6, seed=303), zeros(1), zeros(1), zeros(1)),
      expect="race",
      why="the ticket lock without its fences: the atomics order only themselves, so one holder's plain update of total races with the next one's" + NO_REFEREE)

entry("hunt_shared_lock_all_lanes", grid=(2,), block=(64,),
      make_args=lambda: (i32(128, seed=304), zeros(4)),
      reference=lambda a: {1: np.array([64, a[0][:64].sum(), 64, a[0][64:].sum()], np.int32)}, expect="ok",
      why="every thread takes a lock in shared memory through LOCK/UNLOCK macros (atomicCAS, __threadfence_block; __threadfence_block, atomicExch): legal with independent thread scheduling; under model='stack' the holder waits for its spinning warp-mates (a hang)" + NO_REFEREE)

entry("hunt_shared_lock_plain_unlock", grid=(2,), block=(64,),
      make_args=lambda: (i32(128, seed=304), zeros(4)),
      expect="race",
      why="the lock released with a plain store: no release, so the critical sections' plain accesses of count and sum race" + NO_REFEREE)

entry("hunt_flag_in_warp_volatile", grid=(1,), block=(32,),
      make_args=lambda: (i32(32, seed=305), zeros(32)),
      reference=lambda a: {1: a[0][::-1] * 2}, expect="ok",
      why="lane 0 fills a table, __threadfence_block(), sets a __shared__ volatile flag; its warp-mates spin on it, then __threadfence_block(): a hand-off inside one warp (Volta and later)" + NO_REFEREE)

entry("hunt_flag_in_warp_fence_before_wait", grid=(1,), block=(32,),
      make_args=lambda: (i32(32, seed=305), zeros(32)),
      expect="race",
      why="the readers' fence comes before their wait: no acquire, the table reads race with lane 0's writes" + NO_REFEREE)

entry("hunt_chain_between_blocks", grid=(4,), block=(32,),
      make_args=lambda: (i32(128, seed=306), zeros(128), zeros(4)),
      reference=lambda a: {1: np.cumsum(a[0].reshape(4, 32), axis=0).ravel().astype(np.int32)}, expect="ok",
      why="a chain of blocks through SIGNAL/WAIT macros (__threadfence() then a volatile store; a volatile poll then __threadfence()), each block's barrier around them: block 0 waits at a barrier that all its threads reached while block 1 spins, and must get past it (simcore used to call this an endless loop)" + NO_REFEREE)

entry("hunt_chain_between_blocks_block_fence", grid=(4,), block=(32,),
      make_args=lambda: (i32(128, seed=306), zeros(128), zeros(4)),
      expect="race",
      why="the chain with __threadfence_block(): a block-scope fence orders nothing for another block, the row reads race" + NO_REFEREE)

entry("hunt_poll_arrivals", grid=(4,), block=(64,),
      make_args=lambda: (i32(256, seed=307), zeros(4), zeros(1), zeros(1)),
      reference=lambda a: {3: np.array([a[0].sum()], np.int32)}, expect="ok",
      why="every block writes its partial, __threadfence(), atomicAdd(arrived, 1); block 0 polls with atomicAdd(arrived, 0) until all have come, then __threadfence() and reads the partials (every block resident)" + NO_REFEREE)

entry("hunt_poll_arrivals_fence_after", grid=(4,), block=(64,),
      make_args=lambda: (i32(256, seed=307), zeros(4), zeros(1), zeros(1)),
      expect="race",
      why="the partial is written after the count and its fence: nothing orders it before block 0's read" + NO_REFEREE)

entry("hunt_ring_two_warps", grid=(1,), block=(64,),
      make_args=lambda: (i32(64, seed=308), zeros(1)),
      reference=lambda a: {1: np.array([(a[0].astype(np.int64) * np.arange(1, 65)).sum()], np.int32)}, expect="ok",
      why="a single-producer single-consumer ring of 8 slots in shared memory between lane 0 of warp 0 and lane 0 of warp 1, volatile head and tail, __threadfence_block() on both sides of each hand-off" + NO_REFEREE)

entry("hunt_ring_two_warps_no_acquire", grid=(1,), block=(64,),
      make_args=lambda: (i32(64, seed=308), zeros(1)),
      expect="race",
      why="the consumer reads its slot without a fence after seeing head move: no acquire, the slot read races with the producer's write" + NO_REFEREE)

entry("hunt_last_block_done", grid=(5,), block=(64,),
      make_args=lambda: (i32(320, seed=309), zeros(5), zeros(1)),
      reference=lambda a: {2: np.array([a[0].sum()], np.int32)}, expect="ok",
      why="the threadFenceReduction sample's shape with a __device__ block_sum helper (#pragma unroll), a volatile partials array and a __device__ ticket reset by the last block")

entry("hunt_last_block_done_nofence", grid=(5,), block=(64,),
      make_args=lambda: (i32(320, seed=309), zeros(5), zeros(1)),
      expect="race",
      why="the sample without __threadfence() before the ticket: the last block's reads of the partials are unordered with the other blocks' writes")

entry("hunt_dowhile_count", grid=(1,), block=(96,),
      make_args=lambda: (i32(96, lo=0, hi=1000, seed=310), zeros(96), zeros(1)),
      reference=lambda a: {1: np.full(96, a[0].min(), np.int32)}, expect="ok",
      why="label propagation to a fixed point: do { __syncthreads(); read neighbours; __syncthreads(); write } while (__syncthreads_count(changed) > 0): uniform exit")

entry("hunt_dowhile_count_no_mid_barrier", grid=(1,), block=(96,),
      make_args=lambda: (i32(96, lo=0, hi=1000, seed=310), zeros(96), zeros(1)),
      expect="race",
      why="without the barrier between the neighbours' reads and the writes, a thread writes its label while its neighbour reads it")

entry("hunt_dowhile_or_flag", grid=(1,), block=(64,),
      make_args=lambda: (_hunt_list(), zeros(1)),
      reference=lambda a: {1: np.array([64], np.int32)}, expect="ok",
      why="a list walk in shared memory: every thread loops until thread 0 says the walk is over through __syncthreads_or; cur is read, then a barrier, then written")

entry("hunt_dowhile_or_flag_no_barrier", grid=(1,), block=(64,),
      make_args=lambda: (_hunt_list(), zeros(1)),
      expect="race",
      why="cur is read by every thread and written by one in the same interval")

entry("hunt_named_full_empty", grid=(1,), block=(128,),
      make_args=lambda: (i32(256, seed=312), zeros(64)),
      reference=lambda a: {1: a[0].reshape(4, 64)[:, ::-1].sum(axis=0)}, expect="ok",
      why="a producer/consumer pipeline with 'full' (1) and 'empty' (2) named barriers of 128 threads through BAR_SYNC/BAR_ARRIVE asm macros: producers arrive on full and sync on empty, consumers the other way round "
          "(racecheck reports WAR hazards on the tile, as for w_named_count_both_sides: it does not model "
          "the ordering bar.arrive gives; the GPU's outputs match)")

entry("hunt_named_full_empty_half_count", grid=(1,), block=(128,),
      make_args=lambda: (i32(256, seed=312), zeros(64)),
      expect="named_barrier",
      why="the same with a count of 64: both sides arrive (128 threads), so each phase completes early, with the producers' threads of the next tile counted in")

entry("hunt_warp_trip_syncwarp", grid=(1,), block=(128,),
      make_args=lambda: (np.array([1, 3, 0, 5], np.int32), i32(128, lo=-5, hi=5, seed=313), zeros(128)),
      reference=_hunt_warp_trip_ref, expect="ok",
      why="every warp loops its own number of rounds with __syncwarp() inside and one __syncthreads() after the loop: legal")

entry("hunt_warp_trip_syncthreads", grid=(1,), block=(128,),
      make_args=lambda: (np.array([1, 3, 0, 5], np.int32), i32(128, lo=-5, hi=5, seed=313), zeros(128)),
      expect="divergent_barrier",
      why="__syncthreads() inside a loop whose trip count differs per warp: warps meet it different numbers of times")

entry("hunt_early_return_ballot", grid=(2,), block=(64,),
      make_args=lambda: (i32(100, seed=314), zeros(1), np.int32(100)),
      reference=lambda a: {1: np.array([a[0].sum()], np.int32)}, expect="ok",
      why="a guard that returns early with no barrier after it; the survivors reduce with __shfl_down_sync(live) from a __ballot_sync taken before the return and use only live lanes' values")

entry("hunt_early_return_fullmask", grid=(2,), block=(64,),
      make_args=lambda: (i32(100, seed=314), zeros(1), np.int32(100)),
      expect="undefined_value",
      why="after the early return the full mask names exited lanes, and their shuffled values are added: undefined")

entry("hunt_match_any_histogram", grid=(2,), block=(64,),
      make_args=lambda: (i32(128, lo=0, hi=8, seed=315), zeros(8)),
      reference=lambda a: {1: np.bincount(a[0], minlength=8).astype(np.int32)}, expect="ok",
      why="__match_any_sync groups the lanes of a warp by key; each group's leader adds __popc(peers) with one atomicAdd")

entry("hunt_match_any_histogram_plain", grid=(2,), block=(64,),
      make_args=lambda: (i32(128, lo=0, hi=8, seed=315), zeros(8)),
      expect="race",
      why="the leaders of different warps (and blocks) update one bin with a plain +=")

entry("hunt_half_warp_masks", grid=(2,), block=(64,),
      make_args=lambda: (f32(128, seed=316), zeros(8, np.float32)),
      reference=lambda a: {1: a[0].reshape(8, 16).sum(axis=1)}, expect="ok", atol=1e-5,
      why="each half-warp reduces its 16 values with __shfl_xor_sync and the mask of its own half (#pragma unroll), in the two sides of a branch on the lane")

entry("hunt_half_warp_masks_swapped", grid=(2,), block=(64,),
      make_args=lambda: (f32(128, seed=316), zeros(8, np.float32)),
      expect="invalid_mask",
      why="the upper half uses the lower half's mask: a mask that does not name the calling lanes")

entry("hunt_syncwarp_low_half", grid=(1,), block=(64,),
      make_args=lambda: (i32(64, seed=317), zeros(64)),
      reference=_hunt_syncwarp_ref, expect="ok",
      why="the low 16 lanes of each warp exchange values through shared memory with __syncwarp(0x0000ffff): the mask names exactly the lanes that write and read")

entry("hunt_syncwarp_low_half_narrow_mask", grid=(1,), block=(64,),
      make_args=lambda: (i32(64, seed=317), zeros(64)),
      expect="race",
      why="lanes 0-7 and 8-15 each sync only their own 8 lanes, but lane 7 reads lane 8's value (and lane 15 lane 0's)")

entry("hunt_loop_bound_from_shared", grid=(2,), block=(128,),
      make_args=lambda: (np.array([3, 6], np.int32), f32(256, seed=318), zeros(256, np.float32)),
      reference=_hunt_smooth_ref, expect="ok", atol=1e-5,
      why="thread 0 stores the pass count in shared memory before a barrier; the loop with two barriers inside is uniform per block (blocks differ: 3 and 6 passes)")

entry("hunt_double_buffer_float4", grid=(1,), block=(32,),
      make_args=lambda: (f32(768, seed=319), zeros(32, np.float32), np.int32(6)),
      reference=lambda a: {1: a[0].reshape(-1, 32, 4)[:, ::-1, :].sum(axis=(0, 2))}, expect="ok", atol=1e-4,
      why="double-buffered float4 tiles with one barrier per step: a buffer is refilled only after the barrier that follows its reads")

entry("hunt_single_buffer_float4", grid=(1,), block=(32,),
      make_args=lambda: (f32(768, seed=319), zeros(32, np.float32), np.int32(6)),
      expect="race",
      why="one buffer and one barrier per step: the next tile's writes race with this tile's reads")

entry("hunt_cg_sync_per_block_branch", grid=(2, 2), block=(8, 8),
      make_args=lambda: (i32(256, seed=320), zeros(256)),
      reference=_hunt_cg_ref, expect="ok",
      why="cg::this_thread_block().sync() inside if (blockIdx.y == 0) of a 2 x 2 grid of 8 x 8 blocks: uniform per block")

entry("hunt_warp_leader_lock", grid=(2,), block=(64,),
      make_args=lambda: (i32(128, seed=321), zeros(1), zeros(32)),
      reference=lambda a: {2: a[0].reshape(4, 32).sum(axis=0).astype(np.int32)}, expect="ok",
      why="lane 0 takes a global lock for its warp (atomicCAS, __threadfence()), __syncwarp() passes it on to the warp's plain updates, __syncwarp() and __threadfence() then atomicExch release them" + NO_REFEREE)

entry("hunt_warp_leader_lock_early_release", grid=(2,), block=(64,),
      make_args=lambda: (i32(128, seed=321), zeros(1), zeros(32)),
      expect="race",
      why="without the second __syncwarp() lane 0 may release before its warp-mates' updates: they race with the next warp's" + NO_REFEREE)

entry("hunt_hand_grid_barrier", grid=(4,), block=(32,),
      make_args=lambda: (i32(128, seed=322), zeros(128), zeros(128), zeros(1, np.uint32), zeros(1, np.uint32)),
      reference=lambda a: {2: (a[0] * 2)[::-1]}, expect="ok",
      why="a grid barrier by hand (all 4 blocks resident): count in with atomicAdd after a fence, the last block flips a volatile generation after a fence, the others poll it and fence" + NO_REFEREE)

entry("hunt_hand_grid_barrier_no_fence", grid=(4,), block=(32,),
      make_args=lambda: (i32(128, seed=322), zeros(128), zeros(128), zeros(1, np.uint32), zeros(1, np.uint32)),
      expect="race",
      why="without the fence before the count, a block's phase-1 writes are not released: the other blocks' phase-2 reads race with them" + NO_REFEREE)

entry("hunt_long_relaxation", grid=(1,), block=(64,),
      make_args=lambda: (f32(64, seed=323), np.int32(1000)),
      reference=_hunt_long_ref, expect="ok", atol=1e-5,
      why="1000 rounds of a two-barrier relaxation over 64 threads: a long legal loop")

entry("hunt_chain_atomic_poll", grid=(4,), block=(32,),
      make_args=lambda: (i32(128, seed=306), zeros(128), zeros(4)),
      reference=lambda a: {1: np.cumsum(a[0].reshape(4, 32), axis=0).ravel().astype(np.int32)}, expect="ok",
      why="hunt_chain_between_blocks with the waiters polling atomicAdd(&flag, 0): an atomic that leaves "
          "memory as it is reads the flag, so the release's volatile store after it is the hand-off "
          "(simcore used to call it a write-after-write race)" + NO_REFEREE)

# ---- hunt3 (issue 18): strong flags without fences, CAS guesses, scoped atomics, exited lanes
_GATE_IN = lambda: i32(4 * 64, seed=401)       # noqa: E731


def _hunt3_hist_ref(a):
    return {1: np.bincount(a[0][:a[2]] & 7, minlength=8).astype(np.int32)}


def _hunt3_shfl_ref(a):
    v = a[0].astype(np.int64)
    lane = np.arange(len(v)) & 31
    partner = np.arange(len(v)) ^ 1
    return {1: np.where(lane < 16, v + v[partner] + 1, -v).astype(np.int32)}


def _hunt3_lock_ref(a):
    return {1: a[0].reshape(2, 128).sum(axis=1).astype(np.int32)}


entry("hunt3_gate_volatile_nofence", grid=(4,), block=(64,),
      make_args=lambda: (_GATE_IN(), zeros(256), zeros(1)),
      reference=lambda a: {1: 2 * a[0]}, expect="ok",
      why="a start gate opened with a volatile store and no fence, waited for with volatile loads by the "
          "other blocks' thread 0: the flag's two sides are morally strong (PTX: no data race), the loop "
          "reads until it sees the value, and no data crosses blocks (simcore used to call the flag a "
          "race); " + _PROGRESS_WHY + NO_REFEREE)

entry("hunt3_gate_volatile_nofence_data", grid=(4,), block=(64,),
      make_args=lambda: (_GATE_IN(), zeros(256), zeros(1), zeros(64)),
      expect="race",
      why="the gate with a table that block 0 fills before opening it without __threadfence(): the readers' "
          "fence alone orders nothing, so the table (not the flag) races between blocks" + NO_REFEREE)

entry("hunt3_consume_flag_cas", grid=(2,), block=(64,),
      make_args=lambda: (i32(128, seed=402), zeros(128)),
      reference=lambda a: {1: a[0]}, expect="ok",
      why="a shared flag raised with a volatile store and no fence, consumed by another warp's "
          "atomicCAS(flag, 1, 0) wait loop: morally strong, and nothing else is handed over" + NO_REFEREE)

entry("hunt3_consume_flag_cas_data", grid=(2,), block=(64,),
      make_args=lambda: (i32(128, seed=402), zeros(128)),
      expect="race",
      why="the consumed flag with a value written before it and no __threadfence_block() before the "
          "volatile store: the waiter's read of the value races with its write" + NO_REFEREE)

entry("hunt3_block_atomic_shared_hist", grid=(4,), block=(64,),
      make_args=lambda: (i32(256, lo=0, hi=1000, seed=403), zeros(8), np.int32(250)),
      reference=_hunt3_hist_ref, expect="ok",
      why="atomicAdd_block on a per-block shared histogram (block scope holds every thread that touches "
          "it), merged with device-scope atomicAdd")

entry("hunt3_block_atomic_global_count", grid=(4,), block=(64,),
      make_args=lambda: (i32(256, lo=0, hi=1000, seed=403), zeros(1), np.int32(250)),
      expect="race",
      why="atomicAdd_block from several blocks on one global word: a block-scoped atomic is atomic only "
          "among its own block's threads (PTX: the blocks' atomics are not morally strong), so "
          "increments may be lost; on one GPU the count may still come out right, which is no evidence")

entry("hunt3_block_lock_shared", grid=(2,), block=(128,),
      make_args=lambda: (i32(256, seed=404), zeros(2)),
      reference=_hunt3_lock_ref, expect="ok",
      why="a shared-memory lock taken by each warp's lane 0 with atomicCAS_block, released with "
          "atomicExch_block, __threadfence_block() on both sides: block scope holds every contender; "
          + _PROGRESS_WHY + NO_REFEREE)

entry("hunt3_shfl_fullmask_divergent_exit", grid=(2,), block=(64,),
      make_args=lambda: (i32(128, seed=405), zeros(128)),
      reference=_hunt3_shfl_ref, expect="ok",
      why="lanes 16-31 write and return in the else branch while lanes 0-15 shuffle with the full mask "
          "and read only each other: the Guide asks that every non-exited lane the mask names reach the "
          "shuffle, and exited lanes are not waited for (PTX shfl.sync)")

entry("hunt3_shfl_fullmask_divergent_exit_src", grid=(2,), block=(64,),
      make_args=lambda: (i32(128, seed=405), zeros(128)),
      expect="undefined_value",
      why="the same exit, but lanes 0-15 read lane + 16, which has exited: the shuffled value is "
          "undefined (PTX shfl.sync: an inactive source lane), and it is stored")

entry("hunt3_arrivals_volatile_wait", grid=(3,), block=(32,),
      make_args=lambda: (zeros(1), zeros(3)),
      reference=lambda a: {1: np.full(3, 3, np.int32)}, expect="ok",
      why="blocks count in with atomicAdd and wait with volatile reads for the count to reach gridDim.x, "
          "no fence: an atomic against volatile waits is morally strong, and nothing else crosses "
          "blocks (simcore used to call the count a race); " + _PROGRESS_WHY + NO_REFEREE)

entry("hunt3_last_block_max", grid=(5,), block=(64,),
      make_args=lambda: (i32(320, seed=406), zeros(5), zeros(1)),
      reference=lambda a: {2: np.array([a[0].max()], np.int32)}, expect="ok",
      why="the last block (an atomicAdd ticket after __threadfence()) reads the volatile partial maxima "
          "in a loop that compares them: the Guide's threadFenceReduction shape")

entry("hunt3_last_block_max_nofence", grid=(5,), block=(64,),
      make_args=lambda: (i32(320, seed=406), zeros(5), zeros(1)),
      expect="race",
      why="without the fence before the ticket: the last block's volatile reads of the partials race with "
          "their writes. Both are strong (PTX: morally strong, no data race in its sense), but each is "
          "read once, not waited for: it may see the old value, so the result depends on timing")

# every entry is defined above this line
BY_NAME = {e.name: e for e in ENTRIES}


def get(name: str) -> Entry:
    return BY_NAME[name]


def _check_corpus():
    names = [e.name for e in ENTRIES]
    assert len(names) == len(set(names)), "duplicate entry names"
    assert set(BY_NAME) == set(names), "an entry is defined after BY_NAME is built"
    for e in ENTRIES:
        assert e.expect in VERDICTS, (e.name, e.expect)
        assert (e.reference is not None) == e.defined, e.name


_check_corpus()
