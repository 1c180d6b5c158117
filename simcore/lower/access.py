"""Where values live: lvalues, addresses, loads and stores of memory and local arrays."""
from pycparser import c_ast

from ..frontend import ctype as T
from ..runtime.memory import region_base
from .code import ALIGNED, MisalignedHole, TaintHole, Taint, TaintTerm, always, taint_of
from .values import (LocalElementTarget, LocalStructElementTarget, LocalStructTarget, MemoryTarget, RegisterTarget, Val, memory_dtype,
                     regs_of)

def is_volatile(addr):
    """Whether an access through `addr` is volatile (`volatile T *`): a strong access."""
    return addr.ctype.is_pointer and addr.ctype.volatile


SPECIALS = {"threadIdx": "tid", "blockIdx": "bid", "blockDim": "bdim", "gridDim": "gdim"}


class AccessLowering:
    def shared_scalar_address(self, sym):
        return Val(self.const(region_base(sym.shared.region), T.LLONG).code,
                   T.Pointer(sym.ctype.base, volatile=sym.ctype.volatile),
                   space="shared", aligned=ALIGNED)

    def lvalue(self, node, for_member=False):
        """The left side of an assignment (or the struct of `s.f`: for_member) ->
        RegisterTarget | LocalElementTarget | LocalStructTarget | MemoryTarget."""
        if isinstance(node, c_ast.ID):
            sym = self.lookup(node.name, node)
            if sym.kind == "var":
                return RegisterTarget(sym.var)
            if sym.kind == "struct":
                return LocalStructTarget(sym)
            if sym.kind == "shared" and sym.scalar:
                return MemoryTarget(self.shared_scalar_address(sym), sym.ctype.base, "shared")
            if sym.kind == "module_var" and sym.scalar:
                addr = self.module_var_address(sym)
                return MemoryTarget(addr, sym.ctype, addr.space)
            if sym.kind == "ref":       # reassigned: what it points to needs a real address
                self.escape(sym.ref, self.error(node, f"'{node.name}' points to a local variable and cannot be made "
                                                      "to point elsewhere in simcore (declare another pointer)",
                                                construct="&"))
            if sym.kind == "constant":
                raise self.error(node, f"'{node.name}' is const", construct="const")
            raise self.error(node, f"cannot assign to the array '{node.name}'", construct="assignment")
        if isinstance(node, c_ast.ArrayRef):
            structs = self.local_struct_array(node.name)
            if structs is not None:
                return LocalStructElementTarget(structs, self.index_value(node.subscript))
            base = self.expr(node.name)
            if base.local_var is not None:
                return LocalElementTarget(base.local_var, self.index_value(node.subscript))
            if base.ref is not None:
                return self.deref(base, self.index_value(node.subscript), node)
            return MemoryTarget(*self.element_address(base, node))
        if isinstance(node, c_ast.StructRef) and not (isinstance(node.name, c_ast.ID) and node.name.name in SPECIALS):
            got = self.member(node)
            if isinstance(got, Val):
                raise self.error(node, "this member cannot be assigned to", construct="assignment")
            return got
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            p = self.value(self.expr(node.expr))
            if p.ref is not None:
                return self.deref(p, None, node)
            if not p.ctype.is_pointer:
                raise self.error(node, "cannot dereference a non-pointer", construct="*")
            if p.ctype.base.is_void:
                raise self.error(node, "cannot dereference a void pointer", construct="*")
            return MemoryTarget(p, p.ctype.base, p.space)
        if isinstance(node, c_ast.StructRef) and isinstance(node.name, c_ast.ID) and node.name.name in SPECIALS:
            raise self.error(node, f"{node.name.name} is read-only", construct=node.name.name)
        raise self.error(node, "this cannot be assigned to", construct="assignment")

    def index_value(self, node):
        i = self.value(self.expr(node))
        if not (i.ctype.is_scalar and i.ctype.is_integer):
            raise self.error(node, "an array index must be an integer", construct="index")
        return i

    def element_address(self, base, node):
        """(address, element type, space) of base[subscript]: base is an array or a pointer."""
        i = self.index_value(node.subscript)
        if not (base.ctype.is_array or base.ctype.is_pointer):
            raise self.error(node, "subscripted value is not an array or pointer", construct="[]")
        elem, space = base.ctype.base, base.space
        if elem.is_void:
            raise self.error(node, "cannot index a void pointer", construct="[]")
        const = base.ctype.is_pointer and base.ctype.const
        volatile = (base.ctype.is_pointer or base.ctype.is_array) and base.ctype.volatile
        addr = self.pointer_add(Val(base.code, T.Pointer(elem, const, volatile), base.taint, space=space,
                                    aligned=base.aligned, regs=base.regs), i, node)
        if elem.is_array:   # a row of a 2-D array: stays an lvalue array
            return Val(addr.code, elem, addr.taint, space=space, aligned=addr.aligned, regs=addr.regs), elem, space
        return addr, elem, space

    def pointer_add(self, p, i, node, sign="+"):
        size = p.ctype.base.size if not p.ctype.base.is_void else 1
        if i.const is not None:
            offset = i.const * size
            if offset == 0:
                return p
            code = f"({p.code} {sign} {self.const(offset, T.LLONG).code})"
        else:
            code = f"({p.code} {sign} ({i.code}).astype(I8) * {size})"
        return Val(code, p.ctype, taint_of(p, i), space=p.space, aligned=p.aligned, regs=regs_of(p, i))

    def note_access_size(self, space, size):
        # The race shadow's granule is the smallest access of each space. An access whose space is
        # only known at run time (a pointer that may point to either) counts for both: else two
        # threads writing neighbouring bytes through it share a wider granule, a false race.
        if space in ("shared", None):
            self.shared_sizes.add(size)
        if space in ("global", "constant", None):
            self.global_sizes.add(size)

    def address_check(self, addr, node):
        if addr.taint.possible:
            self.use_check(addr.taint, node, "an address", "is used as an address")

    def load(self, addr, elem, space, node):
        if elem.is_struct:
            return self.load_struct(addr, elem, space, node)
        if not (elem.is_scalar or elem.is_pointer):      # a pointer kept in memory (`__shared__ int *p;`)
            raise self.error(node, f"cannot load a value of type {elem}", construct="load")
        self.address_check(addr, node)
        s = self.site(node, "read", memory=True, volatile=is_volatile(addr))
        self.note_access_size(space, elem.size)
        name = self.fresh("_t")
        self.loaded_by[name] = s
        misaligned = MisalignedHole(addr.aligned)
        if space in ("global", "constant"):
            self.emit(f"{name} = X.ld({addr.code}, {memory_dtype(elem)}, L, {s}, ", misaligned, ")", reads=addr.regs)
            return Val(name, elem)
        self.emit(f"{name}, u{name} = X.ldu({addr.code}, {memory_dtype(elem)}, L, {s}, ", misaligned, ")", reads=addr.regs)
        self.uses_taint = True
        return Val(name, elem, always(f"u{name}"))

    def store(self, addr, elem, space, val, node):
        self.address_check(addr, node)
        s = self.site(node, "write", memory=True, volatile=is_volatile(addr))
        self.note_access_size(space, elem.size)
        self.emit(f"X.st({addr.code}, {val.code}, {memory_dtype(elem)}, L, {s}, ", TaintHole(val.taint, "None"), ", ",
                  MisalignedHole(addr.aligned), ")", reads=regs_of(addr, val))

    # ---- local arrays: a row per lane in one register
    def local_element(self, var, idx, node):
        """var[idx] of a local array (its taint is the element's, not the index's)."""
        s = self.site(node, f"{var.source_name}[...]")
        reads = idx.regs | {("v", var.name)}
        taint = Taint((TaintTerm(f"X.lget(u_{var.name}, {idx.code}, L, {s})", idx.regs | {("u", var.name)},
                                 var.name),))
        return Val(f"X.lget(v_{var.name}, {idx.code}, L, {s})", var.ctype, taint, regs=reads)

    def read_lvalue(self, target, node):
        if isinstance(target, RegisterTarget):
            return self.read(target.var)
        if isinstance(target, LocalStructTarget):
            return self.read_struct(target.sym, node)
        if isinstance(target, LocalStructElementTarget):
            return self.read_struct_element(target, node)
        if isinstance(target, LocalElementTarget):
            return self.local_element(target.var, target.index, node)
        return self.load(target.address, target.ctype, target.space, node)

    def write_lvalue(self, target, val, node):
        if isinstance(target, RegisterTarget):
            self.write(target.var, self.convert_for_assign(val, target.ctype, node))
        elif isinstance(target, LocalStructTarget):
            self.write_struct(target.sym, val, node)
        elif isinstance(target, LocalStructElementTarget):
            val = self.same_struct(val, target.ctype, node)
            for f in target.ctype.fields:
                self.write_lvalue(LocalElementTarget(target.sym.members[f.name].var, target.index), val.parts[f.name],
                                  node)
        elif isinstance(target, LocalElementTarget):
            var, idx = target.var, target.index
            val = self.convert_for_assign(val, var.ctype, node)
            s = self.site(node, f"{var.source_name}[...]")
            self.emit(f"X.lset(v_{var.name}, {idx.code}, {val.code}, L, {s})",
                      reads=regs_of(idx, val) | {("v", var.name)})
            self.emit(f"X.lset(u_{var.name}, {idx.code}, ", TaintHole(val.taint, "X.DEFINED"), f", L, {s})",
                      reads=idx.regs | {("u", var.name)}, when_tracked=var.name)
            self.taint_flows.append((var.name, val.taint))
            self.mark_stored(var)
        else:
            if target.ctype.is_array:
                raise self.error(node, "cannot assign to an array", construct="assignment")
            if target.space == "constant":
                assigned = getattr(node, "lvalue", None) or getattr(node, "expr", None)
                if isinstance(assigned, c_ast.ID) or target.ctype.is_struct:
                    raise self.error(node, "expression must be a modifiable lvalue: this is __constant__ memory, "
                                           "which kernels can only read (the host writes it, through "
                                           "RawModule.get_global(name))", construct="__constant__")
                # c[i] = v: nvcc compiles it (warning: "Cannot store to pointer that points to constant
                # memory space"); what the GPU does is undefined: a read-only fault when it runs
                self.store(target.address, target.ctype, target.space,
                           self.convert_for_assign(val, target.ctype, node), node)
                return
            if target.ctype.is_struct:
                self.store_struct(target.address, target.ctype, target.space, val, node)
                return
            if target.address.ctype.is_pointer and target.address.ctype.const:
                raise self.error(node, f"this writes through a pointer to const {target.ctype}: the memory is "
                                       "read-only here (drop the const from the parameter to write it)",
                                 construct="const")
            self.store(target.address, target.ctype, target.space,
                       self.convert_for_assign(val, target.ctype, node), node)
