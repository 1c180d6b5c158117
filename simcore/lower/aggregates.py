"""Structs, CUDA vector types, pointers to local variables, and the module's own variables.

A struct in memory is bytes at C's offsets: a member access is a load or store of that
member alone, a whole-struct copy is one access per member. A struct in registers (a local
variable, a parameter or result of a __device__ function) is one register per member, so the
rest of lowering only ever sees numbers. `&x` of a local variable is a pointer known at
compile time (`Val.ref`): __device__ functions are inlined, so their out-parameter *is* the
caller's variable.
"""
import numpy as np
from pycparser import c_ast

from ..frontend import ctype as T
from ..runtime.memory import FIRST_LOCAL_REGION, region_base
from .program import LocalVariable, ModuleVariable, Param
from .code import ALIGNED, MisalignedHole, TaintHole, always, select_taint
from .values import (DT, LocalElementTarget, LocalStructElementTarget, LocalStructTarget, MemoryTarget, RegisterTarget, Sym, Val,
                     convert_const, local_pointer, regs_of, struct_value)

CONSTANT_MEMORY = 64 * 1024          # bytes of __constant__ data a module may have (CUDA's limit)
MAX_DEVICE_VARIABLE = 1 << 30         # bytes of one __device__ variable (simcore's: host memory)
# __device__ and __constant__ variables: regions 128.. (shared arrays count up from 1, the
# kernel's array arguments from memory.FIRST_GLOBAL_REGION = 256)
FIRST_MODULE_REGION = 128
MAX_MODULE_VARIABLES = 128
VECTOR_TAG = "__cuda_"
BASE_PREFIX = "__base_"       # preprocess.py: the member holding a base struct (`struct D : B`)
MAX_COPIED_NUMBERS = 256      # numbers in one whole-struct copy


