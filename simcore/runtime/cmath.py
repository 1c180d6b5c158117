"""The CUDA math API functions numpy does not have, with CUDA's definitions, over lanes.

Every function takes numpy arrays (or numpy scalars, for constants) of the C type's dtype and
returns the same shape and dtype. Three kinds:

* elementary functions numpy lacks (`exp10`, `sinpi`, `erfinv`, `tgamma`, Bessel functions,
  `remquo`, `ilogb`, ...): computed in float64 (double: with the care noted at each) and
  rounded once to the result type, so a float result is the correctly rounded value or within
  an ulp of it; CUDA documents its own errors (2 to 4 ulp for most float functions), so a GPU
  result may differ from simcore's in the last bits (tests compare with a tolerance);
* IEEE operations with a rounding mode (`__fadd_rd`, `__dmul_ru`, `__fsqrt_rz`,
  `__int2float_rd`, ...): exact, computed with Python's rationals per lane (these are rare in
  kernels, so the per-lane cost is acceptable), and equal bit for bit to a GPU's;
* bit and integer intrinsics (`__byte_perm`, `__funnelshift_l`, `__hadd`, `__mul64hi`, ...):
  exact.
"""
import math
from fractions import Fraction

import numpy as np

# ===================================================================== helpers
def _f64(x):
    return np.asarray(x, dtype=np.float64)


def _per_lane(fn, *args, dtype):
    """fn over Python floats, lane by lane, rounded once to dtype."""
    arrays = np.broadcast_arrays(*(np.asarray(a) for a in args))
    flat = [a.ravel() for a in arrays]
    out = np.array([fn(*(float(v[k]) for v in flat)) for k in range(flat[0].size)] if flat[0].size else [],
                   dtype=np.float64).reshape(arrays[0].shape)
    with np.errstate(all="ignore"):
        return out.astype(dtype)


def _safe(fn, pole=math.inf):
    """fn of Python floats with C's results where math raises (a pole, a domain error)."""
    def wrapped(*xs):
        if any(math.isnan(x) for x in xs):
            return math.nan
        try:
            return fn(*xs)
        except OverflowError:
            return math.inf
        except ValueError:
            return pole
    return wrapped


# ===================================================================== elementary functions
def exp10(x):
    with np.errstate(all="ignore"):
        return np.power(np.float64(10.0), _f64(x)).astype(np.asarray(x).dtype)


def _reduce_pi(x):
    """x -> (r, n): x = n/2 + r with |r| <= 1/4 and n an integer (exact in float64)."""
    x = _f64(x)
    n = np.rint(2 * x)
    return x - n / 2, n


def sinpi(x):
    dtype = np.asarray(x).dtype
    with np.errstate(all="ignore"):
        r, n = _reduce_pi(x)
        q = np.mod(n, 4)
        s, c = np.sin(np.pi * r), np.cos(np.pi * r)
        out = np.select([q == 0, q == 1, q == 2], [s, c, -s], -c)
        out = np.where(np.isinf(_f64(x)), np.nan, out)
        # sinpi(n) is +-0 with the sign of n (CUDA: sinpi(+-0) = +-0)
        out = np.where(out == 0, np.copysign(0.0, _f64(x)), out)
    return out.astype(dtype)


def cospi(x):
    dtype = np.asarray(x).dtype
    with np.errstate(all="ignore"):
        r, n = _reduce_pi(x)
        q = np.mod(n, 4)
        s, c = np.sin(np.pi * r), np.cos(np.pi * r)
        out = np.select([q == 0, q == 1, q == 2], [c, -s, -c], s)
        out = np.where(np.isinf(_f64(x)), np.nan, out)
        out = np.where(out == 0, 0.0, out)          # cospi(n + 1/2) is +0
    return out.astype(dtype)


def erf(x):
    return _per_lane(_safe(math.erf), x, dtype=np.asarray(x).dtype)


def erfc(x):
    return _per_lane(_safe(math.erfc), x, dtype=np.asarray(x).dtype)


def _erfcx1(x):
    if x < 26.0:
        return math.exp(x * x) * math.erfc(x) if x > -26.7 else math.inf
    # the asymptotic series (exp(x^2) overflows): 1/(x sqrt(pi)) (1 - 1/(2x^2) + 3/(4x^4) - ...)
    t, s, term = 1.0 / (2 * x * x), 1.0, 1.0
    for k in range(1, 8):
        term *= -(2 * k - 1) * t
        s += term
    return s / (x * math.sqrt(math.pi))


