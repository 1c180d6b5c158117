"""The serial fast path: one generated Python function per kernel that runs a lone thread's loop.

Why: a serial phase (thread 0 finishing a reduction, a serial scan, a loop per warp leader)
runs one block at a time for a single lane. `Engine.run_solo` already skips the general step's
scans, but each block still costs a call, a dictionary look-up and a numpy scalar load and store
per register, and the step's bookkeeping: a one-thread 10^5-iteration loop took ~130 ms,
twice Oclgrind's time. Most of that is not the kernel's arithmetic.

What: `solo_loop(prog, scalar_ok)` compiles, once per program (cached on it), from the blocks'
code and recorded facts (block.code, loads, stores, block.facts: never the generated source's
text), a function that runs the blocks of the kernel that end in a goto or a branch,
for one lane; `Engine.run_solo` calls it when the lane takes a backward edge (a loop):

* the registers those blocks use live in Python locals (numpy scalars, as the scalar blocks'
  code already uses them) from entry to return, and are written back to the wave's registers
  on every way out (the uninitialised-value twins `__u_` too);
* the code of a scalar block (engine.scalar_blocks) is inlined, and so is a block whose only
  calls into the context divide integers (scalar C division and remainder below; a zero
  divisor goes the context's way, with the wave's state what the general loop leaves), and so
  is a block that also loads or stores memory (X.ld/X.ldu/X.st become Memory.load_lane /
  store_lane, the memory's one-lane access in one call, values as scalars: the same checks,
  plugin hooks and faults; no plugin that watches accesses reads registers, so they stay in
  locals); a block that calls the context otherwise (atomics, local arrays, checks) is called as
  the general loop calls it, with the registers it names written back first and those it stores
  read again;
* a block whose only predecessor ran just before it is inlined after it (no dispatch); other
  targets go back to a binary if-tree over the block ids;
* steps and thread-instructions are counted exactly as run_solo counts them (added up per
  path, and before any block that may fault); the function returns *before* any block whose
  step would reach the watchdog's next one (so the watchdog, which hashes the registers, sees
  them in the wave); inside a probe of the watchdog, the next one it must see
  (Watchdog.serial_window): it records the step of every block it runs in the probe's ran_pcs and
  returns before the checkpoint's block when the registers the loop changes may be the
  checkpoint's (at any other probe step the probe only keeps those records);
* it returns at every edge run_solo must look at: into the reconvergence point the lane
  recorded last (where it may wait for warp-mates; at any other one the general move would only
  move it: a lone lane's branch never diverges, so that record does not change meanwhile), into
  a block it does not run (a sync point, the exit), and forward to a block at or after another
  runnable lane's (backward edges cannot be: the lone lane is the lowest runnable one).

Numpy on scalars, rewritten where it is slow: `.astype(T)` costs ~400 ns (it goes through a
0-d array): the inlined code stores into a one-element array of T and reads it back (~110 ns),
the same cast; `np.left_shift(a, b)` (~1.2 us as a ufunc call) becomes `a << b` (~20 ns), the
same type and bits. tests/simcore/runtime/test_serial_fast_path.py compares each rewrite with the original over
every dtype pair and edge values. Everything else is the blocks' own generated code, so values,
steps, thread-instruction counts and faults are those of the general loop.
"""
import ast

import numpy as np

from ..lower.codegen import DTYPES
from ..lower.facts import LANE_FREE_CONTEXT, SCALAR_HELPERS

# Loads and stores the serial loop runs inlined (Memory.load_lane / store_lane: the memory's
# one-lane access, values and definedness as numpy scalars).
SCALAR_LOADS = frozenset({"ld", "ldu"})
SCALAR_ACCESSES = SCALAR_LOADS | {"st"}

MAX_INLINE = 48        # blocks inlined below one dispatch entry (code size)
MAX_NESTING = 12       # branches nested inside one dispatch entry (Python's indentation limit)
SAME_AS_CHECKPOINT = "_s_SAME_AS_CHECKPOINT"   # stands for the register comparison until the registers are known
PROBE_ONLY = "  # probe"          # ends the lines only a probe of the watchdog needs (the stop block, ran)


def cast_via(buf, value):
    """value.astype(buf.dtype) for a numpy scalar value, without a 0-d array: the same cast.
    (numpy stores a float into an integer array through a Python int: NaN and values out of
    the integer's range raise there, and go the astype way.)"""
    try:
        buf[0] = value
    except (OverflowError, ValueError):
        return value.astype(buf.dtype)
    return buf[0]


def scalar_idiv(X, lanes, a, b, L, site):
    """Context.idiv for one lane's numpy scalars (C division: truncates toward zero); a zero
    divisor goes the context's way, with the lane's slice, for the same fault."""
    if b == 0:
        return X.idiv(np.atleast_1d(a), np.atleast_1d(b), lanes, site)[0]
    if a.dtype.kind == "u":
        return a // b
    q = a // b
    r = a - q * b
    q = q + ((r != 0) & ((a < 0) != (b < 0)))
    return q if q.dtype == a.dtype else q.astype(a.dtype)


