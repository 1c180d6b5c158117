"""Cooperative Groups spellings -> C that pycparser reads (the lowering gives them meaning).

C++ syntax the parser cannot read is rewritten on the same line: `cg::name` and
`cooperative_groups::name` (and bare names after `using namespace cooperative_groups;`)
become `__cg_name`; `thread_block_tile<32>` becomes the type `__cg_thread_block_tile_32`;
`tiled_partition<32>(g)` becomes `__cg_tiled_partition(g, 32)`; `cg::plus<int>()` becomes
`__cg_plus((int)0)` (the zero carries the type); `auto g = cg::...` gets a group type; a
group passed by reference (`const cg::thread_block &g`) is passed by name. `g.group_index()`
and `g.thread_index()` are blockIdx and threadIdx, `g.dim_threads()` (`group_dim()`)
blockDim, a grid's `block_index()` and `dim_blocks()` blockIdx and gridDim. Group variables, methods and free
functions are lowered by simcore/lower/groups.py onto the same barriers and warp
collectives as their intrinsics."""
import re

from .brackets import rewrite_calls
from ..errors import CompileError
from .source_lines import line_of

# types: the name after rewriting is __cg_<name>
GROUP_TYPES = ("thread_block", "thread_block_tile", "thread_group", "coalesced_group", "grid_group")
FUNCTIONS = ("this_thread_block", "tiled_partition", "coalesced_threads", "this_grid", "sync", "reduce",
             "thread_rank", "group_size")
OPERATORS = ("plus", "less", "greater", "bit_and", "bit_or", "bit_xor")
KNOWN = GROUP_TYPES + FUNCTIONS + OPERATORS
TILE_SIZES = (1, 2, 4, 8, 16, 32)

# typedefs the parser needs for the rewritten type names (the lowering never reads them as int)
PRELUDE = ("typedef int __cg_thread_block; typedef int __cg_thread_group; typedef int __cg_coalesced_group; "
           "typedef int __cg_grid_group; typedef int __cg_auto; "
           + " ".join(f"typedef int __cg_thread_block_tile_{n};" for n in TILE_SIZES) + "\n")

IDENT = re.compile(r"[A-Za-z_]\w*")


def uses_cooperative_groups(text):
    return re.search(r"\bcooperative_groups\b", text) is not None


