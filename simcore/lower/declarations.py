"""Declarations: scalars and local arrays become registers, __shared__ arrays get a region."""
from pycparser import c_ast

from ..frontend import ctype as T
from .program import SharedArray
from .values import Sym

# CUDA's limit on local memory per thread (Programming Guide, technical specifications, compute
# capability 2.0 and later). nvcc compiles a bigger frame; it is the launch that cannot get it.
# simcore refuses at compile time, before allocating the arrays for every lane.
LOCAL_MEMORY_PER_THREAD = 512 * 1024


def is_auto(node):
    """Is this declarator's type C++'s `auto` (`auto x`, `const auto x`, `auto *p`)?"""
    while isinstance(node, c_ast.PtrDecl):
        node = node.type
    return isinstance(node, c_ast.TypeDecl) and isinstance(node.type, c_ast.IdentifierType) \
        and node.type.names == [T.AUTO_TYPE]


class DeclarationLowering:
    def visit_DeclList(self, node):
        for d in node.decls:
            self.visit_Decl(d)

    def visit_Decl(self, node):
        if isinstance(node.type, c_ast.FuncDecl):
            raise self.error(node, "declare functions at file scope", construct="function declaration")
        storage = node.storage or []
        if self.is_group_decl(node):           # a cooperative group: a name, not a register (groups.py)
            return self.declare_group(node)
        if node.name is None and isinstance(node.type, (c_ast.Struct, c_ast.Union)):
            self.ctype_of(node.type)        # a struct defined inside a function
            return
        if "auto" in storage or "register" in storage:
            what = "__constant__" if "auto" in storage else "__device__"
            raise self.error(node, f"{what} variables must be declared at file scope, outside every function",
                             construct=what)
        if is_auto(node.type):
            return self.declare_auto(node)
        ctype = self.ctype_of(node.type)
        if "_Thread_local" in storage:          # __shared__ (the preprocessor's spelling)
            self.scopes[-1][node.name] = self.declare_shared(node, ctype, "extern" in storage)
            return
        if "extern" in storage:
            raise self.error(node, "extern variables are not in simcore's subset (only extern __shared__)",
                             construct="extern")
        if ctype.is_void:
            raise self.error(node, "a variable cannot be void", construct="void")
        if self.decl_key(node) in self.addressable or T.has_union(ctype):   # its address escapes, or its
            # bytes are read as another type (a union): in local memory
            self.declare_addressable_local(node, ctype)
            return
        if ctype.is_array:
            self.declare_local_array(node, ctype)
            return
        if ctype.is_struct:
            self.note_decl(node, self.declare_local_struct(node, ctype))
            return
        init = None
        if node.init is not None:
            if isinstance(node.init, c_ast.InitList):
                raise self.error(node.init, "a scalar cannot take { ... }", construct="initializer")
            init = self.value(self.expr(node.init))
            if init.ref is not None:             # int *p = &x;
                self.scopes[-1][node.name] = self.bind_pointer_to_local(node.name, ctype, init, node)
                return
            if init.local_var is not None and ctype.is_pointer:     # int *p = arr; (a local array)
                self.scopes[-1][node.name] = self.bind_pointer_to_local_array(ctype, init, node)
                return
        var = self.new_var(node.name, ctype, space=init.space if init is not None else None)
        self.note_decl(node, var)
        self.scopes[-1][node.name] = Sym("var", ctype, var=var)
        if init is not None:
            self.write(var, self.convert_for_assign(init, ctype, node))
        else:
            self.mark_undefined(var)

    def declare_auto(self, node):
        """`auto x = expr;` (`auto *p = ...`, `const auto`): x has the initializer's type (arrays
        decay, as C++ deduces); the initializer is evaluated once."""
        if node.init is None or isinstance(node.init, c_ast.InitList):
            raise self.error(node, f"'auto {node.name}' needs an initializer (auto x = expr;) to deduce its "
                                   "type from", construct="auto")
        if "_Thread_local" in (node.storage or []) or "extern" in (node.storage or []):
            raise self.error(node, "auto is deduced only for local variables", construct="auto")
        v = self.value(self.expr(node.init))
        ctype = v.ctype if v.local_var is None else T.Pointer(v.ctype.base)
        if isinstance(node.type, c_ast.PtrDecl) and not ctype.is_pointer:
            raise self.error(node, f"'auto *{node.name}' needs a pointer, but the initializer is a {ctype}",
                             construct="auto")
        if ctype.is_void:
            raise self.error(node, f"cannot deduce a type for '{node.name}' from a void expression", construct="auto")
        if self.decl_key(node) in self.addressable:
            sym = self.declare_addressable_local(node, ctype, init=False)
            self.scopes[-1][node.name] = sym
            self.cur.lines.add(node.coord.line)
            addr = self.module_var_address(sym)
            if ctype.is_struct:
                self.store_struct(addr, ctype, "local", v, node)
            else:
                self.store(addr, ctype, "local", self.convert_for_assign(v, ctype, node), node)
        elif ctype.is_struct:
            sym = self.struct_sym(node.name, ctype, node)
            self.note_decl(node, sym)
            self.scopes[-1][node.name] = sym
            self.cur.lines.add(node.coord.line)
            self.write_struct(sym, v, node)
        elif v.ref is not None:
            self.scopes[-1][node.name] = self.bind_pointer_to_local(node.name, ctype, v, node)
        elif v.local_var is not None:
            self.scopes[-1][node.name] = self.bind_pointer_to_local_array(ctype, v, node)
        else:
            var = self.new_var(node.name, ctype, space=v.space)
            self.note_decl(node, var)
            self.scopes[-1][node.name] = Sym("var", ctype, var=var)
            self.write(var, self.convert_for_assign(v, ctype, node))

    def reserve_local_memory(self, node, ctype):
        """Count local array `node` (of type `ctype`) against the thread's local memory."""
        self.local_bytes += ctype.size
        if self.local_bytes > LOCAL_MEMORY_PER_THREAD:
            raise self.error(node, f"local array '{node.name}' brings this kernel's local arrays to "
                                   f"{self.local_bytes:,} bytes per thread; CUDA allows at most 512 KB "
                                   f"({LOCAL_MEMORY_PER_THREAD:,} bytes) of local memory per thread",
                             construct="local memory")

    def declare_local_array(self, node, ctype):
        if ctype.length is None:
            raise self.error(node, f"local array '{node.name}' needs a length", construct="array")
        if ctype.base.is_struct and ctype.length is not None:
            self.declare_local_struct_array(node, ctype)
            return
        if ctype.base.is_array or not ctype.base.is_scalar:
            raise self.error(node, "local arrays must be one-dimensional arrays of numbers",
                             construct="local array")
        self.reserve_local_memory(node, ctype)
        var = self.new_var(node.name, ctype.base, (ctype.length,))
        self.note_decl(node, var)
        self.scopes[-1][node.name] = Sym("local_array", ctype, var=var)
        self.cur.lines.add(node.coord.line)
        if node.init is None:
            return
        if not isinstance(node.init, c_ast.InitList):
            raise self.error(node.init, "initialise a local array with { ... }", construct="initializer")
        items = [self.cast(self.value(self.expr(e)), ctype.base) for e in node.init.exprs]
        if len(items) > ctype.length:
            raise self.error(node.init, "too many initializers", construct="initializer")
        row = ("v", var.name)     # a partial update of the row: it is loaded first
        for k, item in enumerate(items):
            self.emit(f"v_{var.name}[:, {k}] = {item.code}", reads=item.regs | {row})
        if len(items) < ctype.length:
            self.emit(f"v_{var.name}[:, {len(items)}:] = 0", reads=frozenset({row}))
        self.mark_stored(var)

    def declare_shared(self, node, ctype, dynamic):
        if dynamic:
            if not ctype.is_array or ctype.length is not None:
                raise self.error(node, "extern __shared__ must be an unsized array: extern __shared__ float s[];",
                                 construct="extern __shared__")
            for s in self.shared:
                if s.dynamic:      # every extern __shared__ array names the same bytes
                    return Sym("shared", ctype, shared=s)
            arr = SharedArray(node.name, ctype.base, 0, len(self.shared) + 1, True, node.coord.line)
        else:
            if ctype.is_array and ctype.length is None:
                raise self.error(node, "a __shared__ array needs a size (or use extern __shared__)",
                                 construct="__shared__")
            if node.init is not None:
                raise self.error(node, "__shared__ variables cannot have an initializer", construct="__shared__")
            elem = ctype
            while elem.is_array:
                elem = elem.base
            arr = SharedArray(node.name, elem, ctype.size, len(self.shared) + 1, False, node.coord.line)
            if not ctype.is_array:
                ctype = T.Array(ctype, 1)
                arr.scalar = True
        self.shared.append(arr)
        if "volatile" in (node.quals or []):     # its loads and stores are strong (the race checks)
            ctype = T.volatile_array(ctype)
        return Sym("shared", ctype, shared=arr, scalar=not isinstance(node.type, c_ast.ArrayDecl))
