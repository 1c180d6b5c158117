"""C types of the CUDA subset, and C's rules for mixing them.

A value in the simulator is a numpy array with one element per lane; its C type decides the
numpy dtype and how operators behave (32-bit wrap, unsigned arithmetic, float32 in float32).
"""
from dataclasses import dataclass, field

import numpy as np


class CType:
    is_scalar = is_pointer = is_array = is_void = is_struct = False
    # every type has `size` and `align` (C's alignment requirement in bytes)


@dataclass(frozen=True)
class Scalar(CType):
    name: str
    dtype: np.dtype
    kind: str      # 'b' bool, 'i' signed, 'u' unsigned, 'f' floating
    rank: int      # integer conversion rank (C 6.3.1.1); floats: 10 float, 11 double
    is_scalar = True

    @property
    def size(self):
        return self.dtype.itemsize

    @property
    def align(self):
        return self.dtype.itemsize

    @property
    def is_integer(self):
        return self.kind in "biu"

    @property
    def is_float(self):
        return self.kind == "f"

    def __str__(self):
        return self.name


@dataclass(frozen=True)
class Pointer(CType):
    base: CType
    const: bool = False
    # `volatile T *`: its loads and stores are strong (PTX ld.volatile: relaxed, system scope),
    # which the race checker's release/acquire rule needs; not part of the type's identity
    volatile: bool = field(default=False, compare=False)
    is_pointer = True
    size = align = 8
    dtype = np.dtype(np.int64)   # an address

    def __str__(self):
        return f"{'const ' if self.const else ''}{self.base} *"


@dataclass(frozen=True)
class Array(CType):
    base: CType
    length: object   # int, or None for `extern __shared__ float s[]`
    volatile: bool = field(default=False, compare=False)    # `__shared__ volatile int s[n]`
    is_array = True

    @property
    def size(self):
        return (self.length or 0) * self.base.size

    @property
    def align(self):
        return self.base.align

    def __str__(self):
        return f"{self.base}[{self.length if self.length is not None else ''}]"


@dataclass(frozen=True, eq=False)
class Field:
    name: str
    ctype: CType
    offset: int          # bytes from the start of the struct


@dataclass(frozen=True, eq=False)
class Struct(CType):
    """A struct (or a CUDA vector type such as float4): fields at C's offsets.

    Each definition is its own type (compared by identity, as C compares struct types)."""
    name: str            # the tag or typedef name, for messages
    fields: tuple        # Field, in declaration order
    size: int
    align: int
    union: bool = False  # a union: every member at offset 0
    is_struct = True

    def field(self, name):
        for f in self.fields:
            if f.name == name:
                return f
        return None

    @property
    def dtype(self):
        """The numpy structured dtype with the same bytes (how a host array of these looks)."""
        names, formats, offsets = [], [], []
        for f in self.fields:
            names.append(f.name)
            formats.append(f.ctype.dtype if not f.ctype.is_array else _array_dtype(f.ctype))
            offsets.append(f.offset)
        return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": self.size})

    def __str__(self):
        return self.name


def _array_dtype(t):
    shape = []
    while t.is_array:
        shape.append(t.length)
        t = t.base
    return np.dtype((t.dtype, tuple(shape)))


def align_up(n, a):
    return (n + a - 1) // a * a


def layout_struct(name, members, min_align=1):
    """C's layout: each member at the next multiple of its alignment, the size a multiple of
    the struct's alignment (the largest of its members', or __align__(n))."""
    offset, align, fields = 0, max(1, min_align), []
    for fname, t, *own in members:           # (name, type[, alignment of the member's _Alignas])
        a = max(t.align, *own) if own else t.align
        offset = align_up(offset, a)
        fields.append(Field(fname, t, offset))
        offset += t.size
        align = max(align, a)
    return Struct(name, tuple(fields), align_up(max(offset, 1), align), align)


def layout_union(name, members, min_align=1):
    """C's layout of a union: every member at offset 0, the size the largest member's rounded up
    to the alignment (the largest of its members', or __align__(n))."""
    align = max([max(1, min_align)] + [max(t.align, *own) if own else t.align for _, t, *own in members])
    size = max([1] + [t.size for _, t, *own in members])
    return Struct(name, tuple(Field(f, t, 0) for f, t, *own in members), align_up(size, align), align, True)


def has_union(t):
    """Does a value of type t hold a union anywhere (its bytes can be read as another type)?"""
    while t.is_array:
        t = t.base
    return t.is_struct and (t.union or any(has_union(f.ctype) for f in t.fields))


class _Void(CType):
    align = 1

    is_void = True
    size = 1

    def __str__(self):
        return "void"


VOID = _Void()

BOOL = Scalar("bool", np.dtype(np.bool_), "b", 0)
CHAR = Scalar("char", np.dtype(np.int8), "i", 1)
UCHAR = Scalar("unsigned char", np.dtype(np.uint8), "u", 1)
SHORT = Scalar("short", np.dtype(np.int16), "i", 2)
USHORT = Scalar("unsigned short", np.dtype(np.uint16), "u", 2)
INT = Scalar("int", np.dtype(np.int32), "i", 3)
UINT = Scalar("unsigned int", np.dtype(np.uint32), "u", 3)
LLONG = Scalar("long long", np.dtype(np.int64), "i", 4)
ULLONG = Scalar("unsigned long long", np.dtype(np.uint64), "u", 4)
FLOAT = Scalar("float", np.dtype(np.float32), "f", 10)
DOUBLE = Scalar("double", np.dtype(np.float64), "f", 11)

