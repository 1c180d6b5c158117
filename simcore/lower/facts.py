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


def block_facts(block, function, variables):
    """-> BlockFacts of `block` (program.Block), given its generated function's syntax tree and
    the program's registers (name -> program.Var)."""
    registers = [name for _, name in block.loads] + list(block.stores)
    return BlockFacts(context_uses(function), any(variables[name].shape for name in registers))
