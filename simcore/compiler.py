"""Source text -> Programs (one per __global__ kernel), compiled once and cached by source hash."""
import hashlib
import re

import numpy as np
from pycparser import c_ast, c_parser

from . import ctype as T
from .errors import CompileError
from .lower import Lowerer, Sym
from .preprocess import preprocess
from .program import Param, Program

_CACHE = {}


def compile_source(source, options=()):
    """-> dict kernel name -> Program. Raises CompileError."""
    if not isinstance(source, str):
        raise CompileError(f"the kernel source must be a string, not {type(source).__name__}")
    key = hashlib.sha256((source + "\0" + "\0".join(options)).encode()).hexdigest()
    if key not in _CACHE:
        _CACHE[key] = _compile(source, tuple(options))
    return _CACHE[key]


def _compile(source, options):
    pre = preprocess(source, options)
    _check_braces(pre)
    parser = c_parser.CParser()
    try:
        ast = parser.parse(pre.text, filename="kernel.cu")
    except c_parser.ParseError as e:
        msg = str(e)
        if not re.match(r"[^:]*:\d+:\d+:", msg):
            # some pycparser errors carry no position: use the token the parser stopped at
            try:
                tok = parser._tokens.peek(1)
                msg = f"kernel.cu:{tok.lineno}:{tok.column}: {msg.split(': ', 1)[-1]} before: {tok.value}"
            except Exception:
                pass
        raise _parse_error(msg, pre.lines) from None
    except Exception as e:      # pycparser's own assertions on odd input: still a located syntax error
        try:
            tok = parser._tokens.peek(1)
            where = f"kernel.cu:{tok.lineno}:{tok.column}: before: {tok.value}"
        except Exception:
            where = f"kernel.cu: {type(e).__name__}"
        raise _parse_error(where, pre.lines) from None
    funcs, kernels_defs, globals_, typedefs = {}, {}, {}, {}
    for ext in ast.ext:
        if isinstance(ext, c_ast.FuncDef):
            name = ext.decl.name
            if name in kernels_defs or name in funcs:
                first = (kernels_defs.get(name) or funcs.get(name)).decl.coord.line
                line = ext.decl.coord.line if ext.decl.coord else None
                raise CompileError(f"redefinition of '{name}' (first defined on line {first})", line=line,
                                   construct=name, source_line=pre.lines[line - 1] if line else None)
            if name in pre.kernels:
                kernels_defs[name] = ext
            else:
                funcs[name] = ext
        elif isinstance(ext, c_ast.Decl):
            if isinstance(ext.type, c_ast.FuncDecl):
                continue   # a prototype
            if "_Thread_local" in (ext.storage or []):
                globals_[ext.name] = ext
            else:
                line = ext.coord.line if ext.coord else None
                raise CompileError("global variables are not in simcore's subset (use a kernel parameter, "
                                   "or __shared__ memory)", line=line, construct="global variable",
                                   source_line=pre.lines[line - 1] if line else None)
        elif isinstance(ext, c_ast.Typedef):
            t = ext.type.type
            if isinstance(ext.type, c_ast.TypeDecl) and isinstance(t, c_ast.IdentifierType):
                names = t.names
                if len(names) == 1 and names[0] in typedefs:
                    names = typedefs[names[0]]
                typedefs[ext.name] = names
        elif isinstance(ext, c_ast.Pragma):
            continue
    if not kernels_defs:
        raise CompileError("no __global__ kernel found in the source", construct="__global__")
    return {name: compile_kernel(pre, fdef, funcs, globals_, typedefs) for name, fdef in kernels_defs.items()}


def _check_braces(pre):
    """Unbalanced braces are the most common typo; name the brace (pycparser would assert)."""
    body = pre.text.split('# 1 "kernel.cu"\n', 1)[1]
    stack = []
    i, n, line, col = 0, len(body), 1, 1
    while i < n:
        c = body[i]
        if c in "\"'":                      # skip string and char literals
            j = i + 1
            while j < n and body[j] != c and body[j] != "\n":
                j += 2 if body[j] == "\\" else 1
            col += j - i
            i = j
        elif c == "{":
            stack.append((line, col))
        elif c == "}":
            if not stack:
                raise CompileError("unmatched '}': there is no '{' for it to close", line=line, column=col,
                                   construct="}", source_line=pre.lines[line - 1] if line <= len(pre.lines) else None)
            stack.pop()
        if i < n and body[i] == "\n":
            line, col = line + 1, 1
        else:
            col += 1
        i += 1
    if stack:
        line, col = stack[-1]
        raise CompileError("this '{' is never closed: a '}' is missing", line=line, column=col, construct="{",
                           source_line=pre.lines[line - 1] if line <= len(pre.lines) else None)


def _parse_error(msg, lines):
    # pycparser: "kernel.cu:12:5: before: x"
    m = re.match(r"[^:]*:(\d+):(\d+): (.*)", msg)
    if not m:
        return CompileError(f"syntax error: {msg}", construct="syntax")
    line, col, rest = int(m.group(1)), int(m.group(2)), m.group(3)
    text = lines[line - 1] if 0 < line <= len(lines) else None
    what, _, token = rest.partition("before: ")
    what = what.strip().rstrip(":").lower()
    detail = f"{what + ': ' if what else ''}unexpected '{token.strip()}'" if token else rest
    hint = ""
    prev = lines[line - 2].rstrip() if 1 < line <= len(lines) + 1 else ""
    if col and text is not None and not text[:col - 1].strip() and prev and prev[-1] not in ";{}),":
        hint = f" (is a ';' missing at the end of line {line - 1}?)"
    return CompileError(f"syntax error ({detail}){hint}: this is not valid C, or uses a construct outside "
                        "simcore's CUDA subset", line=line, column=col, construct="syntax", source_line=text)


