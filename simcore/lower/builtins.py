"""CUDA's built-in functions as a table: name -> how to lower a call. Adding one is one row.

Each row kind is a small class whose `lower(low, name, args, node)` returns a Val; `pure`
says evaluating it for every lane is harmless (no memory, no effects), so `?:` and `&&`
may compute it everywhere and select. Sync points (barriers, warp collectives) are in
sync_points.py; `__device__` functions of the module are inlined (calls.py)."""
from dataclasses import dataclass

from pycparser import c_ast

from ..frontend import ctype as T
from .code import taint_of
from .values import DT, Val, regs_of


@dataclass(frozen=True)
class Math:
    """A C math function on floats: the f-suffixed and __ forms work in float; the others
    follow C++'s overloads (float stays float, integers become double)."""
    fn: str              # numpy function, or an X. helper
    arity: int = 1
    single: object = None    # True: works in float (erff); False: overloads (erf); None: by name
    pure = True

    def lower(self, low, name, args, node):
        low.nargs(name, args, self.arity, node)
        vals = low.eval_args(args)
        if any(not v.ctype.is_scalar for v in vals):
            raise low.error(node, f"{name} needs numbers", construct=name)
        single = self.single if self.single is not None else (name.endswith("f") or name.startswith("__"))
        if single:
            t = T.FLOAT
        elif any(v.ctype == T.DOUBLE for v in vals):
            t = T.DOUBLE
        else:
            t = T.FLOAT if all(v.ctype == T.FLOAT for v in vals) else T.DOUBLE
        vals = [low.cast(v, t) for v in vals]
        if "{" in self.fn:       # a call with other arguments: "X.M.bessel_j(0, {0})"
            code = self.fn.format(*(v.code for v in vals))
        else:
            code = f"{self.fn}({', '.join(v.code for v in vals)})"
        if self.fn.startswith("np."):
            code = f"({code}).astype({DT[t]})"
        return Val(code, t, taint_of(*vals), regs=regs_of(*vals))


@dataclass(frozen=True)
class Formula:
    """Arguments converted to `params`, then `code` with {0}, {1}... for their code."""
    params: tuple
    result: object
    code: str
    pure: bool = False

    def lower(self, low, name, args, node):
        low.nargs(name, args, len(self.params), node)
        vals = [low.cast(v, t) for v, t in zip(low.eval_args(args), self.params)]
        return Val(self.code.format(*(v.code for v in vals)), self.result, taint_of(*vals), regs=regs_of(*vals))


@dataclass(frozen=True)
class MinMax:
    """min/max of C++: the common type of the two; folded when both are constants."""
    which: str           # 'min' | 'max'
    pure = True

    def lower(self, low, name, args, node):
        low.nargs(name, args, 2, node)
        a, b = low.eval_args(args)
        t = T.common_type(a.ctype, b.ctype)
        a, b = low.cast(a, t), low.cast(b, t)
        if a.const is not None and b.const is not None:
            return low.const((min if self.which == "min" else max)(a.const, b.const), t)
        fn = ("np.minimum" if self.which == "min" else "np.maximum") if t.is_integer else \
            ("np.fmin" if self.which == "min" else "np.fmax")
        return Val(f"{fn}({a.code}, {b.code})", t, taint_of(a, b), regs=regs_of(a, b))


@dataclass(frozen=True)
class Abs:
    pure = True

    def lower(self, low, name, args, node):
        low.nargs(name, args, 1, node)
        (a,) = low.eval_args(args)
        t = T.promote(a.ctype)
        a = low.cast(a, t)
        if a.const is not None:
            return low.const(abs(a.const), t)
        return Val(f"np.abs({a.code})", t, a.taint, regs=a.regs)


@dataclass(frozen=True)
class Convert:
    """A value conversion through an intermediate type (C's rules for each step)."""
    via: object
    to: object
    pure = False

    def lower(self, low, name, args, node):
        low.nargs(name, args, 1, node)
        (a,) = low.eval_args(args)
        return low.cast(low.cast(a, self.via), self.to)


