"""Calls: built-ins and sync points by table, __device__ functions inlined at each call."""
from pycparser import c_ast

from ..frontend import ctype as T
from .program import Var
from .aggregates import is_vector_maker
from .builtins import BUILTINS
from .memfuncs import ARRAY_FUNCTIONS, MEMORY_FUNCTIONS, NVCC_ONLY_FUNCTIONS
from .purity import has_boundary
from .sync_points import SYNC_POINTS
from .values import Sym, Val


class CallLowering:
    def visit_FuncCall(self, node):
        if isinstance(node.name, c_ast.StructRef):
            if self.is_group_expression(node.name.name):
                return self.method_call(node)    # a cooperative group's member function (groups.py)
            return self.struct_method_call(node)
        if isinstance(node.name, c_ast.UnaryOp) and node.name.op == "*":
            return self.pointer_call(node.name.expr, node)       # (*f)(args)
        if not isinstance(node.name, c_ast.ID):
            raise self.error(node, "this call is not in simcore's subset (call a function by its name or through "
                                   "a function pointer)", construct="call")
        name = node.name.name
        args = list(node.args.exprs) if node.args is not None else []
        if name in self.funcs and not self.declared(name):   # the module's own functions come first
            return self.inline_call(name, args, node)
        if self.declared(name):
            return self.pointer_call(node.name, node)             # f(args), f a function pointer
        if name == BAD_FUNCTION_POINTER:
            f = self.value(self.expr(args[0]))
            s = self.site(node, "call")
            self.emit(f"X.bad_function_pointer({f.code}, L, {s})", reads=f.regs)
            return Val("None", T.VOID)
        if name.startswith("__cg_"):
            return self.group_call(node, name)
        if is_vector_maker(name):
            return self.make_vector(name, args, node)
        if name in MEMORY_FUNCTIONS:
            return self.memory_function(name, args, node)       # memfuncs.py
        if name in NVCC_ONLY_FUNCTIONS:
            raise self.error(node, f'identifier "{name}" is undefined: nvcc has it, but NVRTC, which compiles '
                                   f"kernels for CuPy (and so for simcore's GPU backend), does not; call "
                                   f"{NVCC_ONLY_FUNCTIONS[name]}, which both have", construct=name)
        if name in ARRAY_FUNCTIONS:
            return self.array_function(name, args, node)
        row = SYNC_POINTS.get(name)
        if row is not None and id(node) in self.sync_call_names:
            name = self.sync_call_names[id(node)][1]   # lowered from a group's method: named as written
        row = row or BUILTINS.get(name)
        if row is None:
            raise self.error(node, f"unknown function '{name}' (not a __device__ function of this module "
                                   "and not a CUDA built-in simcore knows)", construct=name)
        return row.lower(self, name, args, node)

    def nargs(self, name, args, n, node):
        if isinstance(n, int):
            n = (n,)
        if len(args) not in n:
            raise self.error(node, f"{name} takes {' or '.join(map(str, n))} argument(s), got {len(args)}",
                             construct=name)

    def eval_args(self, args, node=None, local_pointers=False):
        """Evaluate arguments left to right; spill earlier ones if a later one ends the block.
        local_pointers: `&x` of a local variable and local arrays may be passed (to an inlined
        __device__ function); built-ins need real addresses."""
        vals = []
        for k, a in enumerate(args):
            v = self.value(self.expr(a))
            if (v.ref is not None or v.local_var is not None) and not local_pointers:
                self.escape(v.ref if v.ref is not None else v.local_var, self.error(
                    a, "a pointer to a local variable can only be passed to a __device__ function of the module "
                       "(built-ins need shared or global memory)", construct="&"))
            if any(has_boundary(later) for later in args[k + 1:]) and v.ref is None and v.local_var is None:
                # a register: re-read below, in the block we end up in
                v = self.struct_sym_copy(v, a) if v.ctype.is_struct else self.reg_tmp(v)
            vals.append(v)
        return [self.read(v) if isinstance(v, Var) else self.read_struct(v, node) if isinstance(v, Sym) else v
                for v in vals]

    # ----------------------------------------------------------------- function pointers
    def declared(self, name):
        """Is `name` a variable in scope (not a function of the module)?"""
        return any(name in scope for scope in self.scopes) or name in self.globals

    def function_number(self, name):
        """A __device__ function as a value (`f`, `&f`): its number, 1, 2, ... (0 is null)."""
        return self.const(1 + sorted(self.funcs).index(name), T.FUNCTION_POINTER)

    def pointer_call(self, fp_node, node):
        """A call through a function pointer: a branch per function of the module that takes as many
        arguments, each inlined, on the pointer's number; another number (null) faults there."""
        args = list(node.args.exprs) if node.args is not None else []
        busy = {entry[0] for entry in self.inline_stack}
        cands = [n for n in sorted(self.funcs) if n not in busy and len(_params(self.funcs[n])) == len(args)]
        fp = self.value(self.expr(fp_node))
        if not (fp.ctype.is_scalar and fp.ctype.is_integer) or fp.ref is not None:
            raise self.error(node, "called object is not a function or function pointer", construct="call")
        scope = {"__fp": Sym("var", T.FUNCTION_POINTER, var=self.reg_tmp(fp, T.FUNCTION_POINTER))}
        names = []
        for k, a in enumerate(args):         # evaluated once, before the branch
            v = self.value(self.expr(a))
            key = f"__fparg{k}"
            if v.ref is not None:
                scope[key] = Sym("ref", T.Pointer(v.ref.ctype), ref=v.ref)
            elif v.local_var is not None:
                scope[key] = Sym("local_array", v.ctype, var=v.local_var)
            elif v.ctype.is_struct:
                scope[key] = self.struct_sym_copy(v, a)
            else:
                scope[key] = Sym("var", v.ctype, var=self.reg_tmp(v))
            names.append(key)
        ret = self.ctype_of(self.funcs[cands[0]].decl.type.type) if cands else T.VOID
        coord = node.coord
        result = None
        if not ret.is_void:
            result = self.struct_sym("__fpr", ret, node) if ret.is_struct else \
                Sym("var", ret, var=self.new_var("fp_result", ret))
            scope["__fpr"] = result
        chain = c_ast.FuncCall(c_ast.ID(BAD_FUNCTION_POINTER, coord), c_ast.ExprList([c_ast.ID("__fp", coord)]), coord)
        for n in reversed(cands):
            call = c_ast.FuncCall(c_ast.ID(n, coord), c_ast.ExprList([c_ast.ID(x, coord) for x in names], coord), coord)
            if result is not None and self.ctype_of(self.funcs[n].decl.type.type) is not T.VOID:
                call = c_ast.Assignment("=", c_ast.ID("__fpr", coord), call, coord)
            number = c_ast.Constant("int", str(self.function_number(n).const), coord)
            test = c_ast.BinaryOp("==", c_ast.ID("__fp", coord), number, coord)
            chain = c_ast.If(test, call, chain, coord)
        self.scopes.append(scope)
        try:
            self.stmt(chain)
        finally:
            self.scopes.pop()
        if result is None:
            return Val("None", T.VOID)
        return self.read_struct(result, node) if ret.is_struct else self.read(result.var)

    def is_group_expression(self, node):
        """Does `node` name a cooperative group (`block`, `cg::this_thread_block()`)?"""
        if isinstance(node, c_ast.ID):
            return self.lookup(node.name, node).kind == "group"
        return isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) \
            and node.name.name.startswith("__cg_")

    def struct_method_call(self, node):
        """`s.f(args)` / `p->f(args)`: the member function (preprocess.py made it `Tag__f(Tag *this,
        ...)`) inlined with `this` the object's address (a compile-time pointer for a local)."""
        ref = node.name
        method = ref.field.name
        args = list(node.args.exprs) if node.args is not None else []
        if ref.type == "->":
            this = self.value(self.expr(ref.name))
        else:
            this = self.visit_UnaryOp(c_ast.UnaryOp("&", ref.name, ref.coord))
        struct = this.ref.ctype if this.ref is not None else this.ctype.base if this.ctype.is_pointer else None
        if struct is None or not struct.is_struct:
            raise self.error(node, f"request for member function '{method}' in something that is not a struct "
                                   f"({this.ref.ctype if this.ref is not None else this.ctype})",
                             construct="member function")
        fname = self.pre.methods.get(struct.name, {}).get(method)
        if fname is None:
            via = self.base_holding(struct, method, "method")
            if via is not None:        # a base struct's member function: on s.__base_B
                base = c_ast.StructRef(ref.name, ref.type, c_ast.ID(via, ref.coord), ref.coord)
                return self.struct_method_call(c_ast.FuncCall(c_ast.StructRef(base, ".", ref.field, ref.coord),
                                                              node.args, node.coord))
        if fname is None or fname not in self.funcs:
            raise self.error(node, f"{struct} has no member function '{method}'", construct=method)
        if this.ref is None and this.const is None and any(has_boundary(a) for a in args):
            this = self.read(self.reg_tmp(this))     # kept across the blocks its arguments end
        return self.inline_call(fname, args, node, this=this)

    def inline_call(self, name, args, node, this=None):
        """A __device__ function inlined; this: for a member function, the object's address (the
        first parameter's value, evaluated by the caller)."""
        fdef = self.funcs[name]
        if any(entry[0] == name for entry in self.inline_stack):
            raise self.error(node, f"recursive call to {name}: recursion is not in simcore's subset",
                             construct="recursion")
        fdecl = fdef.decl.type
        for p in (fdecl.args.params if fdecl.args else []):
            if isinstance(p, c_ast.ID):
                raise self.error(p, f"parameter '{p.name}' of {name} has no type (write e.g. int {p.name})",
                                 construct=p.name)
        params = [p for p in (fdecl.args.params if fdecl.args else []) if not _is_void(p)]
        shown = name.replace("__", "::", 1) if this is not None else name
        if len(params) - (this is not None) != len(args):
            raise self.error(node, f"{shown} takes {len(params) - (this is not None)} argument(s), got {len(args)}",
                             construct=shown)
        scope = {}
        if this is not None:
            args = [None] + args           # the object: params[0] is `this`
        groups = [k for k, p in enumerate(params) if self.is_group_decl(p)]   # cooperative groups: by name
        for k in groups:
            self.bind_group_param(scope, params[k], args[k], node)
        params = [p for k, p in enumerate(params) if k not in groups]
        vals = self.eval_args([a for k, a in enumerate(args) if k not in groups and a is not None], node,
                              local_pointers=True)
        if this is not None:
            vals = [this] + vals
        ret_type = self.ctype_of(fdecl.type)
        for p, v in zip(params, vals):
            pt = self.ctype_of(p.type)
            if pt.is_void:
                raise self.error(p, f"parameter '{p.name}' of {name} has type void: a parameter cannot be void "
                                    "(only f(void) means no parameters)", construct="parameter")
            if pt.is_array:
                pt = T.decay(pt)
            if v.ref is not None:            # &x: the parameter is the caller's variable
                scope[p.name] = self.bind_pointer_to_local(p.name, pt, v, node)
                continue
            if v.local_var is not None:      # a local array: the parameter names it
                if not (pt.is_pointer and (pt.base == v.ctype.base or pt.base.is_void)):
                    raise self.error(node, f"cannot pass {v.ctype} as parameter '{p.name}' ({pt}) of {name}",
                                     construct=name)
                scope[p.name] = Sym("local_array", v.ctype, var=v.local_var)
                continue
            if self.decl_key(p) in self.addressable or T.has_union(pt):   # `&param` escapes, or a union:
                sym = self.declare_addressable_local(p, pt, init=False)    # the copy in local memory
                addr = self.module_var_address(sym)
                if pt.is_struct:
                    self.store_struct(addr, pt, "local", v, node)
                else:
                    self.store(addr, pt, "local", self.convert_for_assign(v, pt, node), node)
                scope[p.name] = sym
                continue
            if pt.is_struct:                 # by value: a copy in registers
                sym = self.struct_sym(f"{name}_{p.name}", pt, node)
                self.note_decl(p, sym)
                self.write_struct(sym, v, node)
                scope[p.name] = sym
                continue
            var = self.new_var(f"{name}_{p.name}", pt, space=v.space)
            self.note_decl(p, var)
            self.write(var, self.convert_for_assign(v, pt, node))
            scope[p.name] = Sym("var", pt, var=var)
        if ret_type.is_void:
            ret_var = None
        elif ret_type.is_struct:
            ret_var = self.struct_sym(f"{name}_ret", ret_type, node)
        else:
            ret_var = self.new_var(f"{name}_ret", ret_type)
        ret_block = self.new_block()
        saved_scopes, saved_loops = self.scopes, self.loops
        self.scopes, self.loops = [scope], []
        self.inline_stack.append((name, ret_var, ret_block, node.coord.line if node.coord else 0))
        self.stmt(fdef.body)
        self.inline_stack.pop()
        self.scopes, self.loops = saved_scopes, saved_loops
        self.goto(ret_block)
        self.start(ret_block)
        if ret_var is None:
            return Val("None", T.VOID)
        if isinstance(ret_var, Sym):
            return self.read_struct(ret_var, node)
        return self.read(ret_var)


def _is_void(param):
    """The `void` of `f(void)`."""
    return (isinstance(param, c_ast.Typename) and isinstance(param.type, c_ast.TypeDecl)
            and isinstance(param.type.type, c_ast.IdentifierType) and T.from_names(param.type.type.names) is T.VOID)


def _params(fdef):
    decl = fdef.decl.type
    return [p for p in (decl.args.params if decl.args else []) if not _is_void(p)]


BAD_FUNCTION_POINTER = "__simcore_bad_function_pointer"
