"""Calls: built-ins and sync points by table, __device__ functions inlined at each call."""
from pycparser import c_ast

from .. import ctype as T
from ..program import Var
from .aggregates import is_vector_maker
from .builtins import BUILTINS
from .memfuncs import ARRAY_FUNCTIONS, MEMORY_FUNCTIONS
from .purity import has_boundary
from .sync_points import SYNC_POINTS
from .values import Sym, Val


class CallLowering:
    def visit_FuncCall(self, node):
        if isinstance(node.name, c_ast.StructRef):
            return self.method_call(node)        # a cooperative group's member function (groups.py)
        if not isinstance(node.name, c_ast.ID):
            raise self.error(node, "function pointers are not in simcore's subset", construct="call")
        name = node.name.name
        args = list(node.args.exprs) if node.args is not None else []
        if name in self.funcs:          # the module's own functions come first
            return self.inline_call(name, args, node)
        if name.startswith("__cg_"):
            return self.group_call(node, name)
        if is_vector_maker(name):
            return self.make_vector(name, args, node)
        if name in MEMORY_FUNCTIONS:
            return self.memory_function(name, args, node)       # memfuncs.py
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
                raise self.error(a, "a pointer to a local variable can only be passed to a __device__ function "
                                    "of the module (built-ins need shared or global memory)", construct="&")
            if any(has_boundary(later) for later in args[k + 1:]) and v.ref is None and v.local_var is None:
                # a register: re-read below, in the block we end up in
                v = self.struct_sym_copy(v, a) if v.ctype.is_struct else self.reg_tmp(v)
            vals.append(v)
        return [self.read(v) if isinstance(v, Var) else self.read_struct(v, node) if isinstance(v, Sym) else v
                for v in vals]

    def inline_call(self, name, args, node):
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
        if len(params) != len(args):
            raise self.error(node, f"{name} takes {len(params)} argument(s), got {len(args)}", construct=name)
        scope = {}
        groups = [k for k, p in enumerate(params) if self.is_group_decl(p)]   # cooperative groups: by name
        for k in groups:
            self.bind_group_param(scope, params[k], args[k], node)
        params = [p for k, p in enumerate(params) if k not in groups]
        vals = self.eval_args([a for k, a in enumerate(args) if k not in groups], node, local_pointers=True)
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
            if pt.is_struct:                 # by value: a copy in registers
                sym = self.struct_sym(f"{name}_{p.name}", pt, node)
                self.write_struct(sym, v, node)
                scope[p.name] = sym
                continue
            var = self.new_var(f"{name}_{p.name}", pt, space=v.space)
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
