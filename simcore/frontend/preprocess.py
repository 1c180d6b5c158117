"""From CUDA C source to C99 that pycparser parses, keeping every line where it was.

Steps: join continued lines, strip comments, run the preprocessor directives we support
(#define, #undef, #if/#ifdef/#ifndef/#elif/#else/#endif, #include and #pragma ignored), expand
macros, then rewrite CUDA spellings (`__global__`, `__shared__`, `extern "C"`, inline PTX,
C++ casts) into plain C. Line numbers never move, so every later error points at the line
the student wrote.
"""
import re
from dataclasses import dataclass, field

from . import condition, cooperative_groups, nvrtc_environment, templates
from .brackets import matching, rewrite_calls
from .ctype import ALL_VECTOR_NAMES, AUTO_TYPE
from ..errors import CompileError
from .source_lines import line_of

IDENT = re.compile(r"[A-Za-z_]\w*")
# One C token: string or char literal, identifier, number, or a single other character.
TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|[A-Za-z_]\w*|\d[\w.]*(?:[eEpP][+-]\d+)?\w*|\s+|.')

# The type names NVRTC knows without an #include (simcore/data/nvrtc_environment.json "types",
# measured on the GPU: bool, size_t, ptrdiff_t and the vector types; not int32_t & co, which need
# a header NVRTC does not have, nor uint); C++'s character types as integers of their width, and
# clock_t, the type of CUDA's clock(); _aut stands for `auto` (lowering gives it the initializer's type)
PRELUDE = """typedef _Bool bool; typedef unsigned long size_t; typedef long ptrdiff_t;
typedef int _aut; typedef long clock_t;
typedef int wchar_t; typedef unsigned short char16_t; typedef unsigned int char32_t;
""" + "".join(f"typedef struct __cuda_{v} {v}; " for v in ALL_VECTOR_NAMES + ("dim3",)) + "\n"
# (vector types: the tag __cuda_<name> stands for ctype.VECTOR_TYPES[name] in lowering)

# Words that mean a construct outside the subset: a clear message beats a parse error.
UNSUPPORTED_WORDS = {
    "template": "C++ templates",
    "namespace": "namespaces", 
    "goto": "goto",
    "__half": "half precision",
    "cooperative_groups": "cooperative groups", 
    "register": "the register keyword", "_Thread_local": "_Thread_local", 
    "typename": "templates", "operator": "operator overloading", "__managed__": "__managed__ memory",
    
}

# C++ keywords and literals the C99 parser needs spelled as numbers: replaced while expanding,
# but not macros (in NVRTC `#ifdef true` is false and `#if true` is 1, as here).
CXX_WORDS = {"true": (None, "1"), "false": (None, "0"), "nullptr": (None, "0"), "NULL": (None, "0")}

ERASE = ("__host__", "__forceinline__", "__noinline__", "inline", "__inline__")

MAX_LINE_EXPANSION = 1 << 20   # characters one source line may grow to by macro expansion
MAX_EXPANSION = 1 << 24        # characters macro expansion may produce for a whole source, nested included


@dataclass
class Preprocessed:
    text: str                      # C99 text for pycparser (prelude + line marker + body)
    lines: list                    # the user's original source lines, for messages
    kernels: list                  # names declared __global__, in order
    asm_sites: dict = field(default_factory=dict)
    kernel_names: dict = field(default_factory=dict)   # C name of a template instance -> "k<256>"
    template_kernels: list = field(default_factory=list)
    struct_align: dict = field(default_factory=dict)   # struct tag -> n of `struct __align__(n) tag`
    methods: dict = field(default_factory=dict)        # struct tag -> {member function: its function's name}


