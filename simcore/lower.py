"""Lowering: the typed C AST of one kernel becomes a control-flow graph of basic blocks.

One visitor walks pycparser's AST. Expressions become numpy code strings (`Val`) emitted into
the current basic block; control flow, `&&`/`||`/`?:` with side effects, and every sync point
end the block. `__device__` functions are inlined at each call (so recursion is refused).
A second small pass (`finish`) numbers blocks in reverse post-order and finds each branch's
immediate post-dominator: the reconvergence point where diverged lanes of a warp wait.
"""
from pycparser import c_ast

from . import ctype as T
from .errors import CompileError
from .program import Block, SharedArray, Site, SyncSite, Var

SPECIALS = {"threadIdx": "tid", "blockIdx": "bid", "blockDim": "bdim", "gridDim": "gdim"}
UNIFORM_SPECIALS = ("bdim", "gdim")     # the same for every thread: constants of the launch

MATH1 = {  # name -> (numpy function, result follows argument type)
    "sqrtf": "np.sqrt", "sqrt": "np.sqrt", "expf": "np.exp", "exp": "np.exp", "exp2f": "np.exp2",
    "exp2": "np.exp2", "logf": "np.log", "log": "np.log", "log2f": "np.log2", "log2": "np.log2",
    "log10f": "np.log10", "log10": "np.log10", "sinf": "np.sin", "sin": "np.sin", "cosf": "np.cos",
    "cos": "np.cos", "tanf": "np.tan", "tan": "np.tan", "tanhf": "np.tanh", "tanh": "np.tanh",
    "fabsf": "np.abs", "fabs": "np.abs", "floorf": "np.floor", "floor": "np.floor",
    "ceilf": "np.ceil", "ceil": "np.ceil", "truncf": "np.trunc", "trunc": "np.trunc",
    "roundf": "X.round", "round": "X.round", "rsqrtf": "X.rsqrt", "rsqrt": "X.rsqrt",
    "__expf": "np.exp", "__logf": "np.log", "__sinf": "np.sin", "__cosf": "np.cos",
    "atanf": "np.arctan", "atan": "np.arctan", "asinf": "np.arcsin", "acosf": "np.arccos",
    "__saturatef": "X.saturate", "rintf": "np.rint", "rint": "np.rint",
}
MATH2 = {"fminf": "np.fmin", "fmin": "np.fmin", "fmaxf": "np.fmax", "fmax": "np.fmax",
         "powf": "np.power", "pow": "np.power", "fmodf": "np.fmod", "fmod": "np.fmod",
         "atan2f": "np.arctan2", "atan2": "np.arctan2", "__fdividef": "np.divide",
         "copysignf": "np.copysign", "hypotf": "np.hypot"}
SINGLE_PRECISION = {n for n in list(MATH1) + list(MATH2) if n.endswith("f") or n.startswith("__")}

ATOMICS = {"atomicAdd": "add", "atomicSub": "sub", "atomicMin": "min", "atomicMax": "max",
           "atomicExch": "exch", "atomicAnd": "and", "atomicOr": "or", "atomicXor": "xor",
           "atomicInc": "inc", "atomicDec": "dec", "atomicCAS": "cas"}
SHUFFLES = {"__shfl_sync": "idx", "__shfl_up_sync": "up", "__shfl_down_sync": "down",
            "__shfl_xor_sync": "xor"}
VOTES = {"__ballot_sync": "ballot", "__all_sync": "all", "__any_sync": "any"}
BLOCK_REDUCE = {"__syncthreads": "", "__syncthreads_count": "popc", "__syncthreads_and": "and",
                "__syncthreads_or": "or"}
FENCES = ("__threadfence_block", "__threadfence", "__threadfence_system")
SYNC_CALLS = set(SHUFFLES) | set(VOTES) | set(BLOCK_REDUCE) | {
    "__syncwarp", "__simcore_bar_sync", "__simcore_bar_arrive"}

DT = {T.BOOL: "B1", T.CHAR: "I1", T.UCHAR: "U1", T.SHORT: "I2", T.USHORT: "U2", T.INT: "I4",
      T.UINT: "U4", T.LLONG: "I8", T.ULLONG: "U8", T.FLOAT: "F4", T.DOUBLE: "F8"}


class Val:
    """A value in the current block: numpy code, its C type, its taint code (or None)."""
    __slots__ = ("code", "ctype", "taint", "const", "space", "local_var", "aligned")

    def __init__(self, code, ctype, taint=None, const=None, space=None, aligned=False):
        self.code, self.ctype, self.taint, self.const, self.space = code, ctype, taint, const, space
        self.local_var = None
        self.aligned = aligned   # pointers: known to be aligned to their element size


class Sym:
    """A name in scope: a register, a shared array, or a device-function parameter."""
    __slots__ = ("kind", "ctype", "var", "shared", "space", "scalar")

    def __init__(self, kind, ctype, var=None, shared=None, space=None):
        self.kind, self.ctype, self.var, self.shared, self.space = kind, ctype, var, shared, space
        self.scalar = False


