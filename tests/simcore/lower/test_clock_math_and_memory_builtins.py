"""Built-ins of real-world CUDA: the simulated clock (`clock`, `clock64`,
`__nanosleep`), the CUDA math API's functions and intrinsics, `memcpy`/`memset` in device code."""
import numpy as np
import pytest

import simcore

SPIN = r'''
__global__ void spin(long long *out, int *flag, int cycles)
{
    long long start = clock64();
    while (clock64() - start < cycles) { }          // spin for N cycles
    long long mid = clock64();
    unsigned ns = 8;
    if (threadIdx.x == 0) {
        while (atomicAdd(flag, 0) == 0) {           // back-off loop
            __nanosleep(ns);
            if (ns < 256) ns *= 2;
            if (clock64() - mid > 100000) atomicExch(flag, 1);
        }
    }
    clock_t c = clock();
    out[threadIdx.x] = mid - start;
    out[blockDim.x + threadIdx.x] = clock64() - mid;
    out[2 * blockDim.x + threadIdx.x] = c - start;
}
'''


@pytest.mark.parametrize("threads", [1, 64])
def test_spin_and_back_off_loops_on_the_simulated_clock_end(threads):
    k = simcore.RawModule(code=SPIN).get_function("spin")
    runs = []
    for _ in range(2):
        out, flag = np.zeros(3 * threads, np.int64), np.zeros(1, np.int32)
        k((1,), (threads,), (out, flag, np.int32(5000)))
        assert flag[0] == 1
        runs.append(out)
    out = runs[0]
    spun, after, total = out[:threads], out[threads:2 * threads], out[2 * threads:]
    assert (spun >= 5000).all() and (spun < 5000 + 1000).all()    # it spun, and stopped soon after N
    assert after[0] > 100000                                          # thread 0 backed off until the flag
    assert (total >= spun).all() and (after >= 0).all()               # monotone per thread
    np.testing.assert_array_equal(runs[0], runs[1])                   # simulated work, not wall time


def test_nanosleep_advances_only_the_sleeping_thread():
    src = r'''
    __global__ void k(long long *out)
    {
        long long a = clock64();
        if (threadIdx.x == 1) __nanosleep(1000);
        long long b = clock64();
        out[threadIdx.x] = b - a;
    }'''
    out = np.zeros(2, np.int64)
    simcore.RawModule(code=src).get_function("k")((1,), (2,), (out,))
    assert out[1] - out[0] == 2000          # 1000 ns at the nominal 2 cycles per ns


def test_nanosleep_needs_an_integer():
    with pytest.raises(simcore.CompileError, match="__nanosleep"):
        simcore.RawModule(code="__global__ void k(float *p) {\n __nanosleep(p[0]);\n}").get_function("k")


# ------------------------------------------------------------------ the CUDA math API
from fractions import Fraction  # noqa: E402

from simcore.lower.builtins import BUILTINS  # noqa: E402