def preprocess(source, options=(), name_expressions=(), *, max_expansion=MAX_EXPANSION):
    """The C99 text and facts of `source` (see Preprocessed). `max_expansion`: the characters
    macro expansion may produce for the whole source, nested expansions included (a caller
    such as a grader passes a smaller one); past it, ExpansionLimitError names the macro and
    the line, before the text is built."""
    source = source.replace("\r\n", "\n").replace("\r", "\n")    # Windows and old Mac line ends
    lines = source.split("\n")
    # the macros NVRTC predefines (simcore/data/nvrtc_environment.json), then -D/-U in order
    defines = {**CXX_WORDS, **nvrtc_environment.predefined_macros(options)}
    for opt in options:
        if opt.startswith("-D"):
            name, _, value = opt[2:].partition("=")
            defines[name.strip()] = (None, value if value else "1")
        elif opt.startswith("-U"):
            defines.pop(opt[2:].strip(), None)
    body = strip_comments(join_continuations(source), lines)
    body = directives(body.split("\n"), defines, lines, ExpansionBudget(max_expansion))
    text = "\n".join(body)
    nvrtc_environment.check_reserved_names(text, lines)
    prelude = PRELUDE
    expanded = None
    if templates.has_templates(text):
        expanded = templates.expand(text, lines, name_expressions)
        text = expanded.text
    if cooperative_groups.uses_cooperative_groups(text):
        text = cooperative_groups.rewrite(text, lines)
        prelude += cooperative_groups.PRELUDE
    # a C++ class is a struct whose members are private by default: the same code for simcore
    text = re.sub(r"\bclass\b(?=\s+[A-Za-z_]\w*\s*[{:;])", "struct", text)
    text = _inheritance(text, lines)
    text, kernels = _cuda_spellings(text, lines)
    text, struct_align = _alignment_specifiers(text, lines)
    text = _device_variables(text)
    text, methods = _member_functions(text, lines)
    text = _brace_initializers(text)
    # C++ names a struct by its tag alone (`Complex c;`): declare each tag as a typedef too
    # (in the prelude, so no line moves)
    tags = dict.fromkeys(m.groups() for m in re.finditer(r"\b(struct|union)\s+([A-Za-z_]\w*)", text))
    tag_typedefs = "".join(f"typedef {kind} {t} {t}; " for kind, t in tags if not t.startswith("__cuda_"))
    pre = Preprocessed(prelude + tag_typedefs + '\n# 1 "kernel.cu"\n' + text, lines, kernels,
                       struct_align=struct_align, methods=methods)
    if expanded is not None:
        pre.kernel_names, pre.template_kernels = expanded.names, expanded.template_kernels
    return pre


def _error(msg, line, lines, column=None, construct=None):
    src = lines[line - 1] if line and 0 < line <= len(lines) else None
    return CompileError(msg, line=line, column=column, construct=construct, source_line=src)


def join_continuations(source):
    """`a \\<newline> b` becomes `a  b` followed by an empty line, so lines keep their numbers."""
    out, pending, carry = [], "", 0
    for line in source.split("\n"):
        if line.endswith("\\"):
            pending += line[:-1] + " "
            carry += 1
            continue
        out.append(pending + line)
        out.extend([""] * carry)
        pending, carry = "", 0
    if pending:
        out.append(pending)
    return "\n".join(out)


def strip_comments(text, lines):
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                if text[j] == "\\":
                    j += 1
                if j < n and text[j] == "\n":
                    break
                j += 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise _error("unterminated /* comment", text.count("\n", 0, i) + 1, lines,
                             construct="comment")
            chunk = text[i:j + 2]
            out.append("".join(ch if ch == "\n" else " " for ch in chunk))
            i = j + 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def directives(body, defines, lines, budget=None):
    """Run #-directives; directive lines become empty lines. `budget`: what macro expansion
    may cost over all the lines (ExpansionBudget; the default limit when None)."""
    budget = budget or ExpansionBudget()
    out = []
    stack = []          # per #if: [taking now, some branch already taken, parent active]
    active = True
    for no, line in enumerate(body, 1):
        stripped = line.strip()
        if stripped.startswith("#"):
            m = re.match(r"#\s*(\w*)\s*(.*)", stripped)
            word, rest = m.group(1), m.group(2).strip()
            if word in ("if", "ifdef", "ifndef"):
                if word == "if":
                    cond = active and _eval_if(rest, defines, no, lines, budget)
                else:
                    name = rest.split()[0] if rest else ""
                    cond = active and (_is_macro(name, defines) == (word == "ifdef"))
                stack.append([cond, cond, active])
                active = cond
            elif word in ("elif", "else"):
                if not stack:
                    raise _error(f"#{word} without #if", no, lines, construct="#" + word)
                top = stack[-1]
                if top[1]:
                    top[0] = False
                else:
                    top[0] = top[2] and (word == "else" or _eval_if(rest, defines, no, lines, budget))
                    top[1] = top[0]
                active = top[0]
            elif word == "endif":
                if not stack:
                    raise _error("#endif without #if", no, lines, construct="#endif")
                active = stack.pop()[2]
            elif not active:
                pass
            elif word == "define":
                _define(rest, defines, no, lines)
            elif word == "undef":
                defines.pop(rest.split()[0] if rest else "", None)
            elif word == "include":
                _include(rest, no, lines, column=line.index("#") + 1)
            elif word in ("pragma", "line", ""):
                pass   # #pragma unroll is a hint we do not need
            elif word == "error":
                raise _error(f"#error {rest}", no, lines, construct="#error")
            else:
                raise _error(f"preprocessor directive #{word} is not supported", no, lines,
                             construct="#" + word)
            out.append("")
        elif active:
            out.append(expand(line, defines, no, lines, budget=budget))
        else:
            out.append("")
    if stack:
        raise _error("#if without #endif", len(body), lines, construct="#if")
    return out


