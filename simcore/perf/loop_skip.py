"""Counted loops in an estimate's sample: the first iterations simulated, the rest added up.

The sample simulates whole blocks (sampling.py). A block of a small fixed grid may loop tens of
thousands of times (a grid-stride loop over 2^20 floats in one block of 32 threads: 32,768
iterations, seconds of CPU), though each iteration counts what the one before it counted. This
plugin, which only the estimate's sample adds, watches the loops whose iterations cannot depend on
the data (`skippable_loops`, from the program alone: no barrier, warp collective, atomic, fence,
clock read or printf, no way out but the header's test, no branch or address computed from
memory, every address an affine function of the loop's registers, a header that compares two
integers), and at run time skips what it has seen repeat:

  1. Every runnable lane of the wave comes back to the loop's header together, over its back edge,
     and the first iteration foretells at least WORTH_WATCHING of them (watching costs a little
     per iteration: short loops are simulated as they are).
  2. A period of q iterations (q <= LONGEST_PERIOD) in which every address moves by whole 128-byte
     lines, the same for every access to one array (then the sectors, lines and banks they touch
     repeat exactly, as PerfCounters' remembered patterns assume), and over the last REPEATS
     periods the increments of everything that decides the future repeated: the counts
     (PerfCounters.tally: sectors, lines, instructions, load rounds, L1 hits and clock...), the
     steps, every integer register the loop writes and every address, lane by lane.
  3. From the header's test (each operand a register moving by its increment per period, or a
     constant) the number of periods that every lane still runs follows in closed form.

Then all but the last period of what is left is skipped at once: each count (PerfCounters.add_tally)
and each integer register gets the number of periods skipped times its increment per period (a
floating-point register only if it too moved by one constant amount), the wave's steps as well
(the sample's step budget counts them as run), and the L1 records the reads those periods make
(PerfCounters.skip_l1_reads). The last period and the exit are simulated, so lanes that leave at
different iterations (a grid's tail) are counted exactly.

Not done in the skipped iterations: the writes to memory, and the registers that do not move
linearly (a floating-point sum: no branch or address of the loop uses it). Nothing the counts
depend on can read what those writes would have left: a load whose value may steer the kernel
(steering_sites: into a branch, an address or a sync point's operand) that reads where they would
have written raises StaleRead, and the sample is simulated again without skipping. Every estimate
of the validation sweeps (1,146) is bit-identical with and without skipping.
"""
import ast
from typing import NamedTuple

import numpy as np

from ..lower.dataflow import VALUE_NAME, sites_feeding
from ..runtime.context import c_quotient, c_remainder
from ..runtime.wave import RUN
from ..checks.base import Plugin
from .counters import program_constants

REPEATS = 3            # periods that must repeat before the rest is skipped
LONGEST_PERIOD = 128   # iterations per period, at most (a 1-byte stride's lines repeat every 128)
LEAST_SKIPPED = 8      # iterations worth a skip
LINE = 128             # bytes: an address that moves by whole lines touches the same sectors, lines and banks
MOST_ACCESSES = 4096   # warp accesses of one iteration that are remembered (more: the loop is simulated)
WORTH_WATCHING = 64    # iterations (as the first one's steps foretell) for which watching a loop may pay

# calls of the lowered code whose value comes from memory or the machine (not from the registers)
FROM_MEMORY = {"ld", "ldu", "lget", "atomic", "clock32", "clock64", "activemask", "nth_lane", "pack_lanes"}
# calls that do what a skipped iteration would not do (or that its counts do not price the same)
NEVER_SKIPPED = {"printf", "nanosleep", "threadfence", "threadfence_block", "clock32", "clock64",
                 "bad_function_pointer"}
# the test that keeps a loop going, as `diff(left, right) <= -1`; a != test is its own case
CONTINUES = {ast.Lt: lambda a, b: a - b, ast.LtE: lambda a, b: a - b - 1,
             ast.Gt: lambda a, b: b - a, ast.GtE: lambda a, b: b - a - 1}
NEGATED = {ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.Eq: ast.NotEq,
           ast.NotEq: ast.Eq}


