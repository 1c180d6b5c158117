"""CUDA's built-in functions as a table: name -> how to lower a call. Adding one is one row.

Each row kind is a small class whose `lower(low, name, args, node)` returns a Val; `pure`
says evaluating it for every lane is harmless (no memory, no effects), so `?:` and `&&`
may compute it everywhere and select. Sync points (barriers, warp collectives) are in
sync_points.py; `__device__` functions of the module are inlined (calls.py)."""
from dataclasses import dataclass

from pycparser import c_ast

from .. import ctype as T
from .code import taint_of
from .values import DT, Val, regs_of


@dataclass(frozen=True)
class Math:
    """A C math function on floats: the f-suffixed and __ forms work in float; the others
    follow C++'s overloads (float stays float, integers become double)."""
    fn: str              # numpy function, or an X. helper
    arity: int = 1
    pure = True

    def lower(self, low, name, args, node):
        low.nargs(name, args, self.arity, node)
        vals = low.eval_args(args)
        if any(not v.ctype.is_scalar for v in vals):
            raise low.error(node, f"{name} needs numbers", construct=name)
        if name.endswith("f") or name.startswith("__"):
            t = T.FLOAT
        elif any(v.ctype == T.DOUBLE for v in vals):
            t = T.DOUBLE
        else:
            t = T.FLOAT if all(v.ctype == T.FLOAT for v in vals) else T.DOUBLE
        vals = [low.cast(v, t) for v in vals]
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
    pure = False

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
        s = low.site(node, name, memory=True)
        (low.shared_sizes if p.space == "shared" else low.global_sizes).add(elem.size)
        out = low.fresh("_t")
        compare = rest[0].code if op == "cas" else "None"
        low.emit(f"{out} = X.atomic('{op}', {p.code}, {rest[-1].code}, {DT[elem]}, L, {s}, {compare})",
                 reads=regs_of(p, *rest))
        return Val(out, elem)


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
    """__activemask(): what it returns depends on the schedule (simcore/activemask.py); its site
    lets a report say where a mask came from."""
    pure = True

    def lower(self, low, name, args, node):
        low.nargs(name, args, 0, node)
        return Val(f"X.activemask(L, {low.site(node, name)})", T.UINT)


def _math(pairs, arity=1):
    return {name: Math(fn, arity) for name, fn in pairs.items()}


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
    # memory
    "__ldg": ReadOnlyLoad(),
    "__threadfence_block": Fence(device_wide=False),
    "__threadfence": Fence(device_wide=True),
    "__threadfence_system": Fence(device_wide=True),
    **{name: Atomic(op) for name, op in {
        "atomicAdd": "add", "atomicSub": "sub", "atomicMin": "min", "atomicMax": "max", "atomicExch": "exch",
        "atomicAnd": "and", "atomicOr": "or", "atomicXor": "xor", "atomicInc": "inc", "atomicDec": "dec",
        "atomicCAS": "cas"}.items()},
    "printf": Printf(),
}