def _define(rest, defines, no, lines):
    m = re.match(r"([A-Za-z_]\w*)(\(([^)]*)\))?\s*(.*)", rest)
    if not m:
        raise _error("malformed #define", no, lines, construct="#define")
    params = None
    if m.group(2) is not None:
        params = [p.strip() for p in m.group(3).split(",") if p.strip()]
    defines[m.group(1)] = (params, m.group(4))


def _is_macro(name, defines):
    """Is `name` a macro now (#ifdef, defined())? The C++ words are not, unless redefined."""
    return name in defines and defines[name] is not CXX_WORDS.get(name)


def _include(rest, no, lines, column):
    """The headers NVRTC finds on CuPy's include path are built in (what simcore supports of
    them); any other header, and a file of the user's, cannot be opened, as in NVRTC."""
    if rest.startswith('"'):
        name = rest[1:].split('"', 1)[0]
        if nvrtc_environment.header_found(name):    # a quoted name searches the include path too
            return
        raise _error(f'cannot open source file "{name}": simcore compiles the one source string it is '
                     "given (as NVRTC does, without files next to it); put the code of that file into "
                     "the source", no, lines, column=column, construct="#include")
    m = re.match(r"<\s*([^>]*?)\s*>", rest)
    if not m:
        raise _error(f"#include expects <header> or \"file\", not {rest!r}", no, lines, column=column,
                     construct="#include")
    if not nvrtc_environment.header_found(m.group(1)):
        raise _error(f'cannot open source file "{m.group(1)}": NVRTC, which compiles this kernel on the GPU, '
                     "has no host C/C++ headers on its include path (only CUDA's own, such as "
                     "<cooperative_groups.h> and <cuda_fp16.h>); device code needs none of them (printf, "
                     "min, max and the math functions are built in), so delete the line", no, lines,
                     column=column, construct="#include")


def _eval_if(expr, defines, no, lines, budget):
    expr = re.sub(r"defined\s*\(\s*(\w+)\s*\)|defined\s+(\w+)",
                  lambda m: "1" if _is_macro(m.group(1) or m.group(2), defines) else "0", expr)
    expanded = expand(expr, defines, no, lines, budget=budget)
    try:
        return condition.is_true(expanded)
    except condition.ConditionError as e:
        shown = f" (after macro expansion: {expanded.strip()})" if expanded.strip() != expr.strip() else ""
        raise _error(f"cannot evaluate #if {expr.strip()}{shown}: {e}", no, lines, construct="#if") from None


class ExpansionLimitError(CompileError):
    """Macro expansion went past a limit of the preprocessor; `macro` names the macro used on
    the line (`line`) whose expansion did."""

    def __init__(self, message, macro, line, lines):
        self.macro = macro
        src = lines[line - 1] if line and 0 < line <= len(lines) else None
        super().__init__(message, line=line, construct="#define", source_line=src)


