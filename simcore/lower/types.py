"""C types of declarations, and C's conversions between values."""
from pycparser import c_ast

from ..frontend import ctype as T
from ..errors import CompileError
from .code import MISALIGNED
from .values import DT, Val, convert_const


class TypeLowering:
    def ctype_of(self, node):
        """pycparser type node -> ctype (arrays keep their lengths)."""
        if isinstance(node, (c_ast.TypeDecl, c_ast.Typename)):
            return self.ctype_of(node.type)
        if isinstance(node, c_ast.IdentifierType):
            names = node.names
            if len(names) == 1 and names[0] in self.typedefs:
                return self.typedef_type(names[0], node)
            t = T.from_names(names)
            if t is None:
                raise self.error(node, f"type '{' '.join(node.names)}' is not in simcore's subset",
                                 construct=" ".join(node.names))
            return t
        if isinstance(node, c_ast.PtrDecl) and isinstance(node.type, c_ast.FuncDecl):
            return T.FUNCTION_POINTER      # a pointer to a __device__ function: its number (calls.py)
        if isinstance(node, c_ast.PtrDecl):
            base = self.ctype_of(node.type)
            pointee = node.type       # `const float *p`: the qualifier is on the pointee's declarator
            quals = (pointee.quals or []) if isinstance(pointee, (c_ast.TypeDecl, c_ast.PtrDecl)) else []
            return T.Pointer(base, "const" in quals, "volatile" in quals)
        if isinstance(node, c_ast.ArrayDecl):
            base = self.ctype_of(node.type)
            length = None
            if node.dim is not None:
                length = self.const_int(node.dim)
                if length <= 0:
                    raise self.error(node, "array length must be positive", construct="array")
            return T.Array(base, length)
        if isinstance(node, c_ast.FuncDecl):
            raise self.error(node, "function pointers are not in simcore's subset", construct="function pointer")
        if isinstance(node, c_ast.Struct):
            return self.struct_type(node)
        if isinstance(node, c_ast.Union):
            return self.struct_type(node)
        raise self.error(node, f"unsupported type {type(node).__name__}", construct=type(node).__name__)

    def expr_without_emitting(self, node):
        """Lower expression `node` into a scratch block that is then dropped: its type and its
        constant value (if any), with no code left where the lowering stands (constant
        expressions, initializers of module variables, sizeof)."""
        saved = self.cur
        scratch = self.new_block()
        self.start(scratch)
        try:
            return self.expr(node)
        finally:
            self.start(saved)
            self.drop_block(scratch)

    def const_int(self, node):
        """Evaluate an integer constant expression (array sizes, case labels)."""
        v = self.expr_without_emitting(node)
        if v.const is None or not isinstance(v.const, int):
            raise self.error(node, "this must be an integer constant (a number or a #define)",
                             construct="constant expression")
        return v.const

    # ----------------------------------------------------------------- conversions
    def cast(self, val, to):
        to = T.decay(to) if to.is_array else to
        frm = val.ctype
        if to.is_struct or frm.is_struct:
            if frm is not to:
                raise CompileError(f"cannot convert {frm} to {to}")
            return val
        if frm.is_array:
            frm = T.decay(frm)
            val = Val(val.code, frm, val.taint, val.const, val.space, regs=val.regs)
        if to.is_pointer or frm.is_pointer:
            return self._pointer_cast(val, frm, to)
        if frm == to:
            return val
        if val.const is not None:
            return self.const(convert_const(val.const, to), to)
        if to == T.BOOL:
            code = f"({val.code} != 0)"
        elif frm.is_float and to.is_integer:
            code = f"X.f2i({val.code}, {DT[to]})"
        else:
            code = f"({val.code}).astype({DT[to]})"
        return Val(code, to, val.taint, regs=val.regs)

    def _pointer_cast(self, val, frm, to):
        if to.is_pointer and frm.is_pointer:
            tsize = 1 if to.base.is_void else to.base.size
            fsize = 1 if frm.base.is_void else frm.base.size
            aligned = val.aligned if tsize <= fsize else MISALIGNED
            return Val(val.code, to, val.taint, val.const, val.space, aligned=aligned, regs=val.regs)
        if to.is_pointer and frm.is_scalar and frm.is_integer:
            if val.const is not None:
                return Val(val.code, to, val.taint, val.const, regs=val.regs)
            return Val(f"({val.code}).astype(I8)", to, val.taint, regs=val.regs)
        if frm.is_pointer and to.is_scalar and to.is_integer:
            return Val(f"({val.code}).astype({DT[to]})", to, val.taint, regs=val.regs)
        raise CompileError(f"cannot convert {frm} to {to}")

    def value(self, val):
        """An rvalue: arrays decay to pointers."""
        if val.ctype.is_array and val.local_var is None:
            return Val(val.code, T.decay(val.ctype), val.taint, val.const, val.space, aligned=val.aligned,
                       regs=val.regs)
        return val

    def convert_for_assign(self, val, to, node):
        if val.ref is not None:     # stored: the variable must have an address (escape)
            self.escape(val.ref, self.error(node, "a pointer to a local variable can be passed to a __device__ "
                                                  "function or kept in a pointer declared with it (int *p = &x;), "
                                                  "not stored elsewhere (simcore keeps such pointers at compile "
                                                  "time)", construct="&"))
        if val.ctype.is_void and not to.is_void:
            raise self.error(node, "this expression has no value (its type is void: a call of a function that "
                                   "returns nothing), so it cannot be assigned or passed", construct="void")
        if to.is_struct or val.ctype.is_struct:
            return self.same_struct(val, to, node)
        if val.local_var is not None:
            self.escape(val.local_var, self.error(node, "a local array can be passed to a __device__ function, "
                                                        "not stored in a pointer (simcore keeps local arrays in "
                                                        "registers)", construct="local array"))
        val = self.value(val)
        if to.is_pointer and val.ctype.is_scalar and val.const != 0:
            raise self.error(node, f"cannot assign a {val.ctype} to a pointer ({to})", construct="assignment")
        if to.is_scalar and val.ctype.is_pointer:
            raise self.error(node, f"cannot assign a pointer to a {to}", construct="assignment")
        return self.cast(val, to)

    def condition_of(self, v):
        """A value as a C truth value (bool per lane)."""
        if v.ctype == T.BOOL:
            return v
        line = self.stmt_line or None      # (no node here: the statement's line)
        if v.ref is not None:
            self.escape(v.ref, CompileError(f"a {v.ctype} cannot be used as a condition", line=line,
                                            construct="condition", source_line=self.source_line(line)))
        if v.ctype.is_struct or v.ctype.is_void:
            what = "an expression of type void (a call of a function that returns nothing)" if v.ctype.is_void \
                else f"a {v.ctype}"
            raise CompileError(f"{what} cannot be used as a condition", line=line, construct="condition",
                               source_line=self.source_line(line))
        if v.const is not None:
            return self.const(bool(v.const), T.BOOL)
        return Val(f"({v.code} != 0)", T.BOOL, v.taint, regs=v.regs)