class AggregateLowering:
    # ----------------------------------------------------------------- types
    def typedef_type(self, name, node):
        if name == T.AUTO_TYPE:       # deduced only where declarations.declare_auto knows the initializer
            raise self.error(node, "auto is deduced here only for a local variable with an initializer "
                                   "(auto x = expr;); write the type", construct="auto")
        t = self.typedef_types.get(name)
        if name in T.UNSUPPORTED_VECTORS:        # named where it is used, not in the prelude
            raise self.error(node, self.unsupported_vector(name), construct=name)
        if t is None:
            inner = self.typedefs[name].type
            if isinstance(inner, c_ast.TypeDecl) and isinstance(inner.type, (c_ast.Struct, c_ast.Union)):
                t = self.struct_type(inner.type, name, use=node)     # errors point at the use
            else:
                t = self.ctype_of(inner)
            self.typedef_types[name] = t
        return t

    def struct_type(self, node, typedef_name=None, use=None):
        """c_ast.Struct (a definition or a reference by tag) -> ctype.Struct. use: where the
        type is named, for errors (a typedef's own node may be in the prelude)."""
        name = node.name
        where = use if use is not None else node
        if name and name.startswith(VECTOR_TAG):
            vname = name[len(VECTOR_TAG):]
            t = T.VECTOR_TYPES.get(vname)
            if t is None:
                raise self.error(where, self.unsupported_vector(vname), construct=vname)
            return t
        if node.decls is None:
            t = self.struct_tags.get(name)
            if t is None:
                raise self.error(where, f"struct {name} is used before its definition (a struct that "
                                       "points to itself, such as a linked-list node, is not in simcore's "
                                       "subset)", construct="struct")
            return t
        if id(node) in self.struct_defs:
            return self.struct_defs[id(node)]
        members = []
        for d in node.decls:
            if d.name is None:
                raise self.error(d, "anonymous struct or union members are not in simcore's subset",
                                 construct="struct")
            if d.bitsize is not None:
                raise self.error(d, f"bit-field '{d.name}' is not in simcore's subset", construct="bit-field")
            if isinstance(d.type, c_ast.FuncDecl):
                raise self.error(d, f"member function '{d.name}' is not in simcore's subset (write a "
                                    "__device__ function that takes the struct)", construct="member function")
            t = self.ctype_of(d.type)
            if t.is_void or (t.is_array and t.length is None):
                raise self.error(d, f"member '{d.name}' needs a complete type", construct="struct")
            members.append((d.name, t, self.alignas(d)))
        if len({m[0] for m in members}) != len(members):
            raise self.error(node, f"struct {name or ''} declares a member twice", construct="struct")
        union = isinstance(node, c_ast.Union)
        shown = typedef_name or (name if name and not name.startswith("_align") else "union" if union else "struct")
        layout = T.layout_union if union else T.layout_struct
        t = layout(shown, members, self.pre.struct_align.get(name, 1) if name else 1)
        self.struct_defs[id(node)] = t
        if name:
            self.struct_tags[name] = t
        return t

    @staticmethod
    def unsupported_vector(name):
        return (f"vector type {name} is not supported by simcore (its 32-byte layout is deprecated in CUDA 13); "
                f"use two {name[:-1]}2 values")

    def alignas(self, decl):
        """The n of `__align__(n)` (C11 `_Alignas(n)`) on a declaration, or 1."""
        n = 1
        for a in getattr(decl, "align", None) or []:
            n = max(n, self.const_int(a.alignment))
        return n

    def define_types(self, type_decls):
        """File-scope struct definitions and typedefs, in source order (tags become known)."""
        for node in type_decls:
            if isinstance(node, c_ast.Typedef):
                self.typedefs[node.name] = node
                inner = node.type
                while isinstance(inner, (c_ast.TypeDecl, c_ast.PtrDecl, c_ast.ArrayDecl)):
                    inner = inner.type
                if isinstance(inner, (c_ast.Struct, c_ast.Union)) and inner.decls is not None:
                    self.struct_type(inner, node.name)
            elif isinstance(node.type, (c_ast.Struct, c_ast.Union)):
                self.struct_type(node.type)

    # ----------------------------------------------------------------- struct values
    def struct_sym(self, base, ctype, node):
        """Registers for a struct held by one thread: one per member."""
        members = {}
        for f in ctype.fields:
            name = f"{base}_{f.name}"
            if f.ctype.is_struct:
                members[f.name] = self.struct_sym(name, f.ctype, node)
            elif f.ctype.is_array:
                if not f.ctype.base.is_scalar:
                    raise self.error(node, f"member '{f.name}': in a local struct, array members must be "
                                           "one-dimensional arrays of numbers", construct="struct")
                members[f.name] = Sym("local_array", f.ctype, var=self.new_var(name, f.ctype.base, (f.ctype.length,)))
            else:
                members[f.name] = Sym("var", f.ctype, var=self.new_var(name, f.ctype))
        return Sym("struct", ctype, members=members)

    def struct_sym_copy(self, val, node):
        """A struct value kept in fresh registers (to survive the end of a block)."""
        sym = self.struct_sym("tmp", val.ctype, node)
        self.write_struct(sym, val, node)
        return sym

    def select_struct(self, c, a, b):
        """c ? a : b of two struct values, member by member."""
        parts = {}
        for key, x in a.parts.items():
            y = b.parts[key]
            if x.ctype.is_struct or x.ctype.is_array:
                parts[key] = self.select_struct(c, x, y)
            else:
                dt = DT[x.ctype] if x.ctype.is_scalar else "I8"
                parts[key] = Val(f"np.asarray(np.where({c.code}, {x.code}, {y.code}), dtype={dt})",
                                 x.ctype, select_taint(c, x, y), regs=regs_of(c, x, y))
        return struct_value(a.ctype, parts)

    def mark_struct_undefined(self, sym):
        for m in sym.members.values():
            if m.kind == "struct":
                self.mark_struct_undefined(m)
            elif m.kind == "var":
                self.mark_undefined(m.var)

    def mark_undefined(self, var):
        """Declared without a value: reading it before a write is undefined."""
        undefined = always("X.UNSET")
        self.taint_flows.append((var.name, undefined))
        self.emit(f"u_{var.name} = ", TaintHole(undefined, "X.UNSET"), assigns=("u", var.name),
                  when_tracked=var.name)
        self.mark_stored(var)

    def read_struct(self, sym, node):
        parts = {}
        for f in sym.ctype.fields:
            m = sym.members[f.name]
            if m.kind == "struct":
                parts[f.name] = self.read_struct(m, node)
            elif m.kind == "var":
                parts[f.name] = self.read(m.var)
            else:                            # an array member: element by element
                self.check_copy_size(f.ctype, node)
                parts[f.name] = struct_value(f.ctype, {
                    k: self.tmp(self.local_element(m.var, self.const(k, T.INT), node)) for k in range(f.ctype.length)})
        return struct_value(sym.ctype, parts)

    def write_struct(self, sym, val, node):
        val = self.same_struct(val, sym.ctype, node)
        for f in sym.ctype.fields:
            m, part = sym.members[f.name], val.parts[f.name]
            if m.kind == "struct":
                self.write_struct(m, part, node)
            elif m.kind == "var":
                self.write(m.var, self.convert_for_assign(part, f.ctype, node))
            else:
                for k, e in part.parts.items():
                    self.write_lvalue(LocalElementTarget(m.var, self.const(k, T.INT)), e, node)

    def same_struct(self, val, to, node):
        if not (val.ctype is to or (to.is_array and val.ctype == to)) or val.parts is None:
            raise self.error(node, f"cannot assign a {val.ctype} to a {to}", construct="assignment")
        return val

    def check_copy_size(self, ctype, node):
        """A struct copy is one operation per number: keep the generated code reasonable."""
        def count(t):
            if t.is_array:
                return t.length * count(t.base)
            return sum(count(f.ctype) for f in t.fields) if t.is_struct else 1
        if count(ctype) > MAX_COPIED_NUMBERS:
            raise self.error(node, f"copying a whole {ctype} ({count(ctype)} numbers) is more than simcore copies "
                                   f"at once ({MAX_COPIED_NUMBERS}): copy its members in a loop",
                             construct="struct copy")

    def init_struct(self, sym, init, node):
        """`S s = {a, b, {c, d}};` or `S s = expr;`"""
        if not isinstance(init, c_ast.InitList):
            self.write_struct(sym, self.value(self.expr(init)), node)
            return
        given = self.member_initializers(init, sym.ctype, node)
        for f in sym.ctype.fields:
            m = sym.members[f.name]
            e = given.get(f.name)
            if m.kind == "struct":
                if e is None:
                    self.init_struct(m, c_ast.InitList([]), node)
                else:
                    self.init_struct(m, e, node)
            elif m.kind == "var":
                v = self.const(0, f.ctype) if e is None else self.value(self.expr(e))
                self.write(m.var, self.convert_for_assign(v, f.ctype, node))
            else:
                if e is not None and not isinstance(e, c_ast.InitList):
                    raise self.error(e, f"initialise the array member '{f.name}' with {{ ... }}",
                                     construct="initializer")
                items = [self.cast(self.value(self.expr(x)), f.ctype.base) for x in (e.exprs if e else [])]
                if len(items) > f.ctype.length:
                    raise self.error(e, "too many initializers", construct="initializer")
                row = ("v", m.var.name)
                for j, item in enumerate(items):
                    self.emit(f"v_{m.var.name}[:, {j}] = {item.code}", reads=item.regs | {row})
                self.emit(f"v_{m.var.name}[:, {len(items)}:] = 0", reads=frozenset({row}))
                self.mark_stored(m.var)

    def member_initializers(self, init, struct, node):
        """{member name: expression} of a struct's {...}, in order or designated (.b = 1)."""
        given, k = {}, 0
        for e in init.exprs:
            if isinstance(e, c_ast.NamedInitializer):
                names = e.name
                if len(names) != 1 or not isinstance(names[0], c_ast.ID) or struct.field(names[0].name) is None:
                    raise self.error(node, f"this designated initializer does not name a member of {struct}",
                                     construct="initializer")
                k = [f.name for f in struct.fields].index(names[0].name)
                e = e.expr
            if k >= len(struct.fields):
                raise self.error(init, "too many initializers", construct="initializer")
            given[struct.fields[k].name] = e
            k += 1
        return given

    def declare_local_struct(self, node, ctype):
        sym = self.struct_sym(node.name, ctype, node)
        self.scopes[-1][node.name] = sym
        self.cur.lines.add(node.coord.line)
        if node.init is None:
            self.mark_struct_undefined(sym)
        else:
            self.init_struct(sym, node.init, node)
        return sym

    # ----------------------------------------------------------------- local arrays of structs
    def declare_local_struct_array(self, node, ctype):
        """`Complex c[4];` in a thread: one local array per member."""
        struct, n = ctype.base, ctype.length
        if any(not f.ctype.is_scalar and not f.ctype.is_pointer for f in struct.fields):
            raise self.error(node, f"a local array of {struct}: its members must be numbers or pointers "
                                   "(not arrays or structs)", construct="local array")
        self.reserve_local_memory(node, ctype)
        members = {f.name: Sym("local_array", T.Array(f.ctype, n),
                               var=self.new_var(f"{node.name}_{f.name}", f.ctype, (n,))) for f in struct.fields}
        sym = Sym("struct_array", ctype, members=members)
        self.note_decl(node, sym)
        self.scopes[-1][node.name] = sym
        self.cur.lines.add(node.coord.line)
        if node.init is None:
            return
        if not isinstance(node.init, c_ast.InitList) or len(node.init.exprs) > n:
            raise self.error(node.init, "initialise a local array with { ... } (at most one item per element)",
                             construct="initializer")
        for k in range(n):
            e = node.init.exprs[k] if k < len(node.init.exprs) else c_ast.InitList([])
            if not isinstance(e, c_ast.InitList):
                e = c_ast.InitList([e])      # {a, b} for a struct of one member
            if len(e.exprs) > len(struct.fields):
                raise self.error(e, "too many initializers", construct="initializer")
            for j, f in enumerate(struct.fields):
                v = self.value(self.expr(e.exprs[j])) if j < len(e.exprs) else self.const(0, f.ctype)
                self.write_lvalue(LocalElementTarget(members[f.name].var, self.const(k, T.INT)), v, node)

    def local_struct_array(self, node):
        if isinstance(node, c_ast.ID):
            for scope in reversed(self.scopes):
                if node.name in scope:
                    sym = scope[node.name]
                    return sym if sym.kind == "struct_array" else None
        return None

    def read_struct_element(self, target, node):
        parts = {f.name: self.tmp(self.local_element(target.sym.members[f.name].var, target.index, node))
                 for f in target.ctype.fields}
        return struct_value(target.ctype, parts)

    # ----------------------------------------------------------------- structs in memory
    def member_address(self, addr, f):
        code = addr.code if f.offset == 0 else f"({addr.code} + {self.const(f.offset, T.LLONG).code})"
        const = addr.ctype.is_pointer and addr.ctype.const
        return Val(code, T.Pointer(f.ctype, const), addr.taint, space=addr.space, aligned=addr.aligned,
                   regs=addr.regs)

    def vector_alignment_check(self, addr, ctype, node, kind):
        """A struct aligned beyond its members (float4, __align__(16)) is one wide access on the
        GPU: a misaligned address faults there, whatever its members' own alignment."""
        widest = max((f.ctype.align for f in ctype.fields), default=1)
        if ctype.align > widest:
            s = self.site(node, kind)
            self.emit(f"X.check_align({addr.code}, {ctype.align}, L, {s}, {kind!r}, ", MisalignedHole(addr.aligned),
                      ")", reads=addr.regs)

    def load_struct(self, addr, ctype, space, node):
        """A struct (or an array member of one) from memory: one load per number."""
        addr = self.tmp(addr)
        if ctype.is_struct:
            self.check_copy_size(ctype, node)
            self.vector_alignment_check(addr, ctype, node, "read")
            items = [(f.name, f.ctype, self.member_address(addr, f)) for f in ctype.fields]
        else:
            items = [(k, ctype.base, self.element_of(addr, ctype.base, k)) for k in range(ctype.length)]
        parts = {}
        for key, t, a in items:
            parts[key] = self.load_struct(a, t, space, node) if t.is_struct or t.is_array else \
                self.load(a, t, space, node)
        return struct_value(ctype, parts)

    def store_struct(self, addr, ctype, space, val, node):
        val = self.same_struct(val, ctype, node)
        addr = self.tmp(addr)
        if ctype.is_struct:
            self.vector_alignment_check(addr, ctype, node, "write")
            fields = ctype.fields
            if ctype.union:
                # A union copy: every member holds the same bytes, stored widest first so that each
                # byte ends with its value; which member was last written is not known, so its
                # bytes go unchecked for undefinedness (a copy is never called undefined)
                fields = sorted(fields, key=lambda f: -f.ctype.size)
                val = struct_value(ctype, {k: Val(v.code, v.ctype, regs=v.regs) if v.parts is None else v
                                           for k, v in val.parts.items()})
            items = [(f.name, f.ctype, self.member_address(addr, f)) for f in fields]
        else:
            items = [(k, ctype.base, self.element_of(addr, ctype.base, k)) for k in range(ctype.length)]
        for key, t, a in items:
            part = val.parts[key]
            if t.is_struct or t.is_array:
                self.store_struct(a, t, space, part, node)
            else:
                self.store(a, t, space, self.convert_for_assign(part, t, node), node)

    def element_of(self, addr, elem, k):
        """The address of element k of an array at addr (an array member of a struct)."""
        off = k * elem.size
        code = addr.code if off == 0 else f"({addr.code} + {self.const(off, T.LLONG).code})"
        const = addr.ctype.is_pointer and addr.ctype.const
        return Val(code, T.Pointer(elem, const), addr.taint, space=addr.space, aligned=addr.aligned, regs=addr.regs)

    # ----------------------------------------------------------------- member access
    def member(self, node):
        """`s.f` / `p->f` -> an assignment target, or a Val (a member of a struct rvalue, or a
        local array member)."""
        fname = node.field.name
        if node.type == "->":
            p = self.value(self.expr(node.name))
            if p.ref is not None:
                base = self.deref(p, None, node)
            elif p.ctype.is_pointer and p.ctype.base.is_struct:
                base = MemoryTarget(p, p.ctype.base, p.space)
            else:
                raise self.error(node, f"'->' needs a pointer to a struct, not {p.ctype}", construct="->")
        elif isinstance(node.name, (c_ast.ID, c_ast.ArrayRef, c_ast.StructRef)) or (
                isinstance(node.name, c_ast.UnaryOp) and node.name.op == "*"):
            base = self.lvalue(node.name, for_member=True)
        else:
            base = self.value(self.expr(node.name))
        t = base.ctype
        if not t.is_struct:
            raise self.error(node, f"request for member '{fname}' in something that is not a struct ({t})",
                             construct="member access")
        f = t.field(fname)
        if f is None:
            via = self.base_holding(t, fname, "field")
            if via is not None:        # a base struct's member: s.x is s.__base_B.x
                return self.member(c_ast.StructRef(c_ast.StructRef(node.name, node.type, c_ast.ID(via, node.coord),
                                                                   node.coord), ".", node.field, node.coord))
            raise self.error(node, f"{t} has no member named '{fname}'", construct=fname)
        if isinstance(base, MemoryTarget):
            return MemoryTarget(self.member_address(base.address, f), f.ctype, base.space)
        if isinstance(base, LocalStructElementTarget):
            return LocalElementTarget(base.sym.members[fname].var, base.index)
        if isinstance(base, LocalStructTarget):
            m = base.sym.members[fname]
            if m.kind == "var":
                return RegisterTarget(m.var)
            if m.kind == "struct":
                return LocalStructTarget(m)
            v = self.read(m.var)
            out = Val(v.code, m.ctype, v.taint, regs=v.regs)
            out.local_var = m.var
            return out
        return base.parts[fname]         # a member of a struct value (a call's result)

    def base_holding(self, t, name, what):
        """The `__base_B` member of struct t whose struct (or its bases) has the member (what:
        'field') or member function (what: 'method') `name`; None if there is none."""
        for f in t.fields:
            if f.name.startswith(BASE_PREFIX) and f.ctype.is_struct:
                b = f.ctype
                has = b.field(name) is not None if what == "field" else name in self.pre.methods.get(b.name, {})
                if has or self.base_holding(b, name, what) is not None:
                    return f.name
        return None

    def visit_member(self, node):
        got = self.member(node)
        if isinstance(got, Val):
            return got
        if isinstance(got, MemoryTarget) and got.ctype.is_array:     # an array member: its address
            a = got.address
            return Val(a.code, got.ctype, a.taint, space=a.space, aligned=a.aligned, regs=a.regs)
        return self.read_lvalue(got, node)

    # ----------------------------------------------------------------- pointers to locals
    def address_of_local(self, target, node):
        """`&x`, `&s`, `&arr[i]` of a local variable -> a compile-time pointer."""
        if isinstance(target, (LocalElementTarget, LocalStructElementTarget)) and target.index.const is None:
            idx = self.read(self.reg_tmp(target.index))      # fixed now, as the address would be
            target = type(target)(target.var if isinstance(target, LocalElementTarget) else target.sym, idx)
        return local_pointer(target, T.Pointer(target.ctype))

    def deref(self, p, index, node):
        """*p or p[index] of a pointer to a local variable -> its target."""
        target = p.ref
        if isinstance(target, (LocalElementTarget, LocalStructElementTarget)):
            if index is None:
                return target
            idx = self.binary("+", target.index, index, node)
            return type(target)(target.var if isinstance(target, LocalElementTarget) else target.sym, idx)
        if index is not None and index.const != 0:
            # p[1] of `int *p = &x`: outside x; in local memory, the access is checked at run time
            self.escape(target, self.error(node, "this pointer points to a single local variable: only p[0] "
                                                 "(or *p) is that variable", construct="[]"))
        return target

    def local_pointer_arith(self, op, a, b, node):
        """`p + k`, `p - k` within a local array; any other arithmetic on a compile-time pointer
        (p - q, p < q, p + k of a scalar) makes the variable addressable (`escape`)."""
        p, k = (a, b) if a.ref is not None else (b, a)
        if op in ("+", "-") and isinstance(p.ref, LocalElementTarget) and k.ref is None and k.ctype.is_scalar \
                and k.ctype.is_integer and (op == "+" or p is a):
            idx = self.binary(op, p.ref.index, k, node)
            return self.address_of_local(LocalElementTarget(p.ref.var, idx), node)
        self.escape(p.ref, self.error(node, f"operator {op} does not apply to a pointer to a local variable "
                                            "in simcore (only p + k within a local array)", construct=op))

    def bind_pointer_to_local(self, name, ctype, val, node):
        """`int *p = &x;` or a pointer parameter receiving `&x`: p names x from now on."""
        if not ctype.is_pointer:
            raise self.error(node, f"cannot store the address of a local variable in a {ctype}",
                             construct="&")
        want, have = ctype.base, val.ref.ctype
        if not (want is have or want == have or want.is_void):
            raise self.error(node, f"cannot convert a pointer to {have} to {ctype}", construct="&")
        return Sym("ref", ctype, ref=val.ref)

    def bind_pointer_to_local_array(self, ctype, val, node):
        """`int *p = arr;` of a local array: p names arr[0] from now on (p[i] is arr[i])."""
        elem = val.ctype.base
        if not (ctype.base is elem or ctype.base == elem or ctype.base.is_void):
            raise self.error(node, f"cannot convert {val.ctype} to {ctype}", construct="local array")
        return Sym("ref", ctype, ref=LocalElementTarget(val.local_var, self.const(0, T.INT)))

    # ----------------------------------------------------------------- addressable locals
    def declare_addressable_local(self, node, ctype, init=True):
        """A local whose address escapes: its bytes in local memory (one copy per thread, a
        region of its own, so a stray p[1] is out of bounds), read and written like a
        __device__ variable's. Reading it before a write is undefined (the bytes' taint)."""
        if ctype.is_array and ctype.length is None:
            raise self.error(node, f"local array '{node.name}' needs a length", construct="array")
        if ctype.is_array:
            self.reserve_local_memory(node, ctype)
        var = LocalVariable(node.name, ctype, FIRST_LOCAL_REGION + len(self.local_vars),
                            node.coord.line if node.coord else 0)
        self.local_vars.append(var)
        sym = Sym("module_var", ctype, shared=var, scalar=not ctype.is_array)
        if not init:              # a parameter of an inlined function: the caller binds it
            return sym
        self.scopes[-1][node.name] = sym
        self.cur.lines.add(node.coord.line)
        if node.init is not None:
            self.init_addressable(self.module_var_address(sym), ctype, node.init, node)
        return sym

    def init_addressable(self, addr, ctype, init, node):
        """Store an initializer into local memory: numbers, {...} of arrays and structs
        (members and elements not given are zero, as in C)."""
        if ctype.is_array or ctype.is_struct:
            if not isinstance(init, c_ast.InitList):
                if ctype.is_struct:
                    self.store_struct(addr, ctype, "local", self.value(self.expr(init)), node)
                    return
                raise self.error(init, "initialise a local array with { ... }", construct="initializer")
            if ctype.is_array:
                if len(init.exprs) > ctype.length:
                    raise self.error(init, "too many initializers", construct="initializer")
                items = [(self.element_of(addr, ctype.base, k), ctype.base,
                          init.exprs[k] if k < len(init.exprs) else None) for k in range(ctype.length)]
            else:
                given = self.member_initializers(init, ctype, node)
                items = [(self.member_address(addr, f), f.ctype, given.get(f.name)) for f in ctype.fields]
            for a, t, e in items:
                self.init_addressable(a, t, e if e is not None else c_ast.InitList([]) if (t.is_array or t.is_struct)
                                      else c_ast.Constant("int", "0", node.coord), node)
            return
        if isinstance(init, c_ast.InitList):
            if len(init.exprs) > 1:
                raise self.error(init, "a number takes one initializer", construct="initializer")
            init = init.exprs[0] if init.exprs else c_ast.Constant("int", "0", node.coord)
        self.store(addr, ctype, "local", self.convert_for_assign(self.value(self.expr(init)), ctype, node), node)

    # ----------------------------------------------------------------- structs passed to a kernel by value
    def struct_param(self, p, t):
        """A struct passed by value: a copy per thread in local memory (the kernel may change it and
        take its address), starting with the launch's bytes (memory.StructArgument)."""
        var = LocalVariable(p.name, t, FIRST_LOCAL_REGION + len(self.local_vars), p.coord.line if p.coord else 0,
                            param=p.name)
        self.local_vars.append(var)
        self.scopes[-1][p.name] = Sym("module_var", t, shared=var, scalar=True)
        return Param(p.name, str(t), False, t.dtype, "", pointer_members=tuple(self.pointer_members(p, t)))

    def pointer_members(self, p, t, prefix="", base=0):
        """(member path, byte offset, pointee dtype) of every pointer inside struct t."""
        for f in t.fields:
            path, off = prefix + f.name, base + f.offset
            if f.ctype.is_struct:
                yield from self.pointer_members(p, f.ctype, path + ".", off)
            elif f.ctype.is_array and not f.ctype.base.is_scalar:
                raise self.error(p, f"parameter '{p.name}': member '{path}' is an array of {f.ctype.base}; a "
                                    "struct passed by value to a kernel may hold numbers, arrays of numbers, "
                                    "structs and pointers", construct="parameter")
            elif f.ctype.is_pointer:
                b = f.ctype.base
                if not (b.is_scalar or b.is_struct or b.is_void):
                    raise self.error(p, f"parameter '{p.name}': member '{path}' must point to numbers or "
                                        "structs", construct="parameter")
                yield path, off, np.dtype(np.uint8) if b.is_void else np.dtype(b.dtype)

    # ----------------------------------------------------------------- __device__ / __constant__
    def declare_module_var(self, decl, index):
        storage = decl.storage or []
        constant = "auto" in storage
        kind = "__constant__" if constant else "__device__"
        if index >= MAX_MODULE_VARIABLES:
            raise self.error(decl, f"more than {MAX_MODULE_VARIABLES} __device__/__constant__ variables",
                             construct=kind)
        ctype = self.ctype_of(decl.type)
        if ctype.is_array and ctype.length is None:
            raise self.error(decl, f"the {kind} array '{decl.name}' needs a size", construct=kind)
        if ctype.is_void or ctype.is_pointer:
            raise self.error(decl, f"{kind} variables of type {ctype} are not in simcore's subset "
                                   "(numbers, arrays and structs are)", construct=kind)
        limit = CONSTANT_MEMORY if constant else MAX_DEVICE_VARIABLE
        if ctype.size > limit:
            where = ("a GPU's constant memory holds 64 KB (nvcc: 'uses too much global constant data')" if constant
                     else "simcore keeps a __device__ variable in host memory, up to 1 GB")
            raise self.error(decl, f"the {kind} variable '{decl.name}' takes {ctype.size:,} bytes: {where}",
                             construct=kind)
        init = np.zeros(ctype.size, np.uint8)
        if decl.init is not None:
            self.constant_bytes(init, 0, ctype, decl.init, decl)
        volatile = "volatile" in (decl.quals or [])     # its accesses are strong (the race checks)
        if volatile and ctype.is_array:
            ctype = T.volatile_array(ctype)
        var = ModuleVariable(decl.name, ctype, FIRST_MODULE_REGION + index, constant, init.tobytes(),
                             decl.coord.line if decl.coord else 0, volatile)
        return var, Sym("module_var", ctype, shared=var, scalar=not ctype.is_array)

    def constant_bytes(self, out, offset, ctype, init, node):
        """Write a constant initializer's bytes (C's layout) into out."""
        if ctype.is_array or ctype.is_struct:
            if not isinstance(init, c_ast.InitList):
                raise self.error(node, "initialise an array or struct with { ... }", construct="initializer")
            if ctype.is_array:
                if len(init.exprs) > ctype.length:
                    raise self.error(init, "too many initializers", construct="initializer")
                items = [(offset + k * ctype.base.size, ctype.base) for k in range(len(init.exprs))]
                for (off, t), e in zip(items, init.exprs):
                    self.constant_bytes(out, off, t, e, node)
            else:
                given = self.member_initializers(init, ctype, node)
                for f in ctype.fields:
                    if f.name in given:
                        self.constant_bytes(out, offset + f.offset, f.ctype, given[f.name], node)
            return
        if isinstance(init, c_ast.InitList):
            if len(init.exprs) != 1:
                raise self.error(init, "a number takes one initializer", construct="initializer")
            init = init.exprs[0]
        v = self.constant_value(init)
        out[offset:offset + ctype.size] = np.frombuffer(
            np.asarray(convert_const(v, ctype), dtype=ctype.dtype).tobytes(), np.uint8)

    def constant_value(self, node):
        v = self.expr_without_emitting(node)
        if v.const is None:
            raise self.error(node, "the initializer of a __device__ or __constant__ variable must be a constant",
                             construct="initializer")
        return v.const

    def file_constant(self, decl):
        """`const int N = 256;` at file scope: a number the kernels may use (C++ makes it a
        constant expression)."""
        ctype = self.ctype_of(decl.type)
        if not ctype.is_scalar or decl.init is None or isinstance(decl.init, c_ast.InitList):
            return Sym("host_var", None)     # `const float w[3] = {...};` is the host's: refused where used
        v = self.constant_value(decl.init)
        return Sym("constant", ctype, ref=self.const(convert_const(v, ctype), ctype))

    def module_var_address(self, sym):
        var = sym.shared
        space = getattr(var, "space", None) or ("constant" if var.constant else "global")
        return Val(self.const(region_base(var.region), T.LLONG).code, T.Pointer(sym.ctype if not sym.ctype.is_array
                                                                                else sym.ctype.base, var.constant,
                                                                                var.volatile),
                   space=space, aligned=ALIGNED)

    def module_var_value(self, sym, node):
        """The name of a module variable as an expression: an array is its address."""
        addr = self.module_var_address(sym)
        if sym.ctype.is_array:
            return Val(addr.code, sym.ctype, space=addr.space, aligned=ALIGNED)
        return self.read_lvalue(MemoryTarget(addr, sym.ctype, addr.space), node)

    # ----------------------------------------------------------------- vector constructors
    def make_vector(self, name, args, node):
        t = T.VECTOR_TYPES.get(name[len("make_"):])
        if t is None:
            raise self.error(node, f"{name}: vector type {name[len('make_'):]} is not supported by simcore",
                             construct=name)
        self.nargs(name, args, len(t.fields), node)
        vals = self.eval_args(args)
        return struct_value(t, {f.name: self.tmp(self.cast(self.value(v), f.ctype))
                                for f, v in zip(t.fields, vals)})


def is_vector_maker(name):
    return name.startswith("make_") and name[len("make_"):] in T.ALL_VECTOR_NAMES
