"""What a basic block's generated code does, recorded once when the code is generated, so that
its consumers (the engine's scalar lanes, the serial loop in solo.py, the performance counters)
read facts instead of the code's text.

The registers a block reads and writes are recorded by lowering itself (code.resolve: the
block's `loads` and `stores`). Which attributes of the launch context `X` the code uses is read
off the syntax tree that code generation parses the block's function into (codegen.generate
compiles that same tree): expressions are built as text, and the tree is where a call into the
context is unambiguous.
"""
import ast
from dataclasses import dataclass

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


def context_uses(tree):
    """The attributes of the context `X` that a syntax tree names."""
    return frozenset(node.attr for node in ast.walk(tree)
                     if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "X")


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


def _is_context_attr(node, test):
    return (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "X"
            and test(node.attr))


def _is_memory_call(node):
    return isinstance(node, ast.Call) and _is_context_attr(
        node.func, lambda a: a in MEMORY_OPERATIONS or a.startswith(MEMORY_OPERATION_FAMILIES))


def operators(tree):
    """Operators of an expression that become machine instructions: binary and unary
    arithmetic, each comparison, each numpy call."""
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) or (isinstance(node, ast.UnaryOp) and isinstance(node.op, COUNTED_UNARY)):
            count += 1
        elif isinstance(node, ast.Compare):
            count += sum(isinstance(op, (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)) for op in node.ops)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                isinstance(node.func.value, ast.Name) and node.func.value.id == "np":
            count += 1
    return count


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


def statement_work(stmt):
    """-> Work of one statement of generated code (an ast statement)."""
    target = stmt.targets[0] if isinstance(stmt, ast.Assign) else None
    if (isinstance(target, ast.Name) and target.id.startswith("u_")) or any(
            _is_context_attr(n, lambda a: a == "DEFINED") for n in ast.walk(stmt)):
        return Work("bookkeeping")
    value = stmt.value if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Expr)) else stmt
    if isinstance(stmt, ast.Assign) and _is_plain_value(value):
        return Work("copy")
    if (isinstance(stmt, ast.Assign) and isinstance(target, ast.Name) and isinstance(value, ast.BinOp)
            and isinstance(value.op, (ast.Add, ast.Sub)) and isinstance(value.left, ast.Name)
            and _is_constant(value.right)):
        return Work("increment")
    memory = [n for n in ast.walk(stmt) if _is_memory_call(n)]
    if memory:
        first = min(memory, key=lambda n: (n.lineno, n.col_offset))
        stored = first.args[1] if first.func.attr == "st" and len(first.args) > 1 else None
        return Work("memory", operators(stored) if stored is not None else 0)
    return Work("arithmetic", operators(value))


def condition_work(expr):
    """-> Work of a branch condition (an ast expression)."""
    if (isinstance(expr, ast.Compare) and len(expr.ops) == 1 and isinstance(expr.left, ast.Name)
            and _is_constant(expr.comparators[0])):
        return Work("constant_test")
    return Work("test", operators(expr))


def block_facts(block, function, variables):
    """-> BlockFacts of `block` (program.Block), given its generated function's syntax tree
    (codegen._block_source: loads, code, `_cond = ...` for a branch, stores, return) and the
    program's registers (name -> program.Var)."""
    registers = [name for _, name in block.loads] + list(block.stores)
    stores = sum(1 + variables[name].tracked for name in block.stores)
    branch = block.term.kind == "branch"
    code = function.body[len(block.loads):len(function.body) - stores - 1 - branch]
    condition = condition_work(function.body[len(function.body) - stores - 2].value) if branch else None
    return BlockFacts(context_uses(function), any(variables[name].shape for name in registers),
                      tuple(statement_work(s) for s in code), condition)