# The CUDA Math API reference's lists (CUDA 12/13): single- and double-precision functions,
# single- and double-precision intrinsics, integer and type-casting intrinsics (norm, rnorm,
# normf, rnormf take an array: lower/memfuncs.py). Not here: the SIMD intrinsics (__vadd2 &
# co), __fns, the half/bfloat16 types.
FUNCTIONS = """acos acosh asin asinh atan atan2 atanh cbrt ceil copysign cos cosh cospi cyl_bessel_i0
cyl_bessel_i1 erf erfc erfcinv erfcx erfinv exp exp10 exp2 expm1 fabs fdim floor fma fmax fmin fmod frexp
hypot ilogb isfinite isinf isnan j0 j1 jn ldexp lgamma llrint llround log log10 log1p log2 logb lrint lround
max min modf nan nearbyint nextafter norm3d norm4d normcdf normcdfinv pow rcbrt remainder remquo rhypot rint
rnorm3d rnorm4d round rsqrt scalbln scalbn signbit sin sincos sincospi sinh sinpi sqrt tan tanh tgamma trunc
y0 y1 yn""".split()
NO_FLOAT_FORM = {"isfinite", "isinf", "isnan", "signbit", "max", "min"}
INTRINSICS = """__cosf __exp10f __expf __fadd_rd __fadd_rn __fadd_ru __fadd_rz __fdiv_rd __fdiv_rn __fdiv_ru
__fdiv_rz __fdividef __fmaf_rd __fmaf_rn __fmaf_ru __fmaf_rz __fmaf_ieee_rd __fmaf_ieee_rn __fmaf_ieee_ru
__fmaf_ieee_rz __fmul_rd __fmul_rn __fmul_ru __fmul_rz __frcp_rd __frcp_rn __frcp_ru __frcp_rz __frsqrt_rn
__fsqrt_rd __fsqrt_rn __fsqrt_ru __fsqrt_rz __fsub_rd __fsub_rn __fsub_ru __fsub_rz __log10f __log2f __logf
__powf __saturatef __sincosf __sinf __tanf __tanhf
__dadd_rd __dadd_rn __dadd_ru __dadd_rz __ddiv_rd __ddiv_rn __ddiv_ru __ddiv_rz __dmul_rd __dmul_rn __dmul_ru
__dmul_rz __drcp_rd __drcp_rn __drcp_ru __drcp_rz __dsqrt_rd __dsqrt_rn __dsqrt_ru __dsqrt_rz __dsub_rd
__dsub_rn __dsub_ru __dsub_rz __fma_rd __fma_rn __fma_ru __fma_rz
__brev __brevll __byte_perm __clz __clzll __dp2a_hi __dp2a_lo __dp4a __ffs __ffsll __funnelshift_l
__funnelshift_lc __funnelshift_r __funnelshift_rc __hadd __mul24 __mul64hi __mulhi __popc __popcll __rhadd
__sad __uhadd __umul24 __umul64hi __umulhi __urhadd __usad
__double2float_rd __double2float_rn __double2float_ru __double2float_rz __double2hiint __double2int_rd
__double2int_rn __double2int_ru __double2int_rz __double2ll_rd __double2ll_rn __double2ll_ru __double2ll_rz
__double2loint __double2uint_rd __double2uint_rn __double2uint_ru __double2uint_rz __double2ull_rd
__double2ull_rn __double2ull_ru __double2ull_rz __double_as_longlong __float2int_rd __float2int_rn
__float2int_ru __float2int_rz __float2ll_rd __float2ll_rn __float2ll_ru __float2ll_rz __float2uint_rd
__float2uint_rn __float2uint_ru __float2uint_rz __float2ull_rd __float2ull_rn __float2ull_ru __float2ull_rz
__float_as_int __float_as_uint __hiloint2double __int2double_rn __int2float_rd __int2float_rn __int2float_ru
__int2float_rz __int_as_float __ll2double_rd __ll2double_rn __ll2double_ru __ll2double_rz __ll2float_rd
__ll2float_rn __ll2float_ru __ll2float_rz __longlong_as_double __uint2double_rn __uint2float_rd
__uint2float_rn __uint2float_ru __uint2float_rz __uint_as_float __ull2double_rd __ull2double_rn
__ull2double_ru __ull2double_rz __ull2float_rd __ull2float_rn __ull2float_ru __ull2float_rz""".split()


def test_every_function_and_intrinsic_of_the_math_api_is_a_table_row():
    names = set(INTRINSICS) | set(FUNCTIONS) | {f + "f" for f in FUNCTIONS if f not in NO_FLOAT_FORM}
    names -= {"maxf", "minf"}
    from simcore.lower.memfuncs import ARRAY_FUNCTIONS
    missing = sorted(n for n in names | {"norm", "rnorm", "normf", "rnormf"}
                     if n not in BUILTINS and n not in ARRAY_FUNCTIONS)
    assert not missing, missing


