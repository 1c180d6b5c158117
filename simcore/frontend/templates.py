"""Simple C++ templates: functions over a type or an integer, instantiated by name.

    template <int BLOCK> __global__ void k(float *a) { ... }
    template <typename T> __device__ T twice(T x) { return x + x; }

A template kernel is instantiated for each of RawModule's `name_expressions` that names it
(`"k<256>"`, as CuPy's RawModule does); a template `__device__` function for each
`f<float>(...)` call written with its arguments. The template's own text is blanked in place;
each instance is the same text with the parameters substituted, renamed (`k__T0`), appended
after the source behind a line marker, so that its errors point at the lines the student
wrote. Argument deduction (`twice(x)`), specialisation and class templates are not supported:
each is refused by name."""
import re
from dataclasses import dataclass, field

from .brackets import matching
from ..errors import CompileError
from .source_lines import line_of

IDENT = re.compile(r"[A-Za-z_]\w*")
TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|[A-Za-z_]\w*|\d[\w.]*|\s+|.')


@dataclass
class Template:
    name: str
    params: list              # [(name, 'type' | 'value', default text or None)]
    text: str                 # from `template` to the closing brace
    start: int                # offset of `template` in the source text
    kernel: bool
    body_offset: int = 0      # where the text after `template <...>` starts
    instances: dict = field(default_factory=dict)   # normalised argument tuple -> C name


@dataclass
class Expanded:
    text: str                 # the source with templates blanked, instances appended
    names: dict               # C name of an instance kernel -> the name expression ("k<256>")
    template_kernels: list    # names of the template kernels (for messages)


def normalise(expr):
    """`k< 256 >`, `k<unsigned  int>` -> one spelling, for matching name expressions."""
    return re.sub(r"\s*([<>,*&()])\s*", r"\1", " ".join(str(expr).split()))


def has_templates(text):
    return re.search(r"\btemplate\b", text) is not None


def expand(text, lines, name_expressions=()):
    def error(msg, pos, construct="template"):
        line = line_of(text, pos)
        col = pos - (text.rfind("\n", 0, pos) + 1) + 1
        src = lines[line - 1] if 0 < line <= len(lines) else None
        return CompileError(msg, line=line, column=col, construct=construct, source_line=src)

    templates, text = _collect(text, error)
    byname = {t.name: t for t in templates}
    appended, names, queue = [], {}, []

    def instance(t, args, pos):
        """C name of t<args>, instantiating it on first use."""
        if len(args) > len(t.params) or any(d is None for _, _, d in t.params[len(args):]):
            raise error(f"{t.name} takes {len(t.params)} template argument(s) "
                        f"({', '.join(p for p, _, _ in t.params)}), got {len(args)}", pos, t.name)
        args = list(args) + [d for _, _, d in t.params[len(args):]]
        key = tuple(normalise(a) for a in args)
        if key not in t.instances:
            t.instances[key] = f"{t.name}__T{sum(len(x.instances) for x in templates)}"
            queue.append((t, key))
        return t.instances[key]

    for expr in name_expressions:
        m = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*(?:<(.*)>)?\s*", str(expr), re.S)
        t = byname.get(m.group(1)) if m else None
        if t is None or m.group(2) is None:
            if m and m.group(2) is None and t is None:
                continue          # a plain kernel's name: CuPy accepts it too
            raise CompileError(f"name_expressions: {expr!r} does not name an instance of a template kernel of "
                               f"this module (template kernels: {', '.join(x.name for x in templates if x.kernel) or 'none'}; "
                               "write it as in the source, e.g. 'k<256>' or 'k<float>')", construct="name_expressions")
        if not t.kernel:
            raise CompileError(f"name_expressions: {t.name} is a __device__ function, not a __global__ kernel",
                               construct="name_expressions")
        cname = instance(t, _split_args(m.group(2)), t.start)
        names[cname] = str(expr).strip()     # as written: the CuPy backend looks it up by that

    def calls(body, offset):
        """f<args>( of a template function -> its instance's C name; a call without <...> is refused."""
        out, last = [], 0
        for m in IDENT.finditer(body):
            t = byname.get(m.group(0))
            if t is None or (m.start() and body[m.start() - 1] in ".>"):
                continue
            rest = body[m.end():]
            tm = re.match(r"\s*<([^<>;]*)>\s*\(", rest)
            if tm is None:
                if re.match(r"\s*\(", rest):
                    raise error(f"call {t.name}<...>(...) with its template arguments written out: simcore does "
                                "not deduce them", offset + m.start(), t.name)
                continue
            out.append(body[last:m.start()] + instance(t, _split_args(tm.group(1)), offset + m.start()))
            last = m.end() + tm.end() - 1      # keep the "("
        out.append(body[last:])
        return "".join(out)

    text = calls(text, 0)
    while queue:
        t, key = queue.pop(0)
        body = _substitute(t, key)
        body = calls(body, t.start)
        line = text.count("\n", 0, t.start) + 1
        col = t.start - (text.rfind("\n", 0, t.start) + 1)
        appended.append(f'\n# {line} "kernel.cu"\n' + " " * col + body)
    return Expanded(text + "".join(appended), names, [t.name for t in templates if t.kernel])