def erfcx(x):
    return _per_lane(_safe(_erfcx1), x, dtype=np.asarray(x).dtype)


def _erfinv1(y):
    if y <= -1.0 or y >= 1.0:
        return -math.inf if y == -1.0 else math.inf if y == 1.0 else math.nan
    if y == 0.0:
        return y
    # a first guess (Giles' single-precision approximation), then Newton on math.erf
    w = -math.log((1.0 - y) * (1.0 + y))
    x = math.copysign(math.sqrt(max(w, 0.0)) * 0.88, y) if w > 5 else y * 0.886
    for _ in range(60):
        err = math.erf(x) - y
        step = err / (2.0 / math.sqrt(math.pi) * math.exp(-x * x))
        x -= step
        if abs(step) <= 1e-17 * max(1.0, abs(x)):
            break
    return x


def _erfcinv1(y):
    if y <= 0.0 or y >= 2.0:
        return math.inf if y == 0.0 else -math.inf if y == 2.0 else math.nan
    if 0.0625 < y < 1.9375:
        return _erfinv1(1.0 - y)
    # erfc near 0 (or 2): Newton on erfc itself, which keeps the small value's digits
    small = y if y < 1 else 2.0 - y
    x = math.sqrt(-math.log(small))
    for _ in range(80):
        err = math.erfc(x) - small
        d = -2.0 / math.sqrt(math.pi) * math.exp(-x * x)
        if d == 0:
            break
        step = err / d
        x -= step
        if abs(step) <= 1e-16 * abs(x):
            break
    return x if y < 1 else -x


def erfinv(x):
    return _per_lane(_safe(_erfinv1, math.nan), x, dtype=np.asarray(x).dtype)


def erfcinv(x):
    return _per_lane(_safe(_erfcinv1, math.nan), x, dtype=np.asarray(x).dtype)


def normcdf(x):
    return _per_lane(_safe(lambda v: 0.5 * math.erfc(-v / math.sqrt(2.0))), x, dtype=np.asarray(x).dtype)


def normcdfinv(x):
    return _per_lane(_safe(lambda p: -math.sqrt(2.0) * _erfcinv1(2.0 * p), math.nan), x,
                     dtype=np.asarray(x).dtype)


def _tgamma1(x):
    if x == math.inf:
        return math.inf
    if x == -math.inf or (x < 0 and x == math.floor(x)):
        return math.nan
    if x == 0:
        return math.copysign(math.inf, x)
    if x > 171.7:
        return math.inf
    if x < -190:
        return 0.0          # underflows (its sign alternates; CUDA gives +-0)
    return math.gamma(x)


def tgamma(x):
    return _per_lane(_safe(_tgamma1, math.nan), x, dtype=np.asarray(x).dtype)


def _lgamma1(x):
    if math.isinf(x):
        return math.inf
    if x <= 0 and x == math.floor(x):
        return math.inf
    return math.lgamma(x)


def lgamma(x):
    return _per_lane(_safe(_lgamma1), x, dtype=np.asarray(x).dtype)


def fdim(x, y):
    x, y = np.broadcast_arrays(np.asarray(x), np.asarray(y))
    with np.errstate(all="ignore"):
        d = x - y
    return np.where(np.isnan(x) | np.isnan(y), np.nan, np.where(x > y, d, 0)).astype(x.dtype)


def _remainder1(x, y):
    if math.isnan(x) or math.isnan(y) or math.isinf(x) or y == 0:
        return math.nan
    if math.isinf(y):
        return x
    return math.remainder(x, y)         # exact (IEEE remainder is always representable)


def remainder(x, y):
    dtype = np.result_type(np.asarray(x), np.asarray(y))
    return _per_lane(_remainder1, x, y, dtype=dtype)


def remquo_quotient(x, y):
    """remquo's quotient: the sign of x/y and its low 3 bits (what CUDA guarantees), as int."""
    xa, ya = np.broadcast_arrays(_f64(x), _f64(y))
    out = np.zeros(xa.shape, np.int32)
    for k, (a, b) in enumerate(zip(xa.ravel(), ya.ravel())):
        if not (math.isfinite(a) and math.isfinite(b)) or b == 0:
            continue
        n = (Fraction(a) - Fraction(math.remainder(a, b))) / Fraction(b)
        q = int(abs(n)) & 7
        out.ravel()[k] = -q if n < 0 else q
    return out