def rewrite(text, lines):
    """-> text with the CG spellings rewritten (same lines). Raises CompileError, located."""
    aliases = ["cooperative_groups"]

    def error(msg, pos, construct):
        line = line_of(text, pos)
        col = pos - (text.rfind("\n", 0, pos) + 1) + 1
        src = lines[line - 1] if 0 < line <= len(lines) else None
        return CompileError(msg, line=line, column=col, construct=construct, source_line=src)

    for m in re.finditer(r"\bnamespace\s+([A-Za-z_]\w*)\s*=\s*cooperative_groups\s*;", text):
        aliases.append(m.group(1))
    text = re.sub(r"\bnamespace\s+[A-Za-z_]\w*\s*=\s*cooperative_groups\s*;", _blank, text)
    using = re.search(r"\busing\s+namespace\s+cooperative_groups\s*;", text) is not None
    text = re.sub(r"\busing\s+namespace\s+cooperative_groups\s*;", _blank, text)
    # using-declarations (`using cg::thread_block;`): that name may then be written bare
    declared = re.compile(r"\busing\s+(%s)\s*::\s*([A-Za-z_]\w*)\s*;" % "|".join(map(re.escape, aliases)))
    bare_names = {m.group(2) for m in declared.finditer(text) if m.group(2) in KNOWN}
    text = declared.sub(lambda m: _blank(m) if m.group(2) in KNOWN else m.group(0), text)

    qualified = re.compile(r"\b(%s)\s*::\s*([A-Za-z_]\w*)" % "|".join(map(re.escape, aliases)))

    source = "\n".join(lines)
    headers = set(re.findall(r"^\s*#\s*include\s*[<\"](cooperative_groups(?:/reduce)?\.h)[>\"]", source, re.M))

    def cg_name(name, pos):
        """A name of the API -> __cg_name, if its header is included (as nvcc requires)."""
        need = "cooperative_groups/reduce.h" if name == "reduce" or name in OPERATORS else "cooperative_groups.h"
        if "cooperative_groups.h" not in headers:
            need = "cooperative_groups.h"
        if need not in headers:
            raise error(f"cg::{name} needs #include <{need}>", pos, f"cooperative_groups::{name}")
        return "__cg_" + name

    def qualify(m):
        name = m.group(2)
        if name not in KNOWN:
            raise error(f"{m.group(1)}::{name} is not in simcore's subset of Cooperative Groups (it has "
                        f"{', '.join(KNOWN)})", m.start(2), f"cooperative_groups::{name}")
        return cg_name(name, m.start())

    text = qualified.sub(qualify, text)
    if using or bare_names:
        # bare names: a type before a declarator, a function or template before ( or <
        bare = re.compile(r"(?<![\w.>:])(%s)\b(?=\s*[(<]|\s+[A-Za-z_&])" % "|".join(KNOWN if using else bare_names))
        text = bare.sub(lambda m: cg_name(m.group(1), m.start()) if _is_group_use(text, m) else m.group(0), text)

    def tile_type(m):
        size = _const(m.group(1))
        if size not in TILE_SIZES:
            raise error(f"thread_block_tile<{m.group(1).strip()}>: the size must be a constant 1, 2, 4, 8, 16 "
                        "or 32 in simcore's subset", m.start(), "thread_block_tile")
        return f"__cg_thread_block_tile_{size}"

    text = re.sub(r"\b__cg_thread_block_tile\s*<([^<>;]*)>", tile_type, text)
    text = _template_calls(text, error)
    text = re.sub(r"\b__cg_(%s)\s*<([^<>;]*)>\s*\(\s*\)" % "|".join(OPERATORS),
                  lambda m: f"__cg_{m.group(1)}(({m.group(2).strip()})0)", text)
    text = re.sub(r"\bauto(\s+[A-Za-z_]\w*\s*=\s*__cg_)", r"__cg_auto\1", text)
    # references to groups (parameters): the group is a name at compile time
    text = re.sub(r"\b(__cg_\w+)(\s*)&", lambda m: m.group(1) + m.group(2) + " ", text)
    text = re.sub(r"\b[A-Za-z_]\w*\s*\.\s*group_index\s*\(\s*\)", lambda m: _pad("blockIdx", m), text)
    text = re.sub(r"\b[A-Za-z_]\w*\s*\.\s*thread_index\s*\(\s*\)", lambda m: _pad("threadIdx", m), text)
    text = re.sub(r"\b[A-Za-z_]\w*\s*\.\s*(dim_threads|group_dim)\s*\(\s*\)", lambda m: _pad("blockDim", m), text)
    text = re.sub(r"\b[A-Za-z_]\w*\s*\.\s*block_index\s*\(\s*\)", lambda m: _pad("blockIdx", m), text)
    text = re.sub(r"\b[A-Za-z_]\w*\s*\.\s*dim_blocks\s*\(\s*\)", lambda m: _pad("gridDim", m), text)
    return text


def _is_group_use(text, m):
    """A bare CG name (after `using namespace`): a type, or a call or template of the API."""
    name = m.group(1)
    after = text[m.end():].lstrip()
    if name in GROUP_TYPES:
        return True
    if name in OPERATORS:
        return after.startswith("<")
    return after.startswith("(") or after.startswith("<")


def _template_calls(text, error):
    """tiled_partition<N>(g) -> __cg_tiled_partition(g, N)."""
    return rewrite_calls(text, re.compile(r"\b__cg_tiled_partition\s*<([^<>;]*)>\s*\("),
                         lambda m, args: f"__cg_tiled_partition({args}, ({m.group(1).strip()}))",
                         lambda m: error("unbalanced parentheses after tiled_partition<...>(", m.start(),
                                         "tiled_partition"))


def _const(expr):
    """A tile size written as an integer expression (macros and template arguments are
    already substituted): its value, or None."""
    expr = re.sub(r"(\d+)[uUlL]+\b", r"\1", expr.strip())
    if not re.fullmatch(r"[\d\s+\-*/()%<>]+", expr):
        return None
    try:
        return int(eval(expr.replace("/", "//"), {"__builtins__": {}}, {}))
    except Exception:
        return None


def _blank(m):
    return "".join(c if c == "\n" else " " for c in m.group(0))


def _pad(word, m):
    return word + " " * max(0, len(m.group(0)) - len(word))
