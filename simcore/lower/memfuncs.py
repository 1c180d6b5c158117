"""`memcpy` and `memset` in device code, and the math API's
functions over an array (`norm`, `rnorm`, `normf`, `rnormf`), as C text over the arguments'
own elements.

`memcpy(dst, src, n)` becomes a copy element by element of the pointee type both sides share
(`float` for two `float *`), so every access is an ordinary load and store: bounds-checked,
seen by the race checker, and allowed on local arrays and local structs (kept in registers);
a constant count of up to UNROLL elements is unrolled (constant indices: a local array stays
in registers without a per-lane index). Pointers to different types, `void *` and sizes that
are not a multiple of the element are copied byte by byte through `unsigned char *` (memory
only: a local array cannot be viewed as bytes in simcore). `memset(dst, v, n)` stores the byte
`(unsigned char)v` repeated into each element (0x01010101 * v for an int, the float with those
bits for a float). The count is in bytes, evaluated once; the pointers are evaluated once per
element, so they may not have side effects."""
from pycparser import c_ast

from .groups import parse_snippet
from .values import Val
from ..frontend import ctype as T

MEMORY_FUNCTIONS = {"memcpy": "copy", "memset": "set"}
# nvcc's spellings that NVRTC (CuPy's compiler) lacks, measured on the H200 (conformance entry
# memcpy_memset): refused as NVRTC refuses them, pointing to the spelling both compilers have
NVCC_ONLY_FUNCTIONS = {"__builtin_memcpy": "memcpy", "__builtin_memset": "memset"}
ARRAY_FUNCTIONS = {"norm": (False, False), "rnorm": (False, True), "normf": (True, False), "rnormf": (True, True)}
UNROLL = 64
_REPEATED = {1: "0x01u", 2: "0x0101u", 4: "0x01010101u", 8: "0x0101010101010101ull"}


