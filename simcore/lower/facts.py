"""What a basic block's generated code does, recorded once when the code is generated, so that
its consumers (the engine's scalar lanes, the serial loop in solo.py, the performance counters)
read facts instead of the code's text.

The registers a block reads and writes are recorded by lowering itself (code.resolve: the
block's `loads` and `stores`). What its statements do (the attributes of the launch context `X`
they use, their work for the timing model) is read off their syntax tree, parsed once when
codegen compiles the kernel: expressions are built as text, and the tree is where a call into
the context or an operator is unambiguous.
"""
import ast
from dataclasses import dataclass, replace

# Attributes of the launch context a block may use and still run for a single lane given as a
# plain slot number: values of the launch (the definedness constants, the block and grid
# sizes), not state kept per lane.
LANE_FREE_CONTEXT = frozenset({"DEFINED", "UNSET", "bdim_x", "bdim_y", "bdim_z", "gdim_x", "gdim_y", "gdim_z"})

# Context helpers the serial loop (solo.py) has scalar versions of: integer division and
# remainder, shifts, the checked signed product.
SCALAR_HELPERS = frozenset({"idiv", "imod", "shl", "shr", "smul"})


@dataclass(frozen=True)
class BlockFacts:
    """The facts of one basic block's generated function."""
    context: frozenset       # attributes of X its code uses (helpers called, constants read)
    touches_arrays: bool     # it loads or stores a per-thread array register (a local array)
    work: tuple = ()         # Work of each statement of its code (block.code), in order
    condition: "Work" = None  # Work of its branch condition (a branch block)

    @property
    def lane_free(self):
        """It calls nothing in the context that needs the lanes (memory, checks, helpers)."""
        return self.context <= LANE_FREE_CONTEXT

    @property
    def scalar(self):
        """It can run for one lane given as an int slot: registers are then numpy scalars."""
        return self.lane_free and not self.touches_arrays

    @property
    def scalar_with_helpers(self):
        """It could run for one lane if its context calls went to SCALAR_HELPERS' scalar versions."""
        return not self.touches_arrays and self.context - LANE_FREE_CONTEXT <= SCALAR_HELPERS


# ------------------------------------------------------------------ the statements' work
# What each statement of a block's code does, in the terms the timing model counts machine
# instructions in (perf/counters.py gives each kind its weight):
#   bookkeeping  the simulator's own (a u_* definedness shadow, X.DEFINED): no instruction
#   copy         a register or constant copied or converted: no instruction
#   increment    a register plus or minus a constant (a loop counter)
#   memory       a load, store, atomic, shuffle or vote; `operators`: the arithmetic of the
#                value it stores (the address's arithmetic goes into the addressing mode)
#   arithmetic   `operators` operators and numpy calls
# and the branch condition: `constant_test` (a register against a constant: an unrolled loop's
# test) or `test` with its operators.

MEMORY_OPERATIONS = frozenset({"ld", "ldu", "st"})
MEMORY_OPERATION_FAMILIES = ("atomic", "shfl", "vote")
COUNTED_UNARY = (ast.USub, ast.UAdd, ast.Invert)        # `not` is no machine instruction of its own


@dataclass(frozen=True)
class Work:
    """What one statement (or a branch condition) does: its kind and its operators."""
    kind: str
    operators: int = 0
    fused: int = 0        # multiply-add pairs among the operators (NVCC makes each one FMA/IMAD)
    shuffles: int = 0     # warp shuffles it runs (each waits for its result: perf/ latency)


_COMPARISONS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)


class _Scan:
    """One pass over an expression or statement: the context attributes it names, the
    operators that become machine instructions (binary and unary arithmetic, each comparison,
    each numpy call), and its memory operations (calls of X.ld, X.st, X.atomic*, ...)."""

    def __init__(self, tree):
        self.context, self.operators, self.memory, self.shuffles = set(), 0, [], 0
        multiplies = adds = 0
        stack = [tree]
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind is ast.Attribute and type(node.value) is ast.Name:
                if node.value.id == "X":
                    self.context.add(node.attr)
                continue
            if kind is ast.BinOp or (kind is ast.UnaryOp and isinstance(node.op, COUNTED_UNARY)):
                self.operators += 1
                multiplies += isinstance(node.op, ast.Mult)
                adds += isinstance(node.op, (ast.Add, ast.Sub, ast.USub, ast.UAdd))
            elif kind is ast.Compare:
                self.operators += sum(isinstance(op, _COMPARISONS) for op in node.ops)
            elif kind is ast.Call:
                f = node.func
                if type(f) is ast.Attribute and type(f.value) is ast.Name:
                    if f.value.id == "np":
                        self.operators += 1
                    elif f.value.id == "X" and (f.attr in MEMORY_OPERATIONS
                                                or f.attr.startswith(MEMORY_OPERATION_FAMILIES)):
                        self.memory.append(node)
                        self.shuffles += f.attr.startswith("shfl")
            for field in node._fields:
                child = getattr(node, field, None)
                if type(child) is list:
                    stack.extend(c for c in child if isinstance(c, ast.AST))
                elif isinstance(child, ast.AST):
                    stack.append(child)
        self.fused = min(multiplies, adds)