class ExpansionBudget:
    """What macro expansion may cost for one source: macros that double at every level
    (#define A1 A0 A0, #define A2 A1 A1, ...) grow exponentially. Every macro use and every
    piece of text expansion produces is counted as it is made, so expansion stops at the limit
    with a message naming the macro, never after building the huge text; the count is kept for
    the whole source, so a bomb spread over many lines stops as one on a single line does. It
    counts work, not time: the same source gets the same verdict on any machine."""

    def __init__(self, limit=MAX_EXPANSION):
        self.limit = int(limit)
        self.work = 0
        self.macro = None          # the macro used on the line whose expansion runs now

    def spend(self, size, no, lines):
        """Count `size` characters (at least 1: a use of a macro costs even when empty)."""
        self.work += max(size, 1)
        if size > MAX_LINE_EXPANSION:
            self._stop(f"makes line {no} longer than {MAX_LINE_EXPANSION:,} characters (the preprocessor's "
                       "size limit): a macro that uses another one several times, level after level, grows "
                       "exponentially", no, lines)
        if self.work > self.limit:
            self._stop(f"on line {no} takes the source's macro expansion past {self.limit:,} characters (the "
                       "preprocessor's work limit): macros nested in each other grow exponentially; write "
                       "the code out instead of multiplying it with macros", no, lines)

    def _stop(self, why, no, lines):
        raise ExpansionLimitError(f"macro expansion of {self.macro} {why}", self.macro, no, lines)


def expand(line, defines, no, lines, depth=0, hide=frozenset(), budget=None):
    """Expand object-like and function-like macros in one line (no # or ## operators)."""
    if depth > 50:
        raise _error("macro expansion too deep (recursive #define?)", no, lines, construct="#define")
    budget = budget or ExpansionBudget()
    toks = TOKEN.findall(line)
    out, i = [], 0
    changed = False
    size = 0
    while i < len(toks):
        t = toks[i]
        if t in defines and t not in hide:
            params, body = defines[t]
            if depth == 0:
                budget.macro = t
            if params is None:
                budget.spend(0, no, lines)
                piece = expand(body, defines, no, lines, depth + 1, hide | {t}, budget)
                out.append(piece)
                size += len(piece)
                changed = True
                i += 1
                if size > MAX_LINE_EXPANSION:
                    budget.spend(size, no, lines)
                continue
            j = i + 1
            while j < len(toks) and toks[j].isspace():
                j += 1
            if j < len(toks) and toks[j] == "(":
                args, j = _macro_args(toks, j, no, lines)
                if len(args) != len(params) and not (params == [] and args == [""]):
                    raise _error(f"macro {t} takes {len(params)} argument(s), got {len(args)}", no, lines,
                                 construct="#define")
                # C expands each argument fully before putting it in (so STEP(STEP(x)) works); an
                # argument is shorter than its line, so this recursion ends without the depth limit
                args = [expand(a, defines, no, lines, depth, hide, budget) for a in args]
                sub = dict(zip(params, args))
                replaced = "".join(sub.get(bt, bt) if IDENT.fullmatch(bt) else bt
                                   for bt in TOKEN.findall(body))
                budget.spend(len(replaced), no, lines)
                piece = expand(replaced, defines, no, lines, depth + 1, hide | {t}, budget)
                out.append(piece)
                size += len(piece)
                changed = True
                i = j
                if size > MAX_LINE_EXPANSION:
                    budget.spend(size, no, lines)
                continue
        out.append(t)
        size += len(t)
        i += 1
    if not changed:
        return line
    budget.spend(size, no, lines)
    return "".join(out)


def _macro_args(toks, j, no, lines):
    depth, args, cur = 0, [], []
    j += 1
    while j < len(toks):
        t = toks[j]
        if t == "(":
            depth += 1
        elif t == ")":
            if depth == 0:
                args.append("".join(cur).strip())
                return args, j + 1
            depth -= 1
        elif t == "," and depth == 0:
            args.append("".join(cur).strip())
            cur = []
            j += 1
            continue
        cur.append(t)
        j += 1
    raise _error("unterminated macro call (the arguments must be on one line)", no, lines,
                 construct="#define")




def _blank(s):
    return "".join(c if c == "\n" else " " for c in s)


KERNEL_LAUNCH = re.compile(r"\b[A-Za-z_]\w*\s*<<<")