def compile_kernel(pre, fdef, funcs, global_decls, typedefs=None):
    tracked, unaligned = set(), set()
    for _ in range(8):   # repeat until the registers needing taint shadows / alignment checks are stable
        low = Lowerer(pre, funcs, {}, tracked, frozenset(unaligned), typedefs)
        for name, decl in global_decls.items():
            low.globals[name] = low.declare_shared(decl, low.ctype_of(decl.type), "extern" in decl.storage)
        params = _params(low, fdef)
        low.stmt(fdef.body)
        low.close(("exit",))
        if low.new_tracked <= tracked and low.new_unaligned <= unaligned:
            break
        tracked = tracked | low.new_tracked
        unaligned = unaligned | low.new_unaligned
    prog = Program(fdef.decl.name, params, low.blocks, 0, low.vars, low.shared, low.sync_sites, low.sites,
                   pre.lines)
    prog.global_access_size = min(low.global_sizes) if low.global_sizes else 4
    prog.shared_access_size = min(low.shared_sizes) if low.shared_sizes else 4
    prog.uses_taint = bool(tracked) or low.uses_taint
    _finish(prog)
    from .codegen import generate
    generate(prog, low.consts)
    return prog


def _params(low, fdef):
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
        if t.is_array:
            t = T.decay(t)
        if t.is_pointer:
            space = "global"
            if not t.base.is_scalar:
                raise low.error(p, f"parameter '{p.name}' must point to numbers", construct="parameter")
            dtype = t.base.dtype
        else:
            space = None
            dtype = t.dtype
        var = low.new_var(p.name, t, space=space)
        var.param = True
        low.scopes[-1][p.name] = Sym("var", t, var=var)
        params.append(Param(p.name, str(t), t.is_pointer, np.dtype(dtype), var.name))
    return params


def _succs(prog, b):
    term = b.term
    if term[0] == "goto":
        return [term[1]]
    if term[0] == "branch":
        return [term[3], term[2]]      # visit the false side first: see _finish
    if term[0] == "sync":
        return [prog.sync_sites[term[1]].next]
    return []


def _finish(prog):
    """Number blocks in reverse post-order and find each branch's reconvergence point.

    Reverse post-order with the false successor visited first puts a loop's body before its
    exit and an if's then-side before its else-side. The engine always runs the lowest
    numbered runnable block first, so lanes that finished a loop or a branch early wait for
    the others, and groups merge at joins.
    """
    blocks = prog.blocks
    by_id = {b.id: b for b in blocks}
    order, seen = [], set()
    stack = [(prog.entry, iter(_succs(prog, by_id[prog.entry])))]
    seen.add(prog.entry)
    while stack:
        node, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            order.append(node)
            stack.pop()
        elif nxt not in seen:
            seen.add(nxt)
            stack.append((nxt, iter(_succs(prog, by_id[nxt]))))
    order.reverse()
    renum = {old: new for new, old in enumerate(order)}
    new_blocks = []
    for old in order:
        b = by_id[old]
        b.id = renum[old]
        t = b.term
        if t[0] == "goto":
            b.term = ("goto", renum[t[1]])
        elif t[0] == "branch":
            b.term = ("branch", t[1], renum[t[2]], renum[t[3]], t[4])
        new_blocks.append(b)
    for s in prog.sync_sites:
        if s.next in renum:
            s.next = renum[s.next]
    prog.blocks = new_blocks
    prog.entry = 0
    _postdominators(prog)


def _postdominators(prog):
    blocks = prog.blocks
    n = len(blocks)
    EXIT = n
    succ = [(_succs(prog, b) or [EXIT]) for b in blocks]
    full = frozenset(range(n + 1))
    pdom = [full] * n + [frozenset([EXIT])]
    changed = True
    while changed:
        changed = False
        for i in reversed(range(n)):
            new = frozenset([i]) | frozenset.intersection(*[pdom[s] for s in succ[i]])
            if new != pdom[i]:
                pdom[i] = new
                changed = True

    def trivially_exits(j):
        seen = set()
        while j != EXIT and j not in seen:
            seen.add(j)
            b = blocks[j]
            if b.code:
                return False
            if b.term[0] == "exit":
                return True
            if b.term[0] != "goto":
                return False
            j = b.term[1]
        return True

    for b in blocks:
        if b.term[0] != "branch":
            continue
        strict = pdom[b.id] - {b.id}
        if strict == full - {b.id} or not strict:
            b.ipdom = -1          # cannot reach the exit (endless loop): no reconvergence point
            continue
        # the immediate post-dominator is the strict post-dominator closest to b
        ip = max(strict, key=lambda d: len(pdom[d]))
        if ip == EXIT or trivially_exits(ip):
            b.ipdom = -1          # lanes that skip simply exit: nothing to wait for
            b.exit_join = True    # (the stack model still serialises the two sides)
        else:
            b.ipdom = ip
            blocks[ip].is_join = True
            blocks[ip].join_of.append(b.id)