def _is_plain_value(node):
    """A register, a constant, an attribute (X.bdim_x), or one of those converted (.astype(T))."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "astype" \
            and len(node.args) == 1 and isinstance(node.args[0], ast.Name) and not node.keywords:
        node = node.func.value
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) or (isinstance(node, ast.Constant) and isinstance(node.value, (int, float)))


def _is_constant(node):
    return isinstance(node, ast.Name) and node.id[:1] == "K" and node.id[1:].isdigit()


def statement_facts(stmt, float_constants=frozenset()):
    """-> (Work of one statement of generated code (an ast statement), the context attributes it
    names). `float_constants`: the names of the program's float constants (K<n>)."""
    scan = _Scan(stmt)
    work, context = _statement_kind(stmt, scan, float_constants)
    return (replace(work, shuffles=scan.shuffles) if scan.shuffles else work), context


def _statement_kind(stmt, scan, float_constants):
    target = stmt.targets[0] if isinstance(stmt, ast.Assign) else None
    value = stmt.value if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Expr)) else stmt
    if (isinstance(target, ast.Name) and target.id.startswith("u_")) or "DEFINED" in scan.context:
        return Work("bookkeeping"), scan.context
    if isinstance(stmt, ast.Assign) and _is_plain_value(value):
        return Work("copy"), scan.context
    if (isinstance(stmt, ast.Assign) and isinstance(target, ast.Name) and isinstance(value, ast.BinOp)
            and isinstance(value.op, (ast.Add, ast.Sub)) and isinstance(value.left, ast.Name)
            and _is_constant(value.right)):
        # an integer counter's step, which NVCC folds when it unrolls; a float register plus a
        # constant is an FADD that no unrolling folds away: one whole instruction
        if value.right.id in float_constants:
            return Work("arithmetic", 1), scan.context
        return Work("increment"), scan.context
    if scan.memory:
        first = min(scan.memory, key=lambda n: (n.lineno, n.col_offset))    # the first in the text
        stored = first.args[1] if first.func.attr == "st" and len(first.args) > 1 else None
        if stored is None:
            return Work("memory"), scan.context
        part = _Scan(stored)
        return Work("memory", part.operators, part.fused), scan.context
    part = scan if value is stmt else _Scan(value)
    return Work("arithmetic", part.operators, part.fused), scan.context


def statement_work(stmt, float_constants=frozenset()):
    """-> Work of one statement of generated code (an ast statement)."""
    return statement_facts(stmt, float_constants)[0]


def condition_facts(expr):
    """-> (Work of a branch condition (an ast expression), the context attributes it names)."""
    scan = _Scan(expr)
    if (isinstance(expr, ast.Compare) and len(expr.ops) == 1 and isinstance(expr.left, ast.Name)
            and _is_constant(expr.comparators[0])):
        return Work("constant_test"), scan.context
    return Work("test", scan.operators, scan.fused), scan.context


def record_facts(program, float_constants=frozenset()):
    """Give every block of a program with generated code its BlockFacts (block.facts). The
    blocks' statements and branch conditions are parsed together, once (the loads and stores
    codegen wraps around them name no context). `float_constants`: the names of the program's
    constants whose value is a float."""
    text, owner = [], []          # one line per statement of code or condition; its block, condition?
    for block in program.blocks:
        for line in block.code:
            text.append(line)
            owner.append((block.id, False))
        if block.term.kind == "branch":
            text.append(block.term.cond)
            owner.append((block.id, True))
    found = {block.id: ([], set(), None) for block in program.blocks}
    for stmt in ast.parse("\n".join(text)).body:
        bid, is_condition = owner[stmt.lineno - 1]
        work, context, _ = found[bid]
        if is_condition:
            condition, names = condition_facts(stmt.value)
            found[bid] = (work, context | names, condition)
        else:
            one, names = statement_facts(stmt, float_constants)
            work.append(one)
            context |= names
    arrays = {name for name, var in program.vars.items() if var.shape}
    for block in program.blocks:
        work, context, condition = found[block.id]
        touches = any(name in arrays for _, name in block.loads) or any(name in arrays for name in block.stores)
        block.facts = BlockFacts(frozenset(context), touches, tuple(work), condition)