@dataclass(frozen=True)
class ReadOnlyLoad:
    """__ldg(p): a load (the read-only cache path is not modelled)."""
    pure = False

    def lower(self, low, name, args, node):
        low.nargs(name, args, 1, node)
        (p,) = low.eval_args(args)
        if not p.ctype.is_pointer:
            raise low.error(node, "__ldg takes a pointer", construct="__ldg")
        return low.load(p, p.ctype.base, p.space, node)


@dataclass(frozen=True)
class Fence:
    device_wide: bool
    pure = False

    def lower(self, low, name, args, node):
        low.nargs(name, args, 0, node)
        # the race detector's release/acquire rule (and the last-block ticket, device-wide only)
        scope = "device" if self.device_wide else "block"
        low.fence_scopes.add(scope)
        low.emit("X.threadfence(L)" if self.device_wide else "X.threadfence_block(L)")
        return Val("None", T.VOID)


ATOMIC_TYPES = (T.INT, T.UINT, T.ULLONG, T.LLONG, T.FLOAT, T.DOUBLE)


@dataclass(frozen=True)
class Atomic:
    op: str              # memory.py's name: add, sub, min, max, exch, and, or, xor, inc, dec, cas
    scope: str = "device"   # atomicAdd_block: "block" (strong only among its block's threads);
    pure = False            # the plain and _system spellings hold every thread of the launch

    def lower(self, low, name, args, node):
        op = self.op
        low.nargs(name, args, 3 if op == "cas" else 2, node)
        vals = low.eval_args(args)
        p = vals[0]
        if not p.ctype.is_pointer or not p.ctype.base.is_scalar:
            raise low.error(node, f"the first argument of {name} must be a pointer", construct=name)
        elem = p.ctype.base
        if p.ctype.const:
            raise low.error(node, f"{name} writes through a pointer to const {elem}", construct="const")
        if elem not in ATOMIC_TYPES:
            raise low.error(node, f"{name} on {elem} is not supported", construct=name)
        if elem.is_float and op not in ("add", "exch") or elem == T.DOUBLE and op != "add":
            raise low.error(node, f"CUDA has no {name} for {elem} (only atomicAdd, and atomicExch for float)",
                            construct=name)
        rest = [low.convert_for_assign(v, elem, node) for v in vals[1:]]
        for v in rest:
            if v.taint.possible:
                low.use_check(v.taint, node, f"an operand of {name}", f"is stored by {name}")
        low.address_check(p, node)
        s = low.site(node, name, memory=True, polls=_leaves_memory(op, args), scope=self.scope)
        (low.shared_sizes if p.space == "shared" else low.global_sizes).add(elem.size)
        out = low.fresh("_t")
        low.loaded_by[out] = s      # its value is memory's, not its operands'
        compare = rest[0].code if op == "cas" else "None"
        if op == "cas":
            low.cas_compares.append(compare)    # the reads whose value it checks (dataflow.sites_feeding)
        low.emit(f"{out} = X.atomic('{op}', {p.code}, {rest[-1].code}, {DT[elem]}, L, {s}, {compare})",
                 reads=regs_of(p, *rest))
        return Val(out, elem)


def _leaves_memory(op, args):
    """Whether an atomic's operand is the constant that leaves memory as it is (atomicAdd(p, 0),
    atomicSub, atomicOr, atomicXor with 0): a poll, a strong read of the location."""
    v = args[1] if len(args) == 2 else None
    if op not in ("add", "sub", "or", "xor") or not isinstance(v, c_ast.Constant) or v.type not in ("int", "unsigned int"):
        return False
    try:
        return int(v.value.rstrip("uUlL"), 0) == 0
    except ValueError:
        return False