class Lowerer(c_ast.NodeVisitor):
    def __init__(self, pre, funcs, globals_, tracked, unaligned=frozenset(), typedefs=None):
        self.typedefs = typedefs or {}
        self.pre = pre
        self.funcs = funcs
        self.globals = globals_          # file-scope __shared__ declarations
        self.tracked = tracked           # register names that carry a taint shadow
        self.new_tracked = set()
        self.unaligned = unaligned       # pointer registers that may hold misaligned addresses
        self.new_unaligned = set()
        self.blocks = []
        self.vars = {}
        self.shared = []
        self.sync_sites = []
        self.sites = []
        self.consts = {}
        self.counter = 0
        self.scopes = [{}]
        self.loops = []                  # (break block, continue block or None)
        self.inline_stack = []           # (function name, return var, return block, call line)
        self.global_sizes = set()
        self.shared_sizes = set()
        self.uses_taint = False
        self.cur = self.new_block()

    # ----------------------------------------------------------------- errors and sites
    def error(self, node, msg, construct=None):
        line = col = None
        if node is not None and getattr(node, "coord", None) is not None:
            line, col = node.coord.line, node.coord.column
        src = self.pre.lines[line - 1] if line and 0 < line <= len(self.pre.lines) else None
        return CompileError(msg, line=line, column=col, construct=construct, source_line=src)

    def site(self, node, what=""):
        line = node.coord.line if node is not None and node.coord else 0
        col = node.coord.column if node is not None and node.coord else 0
        self.sites.append(Site(line, col, self.pre.lines[line - 1] if 0 < line <= len(self.pre.lines) else "",
                               what))
        self.note_line(node)
        return len(self.sites) - 1

    def note_line(self, node):
        if node is not None and getattr(node, "coord", None) is not None and node.coord.line:
            self.cur.lines.add(node.coord.line)
            if not self.cur.first_line:
                self.cur.first_line = node.coord.line

    # ----------------------------------------------------------------- blocks and registers
    def new_block(self):
        self.block_ids = getattr(self, "block_ids", -1) + 1
        b = Block(self.block_ids)
        b._assigned = set()
        self.blocks.append(b)
        return b

    def start(self, block):
        self.cur = block

    def goto(self, target):
        if self.cur.term == ("exit",) and not getattr(self.cur, "_closed", False):
            self.cur.term = ("goto", target.id)
            self.cur._closed = True

    def close(self, term):
        if not getattr(self.cur, "_closed", False):
            self.cur.term = term
            self.cur._closed = True

    def emit(self, line):
        if getattr(self.cur, "_closed", False):
            # Code after return/break/continue: unreachable, but must still be valid. Park it.
            self.start(self.new_block())
        if not self.cur.lines and getattr(self, "stmt_line", 0):
            # e.g. the rest of a statement after a sync point: it belongs to that statement's line
            self.cur.lines.add(self.stmt_line)
            self.cur.first_line = self.cur.first_line or self.stmt_line
        self.cur.code.append(line)

    def fresh(self, prefix="t"):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def new_var(self, base, ctype, shape=(), space=None):
        name = f"{''.join(c if c.isalnum() else '_' for c in base)}_{len(self.vars)}"
        var = Var(name, ctype, shape, tracked=name in self.tracked, source_name=base)
        var.space = space
        self.vars[name] = var
        return var

    def read(self, var):
        # (codegen finds the registers a block must load by reading its code: see codegen._loads)
        taint = f"u_{var.name}" if var.tracked else None
        return Val(f"v_{var.name}", var.ctype, taint, space=getattr(var, "space", None),
                   aligned=var.ctype.is_pointer and var.name not in self.unaligned)

    def write(self, var, val):
        """Assign val (already of var's type) to a register."""
        self.emit(f"v_{var.name} = {val.code}")
        if var.ctype.is_pointer and not val.aligned:
            self.new_unaligned.add(var.name)
        if var.tracked:
            self.emit(f"u_{var.name} = {val.taint if val.taint else 'X.DEFINED'}")
        elif val.taint:
            self.new_tracked.add(var.name)
        b = self.cur
        b._assigned.add(var.name)
        if var.name not in b.stores:
            b.stores.append(var.name)

    def reg_tmp(self, val, ctype=None):
        var = self.new_var("tmp", ctype or val.ctype, space=val.space)
        self.write(var, self.cast(val, var.ctype) if ctype else val)
        return var

    def tmp(self, val):
        """Bind a value to a Python local so that it is evaluated once."""
        # Python names of temporaries are never rebound, so they need no copy; register
        # locals (v_x) are rebound on assignment, so bind the current value to a new name.
        if val.const is not None or (val.code.isidentifier() and not val.code.startswith(("v_", "u_"))):
            return val
        name = self.fresh("_t")
        self.emit(f"{name} = {val.code}")
        return Val(name, val.ctype, val.taint, space=val.space)

    def const(self, value, ctype):
        key = (repr(value), ctype.name)
        if key not in self.consts:
            self.consts[key] = (f"K{len(self.consts)}", value, ctype)
        return Val(self.consts[key][0], ctype, const=value)

    # ----------------------------------------------------------------- scopes
    def push(self):
        self.scopes.append({})

    def pop(self):
        self.scopes.pop()

    def lookup(self, name, node):
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if name in self.globals:
            return self.globals[name]
        raise self.error(node, f"'{name}' is not declared", construct=name)

    # ----------------------------------------------------------------- types
    def ctype_of(self, node, decl_node=None):
        """pycparser type node -> ctype (arrays keep their lengths)."""
        if isinstance(node, c_ast.TypeDecl):
            return self.ctype_of(node.type, decl_node)
        if isinstance(node, c_ast.IdentifierType):
            names = node.names
            if len(names) == 1 and names[0] in self.typedefs:
                names = self.typedefs[names[0]]
            t = T.from_names(names)
            if t is None:
                raise self.error(node, f"type '{' '.join(node.names)}' is not in simcore's subset",
                                 construct=" ".join(node.names))
            return t
        if isinstance(node, c_ast.PtrDecl):
            base = self.ctype_of(node.type, decl_node)
            const = "const" in (getattr(node.type, "quals", None) or [])
            return T.Pointer(base, const)
        if isinstance(node, c_ast.ArrayDecl):
            base = self.ctype_of(node.type, decl_node)
            length = None
            if node.dim is not None:
                length = self.const_int(node.dim)
                if length <= 0:
                    raise self.error(node, "array length must be positive", construct="array")
            return T.Array(base, length)
        if isinstance(node, c_ast.Typename):
            return self.ctype_of(node.type)
        if isinstance(node, c_ast.FuncDecl):
            raise self.error(node, "function pointers are not in simcore's subset", construct="function pointer")
        if isinstance(node, c_ast.Struct):
            raise self.error(node, "structs are not in simcore's subset", construct="struct")
        raise self.error(node, f"unsupported type {type(node).__name__}", construct=type(node).__name__)

    def const_int(self, node):
        """Evaluate an integer constant expression (array sizes, case labels)."""
        saved = self.cur
        scratch = self.new_block()
        self.start(scratch)
        try:
            v = self.expr(node)
        finally:
            self.start(saved)
            self.blocks.remove(scratch)
        if v.const is None or not isinstance(v.const, int):
            raise self.error(node, "this must be an integer constant (a number or a #define)",
                             construct="constant expression")
        return v.const

    # ----------------------------------------------------------------- conversions
    def cast(self, val, to):
        to = T.decay(to) if to.is_array else to
        frm = val.ctype
        if frm.is_array:
            frm = T.decay(frm)
            val = Val(val.code, frm, val.taint, val.const, val.space)
        if to.is_pointer or frm.is_pointer:
            if to.is_pointer and frm.is_pointer:
                tsize = 1 if to.base.is_void else to.base.size
                fsize = 1 if frm.base.is_void else frm.base.size
                return Val(val.code, to, val.taint, val.const, val.space,
                           aligned=val.aligned and tsize <= fsize)
            if to.is_pointer and frm.is_scalar and frm.is_integer:
                if val.const is not None:
                    return Val(val.code, to, val.taint, val.const)
                return Val(f"({val.code}).astype(I8)", to, val.taint)
            if frm.is_pointer and to.is_scalar and to.is_integer:
                return Val(f"({val.code}).astype({DT[to]})", to, val.taint)
            raise CompileError(f"cannot convert {frm} to {to}")
        if frm == to:
            return val
        if val.const is not None:
            return self.const(_convert_const(val.const, to), to)
        if to == T.BOOL:
            return Val(f"({val.code} != 0)", to, val.taint)
        if frm.is_float and to.is_integer:
            return Val(f"X.f2i({val.code}, {DT[to]})", to, val.taint)
        return Val(f"({val.code}).astype({DT[to]})", to, val.taint)

    def value(self, val):
        """An rvalue: arrays decay to pointers."""
        if val.ctype.is_array:
            return Val(val.code, T.decay(val.ctype), val.taint, val.const, val.space, aligned=val.aligned)
        return val

    @staticmethod
    def taint(*vals):
        ts = [v.taint for v in vals if v is not None and v.taint]
        if not ts:
            return None
        return ts[0] if len(ts) == 1 else "(" + " | ".join(ts) + ")"

    # ================================================================= statements
    def stmt(self, node):
        if node is None:
            return
        if not isinstance(node, (c_ast.Compound, c_ast.DeclList)):
            self.note_line(node)
            if getattr(node, "coord", None) is not None:
                self.stmt_line = node.coord.line
        method = getattr(self, "s_" + type(node).__name__, None)
        if method is None:
            raise self.error(node, f"{type(node).__name__} statements are not in simcore's subset",
                             construct=type(node).__name__)
        method(node)

    def s_Compound(self, node):
        self.push()
        for item in node.block_items or []:
            self.stmt(item)
        self.pop()

    def s_DeclList(self, node):
        for d in node.decls:
            self.s_Decl(d)

    def s_EmptyStatement(self, node):
        pass

    def s_Pragma(self, node):
        pass

    def s_Decl(self, node):
        if isinstance(node.type, c_ast.FuncDecl):
            raise self.error(node, "declare functions at file scope", construct="function declaration")
        storage = node.storage or []
        ctype = self.ctype_of(node.type)
        if "_Thread_local" in storage:
            self.scopes[-1][node.name] = self.declare_shared(node, ctype, "extern" in storage)
            return
        if "extern" in storage:
            raise self.error(node, "extern variables are not in simcore's subset (only extern __shared__)",
                             construct="extern")
        if ctype.is_array:
            if ctype.length is None:
                raise self.error(node, f"local array '{node.name}' needs a length", construct="array")
            if ctype.base.is_array or not ctype.base.is_scalar:
                raise self.error(node, "local arrays must be one-dimensional arrays of numbers",
                                 construct="local array")
            var = self.new_var(node.name, ctype.base, (ctype.length,))
            self.scopes[-1][node.name] = Sym("local_array", ctype, var=var)
            self.cur.lines.add(node.coord.line)
            if node.init is not None:
                if not isinstance(node.init, c_ast.InitList):
                    raise self.error(node.init, "initialise a local array with { ... }", construct="initializer")
                items = [self.cast(self.value(self.expr(e)), ctype.base) for e in node.init.exprs]
                if len(items) > ctype.length:
                    raise self.error(node.init, "too many initializers", construct="initializer")
                self.read(var)   # partial update of the row: load it first
                for k, item in enumerate(items):
                    self.emit(f"v_{var.name}[:, {k}] = {item.code}")
                if len(items) < ctype.length:
                    self.emit(f"v_{var.name}[:, {len(items)}:] = 0")
                self.mark_stored(var)
            return
        if ctype.is_void:
            raise self.error(node, "a variable cannot be void", construct="void")
        space = None
        init = None
        if node.init is not None:
            if isinstance(node.init, c_ast.InitList):
                raise self.error(node.init, "a scalar cannot take { ... }", construct="initializer")
            init = self.value(self.expr(node.init))
            space = init.space
        var = self.new_var(node.name, ctype, space=space)
        self.scopes[-1][node.name] = Sym("var", ctype, var=var)
        if init is not None:
            self.write(var, self.convert_for_assign(init, ctype, node))
        elif var.tracked:
            # Declared without a value: reading it before a write is undefined.
            self.read(var)
            self.emit(f"u_{var.name} = X.UNSET")
            self.mark_stored(var)
        else:
            self.new_tracked.add(var.name)

    def mark_stored(self, var):
        if var.name not in self.cur.stores:
            self.cur.stores.append(var.name)
        self.cur._assigned.add(var.name)

    def declare_shared(self, node, ctype, dynamic):
        if dynamic:
            if not ctype.is_array or ctype.length is not None:
                raise self.error(node, "extern __shared__ must be an unsized array: extern __shared__ float s[];",
                                 construct="extern __shared__")
            for s in self.shared:
                if s.dynamic:
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
        sym = Sym("shared", ctype, shared=arr)
        sym.scalar = not node.type.__class__.__name__ == "ArrayDecl"
        return sym

    def convert_for_assign(self, val, to, node):
        val = self.value(val)
        if to.is_pointer and val.ctype.is_scalar and val.const != 0:
            raise self.error(node, f"cannot assign a {val.ctype} to a pointer ({to})", construct="assignment")
        if to.is_scalar and val.ctype.is_pointer:
            raise self.error(node, f"cannot assign a pointer to a {to}", construct="assignment")
        return self.cast(val, to)

    def s_If(self, node):
        cond = self.condition(node.cond)
        then_b, else_b, join = self.new_block(), self.new_block(), self.new_block()
        self.branch(cond, then_b, else_b if node.iffalse is not None else join, node)
        self.start(then_b)
        self.stmt(node.iftrue)
        self.goto(join)
        if node.iffalse is not None:
            self.start(else_b)
            self.stmt(node.iffalse)
            self.goto(join)
        else:
            self.blocks.remove(else_b)
        self.start(join)

    def branch(self, cond, t, f, node):
        line = node.coord.line if node is not None and node.coord else 0
        if cond.taint:
            s = self.site(node, "a branch condition")
            self.emit(f"X.use_check({cond.taint}, L, {s}, 'decides a branch')")
        self.close(("branch", cond.code, t.id, f.id, line))

    def condition(self, node):
        v = self.value(self.expr(node))
        if v.ctype.is_pointer:
            return Val(f"({v.code} != 0)", T.BOOL, v.taint)
        if v.ctype == T.BOOL:
            return v
        return Val(f"({v.code} != 0)", T.BOOL, v.taint, None if v.const is None else bool(v.const))

    def s_While(self, node):
        head, body, done = self.new_block(), self.new_block(), self.new_block()
        self.goto(head)
        self.start(head)
        self.branch(self.condition(node.cond), body, done, node)
        self.loops.append((done, head))
        self.start(body)
        self.stmt(node.stmt)
        self.goto(head)
        self.loops.pop()
        self.start(done)

    def s_DoWhile(self, node):
        body, test, done = self.new_block(), self.new_block(), self.new_block()
        self.goto(body)
        self.loops.append((done, test))
        self.start(body)
        self.stmt(node.stmt)
        self.goto(test)
        self.loops.pop()
        self.start(test)
        self.branch(self.condition(node.cond), body, done, node)
        self.start(done)

    def s_For(self, node):
        self.push()
        if isinstance(node.init, c_ast.DeclList):
            self.s_DeclList(node.init)
        elif node.init is not None:
            self.expr(node.init)
        head, body, step, done = self.new_block(), self.new_block(), self.new_block(), self.new_block()
        self.goto(head)
        self.start(head)
        if node.cond is not None:
            self.branch(self.condition(node.cond), body, done, node)
        else:
            self.goto(body)
        self.loops.append((done, step))
        self.start(body)
        self.stmt(node.stmt)
        self.goto(step)
        self.loops.pop()
        self.start(step)
        if node.next is not None:
            self.expr(node.next)
        self.goto(head)
        self.start(done)
        self.pop()

    def s_Break(self, node):
        if not self.loops:
            raise self.error(node, "break outside a loop or switch", construct="break")
        self.goto(self.loops[-1][0])

    def s_Continue(self, node):
        target = next((c for b, c in reversed(self.loops) if c is not None), None)
        if target is None:
            raise self.error(node, "continue outside a loop", construct="continue")
        self.goto(target)

    def s_Return(self, node):
        if self.inline_stack:
            fname, ret_var, ret_block, _ = self.inline_stack[-1]
            if node.expr is not None:
                if ret_var is None:
                    raise self.error(node, f"{fname} returns void but a value is returned", construct="return")
                self.write(ret_var, self.convert_for_assign(self.expr(node.expr), ret_var.ctype, node))
            self.goto(ret_block)
        else:
            if node.expr is not None:
                raise self.error(node, "a __global__ kernel returns void", construct="return")
            self.close(("exit",))

    def s_Switch(self, node):
        v = self.tmp(self.value(self.expr(node.cond)))
        if not (v.ctype.is_scalar and v.ctype.is_integer):
            raise self.error(node.cond, "switch needs an integer", construct="switch")
        v = self.cast(v, T.promote(v.ctype))
        var = self.reg_tmp(v)
        items = node.stmt.block_items if isinstance(node.stmt, c_ast.Compound) else [node.stmt]
        cases = []
        for it in items or []:
            if isinstance(it, (c_ast.Case, c_ast.Default)):
                cases.append([it, []])
            elif cases:
                cases[-1][1].append(it)
            else:
                raise self.error(it, "statement before the first case label", construct="switch")
        done = self.new_block()
        bodies = [self.new_block() for _ in cases]
        default = done
        for (label, _), body in zip(cases, bodies):
            if isinstance(label, c_ast.Default):
                default = body
        for (label, _), body in zip(cases, bodies):
            if isinstance(label, c_ast.Case):
                value = self.const_int(label.expr)
                nxt = self.new_block()
                cv = self.read(var)
                self.branch(Val(f"({cv.code} == {self.const(value, v.ctype).code})", T.BOOL), body, nxt, label)
                self.start(nxt)
        self.goto(default)
        self.loops.append((done, None))
        for (label, stmts), body in zip(cases, bodies):
            self.start(body)
            for s in list(label.stmts or []) + stmts:
                self.stmt(s)
            idx = bodies.index(body)
            self.goto(bodies[idx + 1] if idx + 1 < len(bodies) else done)
        self.loops.pop()
        self.start(done)

    def s_Label(self, node):
        raise self.error(node, "labels and goto are not in simcore's subset", construct="label")

    def s_Goto(self, node):
        raise self.error(node, "goto is not in simcore's subset", construct="goto")

    def s_Case(self, node):
        raise self.error(node, "case label outside a switch", construct="case")

    s_Default = s_Case

    def s_Typedef(self, node):
        raise self.error(node, "typedef inside a kernel is not in simcore's subset", construct="typedef")

    def generic_stmt(self, node):
        self.expr(node)

    s_Assignment = s_UnaryOp = s_FuncCall = s_BinaryOp = s_ExprList = s_TernaryOp = s_Cast = \
        s_ID = s_Constant = s_ArrayRef = s_StructRef = generic_stmt

    # ================================================================= expressions
    def expr(self, node):
        self.note_line(node)
        method = getattr(self, "e_" + type(node).__name__, None)
        if method is None:
            raise self.error(node, f"{type(node).__name__} expressions are not in simcore's subset",
                             construct=type(node).__name__)
        return method(node)

    def e_Constant(self, node):
        text = node.value
        if node.type == "string":
            raise self.error(node, "string literals are not in simcore's subset", construct="string")
        if node.type == "char":
            body = text[1:-1]
            esc = {"\\n": 10, "\\t": 9, "\\0": 0, "\\\\": 92, "\\'": 39, '\\"': 34, "\\r": 13}
            return self.const(esc.get(body, ord(body[0]) if body else 0), T.CHAR)
        if node.type in ("float", "double") or (
                any(c in text for c in ".eEpP") and not text.lower().startswith("0x")):
            is_f = text[-1] in "fF"
            value = float(text.rstrip("fFlL"))
            return self.const(value, T.FLOAT if is_f else T.DOUBLE)
        low = text.lower()
        digits = low.rstrip("ul")
        suffix = low[len(digits):]
        if digits.startswith("0x"):
            value, base10 = int(digits, 16), False
        elif digits.startswith("0b"):
            value, base10 = int(digits, 2), False
        elif len(digits) > 1 and digits.startswith("0"):
            value, base10 = int(digits, 8), False
        else:
            value, base10 = int(digits), True
        unsigned = "u" in suffix
        longs = suffix.count("l")
        # C's rule: the first type of the list that can hold the value.
        order = []
        if not unsigned:
            order += [T.INT] if longs == 0 else []
            order += [] if base10 else ([T.UINT] if longs == 0 else [])
            order += [T.LLONG] + ([] if base10 else [T.ULLONG])
        else:
            order += ([T.UINT] if longs == 0 else []) + [T.ULLONG]
        for t in order:
            info = (2 ** (8 * t.size - (0 if t.kind == "u" else 1)))
            if value < info:
                return self.const(value, t)
        return self.const(value & (2 ** 64 - 1), T.ULLONG)

    def e_ID(self, node):
        name = node.name
        if name == "warpSize":
            return self.const(32, T.INT)
        if name in SPECIALS:
            raise self.error(node, f"use {name}.x, {name}.y or {name}.z", construct=name)
        sym = self.lookup(name, node)
        if sym.kind == "var":
            return self.read(sym.var)
        if sym.kind == "shared" and sym.scalar:
            addr = Val(self.const(_region_base(sym.shared.region), T.LLONG).code, T.Pointer(sym.ctype.base),
                       space="shared", aligned=True)
            return self.load(addr, sym.ctype.base, "shared", node)
        if sym.kind == "shared":
            arr = sym.shared
            return Val(self.const(_region_base(arr.region), T.LLONG).code, sym.ctype, space="shared",
                       const=None, aligned=True)
        if sym.kind == "local_array":
            v = self.read(sym.var)
            out = Val(v.code, sym.ctype, v.taint)
            out.local_var = sym.var
            return out
        raise self.error(node, f"cannot use '{name}' here", construct=name)

    def e_StructRef(self, node):
        if isinstance(node.name, c_ast.ID) and node.name.name in SPECIALS and node.type == ".":
            field = node.field.name
            if field not in ("x", "y", "z"):
                raise self.error(node, f"{node.name.name} has fields x, y and z", construct=field)
            key = SPECIALS[node.name.name] + "_" + field
            if SPECIALS[node.name.name] in UNIFORM_SPECIALS:
                return Val(f"X.{key}", T.UINT)
            var = self.vars.get("sp_" + key) or self.new_special(key)
            return self.read(var)
        raise self.error(node, "structs and member access are not in simcore's subset (only threadIdx.x "
                               "and friends)", construct="member access")

    def new_special(self, key):
        var = Var("sp_" + key, T.UINT, (), False, key)
        var.space = None
        var.special = True
        self.vars[var.name] = var
        return var

    def e_Cast(self, node):
        to = self.ctype_of(node.to_type)
        v = self.value(self.expr(node.expr))
        if to.is_void:
            return Val("None", T.VOID)
        if to.is_pointer and v.ctype.is_scalar and v.ctype.is_float:
            raise self.error(node, "cannot cast a floating-point value to a pointer", construct="cast")
        if v.ctype.is_pointer and to.is_scalar and to.is_float:
            raise self.error(node, "cannot cast a pointer to a floating-point type", construct="cast")
        out = self.cast(v, to)
        if to.is_pointer:
            out.space = v.space
        return out

    def e_ExprList(self, node):
        v = None
        for e in node.exprs:
            v = self.expr(e)
        return v

    # ---- lvalues
    def lvalue(self, node):
        """-> ('var', Var) | ('elem', Var, index Val) | ('mem', address Val, ctype, space)"""
        if isinstance(node, c_ast.ID):
            sym = self.lookup(node.name, node)
            if sym.kind == "var":
                return ("var", sym.var)
            if sym.kind == "shared" and getattr(sym, "scalar", False):
                addr = Val(self.const(_region_base(sym.shared.region), T.LLONG).code, T.Pointer(sym.ctype.base),
                           space="shared", aligned=True)
                return ("mem", addr, sym.ctype.base, "shared")
            raise self.error(node, f"cannot assign to the array '{node.name}'", construct="assignment")
        if isinstance(node, c_ast.ArrayRef):
            base = self.expr(node.name)
            if getattr(base, "local_var", None) is not None:
                idx = self.index_value(node.subscript)
                return ("elem", base.local_var, idx)
            return ("mem",) + self.element_address(base, node)
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            p = self.value(self.expr(node.expr))
            if not p.ctype.is_pointer:
                raise self.error(node, "cannot dereference a non-pointer", construct="*")
            if p.ctype.base.is_void:
                raise self.error(node, "cannot dereference a void pointer", construct="*")
            return ("mem", p, p.ctype.base, p.space)
        if isinstance(node, c_ast.StructRef) and isinstance(node.name, c_ast.ID) and node.name.name in SPECIALS:
            raise self.error(node, f"{node.name.name} is read-only", construct=node.name.name)
        raise self.error(node, "this cannot be assigned to", construct="assignment")

    def index_value(self, node):
        i = self.value(self.expr(node))
        if not (i.ctype.is_scalar and i.ctype.is_integer):
            raise self.error(node, "an array index must be an integer", construct="index")
        return i

    def element_address(self, base, node):
        """Address of base[subscript]: base is an array (lvalue) or a pointer value."""
        i = self.index_value(node.subscript)
        if base.ctype.is_array:
            elem, space = base.ctype.base, base.space
        elif base.ctype.is_pointer:
            elem, space = base.ctype.base, base.space
        else:
            raise self.error(node, "subscripted value is not an array or pointer", construct="[]")
        if elem.is_void:
            raise self.error(node, "cannot index a void pointer", construct="[]")
        const = base.ctype.is_pointer and base.ctype.const
        addr = self.pointer_add(Val(base.code, T.Pointer(elem, const), base.taint, space=space,
                                    aligned=base.aligned), i, node)
        if elem.is_array:   # a row of a 2-D array: stays an lvalue array
            return Val(addr.code, elem, addr.taint, space=space, aligned=addr.aligned), elem, space
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
        return Val(code, p.ctype, self.taint(p, i), space=p.space, aligned=p.aligned)

    def load(self, addr, elem, space, node):
        if not elem.is_scalar:
            raise self.error(node, f"cannot load a value of type {elem}", construct="load")
        self.address_check(addr, node)
        s = self.site(node, "read")
        (self.shared_sizes if space == "shared" else self.global_sizes if space == "global"
         else self.shared_sizes | self.global_sizes).add(elem.size)
        if space == "global":
            name = self.fresh("_t")
            self.emit(f"{name} = X.ld({addr.code}, {DT[elem]}, L, {s}, {not addr.aligned})")
            return Val(name, elem)
        name = self.fresh("_t")
        self.emit(f"{name}, u{name} = X.ldu({addr.code}, {DT[elem]}, L, {s}, {not addr.aligned})")
        self.uses_taint = True
        return Val(name, elem, f"u{name}")

    def address_check(self, addr, node):
        if addr.taint:
            s = self.site(node, "an address")
            self.emit(f"X.use_check({addr.taint}, L, {s}, 'is used as an address')")

    def store(self, addr, elem, space, val, node):
        self.address_check(addr, node)
        s = self.site(node, "write")
        (self.shared_sizes if space == "shared" else self.global_sizes if space == "global"
         else self.shared_sizes | self.global_sizes).add(elem.size)
        taint = val.taint or "None"
        self.emit(f"X.st({addr.code}, {val.code}, {DT[elem]}, L, {s}, {taint}, {not addr.aligned})")

    def e_ArrayRef(self, node):
        base = self.expr(node.name)
        if getattr(base, "local_var", None) is not None:
            idx = self.index_value(node.subscript)
            var = base.local_var
            s = self.site(node, f"{var.source_name}[...]")
            name = self.fresh("_t")
            self.emit(f"{name} = X.lget(v_{var.name}, {idx.code}, L, {s})")
            taint = None
            if var.tracked:
                taint = f"X.lget(u_{var.name}, {idx.code}, L, {s})"
            elif base.taint:
                taint = base.taint
            return Val(name, var.ctype, self.taint(Val("", None, taint), idx))
        addr, elem, space = self.element_address(base, node)
        if elem.is_array:
            return addr
        return self.load(addr, elem, space, node)

    # ---- operators
    def e_UnaryOp(self, node):
        op = node.op
        if op == "sizeof":
            if isinstance(node.expr, c_ast.Typename):
                return self.const(self.ctype_of(node.expr).size, T.ULLONG)
            if isinstance(node.expr, c_ast.ID):
                sym = self.lookup(node.expr.name, node.expr)
                return self.const(sym.ctype.size, T.ULLONG)
            raise self.error(node, "sizeof works on a type or a variable name here", construct="sizeof")
        if op in ("++", "--", "p++", "p--"):
            return self.incdec(node)
        if op == "&":
            kind = self.lvalue(node.expr)
            if kind[0] != "mem":
                raise self.error(node, "pointers to local variables are not in simcore's subset "
                                       "(take the address of shared or global memory)", construct="&")
            addr, elem, space = kind[1], kind[2], kind[3]
            return Val(addr.code, T.Pointer(elem), addr.taint, space=space, aligned=addr.aligned)
        if op == "*":
            _, addr, elem, space = self.lvalue(node)
            return self.load(addr, elem, space, node)
        v = self.value(self.expr(node.expr))
        if op == "!":
            c = self.condition_of(v)
            if c.const is not None:
                return self.const(not c.const, T.BOOL)
            return Val(f"(~{c.code})", T.BOOL, c.taint)
        if not v.ctype.is_scalar:
            raise self.error(node, f"operator {op} needs a number", construct=op)
        t = T.promote(v.ctype)
        v = self.cast(v, t)
        if op == "+":
            return v
        if op == "-":
            if v.const is not None:
                return self.const(_convert_const(-v.const, t), t)
            return Val(f"(-{v.code})", t, v.taint)
        if op == "~":
            if not t.is_integer:
                raise self.error(node, "~ needs an integer", construct="~")
            if v.const is not None:
                return self.const(_convert_const(~v.const, t), t)
            return Val(f"(~{v.code})", t, v.taint)
        raise self.error(node, f"operator {op} is not in simcore's subset", construct=op)

    def condition_of(self, v):
        if v.ctype == T.BOOL:
            return v
        if v.const is not None:
            return self.const(bool(v.const), T.BOOL)
        return Val(f"({v.code} != 0)", T.BOOL, v.taint)

    def incdec(self, node):
        delta = 1 if "+" in node.op else -1
        post = node.op.startswith("p")
        target = self.lvalue(node.expr)
        old = self.tmp(self.read_lvalue(target, node))
        if old.ctype.is_pointer:
            new = self.pointer_add(old, self.const(delta, T.INT), node)
        else:
            t = T.common_type(old.ctype, T.INT)
            new = self.cast(self.binary_arith("+", self.cast(old, t), self.const(delta, t), node), old.ctype)
        new = self.tmp(new)
        self.write_lvalue(target, new, node)
        return old if post else new

    def read_lvalue(self, target, node):
        if target[0] == "var":
            return self.read(target[1])
        if target[0] == "elem":
            var, idx = target[1], target[2]
            s = self.site(node, f"{var.source_name}[...]")
            self.read(var)
            taint = f"X.lget(u_{var.name}, {idx.code}, L, {s})" if var.tracked else None
            return Val(f"X.lget(v_{var.name}, {idx.code}, L, {s})", var.ctype, taint)
        _, addr, elem, space = target
        return self.load(addr, elem, space, node)

    def write_lvalue(self, target, val, node):
        if target[0] == "var":
            var = target[1]
            self.write(var, self.convert_for_assign(val, var.ctype, node))
        elif target[0] == "elem":
            var, idx = target[1], target[2]
            val = self.convert_for_assign(val, var.ctype, node)
            s = self.site(node, f"{var.source_name}[...]")
            self.read(var)
            self.emit(f"X.lset(v_{var.name}, {idx.code}, {val.code}, L, {s})")
            if var.tracked:
                self.read(var)  # make sure u_ is loaded
                self.emit(f"X.lset(u_{var.name}, {idx.code}, {val.taint or 'X.DEFINED'}, L, {s})")
            elif val.taint:
                self.new_tracked.add(var.name)
            self.mark_stored(var)
        else:
            _, addr, elem, space = target
            if elem.is_array:
                raise self.error(node, "cannot assign to an array", construct="assignment")
            if addr.ctype.is_pointer and addr.ctype.const:
                raise self.error(node, f"this writes through a pointer to const {elem}: the memory is "
                                       "read-only here (drop the const from the parameter to write it)",
                                 construct="const")
            self.store(addr, elem, space, self.convert_for_assign(val, elem, node), node)

    def e_Assignment(self, node):
        rhs = self.value(self.expr(node.rvalue))
        spilled = self.reg_tmp(rhs) if has_boundary(node.lvalue) else None
        if spilled is None:
            rhs = self.tmp(rhs)
        target = self.lvalue(node.lvalue)
        if spilled is not None:
            rhs = self.read(spilled)
        if node.op == "=":
            ltype = self.lvalue_type(target)
            val = self.tmp(self.convert_for_assign(rhs, ltype, node))
            self.write_lvalue(target, val, node)
            return val
        op = node.op[:-1]
        old = self.tmp(self.read_lvalue(target, node))
        if old.ctype.is_pointer and op in "+-":
            new = self.pointer_add(old, rhs, node, sign=op)
        else:
            new = self.binary(op, old, rhs, node)
        new = self.tmp(self.convert_for_assign(new, old.ctype, node))
        self.write_lvalue(target, new, node)
        return new

    def lvalue_type(self, target):
        if target[0] in ("var", "elem"):
            return target[1].ctype
        return target[2]

    def e_BinaryOp(self, node):
        op = node.op
        if op in ("&&", "||"):
            return self.logical(node)
        left = self.value(self.expr(node.left))
        spilled = self.reg_tmp(left) if has_boundary(node.right) else None
        right = self.value(self.expr(node.right))
        if spilled is not None:
            left = self.read(spilled)
        return self.binary(op, left, right, node)

    def logical(self, node):
        left = self.condition_of(self.value(self.expr(node.left)))
        is_and = node.op == "&&"
        if is_pure(node.right):
            right = self.condition_of(self.value(self.expr(node.right)))
            if left.const is not None and right.const is not None:
                return self.const((left.const and right.const) if is_and else (left.const or right.const), T.BOOL)
            return Val(f"({left.code} {'&' if is_and else '|'} {right.code})", T.BOOL, self.taint(left, right))
        # Short-circuit for real: the right side may read memory or have side effects.
        result = self.new_var("logic", T.BOOL)
        self.write(result, left)
        rhs_b, join = self.new_block(), self.new_block()
        lv = self.read(result)
        if is_and:
            self.branch(lv, rhs_b, join, node)
        else:
            self.branch(lv, join, rhs_b, node)
        self.start(rhs_b)
        right = self.condition_of(self.value(self.expr(node.right)))
        self.write(result, right)
        self.goto(join)
        self.start(join)
        return self.read(result)

    def binary(self, op, a, b, node):
        if op in ("==", "!=", "<", ">", "<=", ">="):
            return self.compare(op, a, b, node)
        if a.ctype.is_pointer or b.ctype.is_pointer:
            if op == "+" and a.ctype.is_pointer and b.ctype.is_scalar and b.ctype.is_integer:
                return self.pointer_add(a, b, node)
            if op == "+" and b.ctype.is_pointer and a.ctype.is_scalar and a.ctype.is_integer:
                return self.pointer_add(b, a, node)
            if op == "-" and a.ctype.is_pointer and b.ctype.is_scalar and b.ctype.is_integer:
                return self.pointer_add(a, b, node, sign="-")
            if op == "-" and a.ctype.is_pointer and b.ctype.is_pointer:
                size = a.ctype.base.size
                return Val(f"(({a.code} - {b.code}) // {size})", T.LLONG, self.taint(a, b))
            raise self.error(node, f"operator {op} does not apply to pointers", construct=op)
        if not (a.ctype.is_scalar and b.ctype.is_scalar):
            raise self.error(node, f"operator {op} needs numbers", construct=op)
        if op in ("<<", ">>"):
            if not (a.ctype.is_integer and b.ctype.is_integer):
                raise self.error(node, f"operator {op} needs integers", construct=op)
            t = T.promote(a.ctype)
            a, b = self.cast(a, t), self.cast(b, t)
            if a.const is not None and b.const is not None:
                return self.const(_convert_const(_shift(op, a.const, b.const, t), t), t)
            fn = "np.left_shift" if op == "<<" else "np.right_shift"
            return Val(f"{fn}({a.code}, {b.code})", t, self.taint(a, b))
        t = T.common_type(a.ctype, b.ctype)
        a, b = self.cast(a, t), self.cast(b, t)
        return self.binary_arith(op, a, b, node)

    def binary_arith(self, op, a, b, node):
        t = a.ctype
        if op in ("&", "|", "^", "%") and not t.is_integer:
            raise self.error(node, f"operator {op} needs integers", construct=op)
        if a.const is not None and b.const is not None and not (op in "/%" and b.const == 0):
            return self.const(_convert_const(_fold(op, a.const, b.const, t), t), t)
        taint = self.taint(a, b)
        if op in ("/", "%") and t.is_integer:
            s = self.site(node, "division")
            fn = "X.idiv" if op == "/" else "X.imod"
            return Val(f"{fn}({a.code}, {b.code}, L, {s})", t, taint)
        if op not in ("+", "-", "*", "/", "&", "|", "^"):
            raise self.error(node, f"operator {op} is not in simcore's subset", construct=op)
        return Val(f"({a.code} {op} {b.code})", t, taint)

    def compare(self, op, a, b, node):
        if a.ctype.is_pointer or b.ctype.is_pointer:
            if a.ctype.is_scalar and a.const != 0 or b.ctype.is_scalar and b.const != 0:
                raise self.error(node, "cannot compare a pointer with a number", construct=op)
            return Val(f"({a.code} {op} {b.code})", T.BOOL, self.taint(a, b))
        t = T.common_type(a.ctype, b.ctype)
        a, b = self.cast(a, t), self.cast(b, t)
        if a.const is not None and b.const is not None:
            return self.const(eval(f"{a.const!r} {op} {b.const!r}"), T.BOOL)
        return Val(f"({a.code} {op} {b.code})", T.BOOL, self.taint(a, b))

    def e_TernaryOp(self, node):
        if is_pure(node.iftrue) and is_pure(node.iffalse):
            c = self.condition(node.cond)
            spilled = self.reg_tmp(c) if has_boundary(node.iftrue) or has_boundary(node.iffalse) else None
            a = self.value(self.expr(node.iftrue))
            a_spill = self.reg_tmp(a) if has_boundary(node.iffalse) else None
            b = self.value(self.expr(node.iffalse))
            if spilled is not None:
                c = self.read(spilled)
            if a_spill is not None:
                a = self.read(a_spill)
            t = self.result_type(a, b, node)
            a, b = self.cast(a, t), self.cast(b, t)
            if c.const is not None:
                return a if c.const else b
            taint = self.taint(c, a, b)
            out = Val(f"np.where({c.code}, {a.code}, {b.code})", t, taint, space=a.space or b.space,
                      aligned=a.aligned and b.aligned)
            if t.is_scalar:
                out.code = f"np.asarray({out.code}, dtype={DT[t]})"
            return out
        # The arms read memory or have effects: evaluate only the chosen arm, per lane.
        c = self.condition(node.cond)
        then_b, else_b, join = self.new_block(), self.new_block(), self.new_block()
        self.branch(c, then_b, else_b, node)
        self.start(then_b)
        a = self.tmp(self.value(self.expr(node.iftrue)))
        a_end = self.cur
        self.start(else_b)
        b = self.tmp(self.value(self.expr(node.iffalse)))
        t = self.result_type(a, b, node)
        result = self.new_var("sel", t, space=a.space or b.space)
        self.write(result, self.cast(b, t))
        self.goto(join)
        self.start(a_end)
        self.write(result, self.cast(a, t))
        self.goto(join)
        self.start(join)
        return self.read(result)

    def result_type(self, a, b, node):
        if a.ctype.is_pointer:
            return a.ctype
        if b.ctype.is_pointer:
            return b.ctype
        if a.ctype.is_void or b.ctype.is_void:
            raise self.error(node, "both arms of ?: need values", construct="?:")
        return T.common_type(a.ctype, b.ctype)

    # ---- calls
    def e_FuncCall(self, node):
        if not isinstance(node.name, c_ast.ID):
            raise self.error(node, "function pointers are not in simcore's subset", construct="call")
        name = node.name.name
        args = list(node.args.exprs) if node.args is not None else []
        if name in self.funcs:
            return self.inline_call(name, args, node)
        if name == "printf":
            return self.printf(args, node)
        method = getattr(self, "call_" + name, None)
        if name in SHUFFLES:
            return self.shuffle(name, args, node)
        if name in VOTES:
            return self.vote(name, args, node)
        if name in BLOCK_REDUCE:
            return self.block_barrier(name, args, node)
        if name in ATOMICS:
            return self.atomic(name, args, node)
        if name in MATH1 or name in MATH2:
            return self.math(name, args, node)
        if name in FENCES:
            self.nargs(name, args, 0, node)
            if name != "__threadfence_block":
                # device-wide fence: the race detector lets other blocks see this thread's earlier writes
                self.emit("X.threadfence(L)")
            return Val("None", T.VOID)
        if method is not None:
            return method(args, node)
        raise self.error(node, f"unknown function '{name}' (not a __device__ function of this module "
                               "and not a CUDA built-in simcore knows)", construct=name)

    def nargs(self, name, args, n, node):
        if isinstance(n, int):
            n = (n,)
        if len(args) not in n:
            raise self.error(node, f"{name} takes {' or '.join(map(str, n))} argument(s), got {len(args)}",
                             construct=name)

    def eval_args(self, args):
        """Evaluate arguments left to right; spill earlier ones if a later one ends the block."""
        vals = []
        for k, a in enumerate(args):
            v = self.value(self.expr(a))
            if any(has_boundary(later) for later in args[k + 1:]):
                v = self.reg_tmp(v)      # a register: re-read below, in the block we end up in
            vals.append(v)
        return [self.read(v) if isinstance(v, Var) else v for v in vals]

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
        params = [p for p in (fdecl.args.params if fdecl.args else [])
                  if not (isinstance(p, c_ast.Typename) and T.from_names(getattr(p.type.type, "names", [])) is T.VOID)]
        if len(params) != len(args):
            raise self.error(node, f"{name} takes {len(params)} argument(s), got {len(args)}", construct=name)
        vals = self.eval_args(args)
        ret_type = self.ctype_of(fdecl.type)
        scope = {}
        for p, v in zip(params, vals):
            pt = self.ctype_of(p.type)
            if pt.is_array:
                pt = T.decay(pt)
            var = self.new_var(f"{name}_{p.name}", pt, space=v.space)
            self.write(var, self.convert_for_assign(v, pt, node))
            scope[p.name] = Sym("var", pt, var=var)
        ret_var = None if ret_type.is_void else self.new_var(f"{name}_ret", ret_type)
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
        return self.read(ret_var)

    def sync_point(self, op, name, node, operands, result_ctype=None, **kw):
        """End the block at a sync point; operands are stored in registers for the engine."""
        regs = {}
        for key, val in operands.items():
            t = val.ctype if not val.ctype.is_array else T.decay(val.ctype)
            var = self.new_var(f"{name.strip('_')}_{key}", t)
            if val.taint and key != "value":
                s = self.site(node, f"the {key} of {name}")
                self.emit(f"X.use_check({val.taint}, L, {s}, 'is the {key} of {name}')")
                val = Val(val.code, val.ctype)
            if key == "value" and val.taint:
                var.tracked = True
            self.write(var, val)
            regs[key] = var.name
        line, col = (node.coord.line, node.coord.column) if node.coord else (0, 0)
        result = None
        if result_ctype is not None:
            result = self.new_var(f"{name.strip('_')}_result", result_ctype)
            if op == "shfl":
                result.tracked = True
        site = SyncSite(len(self.sync_sites), op, line, col,
                        self.pre.lines[line - 1] if 0 < line <= len(self.pre.lines) else "",
                        name, regs, result.name if result else None, result_ctype, **kw)
        # inside an inlined __device__ function: say which call this instance belongs to
        site.via = ", ".join(f"in {f}() called on line {cl}" for f, _, _, cl in reversed(self.inline_stack))
        self.sync_sites.append(site)
        self.note_line(node)
        nxt = self.new_block()
        site.next = nxt.id
        self.close(("sync", site.id))
        self.start(nxt)
        if result is None:
            return Val("None", T.VOID)
        return self.read(result)

    def block_barrier(self, name, args, node):
        reduce = BLOCK_REDUCE[name]
        self.nargs(name, args, 1 if reduce else 0, node)
        ops = {}
        if reduce:
            pred = self.condition_of(self.value(self.expr(args[0])))
            ops["predicate"] = pred
        return self.sync_point("bar", name, node, ops, T.INT if reduce else None, mode="sync", reduce=reduce,
                               block_wide=True)

    def call___simcore_bar_sync(self, args, node, mode="sync"):
        vals = self.eval_args(args)
        ops = {"id": self.cast(vals[0], T.INT)}
        name = "bar.sync" if mode == "sync" else "bar.arrive"
        if vals[1].const == -1:
            return self.sync_point("bar", name, node, ops, None, mode=mode)
        ops["count"] = self.cast(vals[1], T.INT)
        return self.sync_point("bar", name, node, ops, None, mode=mode)

    def call___simcore_bar_arrive(self, args, node):
        return self.call___simcore_bar_sync(args, node, mode="arrive")

    def call___syncwarp(self, args, node):
        self.nargs("__syncwarp", args, (0, 1), node)
        mask = self.cast(self.value(self.expr(args[0])), T.UINT) if args else self.const(0xFFFFFFFF, T.UINT)
        return self.sync_point("syncwarp", "__syncwarp", node, {"mask": mask})

    def shuffle(self, name, args, node):
        self.nargs(name, args, (3, 4), node)
        vals = self.eval_args(args)
        value = vals[1]
        if not value.ctype.is_scalar:
            raise self.error(node, f"{name} shuffles numbers", construct=name)
        value = self.cast(value, T.promote(value.ctype))
        ops = {"mask": self.cast(vals[0], T.UINT), "value": value,
               "lane": self.cast(vals[2], T.INT if SHUFFLES[name] in ("idx", "xor") else T.UINT),
               "width": self.cast(vals[3], T.INT) if len(vals) == 4 else self.const(32, T.INT)}
        return self.sync_point("shfl", name, node, ops, value.ctype, mode=SHUFFLES[name])

    def vote(self, name, args, node):
        self.nargs(name, args, 2, node)
        vals = self.eval_args(args)
        ops = {"mask": self.cast(vals[0], T.UINT), "predicate": self.condition_of(vals[1])}
        result = T.UINT if VOTES[name] == "ballot" else T.INT
        return self.sync_point("vote", name, node, ops, result, mode=VOTES[name])

    def printf(self, args, node):
        """Device printf: each lane formats its line; the launch prints them when it ends."""
        if not args or not (isinstance(args[0], c_ast.Constant) and args[0].type == "string"):
            raise self.error(node, "printf needs a string literal as its format", construct="printf")
        fmt = args[0].value[1:-1].encode().decode("unicode_escape")
        vals = self.eval_args(args[1:])
        for v in vals:
            if v.ctype.is_array or (not v.ctype.is_scalar and not v.ctype.is_pointer):
                raise self.error(node, "printf prints numbers and pointers here", construct="printf")
        s = self.site(node, "printf")
        self.emit(f"X.printf({fmt!r}, [{', '.join(v.code for v in vals)}], L, {s})")
        return self.const(0, T.INT)

    def call___activemask(self, args, node):
        self.nargs("__activemask", args, 0, node)
        return Val("X.activemask(L)", T.UINT)

    def atomic(self, name, args, node):
        op = ATOMICS[name]
        self.nargs(name, args, 3 if op == "cas" else 2, node)
        vals = self.eval_args(args)
        p = vals[0]
        if not p.ctype.is_pointer or not p.ctype.base.is_scalar:
            raise self.error(node, f"the first argument of {name} must be a pointer", construct=name)
        elem = p.ctype.base
        if p.ctype.const:
            raise self.error(node, f"{name} writes through a pointer to const {elem}", construct="const")
        if elem not in (T.INT, T.UINT, T.ULLONG, T.LLONG, T.FLOAT, T.DOUBLE):
            raise self.error(node, f"{name} on {elem} is not supported", construct=name)
        if elem.is_float and op not in ("add", "exch") or elem == T.DOUBLE and op != "add":
            raise self.error(node, f"CUDA has no {name} for {elem} (only atomicAdd, and atomicExch for float)",
                             construct=name)
        rest = [self.convert_for_assign(v, elem, node) for v in vals[1:]]
        for v in rest:
            if v.taint:
                s = self.site(node, f"an operand of {name}")
                self.emit(f"X.use_check({v.taint}, L, {s}, 'is stored by {name}')")
        self.address_check(p, node)
        s = self.site(node, name)
        (self.shared_sizes if p.space == "shared" else self.global_sizes).add(elem.size)
        out = self.fresh("_t")
        cmp = rest[0].code if op == "cas" else "None"
        val = rest[-1].code
        self.emit(f"{out} = X.atomic('{op}', {p.code}, {val}, {DT[elem]}, L, {s}, {cmp})")
        return Val(out, elem)

    def math(self, name, args, node):
        fn = MATH1.get(name) or MATH2.get(name)
        n = 1 if name in MATH1 else 2
        self.nargs(name, args, n, node)
        vals = self.eval_args(args)
        if any(not v.ctype.is_scalar for v in vals):
            raise self.error(node, f"{name} needs numbers", construct=name)
        if name in SINGLE_PRECISION:
            t = T.FLOAT
        else:   # C++ overloads: float stays float, integers become double
            t = T.FLOAT if all(v.ctype == T.FLOAT for v in vals) else T.DOUBLE
            if any(v.ctype == T.DOUBLE for v in vals):
                t = T.DOUBLE
        vals = [self.cast(v, t) for v in vals]
        code = f"{fn}({', '.join(v.code for v in vals)})"
        if fn.startswith("np."):
            code = f"({code}).astype({DT[t]})"
        return Val(code, t, self.taint(*vals))

    def minmax(self, args, node, fn):
        self.nargs(fn, args, 2, node)
        a, b = self.eval_args(args)
        t = T.common_type(a.ctype, b.ctype)
        a, b = self.cast(a, t), self.cast(b, t)
        if a.const is not None and b.const is not None:
            return self.const((min if fn == "min" else max)(a.const, b.const), t)
        npfn = "np.fmin" if fn == "min" else "np.fmax"
        if t.is_integer:
            npfn = "np.minimum" if fn == "min" else "np.maximum"
        return Val(f"{npfn}({a.code}, {b.code})", t, self.taint(a, b))

    def call_min(self, args, node):
        return self.minmax(args, node, "min")

    def call_max(self, args, node):
        return self.minmax(args, node, "max")

    def call_abs(self, args, node):
        self.nargs("abs", args, 1, node)
        (a,) = self.eval_args(args)
        t = T.promote(a.ctype)
        a = self.cast(a, t)
        if a.const is not None:
            return self.const(abs(a.const), t)
        return Val(f"np.abs({a.code})", t, a.taint)

    call_llabs = call_labs = call_abs

    def call_fmaf(self, args, node, t=T.FLOAT):
        self.nargs("fmaf", args, 3, node)
        vals = [self.cast(v, t) for v in self.eval_args(args)]
        return Val(f"X.fma({vals[0].code}, {vals[1].code}, {vals[2].code}, {DT[t]})", t, self.taint(*vals))

    def call_fma(self, args, node):
        return self.call_fmaf(args, node, T.DOUBLE)

    def intrinsic(self, args, node, name, fn, arg_t, res_t=T.INT):
        self.nargs(name, args, 1, node)
        (a,) = self.eval_args(args)
        a = self.cast(a, arg_t)
        return Val(f"{fn}({a.code})", res_t, a.taint)

    def call___popc(self, args, node):
        return self.intrinsic(args, node, "__popc", "X.popc", T.UINT)

    def call___popcll(self, args, node):
        return self.intrinsic(args, node, "__popcll", "X.popc", T.ULLONG)

    def call___ffs(self, args, node):
        return self.intrinsic(args, node, "__ffs", "X.ffs", T.INT)

    def call___ffsll(self, args, node):
        return self.intrinsic(args, node, "__ffsll", "X.ffs", T.LLONG)

    def call___clz(self, args, node):
        return self.intrinsic(args, node, "__clz", "X.clz", T.INT)

    def call___brev(self, args, node):
        return self.intrinsic(args, node, "__brev", "X.brev", T.UINT, T.UINT)

    def call___ldg(self, args, node):
        self.nargs("__ldg", args, 1, node)
        (p,) = self.eval_args(args)
        if not p.ctype.is_pointer:
            raise self.error(node, "__ldg takes a pointer", construct="__ldg")
        return self.load(p, p.ctype.base, p.space, node)

    def call___float2int_rz(self, args, node):
        self.nargs("__float2int_rz", args, 1, node)
        (a,) = self.eval_args(args)
        return self.cast(self.cast(a, T.FLOAT), T.INT)

    def call___int2float_rn(self, args, node):
        self.nargs("__int2float_rn", args, 1, node)
        (a,) = self.eval_args(args)
        return self.cast(self.cast(a, T.INT), T.FLOAT)

    def bitcast(self, args, node, name, frm, to):
        self.nargs(name, args, 1, node)
        (a,) = self.eval_args(args)
        a = self.cast(a, frm)
        return Val(f"X.bitcast({a.code}, {DT[frm]}, {DT[to]})", to, a.taint)

    def call___int_as_float(self, args, node):
        return self.bitcast(args, node, "__int_as_float", T.INT, T.FLOAT)

    def call___float_as_int(self, args, node):
        return self.bitcast(args, node, "__float_as_int", T.FLOAT, T.INT)

    def call___uint_as_float(self, args, node):
        return self.bitcast(args, node, "__uint_as_float", T.UINT, T.FLOAT)

    def call___float_as_uint(self, args, node):
        return self.bitcast(args, node, "__float_as_uint", T.FLOAT, T.UINT)

    def call___longlong_as_double(self, args, node):
        return self.bitcast(args, node, "__longlong_as_double", T.LLONG, T.DOUBLE)

    def call___double_as_longlong(self, args, node):
        return self.bitcast(args, node, "__double_as_longlong", T.DOUBLE, T.LLONG)

    def float_to_int(self, args, node, name, fn, to=T.INT, frm=T.FLOAT):
        self.nargs(name, args, 1, node)
        (a,) = self.eval_args(args)
        a = self.cast(a, frm)
        return Val(f"X.f2i({fn}({a.code}), {DT[to]})", to, a.taint)

    def call___float2int_rn(self, args, node):
        return self.float_to_int(args, node, "__float2int_rn", "np.rint")

    def call___float2int_rd(self, args, node):
        return self.float_to_int(args, node, "__float2int_rd", "np.floor")

    def call___float2int_ru(self, args, node):
        return self.float_to_int(args, node, "__float2int_ru", "np.ceil")

    def call___float2uint_rn(self, args, node):
        return self.float_to_int(args, node, "__float2uint_rn", "np.rint", T.UINT)

    def call___double2int_rn(self, args, node):
        return self.float_to_int(args, node, "__double2int_rn", "np.rint", T.INT, T.DOUBLE)

    def int_binary(self, args, node, name, t, template):
        self.nargs(name, args, 2, node)
        a, b = [self.cast(v, t) for v in self.eval_args(args)]
        return Val(template.format(a=a.code, b=b.code), t, self.taint(a, b))

    def call___mul24(self, args, node):
        return self.int_binary(args, node, "__mul24", T.INT,
                               "(np.left_shift({a}, 8) >> 8) * (np.left_shift({b}, 8) >> 8)")

    def call___umul24(self, args, node):
        return self.int_binary(args, node, "__umul24", T.UINT, "({a} & 0xFFFFFF) * ({b} & 0xFFFFFF)")

    def call___mulhi(self, args, node):
        return self.int_binary(args, node, "__mulhi", T.INT,
                               "((({a}).astype(I8) * ({b}).astype(I8)) >> 32).astype(I4)")

    def call___umulhi(self, args, node):
        return self.int_binary(args, node, "__umulhi", T.UINT,
                               "((({a}).astype(U8) * ({b}).astype(U8)) >> 32).astype(U4)")

    def call_umin(self, args, node):
        return self.int_binary(args, node, "umin", T.UINT, "np.minimum({a}, {b})")

    def call_umax(self, args, node):
        return self.int_binary(args, node, "umax", T.UINT, "np.maximum({a}, {b})")

    def call_llmin(self, args, node):
        return self.int_binary(args, node, "llmin", T.LLONG, "np.minimum({a}, {b})")

    def call_llmax(self, args, node):
        return self.int_binary(args, node, "llmax", T.LLONG, "np.maximum({a}, {b})")

    def call___sad(self, args, node):
        self.nargs("__sad", args, 3, node)
        a, b, c = [self.cast(v, T.INT) for v in self.eval_args(args)]
        return Val(f"(np.abs(({a.code}).astype(I8) - {b.code}).astype(U4) + ({c.code}).astype(U4))", T.UINT,
                   self.taint(a, b, c))

    def call___fadd_rn(self, args, node):
        return self.int_binary(args, node, "__fadd_rn", T.FLOAT, "({a} + {b})")

    def call___fmul_rn(self, args, node):
        return self.int_binary(args, node, "__fmul_rn", T.FLOAT, "({a} * {b})")

    def call___dadd_rn(self, args, node):
        return self.int_binary(args, node, "__dadd_rn", T.DOUBLE, "({a} + {b})")

    def call___dmul_rn(self, args, node):
        return self.int_binary(args, node, "__dmul_rn", T.DOUBLE, "({a} * {b})")

    def call___lane_id(self, args, node):
        return Val("X.lane_of(L)", T.UINT)