def _cuda_spellings(text, lines):
    launch = KERNEL_LAUNCH.search(text)
    if launch:
        at = text.index("<<<", launch.start())
        line = line_of(text, at)
        col = at - (text.rfind("\n", 0, at) + 1) + 1
        raise _error("kernel launches (kernel<<<grid, block>>>(...)) are host code, and simcore runs device "
                     "code only (a launch from a kernel, dynamic parallelism, is not in its subset): launch the "
                     "kernel from Python instead, kernel(grid, block, (arguments...))",
                     line, lines, column=col, construct="<<<")
    # C++'s `auto` (a type deduced from the initializer): the typedef name AUTO_TYPE, which lowering
    # replaces by the initializer's type (`auto` itself stands for __constant__ below)
    text = re.sub(r"\bauto\b", AUTO_TYPE, text)
    # Words that are outside the subset get a clear, located message.
    for m in IDENT.finditer(text):
        w = m.group(0)
        if w in UNSUPPORTED_WORDS:
            line = line_of(text, m.start())
            col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
            raise _error(f"{UNSUPPORTED_WORDS[w]} {'are' if UNSUPPORTED_WORDS[w].endswith('s') else 'is'} "
                         f"not in simcore's CUDA subset", line, lines, column=col, construct=w)
    texture = re.search(r"\b(texture|surface)\s*<", text)
    if texture:
        at = texture.start()
        raise _error(f"{texture.group(1)} references ({texture.group(1)}<...>) are not in simcore's CUDA subset "
                     "(CUDA 12 removed them): read the array through a pointer (const T *__restrict__)",
                     line_of(text, at), lines, column=at - (text.rfind("\n", 0, at) + 1) + 1,
                     construct=texture.group(1))
    # extern "C" { ... }  ->  ...
    while True:
        m = re.search(r'extern\s*"C"\s*\{', text)
        if not m:
            break
        close = matching(text, m.end() - 1, "{", "}")
        if close < 0:
            raise _error('unbalanced braces after extern "C" {', line_of(text, m.start()), lines,
                         construct='extern "C"')
        text = text[:m.start()] + _blank(m.group(0)) + text[m.end():close] + " " + text[close + 1:]
    text = re.sub(r'extern\s*"C"', lambda m: _blank(m.group(0)), text)
    text = re.sub(r"__launch_bounds__\s*\([^)]*\)", lambda m: _blank(m.group(0)), text)
    kernels = []
    for m in re.finditer(r"\b__global__\b[^(;{}]*?\b([A-Za-z_]\w*)\s*\(", text):
        kernels.append(m.group(1))
    text = re.sub(r"\b__global__\b", " " * 10, text)
    for w in ERASE:
        text = re.sub(r"\b%s\b" % w, " " * len(w), text)
    text = re.sub(r"\b__shared__\b", "_Thread_local", text)
    # __constant__ variables: the storage class `auto`, which C never allows at file scope
    text = re.sub(r"\b__constant__\b", "auto        ", text)
    text = re.sub(r"\b__restrict__\b", "restrict    ", text)
    text = _cxx_casts(text, lines)
    text = _inline_ptx(text, lines)
    return text, kernels


ALIGN_SPEC = re.compile(r"\b(?:__align__\s*\(\s*([^()]*?)\s*\)|__attribute__\s*\(\((.*?)\)\))")
STRUCT_HEAD = re.compile(r"\bstruct\s*$")


def _alignment_specifiers(text, lines):
    """`__align__(n)` and `__attribute__((...))`. On a struct (`struct __align__(16) Name`) the
    alignment is recorded for its tag (an anonymous struct gets a tag); on a variable it
    becomes C11's `_Alignas(n)`. Other attributes (always_inline, noinline, ...) are dropped:
    they change no result. Line lengths are kept."""
    struct_align = {}
    out, pos = [], 0
    for m in ALIGN_SPEC.finditer(text):
        out.append(text[pos:m.start()])
        pos = m.end()
        spec = m.group(0)
        if m.group(2) is not None:
            inner = re.fullmatch(r"\s*(?:__)?aligned(?:__)?\s*\(\s*([^()]*?)\s*\)\s*", m.group(2))
            if inner is None:
                out.append(_blank(spec))
                continue
            value = inner.group(1)
        else:
            value = m.group(1)
        try:
            n = int(value, 0)
        except ValueError:
            raise _error(f"the alignment {value!r} must be a number (a power of two)", line_of(text, m.start()),
                         lines, construct="__align__") from None
        if n <= 0 or n & (n - 1):
            raise _error(f"the alignment {n} is not a power of two", line_of(text, m.start()), lines,
                         construct="__align__")
        if STRUCT_HEAD.search(text[max(0, m.start() - 40):m.start()]):
            tag = re.match(r"\s*([A-Za-z_]\w*)", text[m.end():])
            if tag:
                struct_align[tag.group(1)] = n
                out.append(_blank(spec))
            else:                           # anonymous: give it a tag
                name = f"_align{len(struct_align)}"
                struct_align[name] = n
                out.append(name + " " * max(0, len(spec) - len(name)))
        else:
            spelled = f"_Alignas({n})"
            out.append(spelled + " " * max(0, len(spec) - len(spelled)))
    out.append(text[pos:])
    return "".join(out), struct_align