def _collect(text, error):
    """Find every template definition; blank it (and template prototypes) in place."""
    templates = []
    pos = 0
    while True:
        m = re.compile(r"\btemplate\s*<").search(text, pos)
        if not m:
            return templates, text
        close = _angle_close(text, m.end() - 1)
        if close < 0:
            raise error("unbalanced < > after template", m.start())
        params = [_param(p.strip(), error, m.start()) for p in _split_args(text[m.end():close]) if p.strip()]
        if not params:
            raise error("template specialisations (template <>) are not in simcore's subset", m.start())
        end = close + 1
        depth, i = 0, end
        while i < len(text) and not (depth == 0 and text[i] in "{;"):
            depth += text[i] == "("
            depth -= text[i] == ")"
            i += 1
        header = re.sub(r"__launch_bounds__\s*\([^)]*\)|__attribute__\s*\(\(.*?\)\)", "", text[end:i])
        if re.search(r"\b(struct|class|union)\b", header):
            raise error("class templates are not in simcore's subset (function templates are)", m.start())
        fm = re.search(r"([A-Za-z_]\w*)\s*\(", header)
        if fm is None or i >= len(text):
            raise error("simcore supports templates of functions only", m.start())
        if text[i] == ";":
            stop = i + 1          # a prototype: nothing to instantiate
        else:
            stop = matching(text, i, "{", "}")
            if stop < 0:
                raise error("this template's body is never closed", m.start())
            stop += 1
            # the `template <...>` header is blanked in each instance: it keeps its columns
            templates.append(Template(fm.group(1), params, text[m.start():stop], m.start(),
                                      re.search(r"\b__global__\b", header) is not None, close + 1 - m.start()))
        text = text[:m.start()] + _blank(text[m.start():stop]) + text[stop:]
        pos = stop


def _param(p, error, pos):
    m = re.fullmatch(r"(typename|class)\s+([A-Za-z_]\w*)(?:\s*=\s*(.+))?", p, re.S)
    if m:
        return m.group(2), "type", m.group(3)
    m = re.fullmatch(r"((?:unsigned|signed|int|long|short|char|bool|size_t|unsigned\s+int)[\w\s]*?)\s+"
                     r"([A-Za-z_]\w*)(?:\s*=\s*(.+))?", p, re.S)
    if m:
        return m.group(2), "value", m.group(3)
    raise error(f"template parameter '{p}' is not in simcore's subset (typename T, or an integer such as "
                "int N)", pos)


def _substitute(t, key):
    body = _blank(t.text[:t.body_offset]) + t.text[t.body_offset:]
    values = {name: (a if kind == "type" else f"({_value(a)})") for (name, kind, _), a in zip(t.params, key)}
    out = []
    renamed = False
    for tok in TOKEN.findall(body):
        if tok in values:
            out.append(values[tok])
        elif tok == t.name and not renamed:
            out.append(t.instances[key])
            renamed = True
        else:
            out.append(tok)
    return "".join(out)


def _value(a):
    return {"true": "1", "false": "0"}.get(a.strip(), a)


def _split_args(s):
    out, depth, cur = [], 0, []
    for c in s:
        if c in "(<[":
            depth += 1
        elif c in ")>]":
            depth -= 1
        if c == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def _angle_close(text, i):
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "<":
            depth += 1
        elif text[j] == ">":
            depth -= 1
            if depth == 0:
                return j
        elif text[j] in "{;":
            return -1
    return -1


def _blank(s):
    return "".join(c if c == "\n" else " " for c in s)
