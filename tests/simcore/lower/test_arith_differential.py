"""Differential tests of simcore's C arithmetic against a reference evaluator written here.

Hypothesis draws random expression trees over int / unsigned / long long / float / double
variables and literals: + - * / % << >> & | ^ ~, unary minus, !, && ||, comparisons,
ternaries, casts and compound assignment. Every thread of a launch evaluates the expression on
its own inputs; the result must equal, bit for bit, what C (as a GPU does it) gives:

* integers wrap (two's complement; signed overflow wraps as on a GPU, although C calls it UB),
  unsigned arithmetic is modulo 2^32, division and modulo truncate toward zero,
  `>>` of a negative signed value is arithmetic;
* the usual arithmetic conversions (int + unsigned -> unsigned, unsigned + long long -> long long,
  any + float -> float, any + double -> double), comparisons give int 0/1;
* float is computed in float32 (no promotion to double, no contraction into FMA).

Expressions never contain undefined behaviour: integer divisors are built so that they are never
0 or -1, shift counts are masked to the width of the promoted left operand, and only float
*variables* (whose values fit) are cast to integer types.

Kernels are cached by source; each property runs 60-100 examples with deadline=None.
"""
import functools

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

import simcore  # noqa: E402

NTHREADS = 64
TYPES = {   # C spelling -> (numpy dtype, is integer, signed, bits, rank)
    "int": (np.int32, True, True, 32, 1),
    "unsigned": (np.uint32, True, False, 32, 1),
    "long long": (np.int64, True, True, 64, 2),
    "float": (np.float32, False, True, 32, 3),
    "double": (np.float64, False, True, 64, 4),
}
INT_TYPES = ("int", "unsigned", "long long")
VARS = {"i0": "int", "i1": "int", "u0": "unsigned", "u1": "unsigned", "l0": "long long", "l1": "long long",
        "f0": "float", "f1": "float", "d0": "double", "d1": "double"}
LIT_SUFFIX = {"int": "", "unsigned": "u", "long long": "ll", "float": "f", "double": ""}

ARITH = ("+", "-", "*", "/")
BITWISE = ("&", "|", "^")
CMP = ("<", "<=", ">", ">=", "==", "!=")


def is_int(t):
    return TYPES[t][1]


def common(a, b):
    """The usual arithmetic conversions for our five types."""
    if "double" in (a, b):
        return "double"
    if "float" in (a, b):
        return "float"
    if "long long" in (a, b):
        return "long long"     # long long represents every unsigned int value
    if "unsigned" in (a, b):
        return "unsigned"
    return "int"


# ===================================================================== expression trees
# A node is a tuple (kind, ctype, ...) ; `code(node)` renders fully parenthesised C.
def node_type(n):
    return n[1]


def code(n):
    kind = n[0]
    if kind == "var":
        return n[2]
    if kind == "lit":
        return n[2]
    if kind == "un":
        return f"({n[2]}{code(n[3])})"
    if kind in ("bin", "cmp", "logic"):
        return f"({code(n[3])} {n[2]} {code(n[4])})"
    if kind == "cast":
        return f"(({n[1]})({code(n[2])}))"
    if kind == "tern":
        return f"({code(n[2])} ? {code(n[3])} : {code(n[4])})"
    raise AssertionError(kind)


def lit(ctype, value):
    if ctype == "float":
        text = repr(float(value)) + "f"
        if "." not in text and "e" not in text:
            text = text[:-1] + ".0f"
    elif ctype == "double":
        text = repr(float(value))
    else:
        text = f"{int(value)}{LIT_SUFFIX[ctype]}"
    if text.startswith("-"):
        text = f"({text})"
    return ("lit", ctype, text, value)


def safe_divisor(b):
    """((b & 12) | 3) - 9 : never 0 and never -1 whatever b is (b integer)."""
    t = node_type(b)
    x = ("bin", t, "&", b, lit("int", 12))
    x = ("bin", t, "|", x, lit("int", 3))
    return ("bin", t, "-", x, lit("int", 9))


def shift_amount(a_type, b):
    width = TYPES[a_type][3]
    return ("bin", node_type(b), "&", b, lit("int", width - 1))


