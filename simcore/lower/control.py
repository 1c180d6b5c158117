"""Statements that shape control flow: blocks, if, loops, switch, break, continue, return.

Each becomes basic blocks joined by terminators (program.Goto / Branch / Exit); loops keep
a stack of (break target, continue target)."""
from pycparser import c_ast

from ..frontend import ctype as T
from .program import Branch, Exit
from .code import add_lines
from .values import Val

STATEMENTS = frozenset({"Compound", "DeclList", "EmptyStatement", "Pragma", "Decl", "If", "While", "DoWhile",
                        "For", "Break", "Continue", "Return", "Switch", "Label", "Goto", "Case", "Default",
                        "Typedef"})


class ControlFlowLowering:
    def stmt(self, node):
        if node is None:
            return
        if not isinstance(node, (c_ast.Compound, c_ast.DeclList)):
            self.note_line(node)
            if node.coord is not None:
                self.stmt_line = node.coord.line
        kind = type(node).__name__
        if kind in self.EXPRESSIONS:         # an expression statement: evaluated for its effects
            self.expr(node)
            return
        if kind not in STATEMENTS:
            raise self.error(node, f"{kind} statements are not in simcore's subset", construct=kind)
        getattr(self, "visit_" + kind)(node)

    def visit_Compound(self, node):
        self.push()
        for item in node.block_items or []:
            self.stmt(item)
        self.pop()

    def visit_EmptyStatement(self, node):
        pass

    def visit_Pragma(self, node):
        pass

    # ----------------------------------------------------------------- branches
    def branch(self, cond, if_true, if_false, node):
        line = node.coord.line if node is not None and node.coord else 0
        if cond.taint.possible:
            self.use_check(cond.taint, node, "a branch condition", "decides a branch")
        self.close(Branch(cond.code, if_true.id, if_false.id, line, cond.regs))

    def condition(self, node):
        v = self.value(self.expr(node))
        if v.ctype.is_void or v.ctype.is_struct:
            what = "an expression of type void (a call of a function that returns nothing)" if v.ctype.is_void \
                else f"a {v.ctype}"
            raise self.error(node, f"{what} cannot be used as a condition", construct="condition")
        if v.ctype.is_pointer:
            return Val(f"({v.code} != 0)", T.BOOL, v.taint, regs=v.regs)
        if v.ctype == T.BOOL:
            return v
        return Val(f"({v.code} != 0)", T.BOOL, v.taint, None if v.const is None else bool(v.const), regs=v.regs)

    def visit_If(self, node):
        cond = self.condition(node.cond)
        if self.loop_asts and may_end_loop(node, self.loop_asts):
            self.loop_exits.append(cond.code)
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
            self.drop_block(else_b)
        self.start(join)

    # ----------------------------------------------------------------- loops
    def visit_While(self, node):
        head, body, done = self.new_block(), self.new_block(), self.new_block()
        self.goto(head)
        self.start(head)
        self.branch(self.loop_condition(node.cond), body, done, node)
        self.loop_body(node, body, done, head)
        self.goto(head)
        self.start(done)

    def visit_DoWhile(self, node):
        body, test, done = self.new_block(), self.new_block(), self.new_block()
        self.goto(body)
        self.loop_body(node, body, done, test)
        self.goto(test)
        self.start(test)
        self.branch(self.loop_condition(node.cond), body, done, node)
        self.start(done)

    def visit_For(self, node):
        self.push()
        if isinstance(node.init, c_ast.DeclList):
            self.visit_DeclList(node.init)
        elif node.init is not None:
            self.expr(node.init)
        head, body, step, done = self.new_block(), self.new_block(), self.new_block(), self.new_block()
        self.goto(head)
        self.start(head)
        if node.cond is not None:
            self.branch(self.loop_condition(node.cond), body, done, node)
        else:
            self.goto(body)
        self.loop_body(node, body, done, step)
        self.goto(step)
        self.start(step)
        if node.next is not None:
            self.expr(node.next)
        self.goto(head)
        self.start(done)
        self.pop()

    def loop_condition(self, node):
        """A loop's condition: what a wait loop's poll decides (dataflow.sites_feeding)."""
        cond = self.condition(node)
        self.loop_exits.append(cond.code)
        return cond

    def loop_body(self, node, body, break_to, continue_to):
        self.loops.append((break_to, continue_to))
        self.loop_asts.append(node)
        self.start(body)
        self.stmt(node.stmt)
        self.loops.pop()
        self.loop_asts.pop()
        if not body.lines:      # an empty body `while (n > 0) { }`: its steps are the loop's line
            add_lines(body, (node.coord.line,))

    def visit_Break(self, node):
        if not self.loops:
            raise self.error(node, "break outside a loop or switch", construct="break")
        self.goto(self.loops[-1][0])

    def visit_Continue(self, node):
        target = next((c for b, c in reversed(self.loops) if c is not None), None)
        if target is None:
            raise self.error(node, "continue outside a loop", construct="continue")
        self.goto(target)

    def visit_Return(self, node):
        if self.inline_stack:
            fname, ret_var, ret_block, _ = self.inline_stack[-1]
            if node.expr is not None:
                if ret_var is None:
                    raise self.error(node, f"{fname} returns void but a value is returned", construct="return")
                val = self.expr(node.expr)
                if ret_var.ctype.is_struct:      # a struct result: its registers
                    self.write_struct(ret_var, val, node)
                else:
                    self.write(ret_var, self.convert_for_assign(val, ret_var.ctype, node))
            self.goto(ret_block)
        else:
            if node.expr is not None:
                raise self.error(node, "a __global__ kernel returns void", construct="return")
            self.close(Exit())

    # ----------------------------------------------------------------- switch
    def visit_Switch(self, node):
        v = self.tmp(self.value(self.expr(node.cond)))
        if not (v.ctype.is_scalar and v.ctype.is_integer):
            raise self.error(node.cond, "switch needs an integer", construct="switch")
        v = self.cast(v, T.promote(v.ctype))
        var = self.reg_tmp(v)
        cases = self.switch_cases(node)
        done = self.new_block()
        bodies = [self.new_block() for _ in cases]
        default = done
        for (label, _), body in zip(cases, bodies):
            if isinstance(label, c_ast.Default):
                default = body
        for (label, _), body in zip(cases, bodies):       # a chain of tests, in source order
            if isinstance(label, c_ast.Case):
                value = self.const_int(label.expr)
                nxt = self.new_block()
                cv = self.read(var)
                test = Val(f"({cv.code} == {self.const(value, v.ctype).code})", T.BOOL, regs=cv.regs)
                self.branch(test, body, nxt, label)
                self.start(nxt)
        self.goto(default)
        self.loops.append((done, None))
        for k, ((label, stmts), body) in enumerate(zip(cases, bodies)):
            self.start(body)
            for s in list(label.stmts or []) + stmts:
                self.stmt(s)
            self.goto(bodies[k + 1] if k + 1 < len(bodies) else done)      # fall through
        self.loops.pop()
        self.start(done)

    def switch_cases(self, node):
        """[[case or default label, statements after it]] of a switch body."""
        items = node.stmt.block_items if isinstance(node.stmt, c_ast.Compound) else [node.stmt]
        cases = []
        for it in items or []:
            if isinstance(it, (c_ast.Case, c_ast.Default)):
                cases.append([it, []])
            elif cases:
                cases[-1][1].append(it)
            else:
                raise self.error(it, "statement before the first case label", construct="switch")
        return cases

    # ----------------------------------------------------------------- refused
    def visit_Label(self, node):
        raise self.error(node, "labels and goto are not in simcore's subset", construct="label")

    def visit_Goto(self, node):
        raise self.error(node, "goto is not in simcore's subset", construct="goto")

    def visit_Case(self, node):
        raise self.error(node, "case label outside a switch", construct="case")

    visit_Default = visit_Case

    def visit_Typedef(self, node):
        raise self.error(node, "typedef inside a kernel is not in simcore's subset", construct="typedef")


