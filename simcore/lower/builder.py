"""The lowering's workbench: basic blocks under construction, registers, constants, scopes,
report sites, and the facts the dataflow pass needs (which values flow into which register)."""
import re

from ..errors import CompileError
from .program import Block, Goto, Site, Var
from .dataflow import VALUE_NAME
from .code import MISALIGNED, NO_READS, Alignment, Stmt, Taint, TaintHole, TaintTerm, add_lines
from .values import Val, convert_const, struct_value


# a statement of the generated code that assigns a register or temporary (`_t5, u_t5 = ...`)
ASSIGNMENT = re.compile(r"\s*([A-Za-z_]\w*)(?:\s*,\s*[A-Za-z_]\w*)*\s*=(?!=)(.*)", re.S)


class EscapingLocal(Exception):
    """Lowering found that the address of a local variable escapes (it is reassigned, chosen at
    run time, stored, given to a built-in): `lower` starts again with that variable in local
    memory (`key`: its declaration), so that variables whose address never escapes keep their
    registers and compile-time pointers."""

    def __init__(self, key):
        super().__init__(key)
        self.key = key


class Builder:
    def __init__(self, pre, funcs, typedefs, addressable=frozenset()):
        self.pre = pre
        self.addressable = addressable   # declaration keys of the locals kept in local memory
        self.decl_keys = {}              # register name / id(Sym) -> declaration key of its local
        self.local_vars = []             # program.LocalVariable, for the addressable locals
        self.funcs = funcs               # name -> FuncDef of __device__ functions (inlined)
        self.typedefs = {}               # name -> c_ast.Typedef (resolved on first use)
        self.typedef_types = {}          # name -> ctype
        self.struct_tags = {}            # tag -> ctype.Struct
        self.struct_defs = {}            # id(c_ast.Struct definition) -> ctype.Struct
        self.module_vars = []            # ModuleVariable, in source order
        self.globals = {}                # file-scope __shared__ declarations
        self.blocks = []
        self.block_count = 0
        self.stmts = {}                  # block id -> [Stmt], until code.resolve
        self.closed = set()              # ids of blocks whose terminator is set
        self.vars = {}
        self.read_facts = {}             # register name -> (code, taint, alignment, regs) of a read
        self.shared = []
        self.sync_sites = []
        self.sites = []
        self.consts = {}
        self.counter = 0
        self.scopes = [{}]
        self.loops = []                  # (break block, continue block or None)
        self.inline_stack = []           # (function name, return var, return block, call line)
        self.stmt_line = 0               # line of the statement being lowered
        self.local_bytes = 0             # per thread, of all local arrays (inlined calls included)
        self.global_sizes = set()
        self.shared_sizes = set()
        self.mixed_spaces = False   # a pointer variable was given pointers into both spaces
        self.uses_taint = False
        self.fence_scopes = set()        # "block", "device": the fences the kernel calls
        # for the dataflow pass: (register, Taint written to it) and (register, Alignment)
        self.taint_flows = []
        self.alignment_flows = []
        # ... and of values: register or temporary -> the names its value is computed from, the
        # temporary of each load's (and atomic's) value -> its site, and what each atomicCAS
        # compares with, and the conditions that may end a loop (dataflow.sites_feeding)
        self.value_flows = {}
        self.loaded_by = {}
        self.cas_compares = []
        self.loop_exits = []
        self.loop_asts = []              # the loops being lowered, innermost last (c_ast nodes)
        self.cur = self.new_block()

    # ----------------------------------------------------------------- errors and sites
    def error(self, node, msg, construct=None):
        line = col = None
        coord = node.coord if node is not None else None
        if coord is not None:
            line, col = coord.line, coord.column
        return CompileError(msg, line=line, column=col, construct=construct, source_line=self.source_line(line))

    def source_line(self, line):
        return self.pre.lines[line - 1] if line and 0 < line <= len(self.pre.lines) else None

    def site(self, node, what="", note=True, memory=False, volatile=False, polls=False, scope="device"):
        """A new report site; memory: it is a load, store or atomic (memory.py's hooks see it);
        volatile: a load or store through a volatile pointer; polls: an atomic that only reads;
        scope: an atomic's ("block" for atomicAdd_block and its kin)."""
        line = node.coord.line if node is not None and node.coord else 0
        col = node.coord.column if node is not None and node.coord else 0
        self.sites.append(Site(line, col, self.source_line(line) or "", what, memory, volatile, polls, scope))
        if note:
            self.note_line(node)
        return len(self.sites) - 1

    def note_line(self, node):
        if node is not None and node.coord is not None and node.coord.line:
            self.cur.lines.add(node.coord.line)
            if not self.cur.first_line:
                self.cur.first_line = node.coord.line

    # ----------------------------------------------------------------- blocks
    def new_block(self):
        b = Block(self.block_count)
        self.block_count += 1
        self.stmts[b.id] = []
        self.blocks.append(b)
        return b

    def drop_block(self, block):
        self.blocks.remove(block)
        del self.stmts[block.id]

    def start(self, block):
        self.cur = block

    def goto(self, target):
        self.close(Goto(target.id))

    def close(self, term):
        if self.cur.id not in self.closed:
            self.cur.term = term
            self.closed.add(self.cur.id)

    def emit(self, *parts, reads=NO_READS, assigns=None, when_tracked=None, when_tainted=None, line=0):
        """Append a statement: parts are text and holes; reads, the registers the text names.

        A statement that may turn out unneeded (when_tainted) adds its source line to the
        block only if it is kept (see code.resolve)."""
        if self.cur.id in self.closed:
            # Code after return/break/continue: unreachable, but must still be valid. Park it.
            self.start(self.new_block())
        lines = ()
        if line:
            lines = (line,)
        elif not self.cur.lines and self.stmt_line:
            # e.g. the rest of a statement after a sync point: it belongs to that statement's line
            lines = (self.stmt_line,)
        stmt = Stmt(parts, reads, assigns, when_tracked, when_tainted, lines)
        self.note_value_flow(parts)
        if when_tainted is None:
            add_lines(self.cur, lines)
        self.stmts[self.cur.id].append(stmt)

    def note_value_flow(self, parts):
        """An assignment's flow of values (`_t5 = v_old_2 + 1`: _t5 from v_old_2), for
        dataflow.sites_feeding. A load's value comes from its site alone (not from its address), and an
        atomic's from memory (not from its operands)."""
        m = ASSIGNMENT.match("".join(p for p in parts if isinstance(p, str)))
        if m is not None and m.group(1).startswith(("v_", "_t")) and m.group(1) not in self.loaded_by:
            self.value_flows.setdefault(m.group(1), set()).update(VALUE_NAME.findall(m.group(2)))

    def use_check(self, taint, node, what, reason):
        """Fault the lanes where a tainted value is used where it must be defined."""
        s = self.site(node, what, note=False)
        line = node.coord.line if node is not None and node.coord else 0
        self.emit("X.use_check(", TaintHole(taint, "None"), f", L, {s}, {reason!r})", when_tainted=taint,
                  line=line)

    # ----------------------------------------------------------------- registers
    def fresh(self, prefix="t"):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def new_var(self, base, ctype, shape=(), space=None):
        name = f"{''.join(c if c.isalnum() else '_' for c in base)}_{len(self.vars)}"
        var = Var(name, ctype, shape, source_name=base, space=space)
        self.vars[name] = var
        return var

    def read(self, var):
        facts = self.read_facts.get(var.name)
        if facts is None:       # the same for every read of var: made once
            taint = Taint((TaintTerm(f"u_{var.name}", frozenset({("u", var.name)}), var.name),))
            aligned = Alignment(False, frozenset({var.name})) if var.ctype.is_pointer else MISALIGNED
            facts = self.read_facts[var.name] = (f"v_{var.name}", taint, aligned, frozenset({("v", var.name)}))
        code, taint, aligned, regs = facts
        return Val(code, var.ctype, taint, space=var.space, aligned=aligned, regs=regs)

    def write(self, var, val):
        """Assign val (already of var's type) to a register."""
        code = val.code
        if code.startswith("v_") and code.isidentifier():
            code += ".copy()"         # a plain copy of a register must not alias its storage
        self.emit(f"v_{var.name} = {code}", reads=val.regs, assigns=("v", var.name))
        if var.ctype.is_pointer:
            self.alignment_flows.append((var.name, val.aligned))
            if var.space and val.space and var.space != val.space:
                # accesses through it lowered so far took one space: the granules must cover both
                self.mixed_spaces = True
                var.space = None
        self.emit(f"u_{var.name} = ", TaintHole(val.taint, "X.DEFINED"), assigns=("u", var.name),
                  when_tracked=var.name)
        self.taint_flows.append((var.name, val.taint))
        self.mark_stored(var)

    def mark_stored(self, var):
        if var.name not in self.cur.stores:
            self.cur.stores.append(var.name)

    def reg_tmp(self, val, ctype=None):
        var = self.new_var("tmp", ctype or val.ctype, space=val.space)
        self.write(var, self.cast(val, var.ctype) if ctype else val)
        return var

    def tmp(self, val):
        """Bind a value to a Python local so that it is evaluated once."""
        # Python names of temporaries are never rebound, so they need no copy; register
        # locals (v_x) are rebound on assignment, so bind the current value to a new name.
        if val.parts is not None:          # a struct value: each member once
            return struct_value(val.ctype, {k: self.tmp(v) for k, v in val.parts.items()})
        if val.ref is not None or val.local_var is not None:
            return val
        if val.const is not None or (val.code.isidentifier() and not val.code.startswith(("v_", "u_"))):
            return val
        name = self.fresh("_t")
        self.emit(f"{name} = {val.code}", reads=val.regs)
        return Val(name, val.ctype, val.taint, space=val.space)

    def const(self, value, ctype):
        if ctype.is_scalar:
            # every constant holds a value of its type: `i--` of an unsigned adds the constant
            # -1 converted to that type (2**32 - 1), as C's conversion rules say
            value = convert_const(value, ctype)
        key = (repr(value), ctype.name)
        if key not in self.consts:
            self.consts[key] = (f"K{len(self.consts)}", value, ctype)
        return Val(self.consts[key][0], ctype, const=value)

    # ----------------------------------------------------------------- scopes
    def push(self):
        self.scopes.append({})

    def pop(self):
        self.scopes.pop()

    # ----------------------------------------------------------------- addressable locals
    @staticmethod
    def decl_key(node):
        """Which declaration a local is: the same in every lowering of the kernel (an inlined
        function's local is one declaration at every call)."""
        return (node.name, node.coord.line if node.coord else 0, node.coord.column if node.coord else 0)

    def note_decl(self, node, *owners):
        """Registers (program.Var) and Syms that hold the local declared by `node`."""
        key = self.decl_key(node)
        for o in owners:
            self.decl_keys[o.name if hasattr(o, "source_name") else id(o)] = key
            for m in (getattr(o, "members", None) or {}).values():
                self.note_decl(node, m.var if m.var is not None else m)

    def escape(self, target, error):
        """The address of a local escapes: start again with it in local memory, or, when it is
        not a local declared in this kernel (a parameter of an inlined function), raise error."""
        var = target if hasattr(target, "source_name") else getattr(target, "var", None)
        owner = var.name if var is not None and hasattr(var, "source_name") else id(getattr(target, "sym", target))
        key = self.decl_keys.get(owner)
        if key is None or key in self.addressable:
            raise error
        raise EscapingLocal(key)

    def lookup(self, name, node):
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if name in self.globals:
            sym = self.globals[name]
            if sym.kind == "host_var":
                raise self.error(node, f'identifier "{name}" is undefined in device code: it is a host variable '
                                       "(declare it __device__, or __constant__ for values the kernels only read; "
                                       "or pass it as a kernel argument)", construct="host variable")
            return sym
        raise self.error(node, f"'{name}' is not declared", construct=name)