literals = {
    "int": st.one_of(st.integers(0, 40), st.sampled_from([255, 65535, 2 ** 31 - 1, 123456789])),
    "unsigned": st.one_of(st.integers(0, 40), st.sampled_from([2 ** 32 - 1, 2 ** 31, 0x80000001, 3000000000])),
    "long long": st.one_of(st.integers(0, 40), st.sampled_from([2 ** 32, 2 ** 63 - 1, 2 ** 40 + 7, 5000000000])),
    "float": st.integers(-2000, 2000).map(lambda m: m / 8),
    "double": st.integers(-4000, 4000).map(lambda m: m / 16),
}


@st.composite
def leaf(draw, integer_only=False):
    types = INT_TYPES if integer_only else tuple(TYPES)
    t = draw(st.sampled_from(types))
    if draw(st.integers(0, 3)) == 0:
        return lit(t, draw(literals[t]))
    name = draw(st.sampled_from([v for v, vt in VARS.items() if vt == t]))
    return ("var", t, name)


@st.composite
def expr(draw, depth=3, integer_only=False):
    if depth <= 0 or draw(st.integers(0, 4)) == 0:
        return draw(leaf(integer_only))
    sub = functools.partial(expr, depth - 1)
    kinds = ["arith", "arith", "bitwise", "shift", "mod", "neg", "not", "cmp", "tern", "cast", "logic", "lnot"]
    kind = draw(st.sampled_from(kinds))
    if kind == "arith":
        op = draw(st.sampled_from(ARITH))
        a = draw(sub(integer_only))
        b = draw(sub(integer_only))
        t = common(node_type(a), node_type(b))
        if op == "/" and is_int(t):
            b = safe_divisor(b)
        return ("bin", t, op, a, b)
    if kind == "mod":
        a, b = draw(sub(True)), draw(sub(True))
        return ("bin", common(node_type(a), node_type(b)), "%", a, safe_divisor(b))
    if kind == "bitwise":
        a, b = draw(sub(True)), draw(sub(True))
        return ("bin", common(node_type(a), node_type(b)), draw(st.sampled_from(BITWISE)), a, b)
    if kind == "shift":
        a, b = draw(sub(True)), draw(sub(True))
        return ("bin", node_type(a), draw(st.sampled_from(("<<", ">>"))), a, shift_amount(node_type(a), b))
    if kind == "neg":
        a = draw(sub(integer_only))
        return ("un", node_type(a), "-", a)
    if kind == "not":
        a = draw(sub(True))
        return ("un", node_type(a), "~", a)
    if kind == "lnot":
        a = draw(sub(integer_only))
        return ("un", "int", "!", a)
    if kind == "cmp":
        a, b = draw(sub(False)), draw(sub(False))
        return ("cmp", "int", draw(st.sampled_from(CMP)), a, b)
    if kind == "logic":
        a, b = draw(sub(False)), draw(sub(False))
        return ("logic", "int", draw(st.sampled_from(("&&", "||"))), a, b)
    if kind == "tern":
        c = draw(sub(False))
        a, b = draw(sub(integer_only)), draw(sub(integer_only))
        return ("tern", common(node_type(a), node_type(b)), c, a, b)
    # cast
    target = draw(st.sampled_from(INT_TYPES if integer_only else tuple(TYPES)))
    if is_int(target):
        if target != "unsigned" and draw(st.booleans()):
            # a float variable (its value fits every signed integer type) converted to an integer
            a = ("var", draw(st.sampled_from(["float", "double"])), None)
            a = ("var", a[1], draw(st.sampled_from([v for v, vt in VARS.items() if vt == a[1]])))
        else:
            a = draw(sub(True))
    else:
        a = draw(sub(False))
    return ("cast", target, a)


# ===================================================================== the reference evaluator
class Val:
    """A per-thread value: object array of Python ints (integer types) or a numpy float array."""

    def __init__(self, ctype, arr):
        self.t = ctype
        self.a = arr


def wrap(values, ctype):
    _, _, signed, bits, _ = TYPES[ctype]
    m = 1 << bits
    out = np.empty(len(values), object)
    for k, v in enumerate(values):
        v = int(v) % m
        if signed and v >= m >> 1:
            v -= m
        out[k] = v
    return out


