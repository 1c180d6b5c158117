"""Batched per-warp schedules: a launch under `adversarial` or `round_robin` runs many warps'
steps in one vector step, speculatively, and falls back to the exact sequential run whenever the
attempt meets anything unusual.

Why the result is the same (the commutation argument). The per-warp schedules run one group of
one warp per step: the warp's runnable lanes at its lowest program point (Engine.lowest_in_warp).
What a warp does next depends only on

  * its own state (points, registers, reconvergence stacks): only its own steps and the
    resolution of its own reconvergence points change it;
  * barrier completions: every schedule completes barriers only when no lane of the wave can run
    (Engine.loop: pick() is None, then sync.resolve), so each warp has run until it is blocked
    (at a barrier, a reconvergence point, or exited) whatever the order of the warps;
  * the memory it reads. In a kernel whose blocks are *plain* (no atomics, volatile accesses,
    fences, clock, printf, __activemask, named barriers or grid syncs: nothing whose result
    depends on the order of warps; `plain_program`), two accesses of different warps between two
    barriers with a write among them are a data race, which the race check reports whatever the
    order. A launch the race check finds clean therefore reads the same values in any order of
    the warps' steps.

So, for a plain kernel, running at each vector step every runnable lane at the wave's lowest
program point (lockstep's pick) gives each warp exactly the groups, in the order, that the
per-warp schedule gives it, and therefore the same memory, registers and exit points; each
vector step counts one step per warp it runs, so the launch's step count and thread-instructions
are the sequential run's too. Warp collectives (shuffles, votes, __syncwarp) involve their own
warp only and complete as they arrive, in both runs.

The watchdog (watchdog.py) of the sequential run can change a run only by what its probes find.
A probe that sees the whole state repeat means a launch that never ends, which a batched run
that ends cannot be; but at the start of its second probe the watchdog may let lanes that
stood still take their turn (starvation), which reorders a warp's groups. The batched run of a
wave is accepted only when it ends before the step at which that second probe could start
(`quiet_steps`), or within `max_steps` when the launch gives it (then the watchdog only counts).

The fallback rule. A launch runs batched only when every check is on (the race check above all:
without it a racy kernel's outputs could silently change), nothing watches steps (no trace, no
step hooks, no extra plugins such as the performance counters), the model is "independent", the
launch is not cooperative, and the kernel is plain. The launch's arrays are copied first. If the
batched run ends cleanly (no fault, no error of any kind, no warning, no report note, no
deadlock, within the watchdog's quiet steps and the time limit) its result is the launch's
result. Otherwise everything is thrown away (the arrays are restored, a fresh engine with fresh
plugins, report and generator is built) and the launch runs sequentially exactly as without
batching; its time limit counts from the start of the attempt. Every verdict, report, step count
and fault location is thus the sequential run's by construction; only a clean launch takes the
fast path. SIMCORE_WARP_BATCHES=0 in the environment switches batching off (for comparisons).
"""
import os

import numpy as np

from ..lower.facts import LANE_FREE_CONTEXT
from .engine import Engine
from .memory import PointerTable, StructArgument
from .wave import EXIT, RUN, WARP_SHIFT
from . import watchdog as watchdog_clock
from .watchdog import PROBE_GAP

SWITCH_VARIABLE = "SIMCORE_WARP_BATCHES"     # "0": every launch runs sequentially
BATCHED_SCHEDULES = frozenset({"adversarial", "round_robin", "random"})

# Context attributes whose effect depends on the lanes only, never on the order of warps: memory
# loads and stores (the race check orders them), per-thread local arrays, checked arithmetic,
# bit and math helpers, and the faults they raise (a fault ends the attempt: fallback).
ORDER_FREE_CONTEXT = LANE_FREE_CONTEXT | frozenset({
    "ld", "ldu", "st", "check_align", "lget", "lset", "idiv", "imod", "smul", "shl", "shr", "f2i", "bitcast",
    "round", "rsqrt", "saturate", "fma", "popc", "ffs", "clz", "brev", "block_of", "lane_of", "subset",
    "use_check", "fault_local_bounds", "fault_div_zero", "bad_function_pointer"})