def ilogb(x):
    """The unbiased exponent as an int: ilogb(0) and ilogb(NaN) are INT_MIN, ilogb(inf) INT_MAX (CUDA)."""
    xa = np.asarray(x)
    with np.errstate(all="ignore"):
        _, e = np.frexp(_f64(xa))
    out = (e - 1).astype(np.int64)
    out = np.where(xa == 0, -2 ** 31, out)
    out = np.where(np.isnan(xa), -2 ** 31, out)
    out = np.where(np.isinf(xa), 2 ** 31 - 1, out)
    return out.astype(np.int32)


def logb(x):
    xa = np.asarray(x)
    with np.errstate(all="ignore"):
        _, e = np.frexp(_f64(xa))
        out = (e - 1).astype(np.float64)
    out = np.where(xa == 0, -np.inf, out)
    out = np.where(np.isinf(xa), np.inf, out)
    out = np.where(np.isnan(xa), np.nan, out)
    return out.astype(xa.dtype)


def ldexp(x, n):
    xa = np.asarray(x)
    n = np.clip(np.asarray(n).astype(np.int64), -20000, 20000).astype(np.int32)
    with np.errstate(all="ignore"):
        return np.ldexp(xa, n).astype(xa.dtype)


def frexp(x):
    """-> (mantissa in [0.5, 1), exponent as int)."""
    xa = np.asarray(x)
    m, e = np.frexp(xa)
    e = np.where(np.isfinite(xa), e, 0)
    return m.astype(xa.dtype), e.astype(np.int32)


def modf(x):
    """-> (fractional part, integral part), both with the sign of x (modf(inf) = (+-0, inf))."""
    xa = np.asarray(x)
    whole = np.trunc(xa)
    with np.errstate(all="ignore"):
        frac = np.where(np.isinf(xa), np.copysign(0.0, xa), np.copysign(xa - whole, xa))
    return frac.astype(xa.dtype), whole.astype(xa.dtype)


def round_half_away(x):
    xa = np.asarray(x)
    with np.errstate(all="ignore"):
        out = np.sign(xa) * np.floor(np.abs(xa) + xa.dtype.type(0.5))
        # floor(|x| + 0.5) is wrong just below 0.5 (0.49999997f + 0.5f rounds to 1): keep trunc there
        out = np.where(np.abs(xa - np.trunc(xa)) < 0.5, np.trunc(xa), out)
    return out.astype(xa.dtype)


def rcbrt(x):
    xa = np.asarray(x)
    with np.errstate(all="ignore"):
        return (1.0 / np.cbrt(_f64(xa))).astype(xa.dtype)


def rhypot(x, y):
    dtype = np.result_type(np.asarray(x), np.asarray(y))
    with np.errstate(all="ignore"):
        return (1.0 / np.hypot(_f64(x), _f64(y))).astype(dtype)


def norm3d(a, b, c, inverse=False):
    dtype = np.result_type(np.asarray(a), np.asarray(b), np.asarray(c))
    with np.errstate(all="ignore"):
        n = np.hypot(np.hypot(_f64(a), _f64(b)), _f64(c))
        return ((1.0 / n) if inverse else n).astype(dtype)


def norm4d(a, b, c, d, inverse=False):
    dtype = np.result_type(np.asarray(a), np.asarray(b), np.asarray(c), np.asarray(d))
    with np.errstate(all="ignore"):
        n = np.hypot(np.hypot(_f64(a), _f64(b)), np.hypot(_f64(c), _f64(d)))
        return ((1.0 / n) if inverse else n).astype(dtype)


# ---- Bessel functions: integral representations, by quadrature in float64
_GL_X, _GL_W = np.polynomial.legendre.leggauss(96)


def _jn1(n, x):
    if math.isnan(x):
        return math.nan
    if math.isinf(x):
        return 0.0
    # J_n(x) = 1/pi int_0^pi cos(n t - x sin t) dt: the midpoint rule converges exponentially;
    # enough points for |x| up to a few hundred (beyond, the asymptotic form)
    if abs(x) > 300:
        return math.sqrt(2 / (math.pi * abs(x))) * math.cos(abs(x) - n * math.pi / 2 - math.pi / 4) * \
            (1 if x > 0 or n % 2 == 0 else -1)
    m = max(256, int(abs(x)) + 64 + abs(n))
    t = (np.arange(m) + 0.5) * (np.pi / m)
    return float(np.mean(np.cos(n * t - x * np.sin(t))))


