"""Expressions: each visit_<Class> returns a Val (numpy code over the block's lanes).

Pure operators only build code; what has effects (memory, division checks, assignments) is
emitted into the current block. Sub-expressions that end a block (a call, a sync point,
short-circuit with effects) make the parts already evaluated spill to registers first."""
from pycparser import c_ast

from ..frontend import ctype as T
from .program import Var
from .access import SPECIALS, region_base
from .code import ALIGNED, select_taint, taint_of
from .purity import has_boundary, is_pure
from .values import (COMPARE, DT, LocalElementTarget, MemoryTarget, Val, convert_const, fold, local_pointer, regs_of,
                     shift, struct_value)

UNIFORM_SPECIALS = ("bdim", "gdim")     # the same for every thread: constants of the launch
EXPRESSIONS = frozenset({"Constant", "ID", "StructRef", "Cast", "ExprList", "ArrayRef", "UnaryOp",
                         "Assignment", "BinaryOp", "TernaryOp", "FuncCall"})
MAX_NESTING = 80         # parentheses in one piece of generated code (Python's own limit: 200)
CHAR_ESCAPES = {"\\n": 10, "\\t": 9, "\\0": 0, "\\\\": 92, "\\'": 39, '\\"': 34, "\\r": 13}


class ExpressionLowering:
    EXPRESSIONS = EXPRESSIONS

    def expr(self, node):
        self.note_line(node)
        kind = type(node).__name__
        if kind not in EXPRESSIONS:
            raise self.error(node, f"{kind} expressions are not in simcore's subset", construct=kind)
        val = getattr(self, "visit_" + kind)(node)
        if val is not None and len(val.code) > 2 * MAX_NESTING and val.code.count("(") > MAX_NESTING \
                and _nesting(val.code) > MAX_NESTING and (val.ctype.is_scalar or val.ctype.is_pointer):
            # Python refuses code nested 200 parentheses deep (a sum of 490 terms is that deep):
            # keep the value in a register and go on from there.
            return self.read(self.reg_tmp(val))
        return val

    # ----------------------------------------------------------------- leaves
    def visit_Constant(self, node):
        text = node.value
        if node.type == "string":
            raise self.error(node, "string literals are not in simcore's subset", construct="string")
        if node.type == "char":
            body = text[1:-1]
            return self.const(CHAR_ESCAPES.get(body, ord(body[0]) if body else 0), T.CHAR)
        if node.type in ("float", "double") or (
                any(c in text for c in ".eEpP") and not text.lower().startswith("0x")):
            value = float(text.rstrip("fFlL"))
            return self.const(value, T.FLOAT if text[-1] in "fF" else T.DOUBLE)
        return self.integer_constant(text)

    def integer_constant(self, text):
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
            if value < 2 ** (8 * t.size - (0 if t.kind == "u" else 1)):
                return self.const(value, t)
        return self.const(value & (2 ** 64 - 1), T.ULLONG)

    def visit_ID(self, node):
        name = node.name
        if name == "warpSize":
            return self.const(32, T.INT)
        if name in SPECIALS:             # threadIdx as a value: a dim3 of its three components
            return struct_value(T.VECTOR_TYPES["dim3"], {
                c: self.visit_StructRef(c_ast.StructRef(node, ".", c_ast.ID(c, node.coord), node.coord))
                for c in "xyz"})
        if name in self.funcs and not self.declared(name):     # a function as a value: its number
            return self.function_number(name)
        sym = self.lookup(name, node)
        if sym.kind == "var":
            return self.read(sym.var)
        if sym.kind == "shared" and sym.scalar:
            return self.load(self.shared_scalar_address(sym), sym.ctype.base, "shared", node)
        if sym.kind == "shared":
            return Val(self.const(region_base(sym.shared.region), T.LLONG).code, sym.ctype, space="shared",
                       aligned=ALIGNED)
        if sym.kind == "local_array":
            v = self.read(sym.var)
            out = Val(v.code, sym.ctype, v.taint, regs=v.regs)
            out.local_var = sym.var
            return out
        if sym.kind == "struct":
            return self.read_struct(sym, node)
        if sym.kind == "module_var":
            return self.module_var_value(sym, node)
        if sym.kind == "ref":
            return local_pointer(sym.ref, sym.ctype)
        if sym.kind == "constant":
            return sym.ref
        if sym.kind == "struct_array":
            raise self.error(node, f"the local array of structs '{name}' can only be indexed here "
                                   "(s[i], s[i].member)", construct="local array")
        raise self.error(node, f"cannot use '{name}' here", construct=name)

    def visit_StructRef(self, node):
        if isinstance(node.name, c_ast.ID) and node.name.name in SPECIALS and node.type == ".":
            field = node.field.name
            if field not in ("x", "y", "z"):
                raise self.error(node, f"{node.name.name} has fields x, y and z", construct=field)
            key = SPECIALS[node.name.name] + "_" + field
            if SPECIALS[node.name.name] in UNIFORM_SPECIALS:
                return Val(f"X.{key}", T.UINT)
            var = self.vars.get("sp_" + key)
            if var is None:
                var = self.vars["sp_" + key] = Var("sp_" + key, T.UINT, (), source_name=key, special=True)
            return self.read(var)
        return self.visit_member(node)

    def visit_Cast(self, node):
        to = self.ctype_of(node.to_type)
        v = self.value(self.expr(node.expr))
        if to.is_void:
            return Val("None", T.VOID)
        if v.ctype.is_void:
            raise self.error(node, f"an expression of type void has no value to convert to {to}", construct="void")
        if v.ref is not None:
            if not (to.is_pointer and (to.base == v.ctype.base or to.base == v.ref.ctype)):
                self.escape(v.ref, self.error(node, f"a pointer to a local variable cannot be cast to {to} in "
                                                    "simcore", construct="cast"))
            return local_pointer(v.ref, to)
        if v.local_var is not None:
            self.escape(v.local_var, self.error(node, "a local array cannot be cast (simcore keeps local arrays "
                                                      "in registers)", construct="cast"))
        if to.is_pointer and v.ctype.is_scalar and v.ctype.is_float:
            raise self.error(node, "cannot cast a floating-point value to a pointer", construct="cast")
        if v.ctype.is_pointer and to.is_scalar and to.is_float:
            raise self.error(node, "cannot cast a pointer to a floating-point type", construct="cast")
        out = self.cast(v, to)
        if to.is_pointer:
            out.space = v.space
        return out

    def visit_ExprList(self, node):
        v = None
        for e in node.exprs:
            v = self.expr(e)
        return v

    def visit_ArrayRef(self, node):
        if self.local_struct_array(node.name) is not None:
            return self.read_lvalue(self.lvalue(node), node)
        base = self.expr(node.name)
        if base.local_var is not None:
            idx = self.index_value(node.subscript)
            element = self.tmp(self.local_element(base.local_var, idx, node))
            return Val(element.code, element.ctype, element.taint | idx.taint)
        if base.ref is not None:
            return self.read_lvalue(self.deref(base, self.index_value(node.subscript), node), node)
        addr, elem, space = self.element_address(base, node)
        if elem.is_array:
            return addr
        return self.load(addr, elem, space, node)

    # ----------------------------------------------------------------- unary
    def visit_UnaryOp(self, node):
        op = node.op
        if op == "sizeof":
            return self.size_of(node)
        if op in ("++", "--", "p++", "p--"):
            return self.incdec(node)
        if op == "&" and isinstance(node.expr, c_ast.ID) and node.expr.name in self.funcs \
                and not self.declared(node.expr.name):
            return self.function_number(node.expr.name)
        if op == "&":
            target = self.lvalue(node.expr)
            if not isinstance(target, MemoryTarget):
                return self.address_of_local(target, node)
            addr = target.address
            return Val(addr.code, T.Pointer(target.ctype), addr.taint, space=target.space, aligned=addr.aligned,
                       regs=addr.regs)
        if op == "*":
            return self.read_lvalue(self.lvalue(node), node)
        v = self.value(self.expr(node.expr))
        if op == "!":
            c = self.condition_of(v)
            if c.const is not None:
                return self.const(not c.const, T.BOOL)
            return Val(f"(~{c.code})", T.BOOL, c.taint, regs=c.regs)
        if not v.ctype.is_scalar:
            raise self.error(node, f"operator {op} needs a number", construct=op)
        t = T.promote(v.ctype)
        v = self.cast(v, t)
        if op == "+":
            return v
        if op == "~" and not t.is_integer:
            raise self.error(node, "~ needs an integer", construct="~")
        if op in ("-", "~"):
            if v.const is not None:
                return self.const(convert_const(-v.const if op == "-" else ~v.const, t), t)
            return Val(f"({op}{v.code})", t, v.taint, regs=v.regs)
        raise self.error(node, f"operator {op} is not in simcore's subset", construct=op)

    def size_of(self, node):
        if isinstance(node.expr, c_ast.Typename):
            t = self.ctype_of(node.expr)
        elif isinstance(node.expr, c_ast.ID):
            t = self.lookup(node.expr.name, node.expr).ctype
        else:
            # sizeof(expression): its type, without evaluating it (C: no side effects happen)
            t = self.expr_without_emitting(node.expr).ctype
        if t.is_void or (t.is_array and t.length is None):
            raise self.error(node, f"sizeof of an incomplete type ({t})", construct="sizeof")
        return self.const(t.size, T.ULLONG)

    def incdec(self, node):
        delta = 1 if "+" in node.op else -1
        post = node.op.startswith("p")
        target = self.lvalue(node.expr)
        old = self.tmp(self.read_lvalue(target, node))
        if old.ctype.is_struct:
            raise self.error(node, f"operator {node.op.strip('p')} does not apply to a {old.ctype}", construct=node.op)
        if old.ctype.is_pointer:
            new = self.pointer_add(old, self.const(delta, T.INT), node)
        else:
            t = T.common_type(old.ctype, T.INT)
            new = self.cast(self.binary_arith("+", self.cast(old, t), self.const(delta, t), node), old.ctype)
        new = self.tmp(new)
        self.write_lvalue(target, new, node)
        return old if post else new

    # ----------------------------------------------------------------- assignment
    def visit_Assignment(self, node):
        rhs = self.value(self.expr(node.rvalue))
        spilled = self.reg_tmp(rhs) if has_boundary(node.lvalue) else None
        if spilled is None:
            rhs = self.tmp(rhs)
        target = self.lvalue(node.lvalue)
        if spilled is not None:
            rhs = self.read(spilled)
        if node.op == "=":
            val = self.tmp(self.convert_for_assign(rhs, target.ctype, node))
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

    # ----------------------------------------------------------------- binary
    def visit_BinaryOp(self, node):
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
            return Val(f"({left.code} {'&' if is_and else '|'} {right.code})", T.BOOL, taint_of(left, right),
                       regs=regs_of(left, right))
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
        a, b = self.array_as_pointer(a), self.array_as_pointer(b)
        if a.ref is not None or b.ref is not None:
            return self.local_pointer_arith(op, a, b, node)
        if a.ctype.is_struct or b.ctype.is_struct:
            t = a.ctype if a.ctype.is_struct else b.ctype
            raise self.error(node, f"operator {op} does not apply to a {t} (use its members)", construct=op)
        if op in COMPARE:
            return self.compare(op, a, b, node)
        if a.ctype.is_pointer or b.ctype.is_pointer:
            return self.pointer_arith(op, a, b, node)
        if not (a.ctype.is_scalar and b.ctype.is_scalar):
            raise self.error(node, f"operator {op} needs numbers", construct=op)
        if op in ("<<", ">>"):
            if not (a.ctype.is_integer and b.ctype.is_integer):
                raise self.error(node, f"operator {op} needs integers", construct=op)
            t = T.promote(a.ctype)
            in_range = b.const is not None and 0 <= b.const < 8 * t.size
            a, b = self.cast(a, t), self.cast(b, t)
            if a.const is not None and in_range:
                return self.const(convert_const(shift(op, a.const, b.const, t), t), t)
            if in_range:
                fn = "np.left_shift" if op == "<<" else "np.right_shift"
                return Val(f"{fn}({a.code}, {b.code})", t, taint_of(a, b), regs=regs_of(a, b))
            # a count known only at run time (or a constant out of range): C leaves a count
            # outside 0..width-1 undefined, so the context checks it (an undefined_shift fault)
            s = self.site(node, "shift")
            fn = "X.shl" if op == "<<" else "X.shr"
            return Val(f"{fn}({a.code}, {b.code}, L, {s})", t, taint_of(a, b), regs=regs_of(a, b))
        t = T.common_type(a.ctype, b.ctype)
        a, b = self.cast(a, t), self.cast(b, t)
        return self.binary_arith(op, a, b, node)

    def pointer_arith(self, op, a, b, node):
        if op == "+" and a.ctype.is_pointer and b.ctype.is_scalar and b.ctype.is_integer:
            return self.pointer_add(a, b, node)
        if op == "+" and b.ctype.is_pointer and a.ctype.is_scalar and a.ctype.is_integer:
            return self.pointer_add(b, a, node)
        if op == "-" and a.ctype.is_pointer and b.ctype.is_scalar and b.ctype.is_integer:
            return self.pointer_add(a, b, node, sign="-")
        if op == "-" and a.ctype.is_pointer and b.ctype.is_pointer:
            size = a.ctype.base.size
            return Val(f"(({a.code} - {b.code}) // {size})", T.LLONG, taint_of(a, b), regs=regs_of(a, b))
        raise self.error(node, f"operator {op} does not apply to pointers", construct=op)

    def binary_arith(self, op, a, b, node):
        t = a.ctype
        if op in ("&", "|", "^", "%") and not t.is_integer:
            raise self.error(node, f"operator {op} needs integers", construct=op)
        if a.const is not None and b.const is not None and not (op in "/%" and b.const == 0):
            return self.const(convert_const(fold(op, a.const, b.const, t), t), t)
        taint, regs = taint_of(a, b), regs_of(a, b)
        if op in ("/", "%") and t.is_integer:
            s = self.site(node, "division")
            fn = "X.idiv" if op == "/" else "X.imod"
            return Val(f"{fn}({a.code}, {b.code}, L, {s})", t, taint, regs=regs)
        if op not in ("+", "-", "*", "/", "&", "|", "^"):
            raise self.error(node, f"operator {op} is not in simcore's subset", construct=op)
        if op == "*" and t.kind == "i" and t.size >= 4 and not (a.const is not None and -1 <= a.const <= 1
                                                                  or b.const is not None and -1 <= b.const <= 1):
            # a signed product that may overflow (undefined in C): the context warns when it does
            s = self.site(node, "multiplication")
            return Val(f"X.smul({a.code}, {b.code}, L, {s})", t, taint, regs=regs)
        return Val(f"({a.code} {op} {b.code})", t, taint, regs=regs)

    def compare(self, op, a, b, node):
        if a.ctype.is_void or b.ctype.is_void:
            raise self.error(node, f"operator {op} needs values: one side has type void (a call of a function "
                                   "that returns nothing)", construct=op)
        if a.ctype.is_pointer or b.ctype.is_pointer:
            if a.ctype.is_scalar and a.const != 0 or b.ctype.is_scalar and b.const != 0:
                raise self.error(node, "cannot compare a pointer with a number", construct=op)
            return Val(f"({a.code} {op} {b.code})", T.BOOL, taint_of(a, b), regs=regs_of(a, b))
        t = T.common_type(a.ctype, b.ctype)
        a, b = self.cast(a, t), self.cast(b, t)
        if a.const is not None and b.const is not None:
            return self.const(COMPARE[op](a.const, b.const), T.BOOL)
        return Val(f"({a.code} {op} {b.code})", T.BOOL, taint_of(a, b), regs=regs_of(a, b))

    # ----------------------------------------------------------------- ?:
    def visit_TernaryOp(self, node):
        if not (is_pure(node.iftrue) and is_pure(node.iffalse)):
            return self.ternary_by_branch(node)
        c = self.condition(node.cond)
        spilled = self.reg_tmp(c) if has_boundary(node.iftrue) or has_boundary(node.iffalse) else None
        a = self.value(self.expr(node.iftrue))
        a_spill = None
        if has_boundary(node.iffalse):
            a_spill = self.struct_sym_copy(a, node) if a.ctype.is_struct else self.reg_tmp(a)
        b = self.value(self.expr(node.iffalse))
        if spilled is not None:
            c = self.read(spilled)
        if a_spill is not None:
            a = self.read(a_spill) if isinstance(a_spill, Var) else self.read_struct(a_spill, node)
        t = self.result_type(a, b, node)
        a, b = self.cast(a, t), self.cast(b, t)
        if c.const is not None:
            return a if c.const else b
        if t.is_struct:
            return self.select_struct(c, a, b)
        code = f"np.where({c.code}, {a.code}, {b.code})"
        if t.is_scalar:
            code = f"np.asarray({code}, dtype={DT[t]})"
        return Val(code, t, select_taint(c, a, b), space=self.merged_space(a, b), aligned=a.aligned & b.aligned,
                   regs=regs_of(c, a, b))

    def merged_space(self, a, b):
        """The memory space of `c ? a : b`: one space when both arms agree (or one is a null
        pointer constant), else unknown until run time."""
        if a.space and b.space and a.space != b.space:
            self.mixed_spaces = True
            return None
        return a.space or b.space

    def ternary_by_branch(self, node):
        """The arms read memory or have effects: evaluate only the chosen arm, per lane."""
        c = self.condition(node.cond)
        then_b, else_b, join = self.new_block(), self.new_block(), self.new_block()
        self.branch(c, then_b, else_b, node)
        self.start(then_b)
        a = self.tmp(self.value(self.expr(node.iftrue)))
        a_end = self.cur
        self.start(else_b)
        b = self.tmp(self.value(self.expr(node.iffalse)))
        t = self.result_type(a, b, node)
        if t.is_struct:
            result = self.struct_sym("sel", t, node)
            self.write_struct(result, b, node)
            self.goto(join)
            self.start(a_end)
            self.write_struct(result, a, node)
            self.goto(join)
            self.start(join)
            return self.read_struct(result, node)
        result = self.new_var("sel", t, space=self.merged_space(a, b))
        self.write(result, self.cast(b, t))
        self.goto(join)
        self.start(a_end)
        self.write(result, self.cast(a, t))
        self.goto(join)
        self.start(join)
        return self.read(result)

    def array_as_pointer(self, v):
        """A local array in arithmetic (`v + 4`, `q < v + 4`) is a pointer to its first element."""
        if v.local_var is None or v.ref is not None:
            return v
        return local_pointer(LocalElementTarget(v.local_var, self.const(0, T.INT)), T.Pointer(v.ctype.base))

    def result_type(self, a, b, node):
        if a.local_var is not None or b.local_var is not None:
            raise self.error(node, "?: cannot choose between local arrays in simcore (they live in registers): "
                                   "use an if, or index each array in its own arm", construct="?:")
        if a.ref is not None or b.ref is not None:
            self.escape(a.ref if a.ref is not None else b.ref, self.error(
                node, "?: cannot choose between pointers to local variables in simcore (they are fixed at "
                      "compile time): use an if", construct="?:"))
        if a.ctype.is_struct or b.ctype.is_struct:
            if a.ctype is not b.ctype:
                raise self.error(node, f"the arms of ?: have different types ({a.ctype}, {b.ctype})", construct="?:")
            return a.ctype
        if a.ctype.is_pointer:
            return a.ctype
        if b.ctype.is_pointer:
            return b.ctype
        if a.ctype.is_void or b.ctype.is_void:
            raise self.error(node, "both arms of ?: need values", construct="?:")
        return T.common_type(a.ctype, b.ctype)


def _nesting(code):
    """How deeply the parentheses and brackets of code nest."""
    depth = deepest = 0
    for c in code:
        if c in "([":
            depth += 1
            deepest = max(deepest, depth)
        elif c in ")]":
            depth -= 1
    return deepest