STRUCT_OPEN = re.compile(r"\bstruct\s+(?:[A-Za-z_]\w*\s*)?\{")
MEMBER_FUNCTION = re.compile(r"\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*(?:const\s*)?[{:;]")


BASE_CLAUSE = re.compile(r"\bstruct\s+([A-Za-z_]\w*)\s*:(?!:)\s*([^{;]*?)\s*\{")
BASE_PREFIX = "__base_"      # the member that holds a base struct (lowering looks through it)


def _inheritance(text, lines):
    """`struct D : public B { ... }`: B's members first, as C++ lays them out: the member
    `__base_B` of type B, through which lowering finds B's members and member functions."""
    def repl(m):
        bases = [b.strip() for b in m.group(2).split(",")]
        if len(bases) != 1 or re.search(r"\bvirtual\b", bases[0]):
            line = line_of(text, m.start())
            raise _error(f"struct {m.group(1)}: multiple or virtual inheritance is not in simcore's CUDA subset",
                         line, lines, construct="inheritance")
        base = re.sub(r"^(public|private|protected)\s+", "", bases[0])
        if not re.fullmatch(r"[A-Za-z_]\w*", base):
            raise _error(f"struct {m.group(1)}: the base '{base}' is not a struct name", line_of(text, m.start()),
                         lines, construct="inheritance")
        return f"struct {m.group(1)} {{ {base} {BASE_PREFIX}{base}; "
    return BASE_CLAUSE.sub(repl, text)


ACCESS_LABEL = re.compile(r"\b(?:public|private|protected)\s*:(?!:)")
STRUCT_TAG = re.compile(r"\bstruct\s+([A-Za-z_]\w*)\s*\{")
MEMBER_NAME = re.compile(r"(\.|->)?(\s*)\b([A-Za-z_]\w*)\b")


def _member_functions(text, lines):
    """Member functions of a struct (or class): each becomes a free function `Tag__name(Tag *this,
    ...)` appended after a `# N "kernel.cu"` marker (its errors keep their lines), the members it
    names bare written `this->member`; lowering calls it for `s.name(...)` / `p->name(...)`
    (-> (text, {tag: {name: function}})). Access labels go. Constructors, destructors, static and
    overloaded member functions are named, not a bare syntax error."""
    methods, appended, all_members = {}, [], {}
    out, pos = [], 0
    for m in STRUCT_TAG.finditer(text):
        if m.start() < pos:
            continue                     # a struct inside one already done
        tag, open_ = m.group(1), m.end() - 1
        close = matching(text, open_, "{", "}")
        if close < 0:
            continue
        body = ACCESS_LABEL.sub(lambda a: _blank(a.group(0)), text[open_ + 1:close])
        found = list(_method_definitions(body))
        if not found and body == text[open_ + 1:close]:
            all_members[tag] = _data_member_names(body, found)
            continue
        own = {}
        for start, name_at, name, params, const, body_open, body_close in found:
            at = open_ + 1 + name_at
            where = dict(line=line_of(text, at), lines=lines, column=at - (text.rfind("\n", 0, at) + 1) + 1)
            head = body[start:name_at]
            if name == tag or head.rstrip().endswith("~"):
                raise _error(f"constructors and destructors of structs ('{name}') are not in simcore's CUDA subset: "
                             "initialise the members where the variable is declared (S s = {...};)",
                             where["line"], lines, column=where["column"], construct="member function")
            if re.search(r"\b(static|virtual)\b", head):
                word = re.search(r"\b(static|virtual)\b", head).group(1)
                raise _error(f"{word} member functions ('{name}') are not in simcore's CUDA subset: write a "
                             "__device__ function", where["line"], lines, column=where["column"],
                             construct="member function")
            if name in own:
                raise _error(f"overloaded member functions ('{name}') are not in simcore's CUDA subset: give "
                             "them different names", where["line"], lines, column=where["column"],
                             construct="member function")
            own[name] = (head, params, const, body[body_open:body_close + 1], where["line"])
        members = _data_member_names(body, found) | set(own)
        for name in list(members):          # a base's members are named bare too
            if name.startswith(BASE_PREFIX):
                members |= all_members.get(name[len(BASE_PREFIX):], set())
        all_members[tag] = members
        for name, (head, params, const, fbody, line) in own.items():
            fbody = MEMBER_NAME.sub(lambda t: t.group(0) if t.group(1) or t.group(3) not in members
                                    else f"{t.group(2)}this->{t.group(3)}", fbody)
            extra = "" if params.strip() in ("", "void") else ", " + params
            appended.append(f'\n# {line} "kernel.cu"\n{head.strip()} {tag}__{name}({"const " if const else ""}'
                            f'{tag} *this{extra}) {fbody}')
        methods[tag] = {name: f"{tag}__{name}" for name in own}
        for start, _, _, _, _, _, body_close in reversed(found):
            body = body[:start] + _blank(body[start:body_close + 1]) + body[body_close + 1:]
        out.append(text[pos:open_ + 1] + body)
        pos = close
    out.append(text[pos:])
    return "".join(out) + "".join(appended), methods