class Loop:
    """A loop of the lowered program: blocks header..latch (lowering lays a loop out in order, the
    latch jumping back to the header); it goes on while `left op right` (operands: a register's
    name, or a constant's value); `written`: the registers its blocks write."""

    def __init__(self, header, latch, op, left, right, written):
        self.header, self.latch, self.op, self.left, self.right = header, latch, op, left, right
        self.written = written


class Access(NamedTuple):
    """One warp access seen while a loop is watched."""
    site: int
    array: str              # the region's name
    offsets: np.ndarray     # byte offsets, one per lane
    kind: str               # 'read' | 'write' | 'atomic' | 'cas'
    size: int


class Visit(NamedTuple):
    """What a visit of a watched loop's header leaves to compare (LoopSkip._visit)."""
    steps: int
    sums: np.ndarray        # PerfCounters.tally()'s additive counts
    fixed: tuple            # and what must not change
    regs: list              # the loop's registers, in its lanes
    lanes: np.ndarray
    accesses: list          # the accesses of the iteration that led here (None: the loop was just entered)
    ints: np.ndarray        # for quick comparison: the integer registers as one vector,
    layout: tuple           # the accesses' (site, array, lanes),
    offsets: np.ndarray     # and all their offsets as one vector


def _address_args(tree):
    """The address arguments (ast) of the loads, stores and atomics in a parsed piece of lowered
    code: X.ld/X.ldu/X.st(address, ...), X.atomic(op, address, ...)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("ld", "ldu", "st") and node.args:
                yield node.args[0]
            elif node.func.attr == "atomic" and len(node.args) > 1:
                yield node.args[1]


def _calls(code):
    """The X.<name>(...) calls in one line of lowered code (or in an expression's ast)."""
    tree = ast.parse(code.strip()) if isinstance(code, str) else code
    return {node.func.attr for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "X"}


def _flows(body_blocks):
    """(name assigned, the names its value is computed from, whether it comes from memory) of
    every assignment in a loop's blocks (registers v_..., temporaries _t...)."""
    flows = []
    for block in body_blocks:
        for line in block.code:
            node = ast.parse(line.strip()).body[0]
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                value = ast.unparse(node.value)
                flows.append((node.targets[0].id, set(VALUE_NAME.findall(value)), bool(_calls(value) & FROM_MEMORY)))
    return flows


def _reached(flows, seeds):
    """`seeds` and every name computed from one of them (to the fixed point: the back edge
    carries values into the next iteration)."""
    reached = set(seeds)
    changed = True
    while changed:
        changed = False
        for dst, sources, _ in flows:
            if dst not in reached and sources & reached:
                reached.add(dst)
                changed = True
    return reached


def _addresses(block):
    """The address expressions (ast) of a block's loads, stores and atomics,
    with the block's temporaries written out (a temporary is assigned once, in its block)."""
    temps = {}
    for line in block.code:
        node = ast.parse(line.strip()).body[0]
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id.startswith("_t"):
            temps[node.targets[0].id] = node.value
        for address in _address_args(node):
            yield _written_out(address, temps)


def _written_out(node, temps, depth=0):
    """`node` with the temporaries it names replaced by their expressions."""
    if isinstance(node, ast.Name) and node.id in temps and depth < 50:
        return _written_out(temps[node.id], temps, depth + 1)
    if isinstance(node, ast.Name):
        return node
    node = type(node)(**{f: getattr(node, f) for f in node._fields})
    for field in node._fields:
        value = getattr(node, field)
        if isinstance(value, ast.AST):
            setattr(node, field, _written_out(value, temps, depth + 1))
        elif isinstance(value, list):
            setattr(node, field, [_written_out(v, temps, depth + 1) if isinstance(v, ast.AST) else v for v in value])
    return node


def _varies(node, written):
    """Whether the expression names a register the loop writes (or a temporary not written out)."""
    return any(isinstance(n, ast.Name) and (n.id.startswith("_t") or n.id.startswith("v_") and n.id[2:] in written)
               for n in ast.walk(node))


def affine(node, written):
    """Whether an address is an affine function of the registers the loop writes (`written`):
    sums and differences, products by what the loop does not change, casts. Then, as those
    registers move by a constant each period, so does the address, and the sectors, lines and
    banks it touches repeat once it has moved by whole 128-byte lines."""
    if not _varies(node, written):
        return True
    if isinstance(node, ast.Name):
        return not node.id.startswith("_t")
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        return affine(node.left, written) and affine(node.right, written)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return (not _varies(node.left, written) and affine(node.right, written)
                or not _varies(node.right, written) and affine(node.left, written))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return affine(node.operand, written)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "astype"
            and not node.keywords and len(node.args) == 1):
        return affine(node.func.value, written)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "smul"
            and len(node.args) >= 2):            # a signed product (the simulator checks it for overflow)
        a, b = node.args[:2]
        return not _varies(a, written) and affine(b, written) or not _varies(b, written) and affine(a, written)
    return False


