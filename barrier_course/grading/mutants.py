"""Mutants of an exercise's solution: small, plausible mistakes made by rule.

Each rule finds the places in the solution region of the answer (the lines between
``// ### BEGIN SOLUTION`` and ``// ### END SOLUTION``) where a student could slip, and makes one
mutant per place: the kernel source with that one change. :mod:`barrier_course.grading.audit` grades
them; a mutant that keeps full marks shows what the exercise's tests cannot see.

The rules (``RULES``, in this order):

=====================  =====================================================================
``delete_barrier``     a ``__syncthreads()``, ``__syncwarp()`` or named barrier call removed
                       (``__syncthreads_or(x)`` and its twins become ``(x)``)
``duplicate_barrier``  a barrier statement written twice
``barrier_in_branch``  a barrier only some threads reach (lane 31 of every warp skips it)
``barrier_later``      a barrier moved after the next statement (after the guarded write)
``barrier_earlier``    a barrier moved before the previous statement
``mask_activemask``    a warp-collective's member mask replaced by ``__activemask()``
``mask_constant``      a computed member mask replaced by ``0xffffffff`` (a full one by ``0x0000ffff``)
``off_by_one``         a comparison made strict or not strict (``<`` and ``<=``, ``>`` and ``>=``)
``neutral_value``      the neutral value of a fill or an accumulator changed from 0 to 1
``drop_fence``         a ``__threadfence*()`` removed
``atomic_to_plain``    an ``atomicAdd``/``Max``/``Min``/``Or``/``And``/``Xor``/``Exch`` replaced
                       by a plain read-modify-write
``named_barrier_id``   a named barrier's id changed by one
``named_barrier_count``  a named barrier's thread count halved
``per_thread_trips``   a loop around a barrier or warp collective given a per-thread trip count
``float_to_int``       a local ``float`` declared ``int`` (every value truncated)
=====================  =====================================================================

A mutant's id is ``rule@line`` (the kernel line it changes), with ``.k`` appended for the
k-th place of the same rule on that line (k >= 2).
"""
from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from pathlib import Path

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"

BLOCK_BARRIERS = ("__syncthreads",)
WARP_BARRIERS = ("__syncwarp",)
NAMED_BARRIERS = ("bar_sync", "bar_arrive")
VALUE_BARRIERS = ("__syncthreads_or", "__syncthreads_and", "__syncthreads_count")
MASKED = ("__shfl_sync", "__shfl_down_sync", "__shfl_up_sync", "__shfl_xor_sync", "__ballot_sync",
          "__any_sync", "__all_sync", "__syncwarp", "__reduce_add_sync", "__reduce_min_sync",
          "__reduce_max_sync", "__match_any_sync", "__match_all_sync")
SYNCS = BLOCK_BARRIERS + WARP_BARRIERS + NAMED_BARRIERS + VALUE_BARRIERS + MASKED
FENCES = ("__threadfence", "__threadfence_block", "__threadfence_system")
ATOMIC_PLAIN = {
    "atomicAdd": "((*({a}) += ({b})) - ({b}))",
    "atomicSub": "((*({a}) -= ({b})) + ({b}))",
    "atomicMax": "(*({a}) = max(*({a}), ({b})))",
    "atomicMin": "(*({a}) = min(*({a}), ({b})))",
    "atomicOr": "(*({a}) |= ({b}))",
    "atomicAnd": "(*({a}) &= ({b}))",
    "atomicXor": "(*({a}) ^= ({b}))",
    "atomicExch": "(*({a}) = ({b}))",
}


@dataclass(frozen=True)
class Mutant:
    id: str            # rule@line[.k]
    rule: str
    line: int          # line of the kernel source it changes
    description: str   # what changed, in words (one line)
    source: str        # the whole mutated kernel source