def convert(v, ctype):
    if v.t == ctype:
        return v
    src_int, dst_int = is_int(v.t), is_int(ctype)
    if src_int and dst_int:
        return Val(ctype, wrap(v.a, ctype))
    if src_int:
        exact = np.array([int(x) for x in v.a], dtype=TYPES[v.t][0])
        return Val(ctype, exact.astype(TYPES[ctype][0]))
    if dst_int:
        assert np.isfinite(v.a).all() and (np.abs(v.a) < 2 ** 31).all(), "UB float->int in a generated test"
        return Val(ctype, wrap([int(x) for x in np.trunc(v.a)], ctype))
    return Val(ctype, v.a.astype(TYPES[ctype][0]))


def truthy(v):
    if is_int(v.t):
        return np.array([x != 0 for x in v.a], bool)
    return v.a != 0


def as_int01(mask):
    out = np.empty(len(mask), object)
    out[:] = [int(bool(x)) for x in mask]
    return Val("int", out)


def tdiv(a, b):
    q = abs(a) // abs(b)
    return -q if (a < 0) != (b < 0) else q


INT_OPS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": tdiv, "%": lambda a, b: a - b * tdiv(a, b),
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
}
CMP_OPS = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal, "==": np.equal,
           "!=": np.not_equal}


def binop(op, a, b, t):
    a, b = convert(a, t), convert(b, t)
    if is_int(t):
        f = INT_OPS[op]
        return Val(t, wrap([f(x, y) for x, y in zip(a.a, b.a)], t))
    with np.errstate(all="ignore"):
        r = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}[op](a.a, b.a)
    assert r.dtype == TYPES[t][0]
    return Val(t, r)


def evaluate(n, env):
    kind = n[0]
    if kind == "var":
        return env[n[2]]
    if kind == "lit":
        t = n[1]
        if is_int(t):
            arr = np.empty(NTHREADS, object)
            arr[:] = [int(n[3])] * NTHREADS
            return Val(t, arr)
        return Val(t, np.full(NTHREADS, n[3], TYPES[t][0]))
    if kind == "un":
        op, a = n[2], evaluate(n[3], env)
        if op == "!":
            return as_int01(~truthy(a))
        if op == "~":
            return Val(a.t, wrap([~x for x in a.a], a.t))
        if is_int(a.t):
            return Val(a.t, wrap([-x for x in a.a], a.t))
        return Val(a.t, -a.a)
    if kind == "bin":
        op = n[2]
        a, b = evaluate(n[3], env), evaluate(n[4], env)
        if op in ("<<", ">>"):
            s = [int(x) for x in b.a]
            if op == "<<":
                return Val(a.t, wrap([x << k for x, k in zip(a.a, s)], a.t))
            return Val(a.t, wrap([x >> k for x, k in zip(a.a, s)], a.t))
        return binop(op, a, b, n[1])
    if kind == "cmp":
        a, b = evaluate(n[3], env), evaluate(n[4], env)
        t = common(a.t, b.t)
        a, b = convert(a, t), convert(b, t)
        if is_int(t):
            return as_int01(CMP_OPS[n[2]](np.array(a.a, object), np.array(b.a, object)).astype(bool))
        return as_int01(CMP_OPS[n[2]](a.a, b.a))
    if kind == "logic":
        a, b = truthy(evaluate(n[3], env)), truthy(evaluate(n[4], env))
        return as_int01(a & b if n[2] == "&&" else a | b)
    if kind == "cast":
        return convert(evaluate(n[2], env), n[1])
    if kind == "tern":
        c = truthy(evaluate(n[2], env))
        a, b = convert(evaluate(n[3], env), n[1]), convert(evaluate(n[4], env), n[1])
        if is_int(n[1]):
            out = np.empty(NTHREADS, object)
            out[:] = [x if k else y for k, x, y in zip(c, a.a, b.a)]
            return Val(n[1], out)
        return Val(n[1], np.where(c, a.a, b.a).astype(TYPES[n[1]][0]))
    raise AssertionError(kind)


def compound(op, r, rhs):
    """r op= rhs  ==  r = (T)(r op rhs), with the shift count masked to r's width."""
    if op in ("<<=", ">>="):
        s = [int(x) & (TYPES[r.t][3] - 1) for x in rhs.a]
        f = (lambda x, k: x << k) if op == "<<=" else (lambda x, k: x >> k)
        return Val(r.t, wrap([f(x, k) for x, k in zip(r.a, s)], r.t))
    t = common(r.t, rhs.t)
    return convert(binop(op[:-1], r, rhs, t), r.t)