# Sync points a plain kernel may end blocks at: block barriers (completed only when nothing can
# run) and warp collectives (their own warp only).
ORDER_FREE_SYNC_OPS = frozenset({"syncwarp", "shfl", "vote", "reduce", "match"})
CLOCK_EVERY = 64        # vector steps between two looks at the clock
RUN_NOW, DEFER_STEP, DEFER_UNLESS_WAITING, DEFER_CODE = range(4)    # how the random schedule's batched loop runs a step


class Fallback(Exception):
    """The batched attempt met something it does not decide: the launch runs sequentially."""


def switched_on():
    return os.environ.get(SWITCH_VARIABLE, "").strip() != "0"


def plain_sync(site):
    """A sync site whose completion does not depend on the order in which warps arrive."""
    if site.op == "bar":
        return site.block_wide and not site.grid_wide and site.mode != "arrive"
    return site.op in ORDER_FREE_SYNC_OPS


def plain_program(prog):
    """Is every basic block of the kernel plain (see the module's docstring)?"""
    if any(site.volatile for site in prog.sites) or prog.fence_scopes:
        return False
    for block in prog.blocks:
        if block.facts is None or not block.facts.context <= ORDER_FREE_CONTEXT:
            return False
        if block.term.kind == "sync" and not plain_sync(prog.sync_sites[block.term.site]):
            return False
    return True


def eligible(prog, launch, options, extra_plugins):
    """May this launch be attempted batched? (The static part; step hooks are known only once
    the plugins are built: `attempt` looks at them.)"""
    return (switched_on() and options.schedule in BATCHED_SCHEDULES and options.model == "independent"
            and all(options.checks.values()) and not options.trace and not extra_plugins
            and not getattr(launch, "cooperative", False) and plain_program(prog))


# ===================================================================== the attempt
def launch_arrays(values, module_vars):
    """Every array the launch may write in place: the arguments' (a pointer table's and a
    struct's too) and the module variables' bytes."""
    arrays = []
    for v in values:
        if isinstance(v, np.ndarray):
            arrays.append(v)
        elif isinstance(v, PointerTable):
            arrays.extend(v.arrays)
        elif isinstance(v, StructArgument):
            arrays.extend(a for _, _, a in v.pointers)
    if module_vars:
        arrays.extend(module_vars.values())
    return [a for a in arrays if isinstance(a, np.ndarray) and a.flags.writeable]


def attempt(build_engine, prog, launch, values, options, module_vars, block_ranges):
    """Run the launch batched. -> (the engine, None) when it ended cleanly (the launch record not
    yet filled), else (None, the time the attempt started, as its watchdog read it) with every
    array the launch may write restored to what it was."""
    arrays = launch_arrays(values, module_vars)
    pristine = [a.copy() for a in arrays]
    started = None
    try:
        engine_class = RandomBatchedEngine if options.schedule == "random" else BatchedEngine
        engine = build_engine(prog, launch, values, options, module_vars=module_vars, engine_class=engine_class)
        started = engine.watchdog.started
        if engine.plugins.step:
            raise Fallback("a plugin watches steps")
        engine.run(block_ranges)
        if not clean(engine):
            raise Fallback("the launch left a warning or a note")
        return engine, None
    except Exception:
        # a fault, a report, a deadlock, a step or time budget met, or anything else: the
        # sequential run decides (and raises what it raises)
        for a, saved in zip(arrays, pristine):
            a[...] = saved
        return None, started


def clean(engine):
    """Did the launch end without anything a user would be told about?"""
    report = engine.report
    return not report.warnings and not report.undefined_shuffles and report.activemask_shuffle is None


# ===================================================================== the batched engine
def warps_in(L):
    """How many warps the sorted lanes L (a slice or an index array) belong to: the per-warp
    schedule's steps that one vector step over L stands for."""
    if isinstance(L, slice):
        return ((L.stop - 1) >> WARP_SHIFT) - (L.start >> WARP_SHIFT) + 1
    warps = L >> WARP_SHIFT
    return int(np.count_nonzero(warps[1:] != warps[:-1])) + 1


