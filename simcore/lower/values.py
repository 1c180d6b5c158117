"""What lowering passes around: values, names in scope, assignment targets, and C's
arithmetic on compile-time constants (folded without eval)."""
from dataclasses import dataclass

import numpy as np

from ..frontend import ctype as T
from .code import MISALIGNED, NO_READS, NO_TAINT

# numpy dtype names of the generated code, by C type (codegen binds them)
DT = {T.BOOL: "B1", T.CHAR: "I1", T.UCHAR: "U1", T.SHORT: "I2", T.USHORT: "U2", T.INT: "I4",
      T.UINT: "U4", T.LLONG: "I8", T.ULLONG: "U8", T.FLOAT: "F4", T.DOUBLE: "F8"}


def memory_dtype(ctype):
    """How a value of ctype sits in memory: numbers as themselves, pointers as 64-bit addresses."""
    return "I8" if ctype.is_pointer else DT[ctype]


class Val:
    """A value in the current block: numpy code and what is known about it.

    regs: the registers the code names (so the block loads them); taint: which lanes may be
    undefined; const: the Python value when known at compile time; space: 'global'/'shared'
    for pointers when known; aligned: what is known of a pointer's alignment;
    local_var: for a local array, its register; parts: for a struct value, its members
    (name -> Val); ref: for a pointer to a local variable (`&x`), the target it points at
    (such pointers exist only at compile time: inlined functions see the variable itself)."""
    __slots__ = ("code", "ctype", "taint", "const", "space", "local_var", "aligned", "regs", "parts", "ref")

    def __init__(self, code, ctype, taint=NO_TAINT, const=None, space=None, aligned=MISALIGNED,
                 regs=NO_READS):
        self.code, self.ctype, self.taint, self.const, self.space = code, ctype, taint, const, space
        self.local_var = None
        self.aligned = aligned
        self.regs = regs
        self.parts = None
        self.ref = None


def struct_value(ctype, parts):
    """A struct rvalue: one Val per member (no code of its own)."""
    v = Val("None", ctype, regs=regs_of(*parts.values()))
    taints = [p.taint for p in parts.values()]
    if taints:
        t = taints[0]
        for other in taints[1:]:
            t = t | other
        v.taint = t
    v.parts = parts
    return v


def local_pointer(target, ctype):
    """`&x` of a local variable: a pointer known at compile time."""
    v = Val("None", ctype)
    v.ref = target
    return v


def regs_of(*vals):
    """The registers named by any of vals."""
    out = NO_READS
    for v in vals:
        if v.regs:
            out = out | v.regs if out else v.regs
    return out


class Sym:
    """A name in scope: a register ('var'), a shared array ('shared'), a local array
    ('local_array'), a local struct ('struct': members in `members`), a pointer to a local
    variable ('ref': its target in `ref`), a __device__/__constant__ variable ('module_var':
    `shared` holds its ModuleVariable), a file-scope const number ('constant': `ref` holds the Val)."""
    __slots__ = ("kind", "ctype", "var", "shared", "scalar", "members", "ref")

    def __init__(self, kind, ctype, var=None, shared=None, scalar=False, members=None, ref=None):
        self.kind, self.ctype, self.var, self.shared = kind, ctype, var, shared
        self.scalar = scalar      # shared: `__shared__ int x;` (read without [0])
        self.members = members    # struct: member name -> Sym
        self.ref = ref


# ---- assignment targets (what `lvalue` resolves the left side of `=` to)
@dataclass
class RegisterTarget:
    var: object           # program.Var

    @property
    def ctype(self):
        return self.var.ctype


@dataclass
class LocalElementTarget:
    var: object           # program.Var of a local array
    index: Val

    @property
    def ctype(self):
        return self.var.ctype


@dataclass
class LocalStructTarget:
    sym: object           # Sym of kind 'struct'

    @property
    def ctype(self):
        return self.sym.ctype


@dataclass
class LocalStructElementTarget:
    sym: object           # Sym of kind 'struct_array': one local array per member
    index: Val

    @property
    def ctype(self):
        return self.sym.ctype.base


@dataclass
class MemoryTarget:
    address: Val
    ctype: object         # element type
    space: str            # 'global' | 'shared' | None (unknown)


# ---- constants: C's arithmetic on Python numbers
def convert_const(value, t):
    """Convert a Python number to C type t with C's wrap-around and truncation."""
    if t.is_pointer:
        return int(value)
    if t == T.BOOL:
        return bool(value)
    if t.is_float:
        with np.errstate(all="ignore"):          # 1e39 is inf as a float, in C too: no numpy warning
            return float(np.dtype(t.dtype).type(value))
    value = int(value)       # C truncates toward zero, as int() does
    bits = 8 * t.size
    value &= (1 << bits) - 1
    if t.kind == "i" and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def fold(op, a, b, t):
    if t.is_float:
        with np.errstate(all="ignore"):
            x, y = np.dtype(t.dtype).type(a), np.dtype(t.dtype).type(b)
            return float({"+": x + y, "-": x - y, "*": x * y, "/": x / y}[op])
    if op == "/":
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    if op == "%":
        r = abs(a) % abs(b)
        return r if a >= 0 else -r
    return {"+": a + b, "-": a - b, "*": a * b, "&": a & b, "|": a | b, "^": a ^ b}[op]


def shift(op, a, b, t):
    bits = 8 * t.size
    if b >= bits or b < 0:
        return 0 if op == "<<" or a >= 0 else -1
    if op == "<<":
        return a << b
    if t.kind == "u":
        return (a & ((1 << bits) - 1)) >> b
    return a >> b


COMPARE = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
           ">": lambda a, b: a > b, "<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b}