def _yn1(n, x):
    if math.isnan(x) or x < 0:
        return math.nan
    if x == 0:
        return -math.inf
    if math.isinf(x):
        return 0.0
    if x > 300:
        return math.sqrt(2 / (math.pi * x)) * math.sin(x - n * math.pi / 2 - math.pi / 4)
    # Y_n(x) = 1/pi int_0^pi sin(x sin t - n t) dt - 1/pi int_0^inf (e^{nt} + (-1)^n e^{-nt}) e^{-x sinh t} dt
    # (the first integrand is not periodic: Gauss-Legendre panels for both)
    first = _gauss(lambda t: np.sin(x * np.sin(t) - n * t), 0.0, math.pi, 8 + int(x) // 4)
    top = math.asinh(800.0 / x) + 1.0          # e^{-x sinh t} is below e^-800 beyond
    with np.errstate(all="ignore"):
        total = _gauss(lambda u: np.exp(n * u - x * np.sinh(u)) + (-1) ** n * np.exp(-n * u - x * np.sinh(u)),
                       0.0, top, 32)
    return (first - total) / math.pi


def _gauss(f, a, b, panels):
    """int_a^b f by Gauss-Legendre (96 points) on equal panels."""
    edges = np.linspace(a, b, panels + 1)
    total = 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        total += (hi - lo) / 2 * float(np.dot(_GL_W, f((hi - lo) / 2 * _GL_X + (hi + lo) / 2)))
    return total


def _i_n1(n, x):
    if math.isnan(x):
        return math.nan
    if abs(x) > 700:
        return math.inf if (x > 0 or n == 0) else -math.inf
    # I_n(x) = 1/pi int_0^pi e^{x cos t} cos(n t) dt (midpoint rule: exponential convergence)
    m = max(256, int(abs(x)) + 64)
    t = (np.arange(m) + 0.5) * (np.pi / m)
    return float(np.mean(np.exp(x * np.cos(t)) * np.cos(n * t)))


def bessel_j(n, x):
    return _per_lane(lambda k, v: _jn1(int(k), v), n, x, dtype=np.asarray(x).dtype)


def bessel_y(n, x):
    return _per_lane(lambda k, v: _yn1(int(k), v), n, x, dtype=np.asarray(x).dtype)


def bessel_i(n, x):
    return _per_lane(lambda v: _i_n1(n, v), x, dtype=np.asarray(x).dtype)


# ===================================================================== IEEE operations with a rounding mode
_INFO = {np.dtype(np.float32): (np.float32, np.uint32), np.dtype(np.float64): (np.float64, np.uint64)}


def _step(r, direction, dtype):
    return dtype.type(np.nextafter(dtype.type(r), dtype.type(math.inf if direction > 0 else -math.inf)))


def round_exact(value, dtype, mode):
    """A Fraction (or int) rounded to dtype (float32/float64) in mode 'rn', 'rz', 'rd', 'ru'."""
    dtype = np.dtype(dtype)
    try:
        guess = dtype.type(float(value))
    except OverflowError:
        guess = dtype.type(math.inf if value > 0 else -math.inf)
    # lo: the largest value of dtype <= value (or -inf)
    lo = guess
    while not (np.isinf(lo) and lo < 0) and (np.isinf(lo) or Fraction(float(lo)) > value):
        lo = _step(lo, -1, dtype)
    while True:
        nxt = _step(lo, 1, dtype)
        if np.isinf(nxt) or Fraction(float(nxt)) > value:
            break
        lo = nxt
    if not np.isinf(lo) and Fraction(float(lo)) == value:
        return lo
    hi = _step(lo, 1, dtype)
    if mode == "rd":
        return lo
    if mode == "ru":
        return hi
    if mode == "rz":
        return lo if value > 0 else hi
    # to nearest, ties to even; beyond the largest finite value by half an ulp or more: inf
    if np.isinf(hi):
        half = (Fraction(float(lo)) - Fraction(float(_step(lo, -1, dtype)))) / 2
        return hi if value - Fraction(float(lo)) >= half else lo
    if np.isinf(lo):
        half = (Fraction(float(_step(hi, 1, dtype))) - Fraction(float(hi))) / 2
        return lo if Fraction(float(hi)) - value >= half else hi
    below, above = value - Fraction(float(lo)), Fraction(float(hi)) - value
    if below != above:
        return lo if below < above else hi
    return lo if int(np.asarray(lo).view(_INFO[dtype][1])) % 2 == 0 else hi


def rounded(op, mode, dtype, *args):
    """op ('add', 'sub', 'mul', 'div', 'fma', 'rcp', 'sqrt') of args, rounded in mode, lane by lane."""
    dtype = np.dtype(dtype)
    arrays = np.broadcast_arrays(*(np.asarray(a).astype(dtype) for a in args))
    shape = arrays[0].shape
    flat = [a.ravel() for a in arrays]
    out = np.empty(flat[0].size, dtype)
    with np.errstate(all="ignore"):
        nearest = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
                   "div": lambda a, b: a / b, "rcp": lambda a: dtype.type(1) / a, "sqrt": np.sqrt,
                   "fma": None}[op]
    for k in range(flat[0].size):
        xs = [f[k] for f in flat]
        if not all(np.isfinite(v) for v in xs) or op == "div" and xs[1] == 0 or op == "rcp" and xs[0] == 0 \
                or op == "sqrt" and xs[0] <= 0:
            with np.errstate(all="ignore"):
                if op == "fma":
                    out[k] = xs[0] * xs[1] + xs[2] if dtype == np.float64 else \
                        dtype.type(np.float64(xs[0]) * np.float64(xs[1]) + np.float64(xs[2]))
                else:
                    out[k] = nearest(*xs)
            continue
        out[k] = _rounded1(op, mode, dtype, xs)
    return out.reshape(shape)