class BatchedEngine(Engine):
    """The engine with a step loop that runs, per vector step, every runnable lane at the
    wave's lowest program point, counting a step per warp (see the module's docstring). It
    raises Fallback for anything the sequential run must decide."""

    def quiet_steps(self, w):
        """The last step (launch-wide count) of wave `w` up to which the sequential run's
        watchdog only looks at the clock and compares whole states: before the second probe can
        start (or, with max_steps, the step limit itself)."""
        dog = self.watchdog
        if dog.limit is not None:
            return dog.limit
        return dog.next_probe + (1 + PROBE_GAP) * dog.first_probe_len - 1

    def loop(self, w):
        blocks = self.prog.blocks
        sync = self.sync
        stalled_hooks = self.plugins.stalled
        self.watchdog.start_wave(w, self.max_steps)
        last_step = self.quiet_steps(w)
        cost = self.block_cost
        self.took_all = False       # (move() would hand lockstep's next pick over as a hint)
        looks = 0
        with np.errstate(all="ignore"):
            while True:
                pick = self.lowest_group(w)
                if pick is None:
                    self.look_at_clock()
                    for hook in stalled_hooks:
                        hook()
                    if sync.resolve(w):
                        continue
                    if (w.st == EXIT).all():
                        return
                    raise Fallback("deadlock")
                pc, L = pick
                w.steps += warps_in(L)
                if w.steps > last_step:
                    raise Fallback("past the watchdog's quiet steps")
                looks += 1
                if looks % CLOCK_EVERY == 0:
                    self.look_at_clock()
                self.thread_instructions += w.nlanes(L) * cost[pc]
                self.run_group(w, blocks[pc], L)

    def run_group(self, w, block, L):
        """One step of the general loop (lanes L at `block`), without the step count."""
        w.running = L
        cond = block.fn(w.R, L, self.ctx)
        w.joined = False
        self.advance(w, block, L, cond)
        w.running = None
        if w.joined:
            self.sync.resolve_joins(w)

    def look_at_clock(self):
        """Past the time limit: the sequential run, whose limit counts from the attempt's start,
        stops the launch and says so."""
        dog = self.watchdog
        # (the clock the watchdog reads)
        if dog.time_limit and watchdog_clock.launch_clock() - dog.started > dog.time_limit:
            raise Fallback("time limit")

    @staticmethod
    def lowest_group(w):
        """(pc, lanes): every runnable lane at the lowest program point of any, sorted (a slice
        when contiguous), or None when none can run."""
        runnable = w.st == RUN
        if not runnable.any():
            return None
        p = int(np.minimum.reduce(w.pc, where=runnable, initial=np.iinfo(w.pc.dtype).max))
        return p, w.as_slice(np.flatnonzero((w.pc == p) & runnable))


# ===================================================================== the random schedule
def waits_at_any(tops, points):
    """Has any of the lanes whose next reconvergence points are `tops` one of `points` (a
    branch's one or two targets) as the point it waits at next? (np.isin's answer, without its
    set machinery: this runs at nearly every pick.)"""
    return any((tops == point).any() for point in points)