@dataclass(frozen=True)
class Printf:
    """Device printf: each lane formats its line; the launch prints them when it ends."""
    pure = False

    def lower(self, low, name, args, node):
        if not args or not (isinstance(args[0], c_ast.Constant) and args[0].type == "string"):
            raise low.error(node, "printf needs a string literal as its format", construct="printf")
        fmt = args[0].value[1:-1].encode().decode("unicode_escape")
        vals = low.eval_args(args[1:])
        for v in vals:
            if v.ctype.is_array or (not v.ctype.is_scalar and not v.ctype.is_pointer):
                raise low.error(node, "printf prints numbers and pointers here", construct="printf")
        s = low.site(node, "printf")
        low.emit(f"X.printf({fmt!r}, [{', '.join(v.code for v in vals)}], L, {s})", reads=regs_of(*vals))
        return low.const(0, T.INT)


@dataclass(frozen=True)
class ActiveMaskCall:
    """__activemask(): what it returns depends on the schedule (simcore/runtime/activemask.py); its site
    lets a report say where a mask came from."""
    pure = True

    def lower(self, low, name, args, node):
        low.nargs(name, args, 0, node)
        return Val(f"X.activemask(L, {low.site(node, name)})", T.UINT)


@dataclass(frozen=True)
class Sleep:
    """__nanosleep(ns): advances the calling thread's simulated clock (context.py)."""
    pure = False

    def lower(self, low, name, args, node):
        low.nargs(name, args, 1, node)
        (ns,) = low.eval_args(args)
        if not (ns.ctype.is_scalar and ns.ctype.is_integer):
            raise low.error(node, f"{name} takes an unsigned number of nanoseconds", construct=name)
        ns = low.cast(ns, T.UINT)
        low.emit(f"X.nanosleep({ns.code}, L)", reads=ns.regs)
        return Val("None", T.VOID)


def _math(pairs, arity=1):
    return {name: Math(fn, arity) for name, fn in pairs.items()}


def _both(pairs, arity=1):
    """A function of the CUDA math API in both precisions: `name` (C++'s overloads) and `namef` (float)."""
    rows = {}
    for name, fn in pairs.items():
        rows[name] = Math(fn, arity, single=False)
        rows[name + "f"] = Math(fn, arity, single=True)
    return rows


def _floating(low, name, vals, node, single):
    """The floating type a math function works in: float for the f-suffixed names, else C++'s
    overloads (float stays float, integers and doubles become double)."""
    if any(not v.ctype.is_scalar for v in vals):
        raise low.error(node, f"{name} needs numbers", construct=name)
    if single:
        return T.FLOAT
    return T.FLOAT if vals and all(v.ctype == T.FLOAT for v in vals) else T.DOUBLE


@dataclass(frozen=True)
class MixedMath:
    """A math function with some integer parameters: `params` holds "x" for the floating type
    (float, or C++'s overload) or a C type; `result` the same; `code` with {0}, {1}... and {T}
    (the floating dtype's name)."""
    params: tuple
    result: object
    code: str
    single: bool = False
    pure = True

    def lower(self, low, name, args, node):
        low.nargs(name, args, len(self.params), node)
        vals = low.eval_args(args)
        t = _floating(low, name, [v for v, p in zip(vals, self.params) if p == "x"], node, self.single)
        vals = [low.cast(v, t if p == "x" else p) for v, p in zip(vals, self.params)]
        result = t if self.result == "x" else self.result
        code = self.code.format(*(v.code for v in vals), T=DT[t])
        return Val(code, result, taint_of(*vals), regs=regs_of(*vals))