def _rounded1(op, mode, dtype, xs):
    if op == "sqrt":
        r = np.sqrt(xs[0])                      # correctly rounded to nearest
        x = Fraction(float(xs[0]))
        sq = Fraction(float(r)) ** 2
        if sq == x or mode == "rn":
            return r
        below = sq < x                          # r < sqrt(x)
        if mode in ("rd", "rz"):
            return r if below else _step(r, -1, dtype)
        return _step(r, 1, dtype) if below else r
    f = [Fraction(float(v)) for v in xs]
    exact = {"add": lambda: f[0] + f[1], "sub": lambda: f[0] - f[1], "mul": lambda: f[0] * f[1],
             "div": lambda: f[0] / f[1], "rcp": lambda: 1 / f[0], "fma": lambda: f[0] * f[1] + f[2]}[op]()
    if exact == 0:
        if op in ("add", "sub", "fma"):
            terms = (xs[0], xs[1] if op == "add" else -xs[1]) if op != "fma" else (xs[0] * xs[1], xs[2])
            if all(np.signbit(t) for t in terms):
                return dtype.type(-0.0)
            if all(t == 0 and not np.signbit(t) for t in terms):
                return dtype.type(0.0)
            # IEEE: an exact zero sum of opposite operands is +0, except -0 when rounding down
            return dtype.type(-0.0 if mode == "rd" else 0.0)
        negative = np.signbit(xs[0]) != (np.signbit(xs[1]) if len(xs) > 1 else False)
        return dtype.type(-0.0 if negative else 0.0)
    return round_exact(exact, dtype, mode)


def convert_rounded(x, dtype, mode):
    """An integer or float value converted to float type dtype in mode (__int2float_rd, __double2float_ru...)."""
    xa = np.asarray(x)
    out = np.empty(xa.size, np.dtype(dtype))
    for k, v in enumerate(xa.ravel()):
        if xa.dtype.kind == "f" and not np.isfinite(v):
            out[k] = np.dtype(dtype).type(v)
        elif v == 0:
            out[k] = np.dtype(dtype).type(v)
        else:
            out[k] = round_exact(Fraction(int(v)) if xa.dtype.kind in "iu" else Fraction(float(v)), dtype, mode)
    return out.reshape(xa.shape)


# ===================================================================== integer and bit intrinsics
def byte_perm(x, y, s):
    """__byte_perm(x, y, s): byte n of the result is byte (s >> 4n) & 7 of the 8 bytes {y, x}."""
    x, y, s = np.broadcast_arrays(*(np.asarray(v).astype(np.uint64) for v in (x, y, s)))
    pool = (y << np.uint64(32)) | x
    out = np.zeros(x.shape, np.uint64)
    for n in range(4):
        sel = (s >> np.uint64(4 * n)) & np.uint64(7)
        out |= ((pool >> (sel * np.uint64(8))) & np.uint64(0xFF)) << np.uint64(8 * n)
    return out.astype(np.uint32)