def run_expr(expr, t, x, y=None, out_t=None, extra=""):
    out_t = out_t or t
    dt = {"float": np.float32, "double": np.float64, "int": np.int32, "unsigned": np.uint32,
          "long long": np.int64, "unsigned long long": np.uint64}
    x = np.asarray(x, dt[t])
    y = np.asarray(y if y is not None else x, dt[t])
    src = (f"__global__ void k({out_t} *o, const {t} *x, const {t} *y)\n{{\n    int i = threadIdx.x;\n"
           f"    {t} a = x[i];\n    {t} b = y[i];\n{extra}    o[i] = {expr};\n}}\n")
    o = np.zeros(len(x), dt[out_t])
    simcore.RawModule(code=src).get_function("k")((1,), (len(x),), (o, x, y))
    return o


REFERENCE_VALUES = [   # from tables of the functions (Abramowitz & Stegun), to double precision
    ("j0", 1.0, 0.7651976865579666), ("j1", 1.0, 0.44005058574493355), ("y0", 1.0, 0.08825696421567696),
    ("y1", 1.0, -0.7812128213002887), ("cyl_bessel_i0", 1.0, 1.2660658777520082),
    ("cyl_bessel_i1", 1.0, 0.5651591039924851), ("erfinv", 0.5, 0.4769362762044699),
    ("erfcinv", 0.5, 0.4769362762044699), ("normcdfinv", 0.975, 1.959963984540054),
    ("tgamma", 0.5, 1.7724538509055159), ("lgamma", 0.5, 0.5723649429247001),
    ("exp10", 2.5, 316.22776601683796), ("sinpi", 1.0 / 6, 0.5), ("cospi", 1.0 / 3, 0.5),
    ("erfcx", 1.0, 0.42758357615580705), ("normcdf", 1.0, 0.8413447460685429),
    ("cbrt", 27.0, 3.0), ("rcbrt", 8.0, 0.5), ("logb", 10.0, 3.0), ("expm1", 1e-10, 1.00000000005e-10),
]


@pytest.mark.parametrize("name,x,want", REFERENCE_VALUES, ids=[r[0] for r in REFERENCE_VALUES])
def test_math_functions_match_reference_values(name, x, want):
    got = run_expr(f"{name}(a)", "double", [x])[0]
    assert got == pytest.approx(want, rel=1e-12, abs=1e-15)
    got32 = run_expr(f"{name}f(a)", "float", [x])[0]
    assert got32 == pytest.approx(want, rel=3e-7)