@dataclass(frozen=True)
class OutParams:
    """A math function that also writes through pointers (sincosf(x, &s, &c), frexp(x, &e)):
    `params` of the value arguments ("x" or a C type), `outs` the pointee types of the pointer
    arguments that follow ("x" or a C type); `code` gives a tuple: (result?, out 1, out 2...)."""
    params: tuple
    outs: tuple
    result: object       # "x", a C type, or T.VOID
    code: str
    single: bool = False
    pure = False

    def lower(self, low, name, args, node):
        low.nargs(name, args, len(self.params) + len(self.outs), node)
        k = len(self.params)
        vals = low.eval_args(args[:k])
        t = _floating(low, name, [v for v, p in zip(vals, self.params) if p == "x"], node, self.single)
        vals = [low.tmp(low.cast(v, t if p == "x" else p)) for v, p in zip(vals, self.params)]
        out = low.fresh("_t")
        low.emit(f"{out} = {self.code.format(*(v.code for v in vals), T=DT[t])}", reads=regs_of(*vals))
        first = 0 if self.result is T.VOID else 1
        for j, (arg, pointee) in enumerate(zip(args[k:], self.outs)):
            target = low.lvalue(c_ast.UnaryOp("*", arg, arg.coord))
            want = t if pointee == "x" else pointee
            if target.ctype != want:
                raise low.error(node, f"argument {k + j + 1} of {name} must point to {want}, not {target.ctype}",
                                construct=name)
            part = Val(f"{out}[{first + j}]", want, taint_of(*vals))
            low.write_lvalue(target, low.tmp(low.convert_for_assign(part, want, node)), node)
        if self.result is T.VOID:
            return Val("None", T.VOID)
        result = t if self.result == "x" else self.result
        return low.tmp(Val(f"{out}[0]", result, taint_of(*vals)))


@dataclass(frozen=True)
class NotANumber:
    """nan("") / nanf(""): a quiet NaN (the string argument chooses payload bits nobody reads)."""
    single: bool
    pure = True

    def lower(self, low, name, args, node):
        low.nargs(name, args, 1, node)
        if not (isinstance(args[0], c_ast.Constant) and args[0].type == "string"):
            raise low.error(node, f"{name} takes a string literal", construct=name)
        t = T.FLOAT if self.single else T.DOUBLE
        return low.const(float("nan"), t)


def _rounded(op, dtype, arity, prefix, modes="rn rd ru rz"):
    """IEEE operations in each rounding mode: `{prefix}_{mode}` -> X.M.rounded(op, mode, ...)."""
    t = F if dtype == "F4" else D
    return {f"{prefix}_{m}": Formula((t,) * arity, t, f"X.M.rounded('{op}', '{m}', {dtype}, "
                                     + ", ".join(f"{{{k}}}" for k in range(arity)) + ")")
            for m in modes.split()}


def _float_to_int(src, prefix, dtype, result):
    """__float2int_rd & co: round in the mode, then C's saturating conversion (cvt.rni/rmi/rpi/rzi)."""
    fn = {"rn": "np.rint", "rd": "np.floor", "ru": "np.ceil", "rz": "np.trunc"}
    return {f"{prefix}_{m}": Formula((src,), result, f"X.f2i({f}({{0}}), {dtype})") for m, f in fn.items()}


def _to_float(src, prefix, dst, dtype):
    """__int2float_rd & co: the exact value rounded to the float type in the mode."""
    return {f"{prefix}_{m}": Formula((src,), dst, f"X.M.convert_rounded({{0}}, {dtype}, '{m}')")
            for m in ("rn", "rd", "ru", "rz")}


F, D, I, U, LL, ULL = T.FLOAT, T.DOUBLE, T.INT, T.UINT, T.LLONG, T.ULLONG

