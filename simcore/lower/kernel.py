"""One __global__ kernel: parameters, body, the dataflow pass, block numbering -> Program."""
import numpy as np
from pycparser import c_ast

from ..frontend import ctype as T
from .program import Exit, Param, Program
from .code import resolve
from .dataflow import misaligned_registers, sites_feeding, tracked_registers
from .reconvergence import number_blocks
from .values import Sym


def lower_kernel(lowerer, pre, fdef, global_decls):
    """Lower fdef with a fresh `lowerer` -> (Program without compiled code, constants)."""
    low = lowerer
    for name, decl in global_decls.items():
        storage = decl.storage or []
        if "_Thread_local" in storage:
            low.globals[name] = low.declare_shared(decl, low.ctype_of(decl.type), "extern" in storage)
        elif "auto" in storage or "register" in storage:       # __constant__ / __device__
            var, sym = low.declare_module_var(decl, len(low.module_vars))
            low.module_vars.append(var)
            low.globals[name] = sym
        elif "const" in (decl.quals or []):                     # const int N = 256;
            low.globals[name] = low.file_constant(decl)
        else:                                                   # int gB = 200; (the host's)
            low.globals[name] = Sym("host_var", None)
    params = kernel_params(low, fdef)
    low.stmt(fdef.body)
    low.close(Exit())
    tracked = tracked_registers(low.taint_flows)
    unaligned = misaligned_registers(low.alignment_flows)
    for site in sites_feeding(low.value_flows, low.loaded_by, low.cas_compares):
        low.sites[site].cas_guess = True
    for site in sites_feeding(low.value_flows, low.loaded_by, low.loop_exits):
        low.sites[site].waits = True
    for name in tracked:
        low.vars[name].tracked = True
    for b in low.blocks:
        resolve(b, low.stmts[b.id], tracked, unaligned)
    prog = Program(fdef.decl.name, params, low.blocks, 0, low.vars, low.shared, low.sync_sites, low.sites,
                   pre.lines)
    prog.value_flows, prog.loaded_by = low.value_flows, low.loaded_by     # for later questions (steering_sites)
    if low.mixed_spaces:
        # a pointer that points to shared or global memory, depending on the path taken: its
        # accesses were noted under one space; the race granule of each must cover them all
        low.global_sizes |= low.shared_sizes
        low.shared_sizes |= low.global_sizes
    prog.global_access_size = min(low.global_sizes) if low.global_sizes else 4
    prog.shared_access_size = min(low.shared_sizes) if low.shared_sizes else 4
    prog.uses_taint = bool(tracked) or low.uses_taint
    prog.fence_scopes = frozenset(low.fence_scopes)
    prog.module_vars = low.module_vars
    prog.local_vars = low.local_vars
    number_blocks(prog)
    return prog, low.consts


def kernel_params(low, fdef):
    params = []
    decl = fdef.decl.type
    for p in (decl.args.params if decl.args else []):
        if isinstance(p, c_ast.Typename):     # (void)
            continue
        if isinstance(p, c_ast.ID):
            raise low.error(p, f"parameter '{p.name}' has no type (write e.g. int {p.name})", construct=p.name)
        if isinstance(p, c_ast.EllipsisParam):
            raise low.error(p, "variadic kernels are not supported", construct="...")
        t = low.ctype_of(p.type)
        if t.is_void:
            raise low.error(p, f"parameter '{p.name}' has type void: a parameter cannot be void (only f(void) "
                               "means no parameters)", construct="parameter")
        if t.is_array:
            t = T.decay(t)
        if t.is_struct:
            params.append(low.struct_param(p, t))
            continue
        inner = None
        if t.is_pointer and t.base.is_pointer:          # T **: a table of addresses (memory.PointerTable)
            space = "global"
            if not (t.base.base.is_scalar or t.base.base.is_struct):
                raise low.error(p, f"parameter '{p.name}' must point to pointers to numbers or structs",
                                construct="parameter")
            dtype, inner = np.uint64, np.dtype(t.base.base.dtype)
        elif t.is_pointer:
            space = "global"
            if not (t.base.is_scalar or t.base.is_struct):
                raise low.error(p, f"parameter '{p.name}' must point to numbers or structs", construct="parameter")
            dtype = t.base.dtype
        else:
            space = None
            dtype = t.dtype
        var = low.new_var(p.name, t, space=space)
        var.param = True
        low.scopes[-1][p.name] = Sym("var", t, var=var)
        params.append(Param(p.name, str(t), t.is_pointer, np.dtype(dtype), var.name, inner))
    return params