def _region_base(region):
    from .memory import region_base
    return region_base(region)


def _convert_const(value, t):
    """Convert a Python number to C type t with C's wrap-around and truncation."""
    if t.is_pointer:
        return int(value)
    if t == T.BOOL:
        return bool(value)
    if t.is_float:
        import numpy as np
        return float(np.dtype(t.dtype).type(value))
    value = int(value) if not isinstance(value, float) else int(value)  # C truncates toward zero
    bits = 8 * t.size
    value &= (1 << bits) - 1
    if t.kind == "i" and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def _fold(op, a, b, t):
    if t.is_float:
        import numpy as np
        x, y = np.dtype(t.dtype).type(a), np.dtype(t.dtype).type(b)
        with np.errstate(all="ignore"):
            return float({"+": x + y, "-": x - y, "*": x * y, "/": x / y}[op])
    if op == "/":
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    if op == "%":
        r = abs(a) % abs(b)
        return r if a >= 0 else -r
    return {"+": a + b, "-": a - b, "*": a * b, "&": a & b, "|": a | b, "^": a ^ b}[op]


def _shift(op, a, b, t):
    bits = 8 * t.size
    if b >= bits or b < 0:
        return 0 if op == "<<" or a >= 0 else -1
    if op == "<<":
        return a << b
    if t.kind == "u":
        return (a & ((1 << bits) - 1)) >> b
    return a >> b


