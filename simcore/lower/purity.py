"""Two questions about an expression, asked before lowering it: does evaluating it end a
basic block, and may it be evaluated for every lane (then selected) without harm?"""
from pycparser import c_ast

from .builtins import BUILTINS


def has_boundary(node):
    """Does evaluating node end a basic block (a sync point, a call, real control flow)?"""
    if node is None:
        return False
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID):
        if node.name.name not in BUILTINS:
            return True   # a sync point, or a __device__ function: inlined, may contain anything
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.StructRef):
        return True       # a cooperative group's member function: may be a collective
    if isinstance(node, c_ast.TernaryOp) and not (is_pure(node.iftrue) and is_pure(node.iffalse)):
        return True
    if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||") and not is_pure(node.right):
        return True
    return any(has_boundary(child) for _, child in node.children())


def is_pure(node):
    """True when evaluating node for every lane is harmless: no memory, no effects, no division."""
    if node is None or isinstance(node, (c_ast.Constant, c_ast.ID, c_ast.StructRef)):
        return True
    if isinstance(node, c_ast.BinaryOp):
        if node.op in ("/", "%"):
            return False
        if node.op in ("<<", ">>") and not isinstance(node.right, c_ast.Constant):
            return False      # its count is checked (0..width-1): only on the lanes that evaluate it
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
        row = BUILTINS.get(node.name.name)
        return row is not None and row.pure and all(is_pure(a) for a in (node.args.exprs if node.args else []))
    return False