def scalar_imod(X, lanes, a, b, L, site):
    """Context.imod for one lane's numpy scalars (C remainder: the sign of a)."""
    if b == 0:
        return X.imod(np.atleast_1d(a), np.atleast_1d(b), lanes, site)[0]
    r = a % b                   # numpy's: the sign of b
    if a.dtype.kind != "u" and r != 0 and (r < 0) != (a < 0):
        r = r - b
    return r if r.dtype == a.dtype else r.astype(a.dtype)


def scalar_shl(X, lanes, a, b, L, site):
    """Context.shl for one lane's numpy scalars (of one dtype, as lowering casts them): a count
    outside 0..width-1 goes the context's way (the same fault)."""
    if 0 <= int(b) < a.itemsize << 3:
        return a << b
    return X.shl(np.atleast_1d(a), np.atleast_1d(b), lanes, site)[0]


def scalar_shr(X, lanes, a, b, L, site):
    if 0 <= int(b) < a.itemsize << 3:
        return a >> b
    return X.shr(np.atleast_1d(a), np.atleast_1d(b), lanes, site)[0]


def scalar_smul(X, lanes, a, b, L, site):
    """Context.smul for one lane's numpy scalars: the wrapped product; an overflow goes the
    context's way (the warning)."""
    r = a * b
    if int(r) != int(a) * int(b):
        return X.smul(np.atleast_1d(a), np.atleast_1d(b), lanes, site)[0]
    return r


def accesses_only(facts):
    """A block that could run for one lane if its context calls went to the scalar helpers and
    the one-lane loads and stores (no atomic, check or local array)."""
    return not facts.touches_arrays and facts.context - LANE_FREE_CONTEXT <= SCALAR_HELPERS | SCALAR_ACCESSES