# ===================================================================== inputs and the kernel
EDGE = {
    "int": [0, 1, -1, 2, -2, 7, -7, 2 ** 31 - 1, -2 ** 31, 2 ** 30, 65535, -65536],
    "unsigned": [0, 1, 2, 7, 2 ** 32 - 1, 2 ** 31, 2 ** 31 - 1, 65535, 0xDEADBEEF],
    "long long": [0, 1, -1, 2 ** 63 - 1, -2 ** 63, 2 ** 32, -2 ** 32, 2 ** 31, 12345678901],
}


def make_inputs(seed):
    rng = np.random.default_rng(seed)
    arrays = {}
    for t, (dtype, integer, _, bits, _) in TYPES.items():
        if integer:
            info = np.iinfo(dtype)
            vals = rng.integers(info.min, info.max, 2 * NTHREADS, dtype=dtype, endpoint=True)
            small = rng.integers(-50 if info.min < 0 else 0, 50, 2 * NTHREADS).astype(dtype)
            pick = rng.integers(0, 3, 2 * NTHREADS)
            edge = rng.choice(np.array(EDGE[t], dtype=dtype), 2 * NTHREADS)
            arrays[t] = np.where(pick == 0, vals, np.where(pick == 1, small, edge)).astype(dtype)
        else:
            v = rng.uniform(-1000, 1000, 2 * NTHREADS)
            small = rng.random(2 * NTHREADS) < 0.3
            v[small] = rng.integers(-8, 9, small.sum())
            v[rng.random(2 * NTHREADS) < 0.1] = 0.0
            arrays[t] = v.astype(dtype)
    return arrays


def environment(arrays):
    env = {}
    for name, t in VARS.items():
        col = arrays[t][int(name[1])::2]
        if is_int(t):
            o = np.empty(NTHREADS, object)
            o[:] = [int(x) for x in col]
            env[name] = Val(t, o)
        else:
            env[name] = Val(t, col.copy())
    return env


PARAMS = "const int *I, const unsigned *U, const long long *L, const float *F, const double *D"
LOADS = "\n".join(f"    {t} {name} = {'IULFD'[list(TYPES).index(t)]}[2 * t + {name[1]}];"
                  for name, t in VARS.items())


def source(out_type, body):
    return (f"__global__ void k({out_type} *out, {PARAMS})\n{{\n"
            "    int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
            f"{LOADS}\n{body}\n    out[t] = r;\n}}\n")


@functools.lru_cache(maxsize=None)
def compiled(src):
    return simcore.RawModule(code=src).get_function("k")


def run_sim(src, out_type, arrays):
    out = np.zeros(NTHREADS, TYPES[out_type][0])
    args = (out,) + tuple(arrays[t] for t in TYPES)
    compiled(src)((2,), (NTHREADS // 2,), args)
    return out


def expected_array(v):
    dtype = TYPES[v.t][0]
    if is_int(v.t):
        return np.array([int(x) for x in v.a], dtype=dtype)
    return v.a.astype(dtype)


def check(src, result, arrays):
    got = run_sim(src, result.t, arrays)
    want = expected_array(result)
    if is_int(result.t):
        ok = np.array_equal(got, want)
    else:
        ok = np.array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}")) or \
            np.array_equal(got, want, equal_nan=True)
    if not ok:
        bad = np.flatnonzero(~((got == want) | (np.isnan(got) & np.isnan(want))
                               if not is_int(result.t) else got == want))
        t = int(bad[0])
        inputs = {name: arrays[vt][2 * t + int(name[1])] for name, vt in VARS.items()}
        raise AssertionError(f"simcore differs from C for thread {t} ({len(bad)} of {NTHREADS} threads):\n"
                             f"{src}\ninputs {inputs}\nsimcore {got[t]!r}, C {want[t]!r}")


SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
                derandomize=True)


@settings(max_examples=100, **SETTINGS)
@given(e=expr(3), seed=st.integers(0, 2 ** 32 - 1))
def test_expression_matches_c(e, seed):
    arrays = make_inputs(seed)
    result = evaluate(e, environment(arrays))
    src = source(result.t, f"    {result.t} r = {code(e)};")
    check(src, result, arrays)


@settings(max_examples=80, **SETTINGS)
@given(e=expr(4, integer_only=True), seed=st.integers(0, 2 ** 32 - 1))
def test_integer_expression_matches_c(e, seed):
    arrays = make_inputs(seed)
    result = evaluate(e, environment(arrays))
    src = source(result.t, f"    {result.t} r = {code(e)};")
    check(src, result, arrays)


