"""Lowering: the typed C AST of one kernel becomes a control-flow graph of basic blocks.

One visitor (`Lowerer`, a `visit_<Class>` method per pycparser node it lowers) walks the
AST. Expressions become numpy code (`Val`) emitted into the current basic block as data
(code.Stmt: text, registers read and assigned, holes); control flow, `&&`/`||`/`?:` with
side effects, and every sync point end the block. `__device__` functions are inlined at each
call (so recursion is refused). Then one dataflow pass decides which registers carry a taint
shadow and which pointers may be misaligned, the statements are resolved to Python text,
and blocks are numbered and given their reconvergence points.

Modules, one job each (a module imports only those listed before it, plus ctype, errors,
program):
    code           statements as data, holes, resolve to Python text + loads
    values         Val, Sym, assignment targets, constant arithmetic
    builder        blocks, registers, constants, scopes, sites, recorded flows
    types          C types of declarations, conversions
    access         lvalues, addresses, loads and stores
    aggregates     structs, vector types, pointers to locals, __device__/__constant__ variables
    builtins       the table of built-in functions (math, intrinsics, atomics, fences, printf)
    sync_points    the table of sync points, and lowering them to SyncSites
    purity         does an expression end a block / may it run on every lane
    expressions    operators, constants, names, ?:
    calls          built-in calls by table, __device__ functions inlined
    groups         Cooperative Groups: methods as tables of C text over the intrinsics
    memfuncs       memcpy/memset as C text over the arguments' elements
    declarations   scalars, local arrays, __shared__
    control        statements: if, loops, switch, break, continue, return
    dataflow       the register-tracking fixed point
    reconvergence  block order and immediate post-dominators
    kernel         one kernel: parameters, body, dataflow, numbering -> Program
"""
from ..errors import CompileError
from .access import AccessLowering
from .aggregates import AggregateLowering
from .builder import Builder, EscapingLocal
from .calls import CallLowering
from .control import ControlFlowLowering
from .declarations import DeclarationLowering
from .expressions import ExpressionLowering
from .groups import GroupLowering
from .kernel import lower_kernel
from .memfuncs import MemoryFunctionLowering
from .sync_points import SyncPointLowering
from .types import TypeLowering
from .values import DT


class Lowerer(ControlFlowLowering, DeclarationLowering, ExpressionLowering, CallLowering, MemoryFunctionLowering,
              GroupLowering, SyncPointLowering, AggregateLowering, AccessLowering, TypeLowering, Builder):
    """The visitor: state from Builder, one mixin per kind of construct."""


def lower(pre, fdef, funcs, global_decls, type_decls=()):
    """-> (Program without compiled code, constants) for one __global__ kernel.

    global_decls: file-scope variables (name -> c_ast.Decl: __shared__, __device__,
    __constant__, const numbers); type_decls: file-scope struct definitions and typedefs.
    Where the address of a local escapes (builder.EscapingLocal), the kernel is lowered again
    with that local in local memory; a kernel whose pointers never change is lowered once."""
    addressable = frozenset()
    while True:
        low = Lowerer(pre, funcs, None, addressable)
        try:
            low.define_types(type_decls)
            return lower_kernel(low, pre, fdef, global_decls)
        except EscapingLocal as e:      # that local lives in local memory: lower the kernel again
            addressable = addressable | {e.key}
        except RecursionError:
            line = low.stmt_line or None
            raise CompileError(TOO_DEEP, line=line, construct="nesting", source_line=low.source_line(line)) from None


TOO_DEEP = ("this code is nested too deeply for simcore (expressions or statements nested thousands of "
            "levels deep): split it with intermediate variables or functions")


__all__ = ["DT", "Lowerer", "TOO_DEEP", "lower"]