def address_on_ints(node, int64_names):
    """An address expression of the generated code (lower/access.py pointer_add: `(p + (i).astype(I8)
    * 4)`, `(K1 - K2)`, nested) on Python ints, or None where it is not of that form. Why: each
    numpy scalar operation costs ~80 ns and the cast ~250 ns, a Python int's ~20 ns; the
    serial loop's loads spend more on their address than on the rest of their arithmetic.

    Exact: the numpy expression is int64 throughout (every leaf is an int64: a name in
    `int64_names`, a register (-> None) or constant (-> its value) of that dtype, or a cast `.astype(I8)`, whose operand
    lowering makes an integer, a bool or a pointer, never a float (a float goes through X.f2i);
    a multiplier is a Python int), and int64 +, - and * wrap modulo 2**64, so the Python int is
    congruent to numpy's value: Memory.load_lane / store_lane wrap it back (wrap_int64) before
    anything but their in-bounds test reads it (numpy's wrap-around is silent under the engine's
    errstate). `int(x)` of an integer numpy scalar is its exact value."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        left, right = address_on_ints(node.left, int64_names), address_on_ints(node.right, int64_names)
        return None if left is None or right is None else ast.BinOp(left, node.op, right)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and isinstance(node.right, ast.Constant) \
            and type(node.right.value) is int:
        left = address_on_ints(node.left, int64_names)
        return None if left is None else ast.BinOp(left, ast.Mult(), node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "astype" \
            and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Name) \
            and node.args[0].id == "I8":
        return ast.Call(ast.Name("int", ast.Load()), [node.func.value], [])
    if isinstance(node, ast.Name) and node.id in int64_names:
        constant = int64_names[node.id]
        return ast.Call(ast.Name("int", ast.Load()), [node], []) if constant is None else ast.Constant(constant)
    return None


def _address_arg(addr, int64_names):
    """The serial loop's address argument: on Python ints where address_on_ints can (an
    arithmetic expression; a lone name stays as it is, nothing to save)."""
    if not isinstance(addr, ast.BinOp):
        return addr
    on_ints = address_on_ints(addr, int64_names)
    return addr if on_ints is None else on_ints


class _ScalarHelperCalls(ast.NodeTransformer):
    """`X.idiv(a, b, L, site)` -> `_s_idiv(X, _s_LS, a, b, L, site)`, and so for every
    SCALAR_HELPERS call: the scalar versions above, given the context and the lane's slice
    (only the code of blocks inlined with their helpers calls them: a called block's code is
    its own function). A load, `X.ldu(addr, T, L, site, ...)` (Context.ldu: Memory.load with
    the definedness), becomes `_s_load_lane(addr, T, _s_LS, L, site, True, ...)` (the loop's
    `_s_mem.load_lane`, bound once a call): the
    memory's one-lane load, values as scalars, in one call; its address (and a store's) on
    Python ints where address_on_ints can (`int64_names`: the int64 registers and constants)."""

    def __init__(self, int64_names=None):
        self.int64_names = int64_names or {}

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "X"):
            return node
        if f.attr in SCALAR_LOADS:
            if len(node.args) < 4:
                raise ValueError(f"a load written {ast.unparse(node)}: no serial loop")
            addr, dtype, lane, site = node.args[:4]
            args = [_address_arg(addr, self.int64_names), dtype, ast.Name("_s_LS", ast.Load()), lane, site,
                    ast.Constant(f.attr == "ldu")] + node.args[4:]
            call = ast.Call(ast.Name("_s_load_lane", ast.Load()), args, node.keywords)     # _s_mem.load_lane
            return ast.copy_location(call, node)
        if f.attr == "st":
            if len(node.args) < 6:
                raise ValueError(f"a store written {ast.unparse(node)}: no serial loop")
            addr, value, dtype, lane = node.args[:4]
            args = [_address_arg(addr, self.int64_names), value, dtype, ast.Name("_s_LS", ast.Load()), lane] + node.args[4:]
            call = ast.Call(ast.Name("_s_store_lane", ast.Load()), args, node.keywords)    # _s_mem.store_lane
            return ast.copy_location(call, node)
        if f.attr in SCALAR_HELPERS:
            args = [ast.Name("X", ast.Load()), ast.Name("_s_LS", ast.Load())] + node.args
            return ast.copy_location(ast.Call(ast.Name("_s_" + f.attr, ast.Load()), args, node.keywords), node)
        return node


_SHIFTS = {"left_shift": ast.LShift, "right_shift": ast.RShift}


class _CheaperScalarOps(ast.NodeTransformer):
    """On numpy scalars: `(e).astype(T)` -> `_cast(_buf_T, e)` (T a dtype name of the generated
    code), and `np.left_shift(a, b)` -> `a << b` (the operator gives the same type and bits for
    every pair of integer types, ~70x cheaper than calling the ufunc on scalars)."""

    def __init__(self):
        self.used = set()

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if (isinstance(f, ast.Attribute) and f.attr in _SHIFTS and isinstance(f.value, ast.Name)
                and f.value.id == "np" and len(node.args) == 2 and not node.keywords):
            return ast.copy_location(ast.BinOp(node.args[0], _SHIFTS[f.attr](), node.args[1]), node)
        if (isinstance(f, ast.Attribute) and f.attr == "astype" and len(node.args) == 1 and not node.keywords
                and isinstance(node.args[0], ast.Name) and node.args[0].id in DTYPES):
            name = node.args[0].id
            self.used.add(name)
            return ast.copy_location(ast.Call(ast.Name("_cast", ast.Load()),
                                              [ast.Name("_buf_" + name, ast.Load()), f.value], []), node)
        return node


def solo_loop(prog, scalar_ok):
    """-> (the compiled serial loop, [may run_solo enter it at block b], its source before the
    casts are rewritten, the registers the loop may change, the same loop for calls outside a
    probe) for prog, or None when no block qualifies. Cached on the program. The last one is
    compiled without the probe's lines (the stop block's test, the `ran` records), which do
    nothing there: it runs the same blocks and returns the same.

    The loop: solo_loop(R, slot, X, wave, engine, pc, steps, last, others_first, join, L[, stop,
    saved, ran]) runs the lone lane `slot` from block pc (not yet run, steps of the wave so far)
    and returns (pc, steps, check): the next block, not run; check says whether the edge into it
    still needs run_solo's checks (a reconvergence point, a block at or after others_first, a
    block it does not run). It never runs a block whose step would be after `last` (the
    watchdog's next step - 1), nor block `stop` while the registers of the fourth item
    (`changing`, keys of wave.R) may equal `saved`; it writes the step of each block it runs into
    `ran` (Watchdog.serial_window gives the three). It adds its thread-instructions to
    engine.thread_instructions itself and leaves wave.steps and the registers right however it
    ends (a fault too)."""
    cached = getattr(prog, "_solo_loop", None)
    if cached is not None:
        return cached or None
    try:
        made = _build(prog, scalar_ok)
    except (SyntaxError, RecursionError, ValueError):     # never a reason to fail a launch
        made = None
    prog._solo_loop = made or False
    return made


def _build(prog, scalar_ok):
    blocks = prog.blocks
    if not hasattr(blocks[0], "fn") or blocks[0].fn is None:
        return None
    namespace = blocks[0].fn.__globals__
    unshaped = {name for name, var in prog.vars.items() if not var.shape}
    tracked = {name for name, var in prog.vars.items() if var.tracked}
    runs = [b.term.kind in ("goto", "branch") and b.facts is not None for b in blocks]
    preds = [0] * len(blocks)
    for b in blocks:
        for t in _targets(b):
            preds[t] += 1

    inline = {}          # block id -> its code and branch condition, without loads and stores (scalar blocks)
    refs = {}            # block id -> registers ('v'|'u', name) a called block names
    stored = {}          # block id -> registers a called block stores
    may_fault = set()    # inlined blocks that divide integers (a zero divisor faults)
    for b in blocks:
        if not runs[b.id]:
            continue
        # a block whose only calls into the context are scalar helpers (integer division, shifts):
        # inlined with the scalar versions below (_ScalarHelperCalls), as it may fault
        # and so is one that also loads memory (scalar_ld/scalar_ldu): memory and its plugins see
        # the wave's steps, program point and running lanes as for a called block (they read no
        # register)
        lifted = not scalar_ok[b.id] and (b.facts.scalar_with_helpers or accesses_only(b.facts))
        if scalar_ok[b.id] or lifted:
            inline[b.id] = list(b.code) + ([f"_cond = {b.term.cond}"] if b.term.kind == "branch" else [])
            if lifted:
                may_fault.add(b.id)
            continue
        stores = {("v", name) for name in b.stores} | {("u", name) for name in b.stores if name in tracked}
        refs[b.id] = {r for r in set(b.loads) | stores if r[1] in unshaped}
        stored[b.id] = {r for r in stores if r[1] in unshaped}
    if not inline:
        return None

    def key(reg):
        return reg[1] if reg[0] == "v" else "__u_" + reg[1]

    def local(reg):
        return f"{reg[0]}_{reg[1]}"

    # run_solo enters at the head of a loop (the target of a backward edge); the loop goes
    # back to the dispatch only at targets it could not inline: those are the other entries
    heads = sorted({t for b in blocks for t in _targets(b) if t <= b.id and runs[t]})
    if not heads:
        return None
    runs_at = _reading_loops(prog, blocks, heads, inline, preds, namespace)
    jumps = set()
    out = ["def solo_loop(R, _s_slot, X, _s_w, _s_E, _s_pc, _s_steps, _s_last, _s_first, _s_join, _s_LS,",
           "              _s_stop=-1, _s_ck=None, _s_ran=None):",
           "    L = _s_slot",
           "    _s_wpc = _s_w.pc",
           "    _s_ins = 0",
           "    _s_mem = X.memory",
           "    _s_load_lane, _s_store_lane = _s_mem.load_lane, _s_mem.store_lane",
           "    if _s_ran is None:",
           "        _s_ran = {}"]
    prologue_at = len(out)
    emitted = set()
    out.append("    try:")
    out.append("        while True:")

    def emit_edge(lines, ind, src, t, d, c, path, nest):
        """Emit the move from block src to t, with d steps and c instructions not yet counted;
        -> the most blocks any path from the dispatch entry runs through here."""
        pad = "    " * ind
        flush = [] if not d else [f"{pad}_s_steps += {d}", f"{pad}_s_ins += {c}"]
        if not runs[t]:
            lines += flush + [f"{pad}return {t}, _s_steps, True"]
            return len(path)
        # the lane waits at a reconvergence point only if it is the one it recorded last
        stop = ([f"{t} == _s_join"] if blocks[t].is_join else []) + ([f"{t} >= _s_first"] if t > src else [])
        if stop:
            lines.append(f"{pad}if {' or '.join(stop)}:")
            lines += ["    " + s for s in flush] + [f"{pad}    return {t}, _s_steps, True"]
        if preds[t] == 1 and t not in path and len(path) < MAX_INLINE and nest < MAX_NESTING:
            return emit_block(lines, ind, t, d, c, path + (t,), nest)
        lines += flush + [f"{pad}_s_pc = {t}", f"{pad}continue"]
        jumps.add(t)
        return len(path)

    def emit_block(lines, ind, bid, d, c, path, nest):
        """Emit block bid, the last of path; d, c: steps and instructions of the path not yet
        counted before it."""
        pad = "    " * ind
        b = blocks[bid]
        emitted.add(bid)
        if bid in runs_at and d == 0:
            # a reading loop: all its iterations but the last at once where it can (ReadingLoop)
            (ivar, bound, acc, invariants), chain, per_steps, per_ins, _ = runs_at[bid]
            loop = (bid,) + chain
            # (tried at most twice a call: the first iteration makes the read plans the run needs)
            guard = " and ".join([f"_s_try{bid}"] + [f"{x} < _s_first" for x in chain] + [f"_s_join not in {loop!r}"])
            inv = "".join(f"{n}, " for n in invariants)
            call = f"_s_run{bid}(X, _s_slot, {ivar}, {bound}, {acc}, _s_steps, _s_last - _s_MOST{bid}, ({inv})"
            ran = [f"{pad}        _s_ran[{x}] = _s_steps + {per_steps} * _s_k - {per_steps - 1 - n}" for n, x in enumerate(loop)]
            for marker, run in ((PLAIN_ONLY, call + ")"),
                                # a probe: no iteration of the run may be at the checkpoint's
                                # induction value while its block is one of the loop's
                                (PROBE_ONLY, call + f", _s_CK{bid} if _s_stop in {loop!r} else None)")):
                lines += [s + marker for s in [
                    f"{pad}if {guard}:",
                    f"{pad}    _s_r = {run}",
                    f"{pad}    if _s_r is None:",
                    f"{pad}        _s_try{bid} -= 1",
                    f"{pad}    else:",
                    f"{pad}        {ivar}, {acc}, _s_k = _s_r"] + (ran if marker == PROBE_ONLY else []) + [
                    f"{pad}        _s_steps += {per_steps} * _s_k",
                    f"{pad}        _s_ins += {per_ins} * _s_k"]]
        # a probe of the watchdog compares states only at its checkpoint's block, and only when
        # the lane's registers may be the checkpoint's (SAME_AS_CHECKPOINT): return before it,
        # so that tick() sees that step (Watchdog.serial_window)
        lines.append(f"{pad}if _s_stop == {bid} and {SAME_AS_CHECKPOINT}:{PROBE_ONLY}")
        lines += ["    " + s + PROBE_ONLY for s in ([] if not d else [f"{pad}_s_steps += {d}", f"{pad}_s_ins += {c}"])]
        lines.append(f"{pad}    return {bid}, _s_steps, False{PROBE_ONLY}")
        d, c = d + 1, c + max(1, len(b.code))
        lines.append(f"{pad}_s_ran[{bid}] = _s_steps + {d}{PROBE_ONLY}")      # the probe's record of the blocks run
        if bid in may_fault:
            # its division may fault: the report and the launch see the wave as the general
            # loop leaves it
            lines += [f"{pad}_s_steps += {d}", f"{pad}_s_ins += {c}", f"{pad}_s_w.steps = _s_steps",
                      f"{pad}_s_wpc[_s_slot] = {bid}", f"{pad}_s_w.running = _s_LS"]
            lines += [pad + s for s in inline[bid]]
            lines.append(f"{pad}_s_w.running = None")
            d = c = 0
        elif bid in inline:
            lines += [pad + s for s in inline[bid]]
        else:
            # the context, memory and plugins see the wave as the general loop leaves it
            lines += [f"{pad}_s_steps += {d}", f"{pad}_s_ins += {c}"]
            d = c = 0
            lines += [f"{pad}R[{key(r)!r}][_s_slot] = {local(r)}" for r in sorted(refs[bid])]
            lines += [f"{pad}_s_w.steps = _s_steps", f"{pad}_s_wpc[_s_slot] = {bid}", f"{pad}_s_w.running = _s_LS",
                      f"{pad}_cond = b{bid}(R, _s_LS, X)", f"{pad}_s_w.running = None"]
            lines += [f"{pad}{local(r)} = R[{key(r)!r}][_s_slot]" for r in sorted(stored[bid])]
        if b.term.kind == "goto":
            return emit_edge(lines, ind, bid, b.term.target, d, c, path, nest)
        lines.append(f"{pad}if _cond:")
        most = emit_edge(lines, ind + 1, bid, b.term.if_true, d, c, path, nest + 1)
        lines.append(f"{pad}else:")
        return max(most, emit_edge(lines, ind + 1, bid, b.term.if_false, d, c, path, nest + 1))

    entry_code = {}      # entry block -> (the most blocks a path from it runs, its code)
    todo = list(heads)
    while todo:
        e = todo.pop()
        if e not in entry_code:
            body = []
            entry_code[e] = (emit_block(body, 0, e, 0, 0, (e,), 0), body)
            todo += sorted(jumps - set(entry_code))

    def tree(ids, ind):
        """A binary search over the entry blocks: the block to run is _s_pc."""
        pad = "    " * ind
        if len(ids) == 1:
            most, body = entry_code[ids[0]]
            # every step of the way must come before the watchdog's next one (or return first)
            out.append(f"{pad}if _s_steps + {most} > _s_last:")
            out.append(f"{pad}    return {ids[0]}, _s_steps, False")
            out.extend(pad + s for s in body)
            return
        mid = len(ids) // 2
        out.append(f"{pad}if _s_pc < {ids[mid]}:")
        tree(ids[:mid], ind + 1)
        out.append(f"{pad}else:")
        tree(ids[mid:], ind + 1)

    tree(sorted(entry_code), 3)
    for h in runs_at:
        # a reading loop's run leaves room for the most steps a path from its header takes after it
        out = [line.replace(f"_s_MOST{h}", str(entry_code[h][0])) if f"_s_MOST{h}" in line else line for line in out]
        out.insert(prologue_at, f"    _s_try{h} = 2")

    held = set()         # registers in locals
    written = set()      # registers the inlined code may change: written back on the way out
    for bid in emitted:
        b = blocks[bid]
        if bid in inline:
            held.update(b.loads)
            for name in b.stores:
                written.add(("v", name))
                if name in tracked:
                    written.add(("u", name))
        else:
            held |= refs[bid]
    held |= written
    # the registers that may change inside the loop: compared with the checkpoint's at its block
    # (values first: a definedness twin rarely changes); equal bytes give `==`, or another type,
    # or a NaN (float registers only: a wave's register arrays have the variable's dtype)
    changing = sorted(written | {r for bid in emitted if bid not in inline for r in stored[bid]},
                      key=lambda r: (r[0] != "v", r[1]))

    def may_equal(i, r):
        v = local(r)
        nan = f" or {v} != {v}" if r[0] == "v" and prog.vars[r[1]].ctype.dtype.kind in "fc" else ""
        return f"(_s_ck{i} == {v} or type({v}) is not type(_s_ck{i}){nan})"
    same = " and ".join(may_equal(i, r) for i, r in enumerate(changing)) or "True"
    for h, (names, *_rest) in runs_at.items():
        ivar = ("v", names[0][2:])
        at = f"_s_ck{changing.index(ivar)}" if ivar in changing else "None"
        out = [line.replace(f"_s_CK{h}", at) if f"_s_CK{h}" in line else line for line in out]
    prologue = [f"    {local(reg)} = R[{key(reg)!r}][_s_slot]" for reg in sorted(held)]
    if changing:
        ck = ", ".join(f"_s_ck{i}" for i in range(len(changing)))
        prologue.append(f"    {ck}, = _s_ck if _s_ck is not None else {(None,) * len(changing)!r}")
    out[prologue_at:prologue_at] = prologue
    out.append("    finally:")
    out.append("        _s_w.steps = _s_steps")
    out.append("        _s_E.thread_instructions += _s_ins")
    out += [f"        R[{key(r)!r}][_s_slot] = {local(r)}" for r in sorted(written)]
    whole = "\n".join(out).replace(SAME_AS_CHECKPOINT, f"({same})") + "\n"
    # the reading loops' runs: one way inside a probe (its records of the blocks run, its
    # checkpoint's block left to the loop), another outside
    runs = {f"_s_run{h}": ReadingLoop(*args, per_steps) for h, (_, _, per_steps, _, args) in runs_at.items()}
    source = "\n".join(line for line in whole.split("\n") if not line.endswith(PLAIN_ONLY)) + "\n"
    probe_fn = _compiled(prog, source, namespace, runs)
    # outside a probe (_s_stop -1, _s_ran thrown away) its lines do nothing: the same loop without them
    plain = "\n".join(line for line in whole.split("\n") if not line.endswith(PROBE_ONLY)) + "\n"
    enter = [b.id in heads for b in blocks]
    return probe_fn, enter, source, tuple(key(r) for r in changing), _compiled(prog, plain, namespace, runs)


def _reading_loops(prog, blocks, heads, inline, preds, namespace):
    """The loop heads of the serial loop whose loops are reading loops (reading_loop) -> header:
    (its names: induction, bound, accumulator, invariants; the body's blocks; steps and
    thread-instructions an iteration counts, as the generated code counts them; ReadingLoop's
    arguments before those)."""
    registers = {f"{kind}_{name}" for name in prog.vars for kind in ("v", "u")}
    found = {}
    for h in heads:
        b = blocks[h]
        if h not in inline or b.term.kind != "branch" or len(b.code):
            continue
        chain, at = [], b.term.if_true
        while at != h and at in inline and preds[at] == 1 and at not in chain and len(chain) < 4 \
                and blocks[at].term.kind == "goto":
            chain.append(at)
            at = blocks[at].term.target
        if at != h or not chain:
            continue
        got = reading_loop(inline[h], [line for x in chain for line in inline[x]], registers, namespace)
        if got is None:
            continue
        args, names = got
        per_ins = sum(max(1, len(blocks[x].code)) for x in [h] + chain)
        found[h] = (names, tuple(chain), 1 + len(chain), per_ins, args)
    return found


def _compiled(prog, source, namespace, extra=None):
    """The serial loop's source -> its function, with the scalar helpers and cheaper casts
    (`extra`: more names for its namespace: the reading loops' runs)."""
    tree_ = ast.parse(source)
    tree_ = _ScalarHelperCalls(_int64_names(prog, namespace)).visit(tree_)
    casts = _CheaperScalarOps()
    tree_ = ast.fix_missing_locations(casts.visit(tree_))
    fn_def = tree_.body[0]
    for name in sorted(casts.used):
        fn_def.body.insert(3, ast.parse(f"_buf_{name} = np.empty(1, {name})").body[0])
    ast.fix_missing_locations(tree_)
    ns = dict(namespace)
    ns["_cast"] = cast_via
    ns["_s_idiv"], ns["_s_imod"] = scalar_idiv, scalar_imod
    ns["_s_shl"], ns["_s_shr"], ns["_s_smul"] = scalar_shl, scalar_shr, scalar_smul
    ns.update(extra or {})
    exec(compile(tree_, f"<simcore serial loop of {prog.name}>", "exec"), ns)
    return ns["solo_loop"]


def _int64_names(prog, namespace):
    """The names of the serial loop whose values are int64 numpy scalars -> None for the unshaped
    int64 registers (pointers among them; the loop holds them as `v_<name>`), the value for the
    generated code's int64 constants (K<n>, numpy scalars in the blocks' namespace)."""
    int64 = np.dtype(np.int64)
    names = {f"v_{name}": None for name, var in prog.vars.items() if not var.shape and var.ctype.dtype == int64}
    names.update((name, int(value)) for name, value in namespace.items()
                 if name[:1] == "K" and name[1:].isdigit() and isinstance(value, np.generic) and value.dtype == int64)
    return names


def _targets(b):
    if b.term.kind == "goto":
        return [b.term.target]
    if b.term.kind == "branch":
        return [b.term.if_true, b.term.if_false]
    return []


# ---- a reading loop run at once: `for (i = a; i < n; i += k) acc += s[f(i)];` by a lone lane
#
# Why: a lone lane that scans shared memory (thread 0 summing a block's values between barriers,
# a convergence test) costs ~1.5 us a read in the generated loop with the race check on: the
# loop's numpy scalars, the memory's read plan and the race check's, one iteration at a time.
# Where the loop is only that (the induction variable moves by a constant, one load from an
# address of it and of invariants, one accumulator folded with +, ^, | or & of the same integer type), the
# iterations up to the last one are one numpy gather and one reduction: the same values (integer
# +, ^, |, & in the type's width are associative and commutative), the same race records
# (Plugin.on_lane_reads: each read as the plan path records it) and the same steps and
# thread-instructions. Anything else (no read plan yet, another array, a value not defined, a
# record of the epoch in the way, a plugin that watches reads one by one, a probe of the watchdog)
# runs the iterations one by one as before; the last iteration and the exit always do.

MIN_RUN = 8                 # iterations below which the run is not worth its set-up
_FOLDS = {ast.Add: np.add, ast.BitXor: np.bitwise_xor, ast.BitOr: np.bitwise_or, ast.BitAnd: np.bitwise_and}
PLAIN_ONLY = "  # plain"    # ends the lines only the loop outside probes has (the reading loop's run)


class ReadingLoop:
    """The run of one reading loop (found by reading_loop): called at its header with the
    induction variable, the bound, the accumulator and the invariants the address names ->
    (new induction value, new accumulator, iterations run) or None (nothing done)."""

    def __init__(self, address, inclusive, step, fold, dtype, site, steps_per_iteration):
        self.address = address          # (ivals, *invariants) -> int64 addresses, the block's own expression
        self.inclusive = inclusive      # `i <= n` (else `i < n`)
        self.step = step
        self.fold = fold
        self.dtype = dtype
        self.site = site
        self.steps = steps_per_iteration

    def __call__(self, X, slot, i, bound, acc, steps, last, invariants, checkpoint=False):
        # last: the last step the run may reach (the watchdog's next one less the steps the rest
        # of the header's path may take); checkpoint (a probe of the watchdog whose checkpoint is
        # at one of the loop's blocks): the induction variable's value there, which no iteration
        # of the run may have (the checkpoint's block is then run by the loop one by one, where
        # the probe compares states)
        if not (isinstance(i, np.integer) and isinstance(acc, np.integer) and acc.dtype == self.dtype):
            return None
        start, end = int(i), int(bound) + (1 if self.inclusive else 0)
        trips = max(0, -(-(end - start) // self.step))
        # all but the last iteration, and never past the watchdog's next step
        k = min(trips - 1, (last - steps) // self.steps)
        if checkpoint is not False and checkpoint is not None:
            if type(checkpoint) is not type(i):
                return None
            j, off = divmod(int(checkpoint) - start, self.step)
            if off == 0 and 0 <= j < k:
                k = j
        if k < MIN_RUN:
            return None
        ivals = (start + self.step * np.arange(k, dtype=np.int64)).astype(i.dtype)
        try:
            addrs = np.asarray(self.address(ivals, *invariants), np.int64)
        except Overflow:
            return None
        values = X.memory.load_lane_run(addrs, self.dtype, slot, slot, self.site)
        if values is None:
            return None
        acc = self.fold(acc, self.fold.reduce(values, dtype=self.dtype))
        return i.dtype.type(start + self.step * k), acc, k


def reading_loop(header, code, registers, namespace):
    """Is the loop whose header's code is `header` (the one line `_cond = (v_i < bound)`) and whose
    body's code is `code` (its blocks each the only successor of the one before, the last going
    back to the header; loads still X.ld/X.ldu) a reading loop? `registers`:
    the names of the loop's register locals (v_<var>, u_<var>). -> (ReadingLoop's arguments but the
    steps, the names: induction, bound, accumulator, invariants), or None."""
    try:
        cond = ast.parse(header[0]).body[0] if len(header) == 1 else None
    except SyntaxError:
        return None
    if not (isinstance(cond, ast.Assign) and [ast.unparse(t) for t in cond.targets] == ["_cond"]
            and isinstance(cond.value, ast.Compare) and len(cond.value.ops) == 1
            and isinstance(cond.value.ops[0], (ast.Lt, ast.LtE))
            and isinstance(cond.value.left, ast.Name) and isinstance(cond.value.comparators[0], ast.Name)):
        return None
    ivar, bound = cond.value.left.id, cond.value.comparators[0].id
    if ivar not in registers:
        return None
    env, load, assigned = {}, None, set()

    def term(node):
        if isinstance(node, ast.Name):
            return env.get(node.id, ("reg", node.id))
        if isinstance(node, ast.BinOp):
            return ("bin", type(node.op), term(node.left), term(node.right))
        raise ValueError

    try:
        for line in code:
            for st in ast.parse(line).body:
                if not (isinstance(st, ast.Assign) and len(st.targets) == 1):
                    return None
                target, value = st.targets[0], st.value
                if isinstance(value, ast.Call):
                    f = value.func
                    if load is not None or not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
                                                and f.value.id == "X" and f.attr in SCALAR_LOADS):
                        return None
                    load = value
                    names = [target.id] if isinstance(target, ast.Name) else \
                        [t.id for t in target.elts] if isinstance(target, ast.Tuple) else []
                    if len(names) != (2 if f.attr == "ldu" else 1):
                        return None
                    env[names[0]] = ("load",)
                    if len(names) == 2:
                        env[names[1]] = ("taint",)
                    assigned.update(names)
                    continue
                if not isinstance(target, ast.Name):
                    return None
                env[target.id] = term(value)
                assigned.add(target.id)
    except (ValueError, SyntaxError):
        return None
    if load is None or bound in assigned or len(load.args) < 4:
        return None
    addr, dtype, site = load.args[0], load.args[1], load.args[3]
    if not (isinstance(dtype, ast.Name) and dtype.id in DTYPES and isinstance(site, ast.Constant)):
        return None
    # the induction variable moves by a positive constant
    step = None
    moved = env.get(ivar)
    if moved is not None and moved[0] == "bin" and moved[1] is ast.Add:
        other = [t for t in moved[2:] if t != ("reg", ivar)]
        if len(other) == 1 and other[0][0] == "reg":
            k = namespace.get(other[0][1])
            if isinstance(k, np.integer) and int(k) > 0 and len(moved[2:]) == 2 and ("reg", ivar) in moved[2:]:
                step = int(k)
    if step is None:
        return None
    # one accumulator, folded with the value loaded (and its definedness with the load's)
    changed = {n for n in assigned if n in registers and n != ivar}
    accs = [n for n in changed if n.startswith("v_")]
    if len(accs) != 1:
        return None
    acc = accs[0]
    got = env[acc]
    if not (got[0] == "bin" and got[1] in _FOLDS and sorted(got[2:], key=repr) == sorted([("reg", acc), ("load",)], key=repr)):
        return None
    taint = "u_" + acc[2:]
    if changed - {acc, taint}:
        return None
    if taint in changed:
        t = env[taint]
        if not (t[0] == "bin" and t[1] is ast.BitOr and sorted(t[2:], key=repr) == sorted([("reg", taint), ("taint",)], key=repr)):
            return None
    # the address: the block's expression, of the induction variable and invariants
    invariants = sorted({n.id for n in ast.walk(addr) if isinstance(n, ast.Name)} - {ivar, "I8", "X", "L"} - set(namespace))
    if any(n in assigned or n not in registers for n in invariants) or not _pure(addr):
        return None
    addr = _ExactProducts().visit(addr)
    fn = ast.Expression(ast.Lambda(ast.arguments(posonlyargs=[], args=[ast.arg(ivar)] + [ast.arg(n) for n in invariants],
                                                 kwonlyargs=[], kw_defaults=[], defaults=[]), addr))
    address = eval(compile(ast.fix_missing_locations(fn), "<simcore reading loop>", "eval"),
                   dict(namespace, _s_exact_product=exact_product))
    return (address, isinstance(cond.value.ops[0], ast.LtE), step, _FOLDS[got[1]], DTYPES[dtype.id],
            site.value), (ivar, bound, acc, invariants)


class Overflow(Exception):
    """A product of the run's addresses that the loop one by one would warn of."""


def exact_product(a, b):
    """X.smul for the run's arrays: the product, where no element overflows its type (else the
    loop goes one by one, and the context warns as it does)."""
    r = a * b
    if (np.asarray(r, np.int64) != np.asarray(a, np.int64) * np.asarray(b, np.int64)).any():
        raise Overflow
    return r


def _is_smul(node):
    """`X.smul(a, b, L, site)`: the generated code's signed product (it warns of an overflow)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "smul" \
        and isinstance(node.func.value, ast.Name) and node.func.value.id == "X" and len(node.args) >= 2


class _ExactProducts(ast.NodeTransformer):
    def visit_Call(self, node):
        self.generic_visit(node)
        if _is_smul(node):
            return ast.copy_location(ast.Call(ast.Name("_s_exact_product", ast.Load()), node.args[:2], []), node)
        return node


def _pure(node):
    """Is the address expression arithmetic on names and constants only (sums, products, shifts,
    casts `.astype(T)`, X.smul)? Then it can be worked out on the run's arrays: the same numpy
    operations, element by element, as on the loop's scalars (the run checks every address, so
    nothing else about its form matters)."""
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr,
                                    ast.BitXor)) and _pure(node.left) and _pure(node.right)
    if _is_smul(node):
        return _pure(node.args[0]) and _pure(node.args[1])
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "astype":
        return len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Name) \
            and node.args[0].id in DTYPES and _pure(node.func.value)
    return False