@st.composite
def compound_case(draw):
    first = draw(expr(2))
    t = node_type(first)
    if is_int(t):
        op = draw(st.sampled_from(["+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="]))
        rhs = draw(expr(2, integer_only=True))
        if op in ("/=", "%="):
            rhs = safe_divisor(rhs)
        if op in ("<<=", ">>="):
            rhs = shift_amount(t, rhs)
    else:
        op = draw(st.sampled_from(["+=", "-=", "*=", "/="]))
        rhs = draw(expr(2))
    return first, op, rhs


@settings(max_examples=80, **SETTINGS)
@given(case=compound_case(), seed=st.integers(0, 2 ** 32 - 1))
def test_compound_assignment_matches_c(case, seed):
    first, op, rhs = case
    arrays = make_inputs(seed)
    env = environment(arrays)
    r = evaluate(first, env)
    result = compound(op, r, evaluate(rhs, env))
    src = source(r.t, f"    {r.t} r = {code(first)};\n    r {op} {code(rhs)};")
    check(src, result, arrays)


# ===================================================================== fixed cases (readable regressions)
FIXED = [
    ("int", "i0 / i1", {"i0": -7, "i1": 2}, -3),
    ("int", "i0 % i1", {"i0": -7, "i1": 2}, -1),
    ("int", "i0 % i1", {"i0": 7, "i1": -2}, 1),
    ("unsigned", "i0 + u0", {"i0": -1, "u0": 1}, 0),
    ("int", "i0 < u0", {"i0": -1, "u0": 1}, 0),           # -1 converts to 4294967295u
    ("int", "i0 < l0", {"i0": -1, "l0": 1}, 1),           # unsigned/int -> long long keeps the sign
    ("int", "i0 + i1", {"i0": 2 ** 31 - 1, "i1": 1}, -2 ** 31),
    ("unsigned", "u0 - u1", {"u0": 0, "u1": 1}, 2 ** 32 - 1),
    ("int", "i0 >> 1", {"i0": -5}, -3),
    ("unsigned", "u0 >> 1", {"u0": 2 ** 32 - 5}, (2 ** 32 - 5) >> 1),
    ("long long", "l0 * l1", {"l0": 2 ** 32, "l1": 2 ** 32}, 0),
    ("int", "(int)f0", {"f0": -2.75}, -2),
    ("long long", "(long long)d0", {"d0": 123456.99}, 123456),
    ("float", "f0 + i0", {"f0": 0.5, "i0": 16777217}, float(np.float32(16777217) + np.float32(0.5))),
    ("double", "f0 * d0", {"f0": 0.1, "d0": 3.0}, float(np.float64(np.float32(0.1)) * 3.0)),
    ("float", "f0 / f1", {"f0": 1.0, "f1": 3.0}, float(np.float32(1.0) / np.float32(3.0))),
    ("int", "-i0", {"i0": -2 ** 31}, -2 ** 31),
    ("unsigned", "-u0", {"u0": 1}, 2 ** 32 - 1),
    ("unsigned", "~u0", {"u0": 0}, 2 ** 32 - 1),
    ("long long", "i0 + l0", {"i0": -1, "l0": 2 ** 40}, 2 ** 40 - 1),
    ("long long", "u0 + l0", {"u0": 2 ** 32 - 1, "l0": 1}, 2 ** 32),
    ("int", "i0 ? i1 : 5", {"i0": 0, "i1": 9}, 5),
    ("double", "i0 ? f0 : d0", {"i0": 1, "f0": 0.1, "d0": 2.0}, float(np.float32(0.1))),
]


@pytest.mark.parametrize("rtype,text,inputs,want", FIXED, ids=[c[1] + " " + str(c[2]) for c in FIXED])
def test_fixed_case(rtype, text, inputs, want):
    arrays = make_inputs(0)
    for name, value in inputs.items():
        t = VARS[name]
        arrays[t][int(name[1])::2] = TYPES[t][0](value) if not is_int(t) else np.array(value).astype(TYPES[t][0])
    src = source(rtype, f"    {rtype} r = {text};")
    got = run_sim(src, rtype, arrays)
    assert (got == TYPES[rtype][0](want)).all(), (text, inputs, got[:4], want)
