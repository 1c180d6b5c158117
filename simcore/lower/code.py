"""Straight-line code as data: the statements of a basic block before they become Python.

Lowering records, for every statement, which registers it reads and which it assigns, and
leaves *holes* where the answer depends on the whole kernel: whether a register carries a
taint shadow (undefined-value tracking), whether a pointer register may be misaligned. One
dataflow pass (dataflow.py) answers both; `resolve` then fills the holes, drops statements
that turned out to be unneeded, and works out which registers each block loads.

Registers are named as ("v", name) for the value and ("u", name) for its taint shadow; in
the generated Python they are the locals v_<name> and u_<name>.
"""
from dataclasses import dataclass

NO_READS = frozenset()


@dataclass(frozen=True)
class TaintTerm:
    """One source of undefined lanes: code giving a per-lane taint array."""
    code: str
    reads: frozenset = NO_READS   # registers the code names
    register: str = None          # the term exists only if this register is tracked (None: always)

    def present(self, tracked):
        return self.register is None or self.register in tracked

    def leaves(self):
        return (self,)

    def render(self, tracked):
        return self.code, self.reads


@dataclass(frozen=True)
class SelectTerm:
    """The taint of `c ? a : b` computed per lane: each lane gets the taint of the arm it
    selects (plus the condition's, which taint_of adds as its own terms), so an undefined value
    in the arm a lane does not take is no fault (the select is the value, not both arms)."""
    cond: str                     # the condition's code
    cond_reads: frozenset
    a: "Taint"
    b: "Taint"

    def leaves(self):
        return tuple(leaf for t in self.a.terms + self.b.terms for leaf in t.leaves())

    def present(self, tracked):
        return any(leaf.present(tracked) for leaf in self.leaves())

    def render(self, tracked):
        a, a_reads = _render_taint(self.a, tracked, "X.DEFINED")
        b, b_reads = _render_taint(self.b, tracked, "X.DEFINED")
        return f"np.where({self.cond}, {a}, {b})", self.cond_reads | a_reads | b_reads


@dataclass(frozen=True)
class Taint:
    """Which lanes of a value may be undefined: the union of its terms (empty: none)."""
    terms: tuple = ()

    def __or__(self, other):
        if not other.terms:
            return self
        if not self.terms:
            return other
        return Taint(self.terms + tuple(t for t in other.terms if t not in self.terms))

    @property
    def possible(self):
        return bool(self.terms)

    def present(self, tracked):
        return [t for t in self.terms if t.present(tracked)]


NO_TAINT = Taint()


def taint_of(*vals):
    out = NO_TAINT
    for v in vals:
        if v is not None:
            out = out | v.taint
    return out


def select_taint(c, a, b):
    """The taint of `c ? a : b` (Vals): the condition's, and per lane the selected arm's."""
    if not (a.taint.possible or b.taint.possible):
        return c.taint
    return c.taint | Taint((SelectTerm(c.code, frozenset(c.regs), a.taint, b.taint),))


def always(code):
    """A taint that exists whatever the dataflow says (e.g. from a load of shared memory)."""
    return Taint((TaintTerm(code),))


@dataclass(frozen=True)
class Alignment:
    """What is known of a pointer value's alignment to its element size."""
    misaligned: bool = False           # may be misaligned, whatever the registers say
    registers: frozenset = NO_READS    # aligned only if none of these registers may be misaligned

    def __and__(self, other):
        if self.misaligned or other.misaligned:
            return MISALIGNED
        return Alignment(False, self.registers | other.registers)

    def may_be_misaligned(self, unaligned):
        return self.misaligned or bool(self.registers & unaligned)


ALIGNED = Alignment()
MISALIGNED = Alignment(True)


@dataclass(frozen=True)
class TaintHole:
    """Filled with the taint's code, or `default` when no term of it is present."""
    taint: Taint
    default: str


@dataclass(frozen=True)
class MisalignedHole:
    """Filled with True when the pointer may be misaligned (the memory op then checks)."""
    alignment: Alignment


@dataclass
class Stmt:
    parts: tuple                 # str, TaintHole or MisalignedHole, concatenated
    reads: frozenset             # registers named in the str parts
    assigns: tuple = None        # ("v"|"u", name) for a statement `v_name = ...`
    when_tracked: str = None     # emitted only if this register is tracked
    when_tainted: Taint = None   # emitted only if some term of this taint is present
    lines: tuple = ()            # source lines it adds to its block (when_tainted: only if kept)


def add_lines(block, lines):
    for line in lines:
        block.lines.add(line)
        block.first_line = block.first_line or line


def _render_taint(taint, tracked, default):
    terms = taint.present(tracked)
    if not terms:
        return default, NO_READS
    rendered = [t.render(tracked) for t in terms]
    code = rendered[0][0] if len(rendered) == 1 else "(" + " | ".join(c for c, _ in rendered) + ")"
    return code, frozenset().union(*(reads for _, reads in rendered))


def render(stmt, tracked, unaligned):
    """-> (Python text, registers it reads), or None when the statement is not needed."""
    if stmt.when_tracked is not None and stmt.when_tracked not in tracked:
        return None
    if stmt.when_tainted is not None and not stmt.when_tainted.present(tracked):
        return None
    text, reads = [], stmt.reads
    for part in stmt.parts:
        if isinstance(part, TaintHole):
            code, more = _render_taint(part.taint, tracked, part.default)
            text.append(code)
            reads = reads | more
        elif isinstance(part, MisalignedHole):
            text.append(str(part.alignment.may_be_misaligned(unaligned)))
        else:
            text.append(part)
    return "".join(text), reads


def resolve(block, stmts, tracked, unaligned):
    """Fill block.code with Python text and block.loads with the registers it must load first:
    those it reads before assigning them, and those it stores back whole without assigning."""
    assigned, loads = set(), []

    def need(reads):
        for reg in sorted(reads):
            if reg not in assigned and reg not in loads:
                loads.append(reg)

    code = []
    for stmt in stmts:
        done = render(stmt, tracked, unaligned)
        if done is None:
            continue
        text, reads = done
        code.append(text)
        if stmt.when_tainted is not None:
            add_lines(block, stmt.lines)
        need(reads)
        if stmt.assigns is not None:
            assigned.add(stmt.assigns)
    if block.term.kind == "branch":
        need(block.term.reads)
    for name in block.stores:
        need({("v", name)} | ({("u", name)} if name in tracked else set()))
    block.code = code
    block.loads = loads