def _operand(node, constants, written):
    """A test's operand: ('register', name), ('constant', int), ('expression', code) for integer
    arithmetic on what the loop does not change (`n / 4`, `8 + t % 3 * 4`: evaluated per lane at
    run time, see _evaluate), or None for anything else."""
    if isinstance(node, ast.Name) and node.id.startswith("v_"):
        return ("register", node.id[2:])
    if isinstance(node, ast.Name) and node.id in constants and isinstance(constants[node.id], (int, np.integer)):
        return ("constant", int(constants[node.id]))
    if _varies(node, written) or not _invariant_arithmetic(node):
        return None
    return ("expression", compile(ast.Expression(body=node), "<loop test>", "eval"))


def _invariant_arithmetic(node):
    """Whether an expression is integer arithmetic that _evaluate can do: registers, constants,
    + - *, C's / and % (X.idiv, X.imod), X.smul, casts."""
    if isinstance(node, ast.Name):
        return node.id.startswith("v_") or node.id[:1] == "K"
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
        return _invariant_arithmetic(node.left) and _invariant_arithmetic(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr == "astype" and len(node.args) == 1 and isinstance(node.args[0], ast.Name):
            return _invariant_arithmetic(node.func.value)
        if (node.func.attr in ("idiv", "imod", "smul") and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "X" and len(node.args) >= 2):
            return _invariant_arithmetic(node.args[0]) and _invariant_arithmetic(node.args[1])
    return False


class _Arithmetic:
    """The lowered code's integer helpers as _evaluate needs them: the context's C arithmetic
    without its reports (a zero divisor: no value)."""

    @staticmethod
    def _operands(a, b):
        a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
        if (b == 0).any():
            raise ZeroDivisionError
        return a, b

    @staticmethod
    def idiv(a, b, *_):
        return c_quotient(*_Arithmetic._operands(a, b))

    @staticmethod
    def imod(a, b, *_):
        return c_remainder(*_Arithmetic._operands(a, b))

    @staticmethod
    def smul(a, b, *_):
        return a * b


def _evaluate(code, program, registers, lanes):
    """The value per lane of an operand ('expression', code) of a loop test, or None."""
    namespace = dict(program.blocks[0].fn.__globals__)
    names = {n for n in code.co_names if n.startswith("v_")}
    namespace.update({n: registers[n[2:]][lanes] for n in names})
    namespace["X"], namespace["L"] = _Arithmetic, None
    try:
        with np.errstate(all="ignore"):
            value = np.asarray(eval(code, namespace))
    except (ZeroDivisionError, KeyError, NameError, TypeError, ValueError):
        return None
    return value if value.dtype.kind in "iu" else None


def skippable_loops(program):
    """{header block id: Loop} of the loops whose iterations cannot depend on the data: no sync
    point, exit or jump out of the loop but the header's test, none of NEVER_SKIPPED, no load or
    store address computed from memory, no branch but the header's on memory or on what the loop
    changes (an inner loop is skipped on its own), a header that only tests two integer operands."""
    blocks = program.blocks
    constants = program_constants(program)
    found = {}
    for latch in blocks:
        if latch.term.kind != "goto" or latch.term.target > latch.id:
            continue
        header = blocks[latch.term.target]
        if header.term.kind != "branch" or header.code:
            continue
        body = blocks[header.id:latch.id + 1]
        inside = range(header.id, latch.id + 1)
        t_in, f_in = header.term.if_true in inside, header.term.if_false in inside
        if t_in == f_in:
            continue
        ok = True
        for b in body:
            term = b.term
            targets = ((term.target,) if term.kind == "goto" else (term.if_true, term.if_false)
                       if term.kind == "branch" else None)
            if targets is None or (b is not header and any(t not in inside for t in targets)):
                ok = False          # a sync point, an exit, or a way out of the loop
            elif any(_calls(line) & NEVER_SKIPPED for line in b.code):
                ok = False
        if not ok:
            continue
        flows = _flows(body)
        tainted = _reached(flows, {dst for dst, _, loads in flows if loads})     # may come from memory
        written = sorted({name for b in body for name in b.stores if name in program.vars})
        # a branch inside the loop on what the loop changes (i % 8, i < n / 2, an inner loop's
        # counter) may be taken in a pattern longer than any period watched, or flip once: only
        # the header's test, whose end is worked out in closed form, may depend on it
        moving = _reached(flows, {"v_" + name for name in written})
        if any(b.term.kind == "branch" and set(VALUE_NAME.findall(b.term.cond)) & (tainted if b is header else
                                                                                  tainted | moving)
               for b in body):
            continue
        addresses = [a for b in body for a in _addresses(b)]
        if any(set(VALUE_NAME.findall(ast.unparse(a))) & tainted or _calls(a) & FROM_MEMORY
               or not affine(a, set(written)) for a in addresses):
            continue
        test = ast.parse(header.term.cond.strip(), mode="eval").body
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
            continue
        op = type(test.ops[0]) if t_in else NEGATED.get(type(test.ops[0]))
        left, right = (_operand(test.left, constants, set(written)),
                       _operand(test.comparators[0], constants, set(written)))
        if op not in CONTINUES and op is not ast.NotEq or left is None or right is None:
            continue
        if any(kind == "register" and program.vars[name].ctype.dtype.kind not in "iu"
               for kind, name in (left, right)):
            continue
        found[header.id] = Loop(header.id, latch.id, op, left, right, written)
    return found


class StaleRead(Exception):
    """A load whose value may steer the kernel read memory that skipped iterations would have
    written: the sample is simulated again without skipping (sampling.run_sample)."""


def steering_sites(program):
    """The load and atomic sites whose value may reach a branch condition, an address or a sync
    point's operand anywhere in the kernel (lower/dataflow.py: sites_feeding), worked out once
    per program."""
    found = getattr(program, "_steering_sites", None)
    if found is None:
        codes = [b.term.cond for b in program.blocks if b.term.kind == "branch"]
        codes += [ast.unparse(address) for b in program.blocks for line in b.code if "X." in line
                  for address in _address_args(ast.parse(line.strip()))]
        codes += ["v_" + name for site in program.sync_sites for name in site.operands.values() if name]
        flows, loaded_by = getattr(program, "value_flows", None), getattr(program, "loaded_by", None)
        found = (sites_feeding(flows, loaded_by, codes) if flows is not None
                 else {s for s in range(len(program.sites))})      # unknown: every site may steer
        program._steering_sites = found
    return found


def loops_of(program):
    """skippable_loops(program), worked out once per program."""
    found = getattr(program, "_skippable_loops", None)
    if found is None:
        found = program._skippable_loops = skippable_loops(program)
    return found


def periods_left(diff, step, op):
    """Per lane: how many more periods (k = 1, 2, ...) the test holds, given `diff` (the test's
    diff now, int64 per lane: left - right, normalised by CONTINUES) and `step` (its increment per
    period); -1 where it never fails (the loop does not end through that lane); 0 or less: it
    fails within the next period."""
    big = np.full(diff.shape, -1, np.int64)
    if op is ast.NotEq:          # goes on until diff is 0
        hits = (step != 0) & (-diff % np.where(step == 0, 1, step) == 0) & (-diff * np.sign(step) > 0)
        out = np.where(hits, -diff // np.where(step == 0, 1, step) - 1, big)
        return np.where(diff == 0, 0, out)
    # goes on while diff + k * step <= -1
    ends = step > 0
    left = np.where(ends, (-diff - 1) // np.where(ends, step, 1), big)     # the largest k that still holds
    return np.where(diff > -1, 0, left)


class LoopSkip(Plugin):
    """The estimate sample's skipper (see the module's docstring); sampling.py adds it and gives it
    the launch's PerfCounters (`counters`). `skipped`: iterations skipped in the launch."""

    def __init__(self, launch, program, report, options):
        super().__init__(launch, program, report, options)
        self.loops = loops_of(program)
        self.header_loop = [self.loops.get(b.id) for b in program.blocks] + [None]
        self.counters = None
        self.skipped = 0
        self.watching = {}      # header -> (loop, visits since the wave came in from before the loop)
        self.given_up = set()
        self.expected = {}      # header -> the watched loop's iterations, as its first one foretold
        self.accesses = []      # the accesses since the last visit: (site, array, byte offsets, kind, size)
        self.last_pc = -1
        self.stale = {}         # array -> [(first, end) byte ranges that skipped iterations did not write]
        self.steering = steering_sites(program) if self.loops else set()

    @staticmethod
    def has_loops(program):
        """Whether `program` has a loop this plugin may skip (the plugin costs a call per step)."""
        return bool(loops_of(program))

    def on_wave_start(self, wave):
        self.watching, self.given_up, self.accesses = {}, set(), []
        self.last_pc = -1

    def on_memory_access(self, region, offsets, size, kind, lanes, site):
        if self.watching:
            self.accesses.append(Access(site, region.name, offsets.copy(), kind, size))
        if self.stale and kind != "write" and region.name in self.stale and site in self.steering:
            for lo, hi in self.stale[region.name]:
                if ((offsets + size > lo) & (offsets < hi)).any():
                    raise StaleRead(f"site {site} read {region.name}[{lo}:{hi}]")

    def on_step(self, pc, lanes):
        last, self.last_pc = self.last_pc, pc
        if self.watching:
            for h in [h for h, (loop, _) in self.watching.items() if not loop.header <= pc <= loop.latch]:
                del self.watching[h]
        loop = self.header_loop[pc]
        if loop is None or pc in self.given_up or self.counters is None:
            return
        w = self.wave
        lane_ids = np.arange(w.S)[lanes]
        accesses, self.accesses = self.accesses, []
        if lane_ids.size != np.count_nonzero(w.st == RUN):
            self.watching.pop(pc, None)     # other lanes run meanwhile: their future is not this loop's
            return
        if not loop.header < last <= loop.latch:     # entered from before the loop: a fresh start
            self.watching[pc] = (loop, [self._visit(loop, lane_ids, None)])
            return
        seen = self.watching.setdefault(pc, (loop, []))[1]
        if len(accesses) > MOST_ACCESSES:
            self.given_up.add(pc)           # an iteration too big to remember: simulate it all
            del self.watching[pc]
            return
        if seen and not np.array_equal(seen[-1].lanes, lane_ids):
            seen.clear()                    # lanes left the loop (they wait to reconverge): start again
        seen.append(self._visit(loop, lane_ids, accesses))
        if len(seen) == 2:                  # one iteration seen: is the loop long enough to watch?
            self.expected[pc] = len(seen) + (self._periods_left(loop, seen, 1) or 0)
        if len(seen) == 3:
            a, b = seen[1:]
            if a.layout is not None and a.layout == b.layout:
                # the first two iterations' moves foretell the period: every address must move by whole
                # lines, REPEATS times over, before a skip (a 4-byte step: 32 iterations a period)
                moved = int(np.gcd.reduce(np.append((b.offsets - a.offsets) % LINE, 0))) or LINE
                if 2 * (REPEATS * (LINE // np.gcd(moved, LINE)) + 1) > self.expected[pc]:
                    self.expected[pc] = 0
        if len(seen) < 2:
            return
        expected = self.expected[pc]
        if len(seen) > REPEATS * LONGEST_PERIOD + 1 or expected < WORTH_WATCHING or expected - len(seen) < len(seen):
            # no period in sight, or too few iterations left to pay for watching: simulate it all
            self.given_up.add(pc)
            del self.watching[pc]
            return
        q = self._period(seen)
        if q and self._skip(loop, seen, q):
            del self.watching[pc]

    def _visit(self, loop, lane_ids, accesses):
        """-> the Visit of the header now, after the iteration that made `accesses`."""
        w = self.wave
        sums, fixed = self.counters.tally()
        regs = [np.array(w.R[name][lane_ids]) for name in loop.written]
        ints = [r.astype(np.int64).ravel() for r in regs if r.dtype.kind in "iu"]
        ints = np.concatenate(ints) if ints else np.zeros(0, np.int64)
        if accesses is None:
            layout, offsets = None, None
        else:
            layout = tuple((a.site, a.array, a.offsets.size) for a in accesses)
            offsets = np.concatenate([a.offsets for a in accesses]) if accesses else np.zeros(0, np.int64)
        return Visit(w.steps, sums, fixed, regs, lane_ids, accesses, ints, layout, offsets)

    @staticmethod
    def _period(seen):
        """The period q at the end of `seen` to skip by, or None: the shortest p whose last
        REPEATS periods repeat (_repeats), stretched to q = p * m so that every address has moved
        by whole 128-byte lines in q iterations (the sectors, lines and banks then repeat exactly),
        once the last REPEATS periods of q iterations repeat as well."""
        e = len(seen) - 1
        for p in range(1, e // REPEATS + 1):
            if not _repeats(seen, p):
                continue
            moved = {}                  # array -> what its addresses moved by in p iterations
            for a, b in _access_pairs(seen, p):
                moved.setdefault(a.array, []).append(a.offsets - b.offsets)
            by = [np.concatenate(m) for m in moved.values()]
            if any(m.size and (m != m[0]).any() for m in by):
                return None             # accesses of one array drift apart: their overlaps change
            whole = int(np.gcd.reduce(np.array([int(m[0]) % LINE for m in by if m.size] + [0]))) or LINE
            q = p * (LINE // np.gcd(whole, LINE))
            if q > LONGEST_PERIOD:
                return None
            return q if q == p or (REPEATS * q <= e and _repeats(seen, q)) else None
        return None

    def _periods_left(self, loop, seen, p):
        """How many more periods of p iterations every lane runs before the header's test ends
        the loop, were its operands to go on moving as in the last period of `seen` (the test at
        every iteration of those periods holds); None when no lane would leave through it."""
        now, before = seen[-1], seen[-1 - p]
        regs = dict(zip(loop.written, zip(now.regs, before.regs)))
        periods = None
        for phase in range(p):          # the test at every iteration of the periods ahead
            at_regs = dict(zip(loop.written, seen[-p + phase].regs))
            sides = []
            for kind, value in (loop.left, loop.right):
                if kind == "constant":
                    sides.append((np.int64(value), np.int64(0)))
                elif kind == "expression":
                    value = _evaluate(value, self.program, self.wave.R, now.lanes)
                    if value is None:
                        return None
                    sides.append((value.astype(np.int64), np.int64(0)))
                elif value in regs:
                    v_now, v_before = regs[value]
                    sides.append((at_regs[value].astype(np.int64), (v_now.astype(np.int64) - v_before)))
                else:                   # not written by the loop: the same every period
                    sides.append((self.wave.R[value][now.lanes].astype(np.int64), np.int64(0)))
            (a, da), (b, db) = sides
            norm = CONTINUES.get(loop.op, lambda x, y: x - y)
            diff = np.broadcast_to(norm(a, b), now.lanes.shape)
            step = np.broadcast_to(norm(da, db) - norm(np.int64(0), np.int64(0)), now.lanes.shape)
            left = periods_left(diff, step, loop.op)
            finite = left[left >= 0]
            if finite.size == 0:
                return None
            periods = int(finite.min()) if periods is None else min(periods, int(finite.min()))
        return periods

    def _skip(self, loop, seen, p):
        """Skip what is left of the loop but its last period; False when that is too little or
        a register would wrap."""
        now, before = seen[-1], seen[-1 - p]
        w = self.wave
        regs = dict(zip(loop.written, zip(now.regs, before.regs)))
        periods = self._periods_left(loop, seen, p)
        if periods is None:
            return False            # no lane leaves through the test: leave it to the watchdog
        skip = periods - 1              # keep the last period (and the exit) simulated
        if skip < 1 or skip * p < LEAST_SKIPPED:
            return False
        moved = {}
        for name, (v_now, v_before) in regs.items():
            if v_now.dtype.kind in "iu":
                step = v_now.astype(np.int64) - v_before.astype(np.int64)
                if not step.any():
                    continue
                info = np.iinfo(v_now.dtype)
                if np.abs(step.astype(float)).max() * skip + np.abs(v_now.astype(float)).max() > 2.0 ** 62:
                    return False
                target = v_now.astype(np.int64) + skip * step
                if target.min() < info.min or target.max() > info.max:
                    return False        # it would wrap: not linear over the skip
                moved[name] = target.astype(v_now.dtype)
            elif v_now.dtype.kind == "f" and self._steady(seen, p, loop.written.index(name)):
                moved[name] = (v_now + skip * (v_now - v_before)).astype(v_now.dtype)
        sums_step = now.sums - before.sums
        counters = self.counters
        if counters.l1_sectors:
            clock_step = np.rint(sums_step[self._l1_clock_at(counters)]).astype(np.int64)
            arrays = {a.array: int(a.offsets[0] - b.offsets[0])      # what each array's addresses move by
                      for a, b in _access_pairs(seen, p) if a.offsets.size}  # in a period (the same for all)
            counters.skip_l1_reads(counters.l1_clock - clock_step, clock_step, skip, arrays)
        for a, b in _access_pairs(seen, p):            # what the skipped iterations would have written
            if a.kind != "read" and a.offsets.size:
                shift = skip * int(a.offsets[0] - b.offsets[0])
                self.stale.setdefault(a.array, []).append((int(a.offsets.min()) + min(0, shift) - a.size,
                                                           int(a.offsets.max()) + max(0, shift) + a.size))
        for name, value in moved.items():
            w.R[name][now.lanes] = value
        counters.add_tally(skip * sums_step)
        w.steps += skip * (now.steps - before.steps)
        self.skipped += skip * p
        return True

    @staticmethod
    def _steady(seen, p, index):
        """Whether register `index` of the loop moved by exactly the same amount in each of the
        last REPEATS periods (a floating-point value that steps by a constant)."""
        e = len(seen) - 1
        step = seen[e].regs[index] - seen[e - p].regs[index]
        return all(np.array_equal(seen[e - k * p].regs[index] - seen[e - (k + 1) * p].regs[index], step)
                   for k in range(1, REPEATS))

    @staticmethod
    def _l1_clock_at(counters):
        """Where the blocks' L1 clocks lie in a tally's vector (PerfCounters._sum_arrays' order)."""
        start = sum(a.size for a in counters._sum_arrays()[:4])
        return slice(start, start + counters.l1_clock.size)


def _repeats(seen, p):
    """Whether the last REPEATS periods of p visits of `seen` repeat: the same lanes, the same
    counts that are not sums, the same accesses (sites, regions, lanes), and every increment over
    p visits (steps, counts, integer registers, addresses) the same at each of the last
    (REPEATS - 1) * p visits as at the last."""
    e = len(seen) - 1
    if e < REPEATS * p:
        return False
    steps = seen[e].steps - seen[e - p].steps      # the cheap test first
    if any(seen[t].steps - seen[t - p].steps != steps for t in range(e - 1, e - (REPEATS - 1) * p - 1, -1)):
        return False
    if not all(_same_increment(seen[t], seen[t - p], seen[e], seen[e - p])
               for t in range(e - 1, e - (REPEATS - 1) * p - 1, -1)):
        return False
    last = seen[e]
    return all(seen[t].fixed == last.fixed and np.array_equal(seen[t].lanes, last.lanes)
               for t in range(e - REPEATS * p, e))


def _same_increment(later, earlier, last, before_last):
    """Whether later - earlier equals last - before_last (Visits, whose steps _repeats compared):
    counts, integer registers and the addresses of each access (the four must make the same
    accesses)."""
    if not later.sums.size == earlier.sums.size == last.sums.size == before_last.sums.size:
        return False        # a count began meanwhile (a first access to an array)
    if later.layout is None or earlier.layout is None or \
            not later.layout == earlier.layout == last.layout == before_last.layout:
        return False
    return (np.array_equal(later.sums - earlier.sums, last.sums - before_last.sums)
            and np.array_equal(later.ints - earlier.ints, last.ints - before_last.ints)
            and np.array_equal(later.offsets - earlier.offsets, last.offsets - before_last.offsets))


def _access_pairs(seen, p):
    """(access, the same access p iterations earlier) for every access of the last p iterations."""
    for t in range(len(seen) - p, len(seen)):
        yield from zip(seen[t].accesses, seen[t - p].accesses)
