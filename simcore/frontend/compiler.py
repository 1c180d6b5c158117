"""Source text -> Programs (one per __global__ kernel), compiled once and cached by source hash."""
import hashlib
import re
import sys

from pycparser import c_ast, c_parser

from ..lower.codegen import generate
from ..errors import CompileError
from ..lower import TOO_DEEP, lower
from .preprocess import preprocess

_CACHE = {}


class Programs(dict):
    """kernel name -> Program (a template kernel's instances by their name expression, "k<256>");
    `template_kernels`: the template kernels of the source, instantiated or not."""
    template_kernels = ()


def compile_source(source, options=(), name_expressions=()):
    """-> Programs (dict kernel name -> Program). Raises CompileError."""
    if not isinstance(source, str):
        raise CompileError(f"the kernel source must be a string, not {type(source).__name__}")
    name_expressions = tuple(name_expressions or ())
    key = hashlib.sha256((source + "\0" + "\0".join(options) + "\1" + "\0".join(map(str, name_expressions)))
                         .encode()).hexdigest()
    if key not in _CACHE:
        _CACHE[key] = _compile(source, tuple(options), name_expressions)
    return _CACHE[key]


# Parsing and lowering recurse once per level of nesting (pycparser ~8 frames per parenthesis):
# Python's default limit of 1000 would refuse a sum of 490 terms or 130 nested parentheses.
RECURSION_LIMIT = 12000


def _compile(source, options, name_expressions=()):
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, RECURSION_LIMIT))
    try:
        return _compile_nested(source, options, name_expressions)
    finally:
        sys.setrecursionlimit(limit)


def _compile_nested(source, options, name_expressions=()):
    pre = preprocess(source, options, name_expressions)
    _check_braces(pre)
    top = _TopLevel(pre)
    for ext in _parse(pre).ext:
        top.add(ext)
    if not top.kernels and not pre.template_kernels:
        raise CompileError("no __global__ kernel found in the source", construct="__global__")
    programs = Programs()
    programs.template_kernels = tuple(pre.template_kernels)
    for name, fdef in top.kernels.items():
        prog = compile_kernel(pre, fdef, top.funcs, top.variables, top.types)
        prog.name = pre.kernel_names.get(name, name)     # a template instance: "k<256>"
        programs[prog.name] = prog
    return programs


def _parse(pre):
    """Preprocessed text -> pycparser AST; a syntax error becomes a located CompileError."""
    parser = c_parser.CParser()
    try:
        return parser.parse(pre.text, filename="kernel.cu")
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
            tok, where = None, f"kernel.cu: {type(e).__name__}"
        if isinstance(e, RecursionError):
            line = tok.lineno if tok is not None else None
            raise CompileError(TOO_DEEP, line=line, construct="nesting",
                               source_line=pre.lines[line - 1] if line and line <= len(pre.lines) else None) from None
        raise _parse_error(where, pre.lines) from None


class _TopLevel:
    """The file-scope declarations of a module: kernels, __device__ functions, file-scope
    variables (__shared__, __device__, __constant__, const numbers), struct definitions and
    typedefs (in source order)."""

    def __init__(self, pre):
        self.pre = pre
        self.kernels, self.funcs, self.variables = {}, {}, {}
        self.types = []

    def error(self, msg, coord, construct):
        line = coord.line if coord else None
        return CompileError(msg, line=line, construct=construct,
                            source_line=self.pre.lines[line - 1] if line else None)

    def add(self, ext):
        if isinstance(ext, c_ast.FuncDef):
            name = ext.decl.name
            if name in self.kernels or name in self.funcs:
                first = (self.kernels.get(name) or self.funcs.get(name)).decl.coord.line
                raise self.error(f"redefinition of '{name}' (first defined on line {first})", ext.decl.coord, name)
            (self.kernels if name in self.pre.kernels else self.funcs)[name] = ext
        elif isinstance(ext, c_ast.Decl):
            if isinstance(ext.type, c_ast.FuncDecl):
                return     # a prototype
            if ext.name is None:
                if isinstance(ext.type, (c_ast.Struct, c_ast.Union)):
                    self.types.append(ext)       # struct S { ... };
                return
            # a host variable (`int gB = 200;`) too: nvcc compiles the file, and only a kernel that
            # uses it is refused (lower/kernel.py)
            self.variables[ext.name] = ext
        elif isinstance(ext, c_ast.Typedef):
            self.types.append(ext)


def _check_braces(pre):
    """Unbalanced braces are the most common typo; name the brace (pycparser would assert).
    An unterminated string or character literal is named too (pycparser: 'illegal character')."""
    body = pre.text.split('# 1 "kernel.cu"\n', 1)[1]
    stack = []
    i, n, line, col = 0, len(body), 1, 1
    while i < n:
        c = body[i]
        if c in "\"'":                      # skip string and char literals
            j = i + 1
            while j < n and body[j] != c and body[j] != "\n":
                j += 2 if body[j] == "\\" else 1
            if j >= n or body[j] != c:
                what = "string" if c == '"' else "character"
                raise CompileError(f"missing closing quote: this {what} literal is not terminated on its line",
                                   line=line, column=col, construct="missing closing quote",
                                   source_line=pre.lines[line - 1] if line <= len(pre.lines) else None)
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
    if not m and "end of input" in msg.lower():
        # the text stops in the middle of something: name its last line
        line = max((k + 1 for k, text in enumerate(lines) if text.strip()), default=None)
        return CompileError("syntax error: the code ends in the middle of a declaration or statement (is a "
                            "'}', ')' or ';' missing, or the end of the file cut off?)", line=line,
                            construct="syntax", source_line=lines[line - 1] if line else None)
    if not m:
        # pycparser gave no position ("Invalid declaration" of a cut-off declaration): name
        # the last line, where the text stops making sense
        line = max((k + 1 for k, text in enumerate(lines) if text.strip()), default=None)
        what = re.sub(r"^[^:]*:\s*", "", msg).strip().lower() or "not valid C"
        return CompileError(f"syntax error ({what}) at the end of the code: is a declaration cut off, or a "
                            "'}' or ';' missing?", line=line, construct="syntax",
                            source_line=lines[line - 1] if line else None)
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


def compile_kernel(pre, fdef, funcs, global_decls, type_decls=()):
    prog, consts = lower(pre, fdef, funcs, global_decls, type_decls)
    generate(prog, consts)
    return prog