BUILTINS = {
    **_math({"sqrtf": "np.sqrt", "sqrt": "np.sqrt", "expf": "np.exp", "exp": "np.exp", "exp2f": "np.exp2",
             "exp2": "np.exp2", "logf": "np.log", "log": "np.log", "log2f": "np.log2", "log2": "np.log2",
             "log10f": "np.log10", "log10": "np.log10", "sinf": "np.sin", "sin": "np.sin", "cosf": "np.cos",
             "cos": "np.cos", "tanf": "np.tan", "tan": "np.tan", "tanhf": "np.tanh", "tanh": "np.tanh",
             "fabsf": "np.abs", "fabs": "np.abs", "floorf": "np.floor", "floor": "np.floor",
             "ceilf": "np.ceil", "ceil": "np.ceil", "truncf": "np.trunc", "trunc": "np.trunc",
             "roundf": "X.round", "round": "X.round", "rsqrtf": "X.rsqrt", "rsqrt": "X.rsqrt",
             "__expf": "np.exp", "__logf": "np.log", "__sinf": "np.sin", "__cosf": "np.cos",
             "atanf": "np.arctan", "atan": "np.arctan", "asinf": "np.arcsin", "acosf": "np.arccos",
             "__saturatef": "X.saturate", "rintf": "np.rint", "rint": "np.rint"}),
    **_math({"fminf": "np.fmin", "fmin": "np.fmin", "fmaxf": "np.fmax", "fmax": "np.fmax",
             "powf": "np.power", "pow": "np.power", "fmodf": "np.fmod", "fmod": "np.fmod",
             "atan2f": "np.arctan2", "atan2": "np.arctan2", "__fdividef": "np.divide",
             "copysignf": "np.copysign", "hypotf": "np.hypot"}, arity=2),
    # the rest of the CUDA math API's single- and double-precision functions
    **_both({"asin": "np.arcsin", "acos": "np.arccos", "acosh": "np.arccosh", "asinh": "np.arcsinh",
             "atanh": "np.arctanh", "cbrt": "np.cbrt", "cosh": "np.cosh", "sinh": "np.sinh", "expm1": "np.expm1",
             "log1p": "np.log1p", "nearbyint": "np.rint", "exp10": "X.M.exp10", "sinpi": "X.M.sinpi",
             "cospi": "X.M.cospi", "erf": "X.M.erf", "erfc": "X.M.erfc", "erfcx": "X.M.erfcx",
             "erfinv": "X.M.erfinv", "erfcinv": "X.M.erfcinv", "normcdf": "X.M.normcdf",
             "normcdfinv": "X.M.normcdfinv", "tgamma": "X.M.tgamma", "lgamma": "X.M.lgamma", "logb": "X.M.logb",
             "rcbrt": "X.M.rcbrt", "j0": "X.M.bessel_j(0, {0})", "j1": "X.M.bessel_j(1, {0})",
             "y0": "X.M.bessel_y(0, {0})", "y1": "X.M.bessel_y(1, {0})",
             "cyl_bessel_i0": "X.M.bessel_i(0, {0})", "cyl_bessel_i1": "X.M.bessel_i(1, {0})"}),
    **_both({"hypot": "np.hypot", "copysign": "np.copysign", "fdim": "X.M.fdim", "remainder": "X.M.remainder",
             "nextafter": "np.nextafter", "rhypot": "X.M.rhypot"}, arity=2),
    **_both({"norm3d": "X.M.norm3d", "rnorm3d": "X.M.norm3d({0}, {1}, {2}, inverse=True)"}, arity=3),
    **_both({"norm4d": "X.M.norm4d", "rnorm4d": "X.M.norm4d({0}, {1}, {2}, {3}, inverse=True)"}, arity=4),
    **{name + suffix: MixedMath(params, result, code, single=bool(suffix))
       for suffix in ("", "f") for name, (params, result, code) in {
           "ldexp": (("x", I), "x", "X.M.ldexp({0}, {1})"),
           "scalbn": (("x", I), "x", "X.M.ldexp({0}, {1})"),
           "scalbln": (("x", LL), "x", "X.M.ldexp({0}, {1})"),
           "ilogb": (("x",), I, "X.M.ilogb({0})"),
           "jn": ((I, "x"), "x", "X.M.bessel_j({0}, {1})"),
           "yn": ((I, "x"), "x", "X.M.bessel_y({0}, {1})"),
           "llrint": (("x",), LL, "X.f2i(np.rint({0}), I8)"),
           "lrint": (("x",), LL, "X.f2i(np.rint({0}), I8)"),
           "llround": (("x",), LL, "X.f2i(X.M.round_half_away({0}), I8)"),
           "lround": (("x",), LL, "X.f2i(X.M.round_half_away({0}), I8)"),
       }.items()},
    **{name: MixedMath(("x",), T.BOOL, code) for name, code in {
        "isnan": "np.isnan({0})", "isinf": "np.isinf({0})", "isfinite": "np.isfinite({0})",
        "signbit": "np.signbit({0})"}.items()},
    "fdividef": Math("np.divide", 2, single=True),
    **{name + suffix: OutParams(params, outs, result, code, single=bool(suffix))
       for suffix in ("", "f") for name, (params, outs, result, code) in {
           "frexp": (("x",), (I,), "x", "X.M.frexp({0})"),
           "modf": (("x",), ("x",), "x", "X.M.modf({0})"),
           "remquo": (("x", "x"), (I,), "x", "(X.M.remainder({0}, {1}), X.M.remquo_quotient({0}, {1}))"),
           "sincos": (("x",), ("x", "x"), T.VOID, "(np.sin({0}).astype({T}), np.cos({0}).astype({T}))"),
           "sincospi": (("x",), ("x", "x"), T.VOID, "(X.M.sinpi({0}), X.M.cospi({0}))"),
       }.items()},
    "__sincosf": OutParams(("x",), ("x", "x"), T.VOID, "(np.sin({0}).astype({T}), np.cos({0}).astype({T}))",
                           single=True),
    "nan": NotANumber(single=False), "nanf": NotANumber(single=True),
    # single-precision intrinsics (fast approximations on a GPU: simcore computes them accurately)
    **_math({"__exp10f": "X.M.exp10", "__log10f": "np.log10", "__log2f": "np.log2", "__tanf": "np.tan",
             "__tanhf": "np.tanh"}),
    "__powf": Math("np.power", 2),
    "__fsqrt_rn": Formula((F,), F, "np.sqrt({0})"),
    "__frsqrt_rn": Formula((F,), F, "(F8(1) / np.sqrt(({0}).astype(F8))).astype(F4)"),
    "__fsub_rn": Formula((F, F), F, "({0} - {1})"),
    "__fdiv_rn": Formula((F, F), F, "({0} / {1})"),
    "__frcp_rn": Formula((F,), F, "(F4(1) / {0})"),
    "__fmaf_rn": Formula((F, F, F), F, "X.M.rounded('fma', 'rn', F4, {0}, {1}, {2})"),
    **_rounded("add", "F4", 2, "__fadd", "rd ru rz"), **_rounded("sub", "F4", 2, "__fsub", "rd ru rz"),
    **_rounded("mul", "F4", 2, "__fmul", "rd ru rz"), **_rounded("div", "F4", 2, "__fdiv", "rd ru rz"),
    **_rounded("rcp", "F4", 1, "__frcp", "rd ru rz"), **_rounded("sqrt", "F4", 1, "__fsqrt", "rd ru rz"),
    **_rounded("fma", "F4", 3, "__fmaf", "rd ru rz"), **_rounded("fma", "F4", 3, "__fmaf_ieee"),
    # double-precision intrinsics
    "__dsub_rn": Formula((D, D), D, "({0} - {1})"),
    "__ddiv_rn": Formula((D, D), D, "({0} / {1})"),
    "__drcp_rn": Formula((D,), D, "(F8(1) / {0})"),
    "__dsqrt_rn": Formula((D,), D, "np.sqrt({0})"),
    **_rounded("add", "F8", 2, "__dadd", "rd ru rz"), **_rounded("sub", "F8", 2, "__dsub", "rd ru rz"),
    **_rounded("mul", "F8", 2, "__dmul", "rd ru rz"), **_rounded("div", "F8", 2, "__ddiv", "rd ru rz"),
    **_rounded("rcp", "F8", 1, "__drcp", "rd ru rz"), **_rounded("sqrt", "F8", 1, "__dsqrt", "rd ru rz"),
    **_rounded("fma", "F8", 3, "__fma"),
    # type casting intrinsics
    "__double2float_rn": Convert(D, F),
    **_to_float(D, "__double2float", F, "F4"),
    **_float_to_int(D, "__double2int", "I4", I), **_float_to_int(D, "__double2uint", "U4", U),
    **_float_to_int(D, "__double2ll", "I8", LL), **_float_to_int(D, "__double2ull", "U8", ULL),
    **_float_to_int(F, "__float2uint", "U4", U), **_float_to_int(F, "__float2ll", "I8", LL),
    **_float_to_int(F, "__float2ull", "U8", ULL),
    **_to_float(I, "__int2float", F, "F4"), **_to_float(U, "__uint2float", F, "F4"),
    **_to_float(LL, "__ll2float", F, "F4"), **_to_float(ULL, "__ull2float", F, "F4"),
    **_to_float(LL, "__ll2double", D, "F8"), **_to_float(ULL, "__ull2double", D, "F8"),
    "__int2double_rn": Convert(I, D), "__uint2double_rn": Convert(U, D),
    "__double2hiint": Formula((D,), I, "X.M.double_hi_lo({0}, True)"),
    "__double2loint": Formula((D,), I, "X.M.double_hi_lo({0}, False)"),
    "__hiloint2double": Formula((I, I), D, "X.M.hilo_to_double({0}, {1})"),
    # integer intrinsics
    "__brevll": Formula((ULL,), ULL, "X.M.brevll({0})"),
    "__clzll": Formula((LL,), I, "X.M.clzll({0})"),
    "__byte_perm": Formula((U, U, U), U, "X.M.byte_perm({0}, {1}, {2})"),
    "__funnelshift_l": Formula((U, U, U), U, "X.M.funnelshift({0}, {1}, {2}, True, False)"),
    "__funnelshift_lc": Formula((U, U, U), U, "X.M.funnelshift({0}, {1}, {2}, True, True)"),
    "__funnelshift_r": Formula((U, U, U), U, "X.M.funnelshift({0}, {1}, {2}, False, False)"),
    "__funnelshift_rc": Formula((U, U, U), U, "X.M.funnelshift({0}, {1}, {2}, False, True)"),
    "__hadd": Formula((I, I), I, "X.M.halving_add({0}, {1}, I4, False)"),
    "__rhadd": Formula((I, I), I, "X.M.halving_add({0}, {1}, I4, True)"),
    "__uhadd": Formula((U, U), U, "X.M.halving_add({0}, {1}, U4, False)"),
    "__urhadd": Formula((U, U), U, "X.M.halving_add({0}, {1}, U4, True)"),
    "__mul64hi": Formula((LL, LL), LL, "X.M.mul64hi({0}, {1}, True)"),
    "__umul64hi": Formula((ULL, ULL), ULL, "X.M.mul64hi({0}, {1}, False)"),
    "__usad": Formula((U, U, U), U, "(np.abs(({0}).astype(I8) - ({1}).astype(I8)) + ({2}).astype(I8)).astype(U4)"),
    "__dp4a": Formula((I, I, I), I, "X.M.dp4a({0}, {1}, {2}, True, True).astype(I4)"),
    "__dp2a_lo": Formula((I, I, I), I, "X.M.dp2a({0}, {1}, {2}, False, True, True).astype(I4)"),
    "__dp2a_hi": Formula((I, I, I), I, "X.M.dp2a({0}, {1}, {2}, True, True, True).astype(I4)"),
    "min": MinMax("min"), "max": MinMax("max"),
    "abs": Abs(), "labs": Abs(), "llabs": Abs(),
    "fmaf": Formula((F, F, F), F, "X.fma({0}, {1}, {2}, F4)", pure=True),
    "fma": Formula((D, D, D), D, "X.fma({0}, {1}, {2}, F8)", pure=True),
    # bit manipulation
    "__popc": Formula((U,), I, "X.popc({0})", pure=True),
    "__popcll": Formula((ULL,), I, "X.popc({0})"),
    "__ffs": Formula((I,), I, "X.ffs({0})", pure=True),
    "__ffsll": Formula((LL,), I, "X.ffs({0})"),
    "__clz": Formula((I,), I, "X.clz({0})", pure=True),
    "__brev": Formula((U,), U, "X.brev({0})", pure=True),
    # reinterpretation of bits
    "__int_as_float": Formula((I,), F, "X.bitcast({0}, I4, F4)"),
    "__float_as_int": Formula((F,), I, "X.bitcast({0}, F4, I4)"),
    "__uint_as_float": Formula((U,), F, "X.bitcast({0}, U4, F4)"),
    "__float_as_uint": Formula((F,), U, "X.bitcast({0}, F4, U4)"),
    "__longlong_as_double": Formula((LL,), D, "X.bitcast({0}, I8, F8)"),
    "__double_as_longlong": Formula((D,), LL, "X.bitcast({0}, F8, I8)"),
    # conversions with a rounding mode
    "__float2int_rz": Convert(F, I),
    "__int2float_rn": Convert(I, F),
    "__float2int_rn": Formula((F,), I, "X.f2i(np.rint({0}), I4)"),
    "__float2int_rd": Formula((F,), I, "X.f2i(np.floor({0}), I4)"),
    "__float2int_ru": Formula((F,), I, "X.f2i(np.ceil({0}), I4)"),
    "__float2uint_rn": Formula((F,), U, "X.f2i(np.rint({0}), U4)"),
    "__double2int_rn": Formula((D,), I, "X.f2i(np.rint({0}), I4)"),
    # integer and rounded arithmetic
    "__mul24": Formula((I, I), I, "(np.left_shift({0}, 8) >> 8) * (np.left_shift({1}, 8) >> 8)"),
    "__umul24": Formula((U, U), U, "({0} & 0xFFFFFF) * ({1} & 0xFFFFFF)"),
    "__mulhi": Formula((I, I), I, "((({0}).astype(I8) * ({1}).astype(I8)) >> 32).astype(I4)"),
    "__umulhi": Formula((U, U), U, "((({0}).astype(U8) * ({1}).astype(U8)) >> 32).astype(U4)"),
    "umin": Formula((U, U), U, "np.minimum({0}, {1})"),
    "umax": Formula((U, U), U, "np.maximum({0}, {1})"),
    "llmin": Formula((LL, LL), LL, "np.minimum({0}, {1})"),
    "llmax": Formula((LL, LL), LL, "np.maximum({0}, {1})"),
    "__sad": Formula((I, I, I), U, "(np.abs(({0}).astype(I8) - {1}).astype(U4) + ({2}).astype(U4))"),
    "__fadd_rn": Formula((F, F), F, "({0} + {1})"),
    "__fmul_rn": Formula((F, F), F, "({0} * {1})"),
    "__dadd_rn": Formula((D, D), D, "({0} + {1})"),
    "__dmul_rn": Formula((D, D), D, "({0} * {1})"),
    # the lanes themselves
    "__activemask": ActiveMaskCall(),
    "__lane_id": Formula((), U, "X.lane_of(L)"),
    # for cooperative groups (groups.py): the lane of the n-th lane of a mask (own lane if none,
    # as coalesced_group's shuffles do), and a ballot packed to the mask's lanes (its ranks)
    "__simcore_nth_lane": Formula((U, I), U, "X.nth_lane({0}, {1}, L)"),
    "__simcore_pack_lanes": Formula((U, U), U, "X.pack_lanes({0}, {1})"),
    # the simulated clock (its values are not an H200's: context.py)
    "clock64": Formula((), LL, "X.clock64(L)"),
    "clock": Formula((), LL, "X.clock32(L)"),
    "__nanosleep": Sleep(),
    # memory
    "__ldg": ReadOnlyLoad(),
    "__threadfence_block": Fence(device_wide=False),
    "__threadfence": Fence(device_wide=True),
    "__threadfence_system": Fence(device_wide=True),
    # every atomic also comes scoped (Guide, "Atomic Functions"): name_block, name_system
    **{name + suffix: Atomic(op, scope) for name, op in {
        "atomicAdd": "add", "atomicSub": "sub", "atomicMin": "min", "atomicMax": "max", "atomicExch": "exch",
        "atomicAnd": "and", "atomicOr": "or", "atomicXor": "xor", "atomicInc": "inc", "atomicDec": "dec",
        "atomicCAS": "cas"}.items()
       for suffix, scope in (("", "device"), ("_block", "block"), ("_system", "device"))},
    "printf": Printf(),
}