class RandomBatchedEngine(BatchedEngine):
    """The random schedule, batched by deferral: the picks are the sequential run's, draw for
    draw (the same generator, called with the same ranges: Engine.pick's rng.choice(a) draws
    rng.integers(0, len(a)), and draws nothing from one element), from the true set of runnable
    warps; but a picked group whose block ends in a goto or branch that cannot make its lanes
    wait (no reconvergence point among its targets) is not run at once: its lanes keep their
    point and stay runnable, which is all later picks look at, until a pick needs that warp's
    state again (the warp is picked again) or no other lane can run. A group arriving at a block
    barrier or exiting is moved on at once (what becomes of its lanes does not depend on what
    its block computes) and only its block's code waits. Then every deferred group runs, one
    vector step per program point (their warps differ: a warp has at most one deferred group).
    Deferred steps of different warps commute (the module's docstring); a warp's own steps stay
    in order, and every deferred group has run before a barrier can complete."""

    def loop(self, w):
        blocks = self.prog.blocks
        sync = self.sync
        stalled_hooks = self.plugins.stalled
        self.watchdog.start_wave(w, self.max_steps)
        last_step = self.quiet_steps(w)
        cost = self.block_cost
        defers, join_targets = self.deferrable()
        self.took_all = False
        self.deferred = {}          # pc -> [lanes of one warp's group]: steps to run
        self.bodies = {}            # pc -> [the same]: lanes moved on, their block's code to run
        deferred_warp = np.zeros(w.nwarps, bool)
        runnable = (w.st == RUN).reshape(w.nwarps, -1).any(axis=1)
        warps = np.flatnonzero(runnable)
        draw = self.rng.integers
        looks = 0
        with np.errstate(all="ignore"):
            while True:
                if len(warps) == 0:
                    if self.deferred or self.bodies:
                        self.flush(w)
                        deferred_warp[:] = False
                    self.look_at_clock()
                    for hook in stalled_hooks:
                        hook()
                    if sync.resolve(w):
                        runnable = (w.st == RUN).reshape(w.nwarps, -1).any(axis=1)
                        warps = np.flatnonzero(runnable)
                        continue
                    if (w.st == EXIT).all():
                        return
                    raise Fallback("deadlock")
                wp = int(warps[draw(0, len(warps))]) if len(warps) > 1 else int(warps[0])
                if deferred_warp[wp]:
                    self.flush(w)
                    deferred_warp[:] = False
                base = wp << WARP_SHIFT
                part = slice(base, base + (1 << WARP_SHIFT))
                r = w.st[part] == RUN
                pcw = w.pc[part]
                if r.all() and (pcw == pcw[0]).all():
                    p, L = int(pcw[0]), part       # a convergent warp: one point, nothing drawn
                else:
                    pcs = np.unique(pcw[r])
                    p = int(pcs[draw(0, len(pcs))]) if len(pcs) > 1 else int(pcs[0])
                    L = w.as_slice(base + np.flatnonzero(r & (pcw == p)))
                w.steps += 1
                if w.steps > last_step:
                    raise Fallback("past the watchdog's quiet steps")
                looks += 1
                if looks % (CLOCK_EVERY * 32) == 0:
                    self.look_at_clock()
                self.thread_instructions += w.nlanes(L) * cost[p]
                how = defers[p]
                if how == DEFER_UNLESS_WAITING:
                    # its lanes wait at a reconvergence point they go to only if they recorded it
                    how = RUN_NOW if waits_at_any(w.top[L], join_targets[p]) else DEFER_STEP
                if how == DEFER_STEP:
                    self.deferred.setdefault(p, []).append(L)
                    deferred_warp[wp] = True
                    continue
                if how == DEFER_CODE:
                    w.running = L
                    self.advance(w, blocks[p], L, None)     # (a barrier arrival or an exit reads no condition)
                    w.running = None
                    self.bodies.setdefault(p, []).append(L)
                    deferred_warp[wp] = True
                else:
                    self.run_group(w, blocks[p], L)
                now = bool((w.st[part] == RUN).any())
                if now != runnable[wp]:
                    runnable[wp] = now
                    warps = np.flatnonzero(runnable)

    def deferrable(self):
        """Per block, how a group's step there may wait: DEFER_STEP (a goto or branch that leaves
        its lanes runnable: no target is a reconvergence point), DEFER_UNLESS_WAITING (one whose
        targets include reconvergence points: deferred when none of the group's lanes recorded
        one of them as the point it waits at next, so none of them can stop there), DEFER_CODE
        (a block barrier's arrival or an exit: the lanes move on now, the code waits) or RUN_NOW;
        and per block its targets that are reconvergence points."""
        out, joins = [], []
        for b in self.prog.blocks:
            term = b.term
            targets = [term.target] if term.kind == "goto" else \
                [term.if_true, term.if_false] if term.kind == "branch" else []
            joins.append(tuple(t for t in targets if self.is_join_list[t]))
            if targets:
                out.append(DEFER_UNLESS_WAITING if len(joins[-1]) else DEFER_STEP)
            elif term.kind == "exit" or (term.kind == "sync" and self.prog.sync_sites[term.site].op == "bar"):
                out.append(DEFER_CODE)
            else:
                out.append(RUN_NOW)
        return out, joins

    @staticmethod
    def union(w, groups):
        """The lanes of several warps' groups at one point, sorted (a slice when contiguous)."""
        if len(groups) == 1:
            return groups[0]
        return w.as_slice(np.sort(np.concatenate([w.lane_index(g) for g in groups])))

    def flush(self, w):
        """Run every deferred group, one vector step per program point."""
        blocks = self.prog.blocks
        for p, groups in self.deferred.items():
            self.run_group(w, blocks[p], self.union(w, groups))
        self.deferred = {}
        for p, groups in self.bodies.items():
            L = self.union(w, groups)
            w.running = L
            blocks[p].fn(w.R, L, self.ctx)
            w.running = None
        self.bodies = {}