class MemoryFunctionLowering:
    def array_function(self, name, args, node):
        """norm(dim, p) = sqrt(p[0]^2 + ... + p[dim-1]^2) (rnorm: its reciprocal), summed in double."""
        self.nargs(name, args, 2, node)
        single, reciprocal = ARRAY_FUNCTIONS[name]
        if has_effects(args[1]):
            raise self.error(args[1], f"the array argument of {name} may not have side effects in simcore",
                             construct=name)
        self._memory_operand(name, args[1], node)
        uid = self.fresh("nrm")
        total, i = f"__nrm_s{uid}", f"__nrm_i{uid}"
        text = (f"double {total} = 0.0; for (int {i} = 0; {i} < (__mem_n); {i}++) "
                f"{total} += (double)(__mem_d)[{i}] * (double)(__mem_d)[{i}];")
        body = self._at(parse_snippet("{ " + text + " }"), node, {"__mem_n": args[0], "__mem_d": args[1]})
        for item in body.block_items:         # in the current scope: the sum is read below
            self.stmt(item)
        value = f"sqrt({total})" if not reciprocal else f"rsqrt({total})"
        if single:
            value = f"(float){value}"
        return self.expr(self._at(parse_snippet(value), node))

    def memory_function(self, name, args, node):
        self.nargs(name, args, 3, node)
        for k in (0, 1) if MEMORY_FUNCTIONS[name] == "copy" else (0,):
            if has_effects(args[k]):
                raise self.error(args[k], f"the pointer arguments of {name} may not have side effects in "
                                          "simcore (compute the pointer first)", construct=name)
        dst = self._memory_operand(name, args[0], node)
        uid = self.fresh("mem")
        if MEMORY_FUNCTIONS[name] == "copy":
            src = self._memory_operand(name, args[1], node)
            elem = dst.base if dst.base == src.base and not dst.base.is_void else None
            local = dst.local or src.local
            text = self._copy_text(name, uid, elem, local, node, args[2])
            operands = {"__mem_d": args[0], "__mem_s": args[1], "__mem_n": args[2]}
        else:
            elem = dst.base if (dst.base.is_scalar or dst.base.is_pointer) else None
            text = self._set_text(name, uid, elem, dst.local, node, args[2])
            operands = {"__mem_d": args[0], "__mem_v": args[1], "__mem_n": args[2]}
        self.stmt(self._at(parse_snippet(text), node, operands))
        return Val("None", T.VOID)

    def _memory_operand(self, name, arg, node):
        """The pointee type of a pointer or array argument, and whether it is a local variable."""
        v = self.expr_without_emitting(arg)
        t = v.ctype
        if t.is_array:
            base = t.base
        elif t.is_pointer:
            base = t.base
        else:
            raise self.error(arg, f"{name} takes pointers, not {t}", construct=name)
        while base.is_array:                  # a 2-D local array: its elements
            base = base.base
        return _Operand(base, v.local_var is not None or v.ref is not None)

    def _count(self, n_node):
        """The byte count's value when it is a compile-time constant, else None."""
        v = self.expr_without_emitting(n_node)
        if not (v.ctype.is_scalar and v.ctype.is_integer):
            raise self.error(n_node, "the byte count of memcpy/memset must be an integer", construct="memcpy")
        return v.const

    def _copy_text(self, name, uid, elem, local, node, n_node):
        n = self._count(n_node)
        if elem is not None and (n is None or n % elem.size == 0):
            body = self._elements(uid, elem.size, n, "(__mem_d)[{i}] = (__mem_s)[{i}];", local)
        else:
            if local:
                raise self._bytes_error(name, node, elem)
            body = self._elements(uid, 1, n, "((unsigned char *)(__mem_d))[{i}] = "
                                             "((const unsigned char *)(__mem_s))[{i}];", False)
        return "{ " + body + " }"

    def _set_text(self, name, uid, elem, local, node, n_node):
        n = self._count(n_node)
        byte = f"__mem_b{uid}"
        head = f"unsigned char {byte} = (unsigned char)(__mem_v); "
        if elem is not None and elem.size in _REPEATED and (n is None or n % elem.size == 0):
            value = f"({_REPEATED[elem.size]} * {byte})"
            if elem == T.FLOAT:
                value = f"__uint_as_float({value})"
            elif elem == T.DOUBLE:
                value = f"__longlong_as_double((long long){value})"
            elif elem.is_pointer:
                value = f"(void *)(unsigned long long){value}"
            body = self._elements(uid, elem.size, n, "(__mem_d)[{i}] = " + value + ";", local)
        else:
            if local:
                raise self._bytes_error(name, node, elem)
            body = self._elements(uid, 1, n, "((unsigned char *)(__mem_d))[{i}] = " + byte + ";", False)
        return "{ " + head + body + " }"

    def _elements(self, uid, size, n, assign, local):
        """The statements that run `assign` for each element index {i} of `size` bytes of n bytes."""
        if n is not None and n // size <= UNROLL:
            return " ".join(assign.format(i=k) for k in range(n // size))
        count, i = f"__mem_n{uid}", f"__mem_i{uid}"
        loop = (f"unsigned long long {count} = (unsigned long long)(__mem_n); "
                f"for (unsigned long long {i} = 0; {i} < {count} / {size}; {i}++) {assign.format(i=i)}")
        if size > 1 and n is None and not local:
            # the bytes after the last whole element (a count that is not a multiple of it)
            tail = assign.replace("(__mem_d)[{i}]", "((unsigned char *)(__mem_d))[{i}]").replace(
                "(__mem_s)[{i}]", "((const unsigned char *)(__mem_s))[{i}]")
            if "__mem_s" not in assign:
                tail = "((unsigned char *)(__mem_d))[{i}] = " + f"__mem_b{uid};"
            loop += (f" for (unsigned long long {i} = {count} / {size} * {size}; {i} < {count}; {i}++) "
                     + tail.format(i=i))
        return loop

    def _bytes_error(self, name, node, elem):
        what = f"elements of {elem}" if elem is not None else "bytes of different types"
        return self.error(node, f"{name} of a local variable works element by element in simcore: give both "
                                f"pointers the same element type and a count that is a multiple of its size "
                                f"(here: {what})", construct=name)


class _Operand:
    __slots__ = ("base", "local")

    def __init__(self, base, local):
        self.base, self.local = base, local


def has_effects(node):
    """Does evaluating node change anything (an assignment, ++/--, a call)?"""
    if isinstance(node, c_ast.Assignment) or isinstance(node, c_ast.FuncCall):
        return True
    if isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--"):
        return True
    return any(has_effects(child) for _, child in node.children())