class _LoopEnd(c_ast.NodeVisitor):
    """Whether a statement may end a loop: a break of it (not of an inner loop or switch), a
    return or goto, or an assignment to a variable that an enclosing loop's condition names (the
    `while (!done) { if (atomicCAS(&lock, 0, 1) == 0) { ...; done = true; } }` of a lock)."""

    def __init__(self, names):
        self.names, self.found, self.depth = names, False, 0

    def visit_Break(self, node):
        self.found |= self.depth == 0

    def visit_Return(self, node):
        self.found = True

    visit_Goto = visit_Return

    def _inner(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_While = visit_DoWhile = visit_For = visit_Switch = _inner

    def visit_Assignment(self, node):
        self.found |= isinstance(node.lvalue, c_ast.ID) and node.lvalue.name in self.names
        self.generic_visit(node)

    def visit_UnaryOp(self, node):
        self.found |= node.op in ("++", "p++", "--", "p--") and isinstance(node.expr, c_ast.ID) \
            and node.expr.name in self.names
        self.generic_visit(node)


def may_end_loop(if_node, loops):
    """Whether an if statement inside `loops` (c_ast loops, innermost last) may end one of them."""
    names = {n.name for loop in loops if loop.cond is not None for n in _ids(loop.cond)}
    finder = _LoopEnd(names)
    for branch in (if_node.iftrue, if_node.iffalse):
        if branch is not None:
            finder.visit(branch)
    return finder.found


def _ids(node):
    if isinstance(node, c_ast.ID):
        yield node
    for _, child in node.children():
        yield from _ids(child)