def test_bessel_functions_of_order_n_and_their_recurrence():
    x = np.array([0.5, 1.0, 2.5, 7.0, 20.0])
    j = [run_expr(f"jn({n}, a)", "double", x) for n in range(4)]
    y = [run_expr(f"yn({n}, a)", "double", x) for n in range(4)]
    np.testing.assert_allclose(j[0], run_expr("j0(a)", "double", x), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(y[1], run_expr("y1(a)", "double", x), rtol=1e-13, atol=1e-15)
    for n in (1, 2):      # C_{n+1}(x) = 2n/x C_n(x) - C_{n-1}(x)
        np.testing.assert_allclose(j[n + 1], 2 * n / x * j[n] - j[n - 1], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(y[n + 1], 2 * n / x * y[n] - y[n - 1], rtol=1e-9, atol=1e-12)


def test_special_values_follow_cuda():
    inf, nan = np.inf, np.nan
    assert run_expr("tgamma(a)", "double", [-2.0, 0.0, -0.0, inf])[:3].tolist()[0] != run_expr(
        "tgamma(a)", "double", [-2.0])[0]       # NaN at a negative integer
    got = run_expr("tgamma(a)", "double", [0.0, -0.0, inf])
    assert got[0] == inf and got[1] == -inf and got[2] == inf
    assert run_expr("ilogbf(a)", "float", [0.0, inf, nan, 8.0], out_t="int").tolist() == \
        [-2 ** 31, 2 ** 31 - 1, -2 ** 31, 3]
    assert np.isnan(run_expr("erfinvf(a)", "float", [1.5])[0])
    assert run_expr("erfinvf(a)", "float", [1.0])[0] == inf
    assert np.signbit(run_expr("sinpi(a)", "double", [-2.0])[0])
    assert run_expr("remainder(a, b)", "double", [5.0, 7.0], [2.0, 2.0]).tolist() == [1.0, -1.0]


def test_out_parameters_sincos_frexp_modf_remquo():
    x = np.array([0.75, -3.5, 10.0], np.float32)
    extra = "    float s, c; sincosf(a, &s, &c);\n    int e; float m = frexpf(a, &e);\n" \
            "    float ip; float fp = modff(a, &ip);\n    int q; float r = remquof(a, 2.0f, &q);\n"
    got = run_expr("s + 10 * c", "float", x, extra=extra)
    np.testing.assert_allclose(got, np.sin(x) + 10 * np.cos(x), rtol=1e-6)
    got = run_expr("ldexpf(m, e) == a && fp + ip == a && m >= 0.5f || m <= -0.5f", "float", x, extra=extra,
                   out_t="int")
    assert got.all()
    q = run_expr("q", "float", x, extra=extra, out_t="int")
    assert q.tolist() == [0, -2, 5 & 7]


def test_an_out_parameter_of_the_wrong_type_is_a_compile_error():
    with pytest.raises(simcore.CompileError, match="frexpf"):
        run_expr("frexpf(a, &e)", "float", [1.0], extra="    float e;\n")


MODES = ("rd", "rn", "ru", "rz")


def exact_and_rounded(op, t, a, b):
    prefix = {("add", "float"): "__fadd", ("mul", "float"): "__fmul", ("div", "float"): "__fdiv",
              ("sub", "float"): "__fsub", ("add", "double"): "__dadd", ("mul", "double"): "__dmul",
              ("div", "double"): "__ddiv", ("sub", "double"): "__dsub"}[op, t]
    got = {m: run_expr(f"{prefix}_{m}(a, b)", t, a, b) for m in MODES}
    fa, fb = [Fraction(float(v)) for v in a], [Fraction(float(v)) for v in b]
    exact = [{"add": x + y, "sub": x - y, "mul": x * y, "div": x / y}[op] for x, y in zip(fa, fb)]
    return got, exact


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
@pytest.mark.parametrize("t", ["float", "double"])
def test_rounding_mode_intrinsics_are_exact(op, t):
    rng = np.random.default_rng(5)
    dtype = np.float32 if t == "float" else np.float64
    a = (rng.standard_normal(64) * 10.0 ** rng.integers(-5, 6, 64)).astype(dtype)
    b = (rng.standard_normal(64) * 10.0 ** rng.integers(-5, 6, 64)).astype(dtype)
    a[:4] = [1, 3, 0.1, 1e30]
    b[:4] = [3, 7, 3, 1e-30]
    got, exact = exact_and_rounded(op, t, a, b)
    with np.errstate(all="ignore"):
        nearest = {"add": a + b, "sub": a - b, "mul": a * b, "div": a / b}[op]
    np.testing.assert_array_equal(got["rn"], nearest)
    biggest = np.finfo(dtype).max
    for k, e in enumerate(exact):
        if np.isinf(got["ru"][k]):            # beyond the largest finite value: rd keeps it, ru is inf
            assert e > Fraction(float(biggest)) and got["rd"][k] == got["rz"][k] == biggest
            continue
        lo, hi = Fraction(float(got["rd"][k])), Fraction(float(got["ru"][k]))
        assert lo <= e <= hi, (k, a[k], b[k])
        assert lo == hi == e or np.nextafter(got["rd"][k], dtype(np.inf)) == got["ru"][k]
        assert got["rz"][k] == (got["rd"][k] if e > 0 else got["ru"][k])


def test_rounding_mode_square_root_and_conversions():
    x = np.array([2.0, 3.0, 0.1, 1e-3, 16.0], np.float32)
    rd, ru = run_expr("__fsqrt_rd(a)", "float", x), run_expr("__fsqrt_ru(a)", "float", x)
    for k, v in enumerate(x):
        assert Fraction(float(rd[k])) ** 2 <= Fraction(float(v)) <= Fraction(float(ru[k])) ** 2
    assert rd[4] == ru[4] == 4.0 and rd[0] < ru[0]
    big = np.array([16777217, -16777217, 3], np.int32)
    assert run_expr("__int2float_rd(a)", "int", big, out_t="float").tolist() == [16777216.0, -16777218.0, 3.0]
    assert run_expr("__int2float_ru(a)", "int", big, out_t="float").tolist() == [16777218.0, -16777216.0, 3.0]
    assert run_expr("__int2float_rz(a)", "int", big, out_t="float").tolist() == [16777216.0, -16777216.0, 3.0]


def test_integer_intrinsics():
    a = np.array([0x12345678, 0xFFFFFFFF, 0x80000001, 7], np.uint32)
    b = np.array([0x9ABCDEF0, 1, 0x7FFFFFFF, 9], np.uint32)
    assert run_expr("__byte_perm(a, b, 0x5410)", "unsigned", a, b).tolist() == \
        [((int(y) & 0xFFFF) << 16) | (int(x) & 0xFFFF) for x, y in zip(a, b)]
    assert run_expr("__funnelshift_l(a, b, 8)", "unsigned", a, b).tolist() == \
        [(((int(y) << 32 | int(x)) << 8) >> 32) & 0xFFFFFFFF for x, y in zip(a, b)]
    assert run_expr("__funnelshift_rc(a, b, 40)", "unsigned", a, b).tolist() == [int(y) for y in b]
    assert run_expr("__uhadd(a, b)", "unsigned", a, b).tolist() == [(int(x) + int(y)) >> 1 for x, y in zip(a, b)]
    assert run_expr("__urhadd(a, b)", "unsigned", a, b).tolist() == [(int(x) + int(y) + 1) >> 1 for x, y in zip(a, b)]
    big = np.array([2 ** 63 - 1, -2 ** 63, 12345678912345], np.int64)
    assert run_expr("__mul64hi(a, b)", "long long", big, big[::-1].copy()).tolist() == \
        [(int(x) * int(y)) >> 64 for x, y in zip(big, big[::-1])]
    assert run_expr("__clzll(a)", "long long", big, out_t="int").tolist() == [1, 0, 64 - int(big[2]).bit_length()]
    assert run_expr("__dp4a((int)a, (int)b, 5)", "unsigned", a, b, out_t="int")[3] == 7 * 9 + 5


# ------------------------------------------------------------------ memcpy / memset
MEM = r'''
struct P { float x; int k; };
__global__ void k(float *out, const float *in, int *iout, unsigned char *bytes, struct P *ps, int n)
{
    __shared__ float tile[64];
    int t = threadIdx.x;
    float loc[4];
    memcpy(loc, in + 4 * t, sizeof(loc));              // global -> local array
    tile[t] = loc[0] + loc[3];
    __syncthreads();
    if (t == 0) memcpy(out, tile, 64 * sizeof(float));   // shared -> global
    int li[3];
    memset(li, 0, sizeof(li));
    li[1] += t;
    memset(iout + 2 * t, -1, 2 * sizeof(int));
    if (t == 1) memset(bytes, 7, n);           // a count known at run time
    if (t == 2) memcpy(bytes + 100, in, 10);   // bytes of floats
    struct P p;
    memcpy(&p, ps + t, sizeof(p));                       // a struct
    out[64 + t] = p.x + p.k + li[1];
    float f[2];
    memset(f, 0, sizeof(f));
    out[128 + t] = f[0] + f[1];
}'''


def mem_args(n=13):
    ps = np.zeros(64, dtype=[("x", np.float32), ("k", np.int32)])
    ps["x"], ps["k"] = 0.5, np.arange(64)
    return (np.full(192, 9, np.float32), np.arange(256, dtype=np.float32), np.zeros(128, np.int32),
            np.zeros(200, np.uint8), ps, np.int32(n))


def test_memcpy_and_memset_on_local_shared_and_global_memory():
    args = mem_args()
    simcore.RawModule(code=MEM).get_function("k")((1,), (64,), args)
    out, inp, iout, by, ps, _ = args
    t = np.arange(64)
    np.testing.assert_array_equal(out[:64], inp[4 * t] + inp[4 * t + 3])
    np.testing.assert_array_equal(out[64:128], 0.5 + t + t)
    np.testing.assert_array_equal(out[128:], 0)
    assert (iout == -1).all()
    assert (by[:13] == 7).all() and (by[13:100] == 0).all()
    assert bytes(by[100:110]) == inp[:3].tobytes()[:10] and (by[110:] == 0).all()


def test_memcpy_past_the_end_is_out_of_bounds_at_its_line():
    src = "__global__ void k(float *out, const float *in)\n{\n    memcpy(out, in, 65 * sizeof(float));\n}"
    with pytest.raises(simcore.KernelFault) as e:
        simcore.RawModule(code=src).get_function("k")((1,), (1,), (np.zeros(64, np.float32),
                                                                  np.zeros(64, np.float32)))
    assert e.value.kind == "out_of_bounds" and e.value.report["line"] == 3


def test_the_race_checker_sees_memset():
    src = ("__global__ void k(int *out)\n{\n    __shared__ int s[64];\n    s[threadIdx.x] = 1;\n"
           "    if (threadIdx.x == 0) memset(s, 0, sizeof(s));\n    __syncthreads();\n"
           "    out[threadIdx.x] = s[threadIdx.x];\n}")
    with pytest.raises(simcore.KernelFault) as e:
        simcore.RawModule(code=src).get_function("k")((1,), (64,), (np.zeros(64, np.int32),))
    assert e.value.kind == "race"


@pytest.mark.parametrize("call,what", [
    ("memcpy(loc, p++, 8);", "side effects"),
    ("memcpy(loc, (int *)p, 8);", "local variable"),
    ("memset(loc, 1, 6);", "local variable"),
    ("memcpy(loc, p, 8.0f);", "integer"),
    ("memcpy(loc, 3, 8);", "pointers"),
])
def test_memcpy_misuse_is_a_compile_error_at_its_line(call, what):
    src = f"__global__ void k(float *p)\n{{\n    float loc[2];\n    {call}\n    p[0] = loc[0];\n}}"
    with pytest.raises(simcore.CompileError, match=what) as e:
        simcore.RawModule(code=src).get_function("k")
    assert e.value.line == 4


def test_norm_and_rnorm_over_local_and_global_arrays():
    src = r'''__global__ void k(float *o, const float *p, double *d)
    {
        int t = threadIdx.x;
        float loc[3] = {3.0f, 4.0f, 12.0f};
        o[t] = normf(3, loc) + rnormf(2, p + 2 * t);
        double dl[2] = {6.0, 8.0};
        d[t] = norm(2, dl) + rnorm(t % 2 + 1, dl);
    }'''
    o, p, d = np.zeros(4, np.float32), np.arange(1, 9, dtype=np.float32), np.zeros(4)
    simcore.RawModule(code=src).get_function("k")((1,), (4,), (o, p, d))
    pairs = p.reshape(4, 2).astype(np.float64)
    np.testing.assert_allclose(o, 13 + 1 / np.sqrt((pairs ** 2).sum(axis=1)), rtol=1e-6)
    np.testing.assert_allclose(d, [10 + 1 / 6, 10.1, 10 + 1 / 6, 10.1], rtol=1e-12)


@pytest.mark.parametrize("name,instead", [("__builtin_memcpy", "memcpy"), ("__builtin_memset", "memset")])
def test_nvcc_only_memory_builtins_are_refused_as_nvrtc_refuses_them(name, instead):
    """NVRTC (CuPy's compiler) has no __builtin_memcpy/__builtin_memset (measured on the H200):
    a kernel using them would run on the simulator and fail to compile on the GPU."""
    args = "d, s, 8" if name.endswith("cpy") else "d, 0, 8"
    src = ('extern "C" __global__ void k(char *d, const char *s)\n{\n'
           f"    {name}({args});\n}}\n")
    with pytest.raises(simcore.CompileError) as e:
        simcore.RawModule(code=src).get_function("k")
    assert f'identifier "{name}" is undefined' in str(e.value) and instead in str(e.value)
    assert e.value.line == 3