def funnelshift(lo, hi, shift, left, clamp):
    """__funnelshift_l/_lc/_r/_rc: shift the 64-bit hi:lo by shift (mod 32, or clamped to 32), keep 32 bits."""
    lo, hi, shift = np.broadcast_arrays(np.asarray(lo).astype(np.uint64), np.asarray(hi).astype(np.uint64),
                                        np.asarray(shift).astype(np.uint64))
    n = np.minimum(shift, np.uint64(32)) if clamp else shift & np.uint64(31)
    both = (hi << np.uint64(32)) | lo
    if left:
        return ((both << n) >> np.uint64(32)).astype(np.uint32)
    return (both >> n).astype(np.uint32)


def halving_add(x, y, dtype, round_up):
    """__hadd/__rhadd/__uhadd/__urhadd: (x + y) >> 1 (or (x + y + 1) >> 1) without overflow."""
    s = np.asarray(x).astype(np.int64) + np.asarray(y).astype(np.int64) + (1 if round_up else 0)
    return (s >> 1).astype(dtype)


def mul64hi(x, y, signed):
    """__mul64hi/__umul64hi: the high 64 bits of the 128-bit product (exact, lane by lane)."""
    xa, ya = np.broadcast_arrays(np.asarray(x), np.asarray(y))
    dtype = np.int64 if signed else np.uint64
    out = np.empty(xa.size, dtype)
    for k, (a, b) in enumerate(zip(xa.ravel(), ya.ravel())):
        hi = (int(a) * int(b)) >> 64
        out[k] = hi if signed else hi & (2 ** 64 - 1)
    return out.reshape(xa.shape)


def clzll(x):
    u = np.asarray(x).astype(np.uint64)
    out = np.full(u.shape, 64, np.int32)
    for bit in range(63, -1, -1):
        hit = (out == 64) & (((u >> np.uint64(bit)) & np.uint64(1)) == 1)
        out = np.where(hit, 63 - bit, out)
    return out.astype(np.int32)


def brevll(x):
    u = np.asarray(x).astype(np.uint64)
    out = np.zeros_like(u)
    for i in range(64):
        out |= ((u >> np.uint64(i)) & np.uint64(1)) << np.uint64(63 - i)
    return out


def dp4a(a, b, c, signed_a, signed_b):
    """__dp4a: the dot product of the four bytes of a and b, plus c."""
    a, b = np.asarray(a).astype(np.uint32), np.asarray(b).astype(np.uint32)
    total = np.asarray(c).astype(np.int64)
    for n in range(4):
        x = ((a >> np.uint32(8 * n)) & np.uint32(0xFF)).astype(np.int64)
        y = ((b >> np.uint32(8 * n)) & np.uint32(0xFF)).astype(np.int64)
        if signed_a:
            x = np.where(x >= 128, x - 256, x)
        if signed_b:
            y = np.where(y >= 128, y - 256, y)
        total = total + x * y
    return total


def dp2a(a, b, c, hi, signed_a, signed_b):
    """__dp2a_lo/_hi: the two 16-bit halves of a times two bytes of b (the low or high pair), plus c."""
    a, b = np.asarray(a).astype(np.uint32), np.asarray(b).astype(np.uint32)
    total = np.asarray(c).astype(np.int64)
    for n in range(2):
        x = ((a >> np.uint32(16 * n)) & np.uint32(0xFFFF)).astype(np.int64)
        y = ((b >> np.uint32(8 * (n + (2 if hi else 0)))) & np.uint32(0xFF)).astype(np.int64)
        if signed_a:
            x = np.where(x >= 32768, x - 65536, x)
        if signed_b:
            y = np.where(y >= 128, y - 256, y)
        total = total + x * y
    return total


def double_hi_lo(x, high):
    """__double2hiint/__double2loint: the high or low 32 bits of a double, as int."""
    bits = np.ascontiguousarray(np.asarray(x, dtype=np.float64)).view(np.uint64)
    part = (bits >> np.uint64(32)) if high else (bits & np.uint64(0xFFFFFFFF))
    return part.astype(np.uint32).view(np.int32) if part.ndim else np.uint32(part).view(np.int32)


def hilo_to_double(hi, lo):
    hi, lo = np.broadcast_arrays(np.asarray(hi).astype(np.uint32).astype(np.uint64),
                                 np.asarray(lo).astype(np.uint32).astype(np.uint64))
    return np.ascontiguousarray((hi << np.uint64(32)) | lo).view(np.float64)