def _method_definitions(body):
    """(start of the declaration, name position, name, parameters, const?, body's { and }) of
    every function defined at the top level of a struct body."""
    depth, i, stmt_start = 0, 0, 0
    while i < len(body):
        c = body[i]
        if c == "{" and depth == 0:
            head = body[stmt_start:i]
            f = re.search(r"\b([A-Za-z_]\w*)\s*\(([^;{}]*)\)\s*(const)?\s*$", head)
            close = matching(body, i, "{", "}")
            if close < 0:
                return
            if f and f.group(1) != "_Alignas":
                yield stmt_start, stmt_start + f.start(1), f.group(1), f.group(2), bool(f.group(3)), i, close
                i = stmt_start = close + 1
                continue
            i = close + 1              # a nested struct or union: part of a data member's declaration
            continue
        if c == ";":
            stmt_start = i + 1
        i += 1


def _data_member_names(body, found):
    """The names a struct body declares as data members (its functions blanked first)."""
    for start, _, _, _, _, _, close in reversed(found):
        body = body[:start] + " " * (close + 1 - start) + body[close + 1:]
    body = re.sub(r"\{[^{}]*\}", " ", body)       # nested struct bodies
    names = set()
    for decl in body.split(";"):
        decl = re.sub(r"\[[^\]]*\]|=[^,]*", " ", decl)
        for part in decl.split(","):
            words = re.findall(r"[A-Za-z_]\w*", part)
            if len(words) >= 1:
                names.add(words[-1])
    return names


TYPE_WORDS = ("bool", "char", "short", "int", "unsigned", "signed", "long", "float", "double", "size_t") + \
    ALL_VECTOR_NAMES + ("dim3",)


def _brace_initializers(text):
    """C++ list-initialisation of a declared variable, `float2 v{1.f, 2.f};` or `Complex c{};`,
    as C's `float2 v = {1.f, 2.f};` (only after a type name: a struct tag, a typedef, a CUDA type)."""
    names = set(TYPE_WORDS)
    names.update(re.findall(r"\bstruct\s+([A-Za-z_]\w*)", text))
    names.update(re.findall(r"\btypedef\b[^;{}]*?\b([A-Za-z_]\w*)\s*;", text))
    names.update(re.findall(r"\}\s*([A-Za-z_]\w*)\s*;", text))     # typedef struct {...} Name;
    pat = re.compile(r"\b(%s)\b(\s*\*?\s*)([A-Za-z_]\w*)\s*\{(\s*\})?" % "|".join(map(re.escape, sorted(names))))

    def repl(m):
        return f"{m.group(1)}{m.group(2)}{m.group(3)} = {{{'0}' if m.group(4) else ''}"
    return pat.sub(repl, text)


def _device_variables(text):
    """`__device__` before a variable becomes the storage class `register` (never allowed at file
    scope in C, and refused in the user's own text), so that the compiler knows it is a
    __device__ variable; before a function it is dropped."""
    def repl(m):
        rest = text[m.end():]
        stop = re.search(r"[(;={\[]", rest)
        if stop is not None and stop.group(0) != "(":
            return "register  "
        return " " * len(m.group(0))
    return re.sub(r"\b__device__\b", repl, text)