SCALARS = [BOOL, CHAR, UCHAR, SHORT, USHORT, INT, UINT, LLONG, ULLONG, FLOAT, DOUBLE]
BY_DTYPE = {t.dtype: t for t in SCALARS}

# Type-specifier word lists (sorted) as pycparser gives them -> type. 64-bit Linux: long is 64.
_SPELLINGS = {
    ("_Bool",): BOOL, ("bool",): BOOL,
    ("char",): CHAR, ("char", "signed"): CHAR, ("char", "unsigned"): UCHAR,
    ("short",): SHORT, ("int", "short"): SHORT, ("short", "signed"): SHORT,
    ("int", "short", "signed"): SHORT,
    ("short", "unsigned"): USHORT, ("int", "short", "unsigned"): USHORT,
    ("int",): INT, ("signed",): INT, ("int", "signed"): INT,
    ("unsigned",): UINT, ("int", "unsigned"): UINT,
    ("long",): LLONG, ("int", "long"): LLONG, ("long", "long"): LLONG, ("int", "long", "long"): LLONG,
    ("long", "signed"): LLONG, ("long", "long", "signed"): LLONG, ("int", "long", "long", "signed"): LLONG,
    ("long", "unsigned"): ULLONG, ("int", "long", "unsigned"): ULLONG,
    ("long", "long", "unsigned"): ULLONG, ("int", "long", "long", "unsigned"): ULLONG,
    ("float",): FLOAT, ("double",): DOUBLE, ("double", "long"): DOUBLE,
    ("void",): VOID,
}


def from_names(names):
    """Map pycparser's IdentifierType names to a type, or None if unknown."""
    return _SPELLINGS.get(tuple(sorted(names)))


def promote(t):
    """Integer promotion: anything narrower than int becomes int."""
    if t.is_scalar and t.is_integer and t.rank < INT.rank:
        return INT
    return t


def common_type(a, b):
    """C's usual arithmetic conversions for two scalar types."""
    if DOUBLE in (a, b):
        return DOUBLE
    if FLOAT in (a, b):
        return FLOAT
    a, b = promote(a), promote(b)
    if a == b:
        return a
    if (a.kind == "u") == (b.kind == "u"):
        return a if a.rank >= b.rank else b
    u, s = (a, b) if a.kind == "u" else (b, a)
    if u.rank >= s.rank:
        return u
    if s.size > u.size:        # the signed type can hold every value of the unsigned one
        return s
    return {INT: UINT, LLONG: ULLONG}[s]


def unsigned_of(t):
    return {CHAR: UCHAR, SHORT: USHORT, INT: UINT, LLONG: ULLONG}.get(t, t)


def volatile_array(t):
    """`volatile T a[n][m]` (a __shared__ or __device__ array): the array and its rows, marked volatile."""
    base = volatile_array(t.base) if t.base.is_array else t.base
    return Array(base, t.length, volatile=True)


def decay(t):
    """Arrays used as values become pointers to their first element."""
    if t.is_array:
        return Pointer(t.base, volatile=t.volatile)
    return t


# CUDA's vector types (vector_types.h): base type, and the alignment nvcc gives the 2- and
# 4-wide ones (`__builtin_align__`); the 1- and 3-wide ones align as their base type.
_VECTOR_BASES = {"char": CHAR, "uchar": UCHAR, "short": SHORT, "ushort": USHORT, "int": INT, "uint": UINT,
                 "long": LLONG, "ulong": ULLONG, "longlong": LLONG, "ulonglong": ULLONG, "float": FLOAT,
                 "double": DOUBLE}
# The 32-byte vectors of 64-bit numbers (double4, longlong4, ...) align to 16 bytes, as nvcc has
# always given them (CUDA 13 deprecates the names for the explicit double4_16a and the 32-byte
# aligned double4_32a, which are here too).
WIDE_VECTORS = ("long", "ulong", "longlong", "ulonglong", "double")
UNSUPPORTED_VECTORS = frozenset()


def _vector(name, base, n, align=None):
    if align is None:
        align = min(base.size * n if n in (2, 4) else base.size, 16)
    return layout_struct(name, [(c, base) for c in "xyzw"[:n]], align)


VECTOR_TYPES = {f"{b}{n}": _vector(f"{b}{n}", t, n) for b, t in _VECTOR_BASES.items() for n in (1, 2, 3, 4)}
VECTOR_TYPES.update({f"{b}4_{a}a": _vector(f"{b}4_{a}a", _VECTOR_BASES[b], 4, a)
                     for b in WIDE_VECTORS for a in (16, 32)})
# dim3: three unsigned ints (threadIdx, blockDim, ... as values)
VECTOR_TYPES["dim3"] = layout_struct("dim3", [(c, UINT) for c in "xyz"])
ALL_VECTOR_NAMES = tuple(f"{b}{n}" for b in _VECTOR_BASES for n in (1, 2, 3, 4)) + \
    tuple(f"{b}4_{a}a" for b in WIDE_VECTORS for a in (16, 32))

# C++ `auto`: the preprocessor writes it as this typedef name of its prelude (as long as the word,
# so columns stay); lowering gives a declaration of it the type of its initializer
AUTO_TYPE = "_aut"

# A pointer to a __device__ function is, to the simulator, the function's number (1, 2, ...; 0 is
# null): a 64-bit unsigned value, as wide as the GPU's code address
FUNCTION_POINTER = ULLONG