def solution_source(notebook_path) -> str:
    """The instructor's kernel source: the string of the notebook's answer cell."""
    nb = json.loads(Path(notebook_path).read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell["cell_type"] == "code" and meta.get("solution"):
            src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            return ast.literal_eval(ast.parse(src).body[0].value)
    raise ValueError(f"{notebook_path}: no answer cell (an nbgrader 'solution' code cell)")


def _masked(text: str) -> str:
    """`text` with comments and string literals blanked (same length), so that rules match code only."""
    out = list(text)
    for m in re.finditer(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', text, re.S):
        for k in range(m.start(), m.end()):
            if out[k] != "\n":
                out[k] = " "
    return "".join(out)


def _region(text: str) -> tuple:
    """(start, end) offsets of the solution region's code (between the marker lines)."""
    b = text.find(BEGIN)
    e = text.find(END, b + 1)
    if b < 0 or e < 0:
        raise ValueError("the answer has no // ### BEGIN SOLUTION ... // ### END SOLUTION region")
    return text.index("\n", b) + 1, text.rfind("\n", 0, e) + 1


def _close(code: str, open_at: int) -> int:
    """Offset just after the bracket matching code[open_at] (code: comments blanked)."""
    pairs = {"(": ")", "{": "}", "[": "]"}
    opening = code[open_at]
    depth = 0
    for k in range(open_at, len(code)):
        if code[k] == opening:
            depth += 1
        elif code[k] == pairs[opening]:
            depth -= 1
            if depth == 0:
                return k + 1
    raise ValueError("unbalanced brackets in the solution")


def _split_args(code: str, start: int, end: int) -> list:
    """[(start, end)] of the top-level arguments between the parentheses at start..end."""
    args, depth, first = [], 0, start + 1
    for k in range(start + 1, end - 1):
        c = code[k]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            args.append((first, k))
            first = k + 1
    args.append((first, end - 1))
    return [(a + len(code[a:b]) - len(code[a:b].lstrip()), b - (len(code[a:b]) - len(code[a:b].rstrip())))
            for a, b in args]


class _Edits:
    """Collects one-change mutants of `text` restricted to the region."""

    def __init__(self, text: str):
        self.text = text
        self.code = _masked(text)
        self.lo, self.hi = _region(text)
        self.found: list = []

    def calls(self, names):
        """(name, start, open paren, end after close paren) of calls in the region."""
        pat = re.compile(r"\b(%s)\s*\(" % "|".join(map(re.escape, names)))
        for m in pat.finditer(self.code, self.lo, self.hi):
            paren = m.end() - 1
            yield m.group(1), m.start(), paren, _close(self.code, paren)

    def statement_end(self, after: int):
        """Offset after the `;` that ends a call statement, or None if the call is an expression."""
        m = re.compile(r"\s*;").match(self.code, after)
        return m.end() if m else None

    def add(self, rule: str, start: int, end: int, replacement: str, description: str):
        line = self.text.count("\n", 0, start) + 1
        self.found.append((rule, line, description, self.text[:start] + replacement + self.text[end:]))


def _barrier_rules(ed: _Edits):
    for name, start, paren, end in ed.calls(BLOCK_BARRIERS + WARP_BARRIERS + NAMED_BARRIERS):
        stmt_end = ed.statement_end(end)
        if stmt_end is None:
            continue
        call = ed.text[start:end]
        ed.add("delete_barrier", start, stmt_end, ";", f"deleted `{call}`")
        ed.add("duplicate_barrier", start, stmt_end, f"{call}; {call};", f"`{call}` twice")
        # lane 31 of every warp skips it: in every warp-sized group of callers, whichever half of
        # the block (producers, consumers) calls it
        skip = "threadIdx.x % 32 != 31"
        ed.add("barrier_in_branch", start, stmt_end, f"if ({skip}) {call};",
               f"`{call}` only where {skip}")
        _move_rules(ed, start, stmt_end, call)
    for name, start, paren, end in ed.calls(VALUE_BARRIERS):
        inner = ed.text[paren + 1:end - 1]
        ed.add("delete_barrier", start, end, f"({inner})", f"`{name}({inner})` without its barrier: `({inner})`")
    for name, start, paren, end in ed.calls(FENCES):
        stmt_end = ed.statement_end(end)
        if stmt_end is not None:
            ed.add("drop_fence", start, stmt_end, ";", f"deleted `{ed.text[start:end]}`")


def _line_bounds(text: str, pos: int) -> tuple:
    return text.rfind("\n", 0, pos) + 1, text.find("\n", pos) + 1 or len(text)


def _statement_unit(ed: _Edits, line_start: int, forward: bool):
    """(start, end) of the whole-line statement next to the line at line_start (after it when
    forward, before it otherwise): a line ending with `;`, with the `if (...)` line before it
    when it is that if's body; None where the neighbour opens or closes a block."""
    code = ed.code
    if forward:
        a = line_start
        b = code.find("\n", a) + 1
        if not b or b > ed.hi:
            return None
        first = code[a:b].strip()
        if re.match(r"(if|while|for)\b", first) and not first.endswith(("{", ";")):
            b2 = code.find("\n", b) + 1
            if not b2 or b2 > ed.hi or not code[b:b2].strip().endswith(";"):
                return None
            return a, b2
        return (a, b) if first.endswith(";") and not first.startswith("}") else None
    b = line_start
    a = code.rfind("\n", 0, b - 1) + 1
    if a < ed.lo:
        return None
    last = code[a:b].strip()
    if not last.endswith(";") or last.startswith(("}", "for", "while")):
        return None
    prev_a = code.rfind("\n", 0, a - 1) + 1
    prev = code[prev_a:a].strip()
    if prev_a >= ed.lo and re.match(r"(if|else|while|for)\b", prev) and not prev.endswith(("{", ";")):
        return prev_a, b
    return a, b


def _move_rules(ed: _Edits, start: int, stmt_end: int, call: str):
    """barrier_later / barrier_earlier, for a barrier that is a line of its own."""
    a, b = _line_bounds(ed.text, start)
    if ed.code[a:b].strip() != ed.code[start:stmt_end].strip():
        return
    barrier_line = ed.text[a:b]
    later = _statement_unit(ed, b, forward=True)
    if later is not None:
        moved = ed.text[later[0]:later[1]]
        ed.found.append(("barrier_later", ed.text.count("\n", 0, a) + 1, f"`{call}` moved after the next statement",
                         ed.text[:a] + moved + barrier_line + ed.text[later[1]:]))
    earlier = _statement_unit(ed, a, forward=False)
    if earlier is not None:
        moved = ed.text[earlier[0]:earlier[1]]
        ed.found.append(("barrier_earlier", ed.text.count("\n", 0, a) + 1,
                         f"`{call}` moved before the previous statement",
                         ed.text[:earlier[0]] + barrier_line + moved + ed.text[b:]))


def _mask_rules(ed: _Edits):
    for name, start, paren, end in ed.calls(MASKED):
        args = _split_args(ed.code, paren, end)
        if not args or args[0][0] >= args[0][1]:
            continue
        a, b = args[0]
        mask = ed.text[a:b]
        if mask != "__activemask()":
            ed.add("mask_activemask", a, b, "__activemask()", f"`{name}` with the mask __activemask() for `{mask}`")
        full = re.fullmatch(r"0x[fF]{8}[uU]?", mask) is not None
        ed.add("mask_constant", a, b, "0x0000ffff" if full else "0xffffffff",
               f"`{name}` with the mask {'0x0000ffff' if full else '0xffffffff'} for `{mask}`")


def _comparison_rules(ed: _Edits):
    swaps = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
    pat = re.compile(r"(?<![<>=!\-])(<=|>=|<|>)(?![<>=])")
    for m in pat.finditer(ed.code, ed.lo, ed.hi):
        line_a, line_b = _line_bounds(ed.code, m.start())
        if ed.code[line_a:line_b].lstrip().startswith("#") or re.search(r"\w<\d+>", ed.code[m.start() - 30:m.end() + 8]):
            continue
        op = m.group(1)
        ed.add("off_by_one", m.start(), m.end(), swaps[op], f"`{op}` written `{swaps[op]}`")


def _neutral_rules(ed: _Edits):
    for m in re.finditer(r"(?<![\w.])0\.0f\b|(?<=:\s)0(?=\s*[;)])", ed.code[:ed.hi]):
        if m.start() < ed.lo:
            continue
        new = "1.0f" if m.group(0) == "0.0f" else "1"
        ed.add("neutral_value", m.start(), m.end(), new, f"the neutral value {m.group(0)} written {new}")


def _atomic_rules(ed: _Edits):
    for name, start, paren, end in ed.calls(tuple(ATOMIC_PLAIN)):
        args = _split_args(ed.code, paren, end)
        if len(args) != 2:
            continue
        a, b = (ed.text[x:y] for x, y in args)
        ed.add("atomic_to_plain", start, end, ATOMIC_PLAIN[name].format(a=a, b=b),
               f"`{name}({a}, {b})` as a plain read-modify-write")


def _named_barrier_rules(ed: _Edits):
    for name, start, paren, end in ed.calls(NAMED_BARRIERS):
        args = _split_args(ed.code, paren, end)
        if len(args) != 2:
            continue
        (ia, ib), (ca, cb) = args
        ident, count = ed.text[ia:ib], ed.text[ca:cb]
        ed.add("named_barrier_id", ia, ib, f"({ident}) + 1", f"`{name}` with the id ({ident}) + 1")
        ed.add("named_barrier_count", ca, cb, f"({count}) / 2", f"`{name}` with the count ({count}) / 2")


def _trip_rules(ed: _Edits):
    sync = re.compile(r"\b(%s)\s*\(" % "|".join(map(re.escape, SYNCS + ("bar_sync", "bar_arrive"))))
    for m in re.finditer(r"\bfor\s*\(", ed.code[:ed.hi]):
        if m.start() < ed.lo:
            continue
        paren = m.end() - 1
        close = _close(ed.code, paren)
        parts = ed.code[paren + 1:close - 1].split(";")
        if len(parts) != 3:
            continue
        body_start = close
        nxt = re.compile(r"\s*").match(ed.code, close).end()
        body_end = _close(ed.code, nxt) if ed.code[nxt] == "{" else ed.code.find(";", nxt) + 1
        if not sync.search(ed.code, body_start, body_end):
            continue
        cond_a = paren + 1 + len(parts[0]) + 1
        cond_b = cond_a + len(parts[1])
        cond = ed.text[cond_a:cond_b].strip()
        cmp = re.fullmatch(r"(.+?)\s*(<=|>=|<|>|!=)\s*(.+)", cond)
        if not cmp:
            continue
        new = f"{cmp.group(1)} {cmp.group(2)} {cmp.group(3)} + (int)(threadIdx.x % 2)"
        ed.add("per_thread_trips", cond_a, cond_b, " " + new,
               f"the loop condition `{cond}` as `{new}` (odd threads run another trip or one fewer)")


def _float_rules(ed: _Edits):
    for m in re.finditer(r"\bfloat(?=\s+[A-Za-z_]\w*\s*[=;\[])", ed.code[:ed.hi]):
        if m.start() >= ed.lo:
            decl = ed.text[m.start():ed.text.find("\n", m.start())].split("//")[0].strip()
            ed.add("float_to_int", m.start(), m.end(), "int", f"`{decl}` declared int")


RULES = ("delete_barrier", "duplicate_barrier", "barrier_in_branch", "barrier_later", "barrier_earlier",
         "mask_activemask", "mask_constant", "off_by_one", "neutral_value", "drop_fence", "atomic_to_plain",
         "named_barrier_id", "named_barrier_count", "per_thread_trips", "float_to_int")
_FINDERS = (_barrier_rules, _mask_rules, _comparison_rules, _neutral_rules, _atomic_rules,
            _named_barrier_rules, _trip_rules, _float_rules)


def mutants(source: str, rules=RULES) -> list:
    """Every mutant of `source` (a kernel with a solution region) by the given rules, in rule
    order then source order; mutants that happen to give the same text are kept once."""
    ed = _Edits(source)
    for finder in _FINDERS:
        finder(ed)
    order = {rule: k for k, rule in enumerate(RULES)}
    found = sorted((f for f in ed.found if f[0] in rules), key=lambda f: (order[f[0]], f[1]))
    out, seen, per_place = [], {source}, {}
    for rule, line, description, text in found:
        if text in seen:
            continue
        seen.add(text)
        k = per_place[(rule, line)] = per_place.get((rule, line), 0) + 1
        out.append(Mutant(f"{rule}@{line}" + (f".{k}" if k > 1 else ""), rule, line, description, text))
    return out