CXX_CAST = re.compile(r"\b(static_cast|reinterpret_cast|const_cast)\s*<([^<>]*)>\s*\(")


def _cxx_casts(text, lines):
    """static_cast<T>(x) (and reinterpret_cast, const_cast) -> ((T)(x))."""
    def unbalanced(m):
        return _error(f"unbalanced parentheses after {m.group(1)}", line_of(m.string, m.start()), lines,
                      construct=m.group(1))
    return rewrite_calls(text, CXX_CAST, lambda m, args: f"(({m.group(2)})({args}))", unbalanced)


# bar.sync / barrier.sync{.aligned} / bar.arrive / barrier.arrive{.aligned}, operands %N or immediates
PTX_BAR = re.compile(r"^\s*(bar|barrier)\.(sync|arrive)(\.aligned)?\s+([^,;]+?)\s*(?:,\s*([^,;]+?)\s*)?;?\s*$")


def _inline_ptx(text, lines):
    pat = re.compile(r"\b(asm|__asm__|__asm)\b(\s+(volatile|__volatile__))?\s*\(")
    while True:
        m = pat.search(text)
        if not m:
            return text
        close = matching(text, m.end() - 1)
        line = line_of(text, m.start())
        if close < 0:
            raise _error("unbalanced parentheses in asm statement", line, lines, construct="asm")
        inner = text[m.end():close]
        parts = _split_top(inner, ":")
        template = "".join(re.findall(r'"((?:\\.|[^"\\])*)"', parts[0])).replace("\\n", "").replace("\\t", " ")
        outputs = parts[1].strip() if len(parts) > 1 else ""
        inputs = [p.strip() for p in _split_top(parts[2], ",")] if len(parts) > 2 and parts[2].strip() else []
        if outputs:
            raise _error("inline PTX with output operands is not supported (only bar.sync, "
                         "barrier.sync and bar.arrive)", line, lines, construct="asm")
        operands = []
        for inp in inputs:
            om = re.match(r'"[^"]*"\s*\((.*)\)\s*$', inp, re.S)
            if not om:
                raise _error(f"cannot read asm operand {inp!r}", line, lines, construct="asm")
            operands.append(om.group(1))
        stmts = [s for s in template.split(";") if s.strip()]
        if len(stmts) != 1:
            raise _error(f"inline PTX {template!r} is not supported: simcore understands one "
                         "bar.sync / barrier.sync / bar.arrive instruction per asm statement", line, lines,
                         construct="asm")
        bm = PTX_BAR.match(stmts[0] + ";")
        if not bm:
            raise _error(f"inline PTX {template.strip()!r} is not supported: simcore understands "
                         "bar.sync a{, b}, barrier.sync a{, b} and bar.arrive a, b", line, lines,
                         construct="asm")

        def operand(tok):
            tok = tok.strip()
            om = re.fullmatch(r"%(\d+)", tok)
            if om:
                k = int(om.group(1))
                if k >= len(operands):
                    raise _error(f"asm operand %{k} is not given", line, lines, construct="asm")
                return "(" + operands[k] + ")"
            if re.fullmatch(r"\d+", tok):
                return tok
            raise _error(f"asm operand {tok!r} must be %N or an integer", line, lines, construct="asm")

        kind = bm.group(2)
        bar_id = operand(bm.group(4))
        count = operand(bm.group(5)) if bm.group(5) else "-1"
        if kind == "arrive" and not bm.group(5):
            raise _error("bar.arrive needs a thread count: bar.arrive a, b", line, lines, construct="asm")
        call = f"__simcore_bar_{kind}({bar_id}, {count})"
        original = text[m.start():close + 1]
        nl = original.count("\n")
        text = text[:m.start()] + call + "\n" * nl + text[close + 1:]


def _split_top(s, sep):
    """Split on sep outside parentheses and string literals."""
    out, depth, cur, in_str = [], 0, [], False
    i = 0
    while i < len(s):
        c = s[i]
        if in_str:
            cur.append(c)
            if c == "\\":
                cur.append(s[i + 1])
                i += 1
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
            cur.append(c)
        elif c == "(":
            depth += 1
            cur.append(c)
        elif c == ")":
            depth -= 1
            cur.append(c)
        elif c == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    out.append("".join(cur))
    return out