def has_boundary(node):
    """Does evaluating node end a basic block (a sync point, a call, real control flow)?"""
    if node is None:
        return False
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID):
        n = node.name.name
        if n in SYNC_CALLS:
            return True
        if n not in MATH1 and n not in MATH2 and n not in ATOMICS and not n.startswith("__") \
                and n not in ("min", "max", "abs"):
            return True   # a __device__ function: inlined, may contain anything
    if isinstance(node, c_ast.TernaryOp) and not (is_pure(node.iftrue) and is_pure(node.iffalse)):
        return True
    if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||") and not is_pure(node.right):
        return True
    return any(has_boundary(child) for _, child in node.children())


PURE_CALLS = set(MATH1) | set(MATH2) | {"min", "max", "abs", "__popc", "__ffs", "__clz", "__brev",
                                         "__activemask", "fmaf", "fma"}


def is_pure(node):
    """True when evaluating node for every lane is harmless: no memory, no effects, no division."""
    if node is None:
        return True
    if isinstance(node, (c_ast.Constant, c_ast.ID)):
        return True
    if isinstance(node, c_ast.StructRef):
        return True
    if isinstance(node, c_ast.BinaryOp):
        if node.op in ("/", "%"):
            return False
        return is_pure(node.left) and is_pure(node.right)
    if isinstance(node, c_ast.UnaryOp):
        if node.op in ("++", "--", "p++", "p--", "*"):
            return False
        if node.op == "&":
            return isinstance(node.expr, c_ast.ID)
        return node.op == "sizeof" or is_pure(node.expr)
    if isinstance(node, c_ast.Cast):
        return is_pure(node.expr)
    if isinstance(node, c_ast.TernaryOp):
        return is_pure(node.cond) and is_pure(node.iftrue) and is_pure(node.iffalse)
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID):
        return node.name.name in PURE_CALLS and all(is_pure(a) for a in (node.args.exprs if node.args else []))
    return False
