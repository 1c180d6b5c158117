"""Batched per-warp schedules: a launch under `adversarial`, `round_robin` or `random` runs many
warps' steps in one vector step, speculatively, and falls back to the exact sequential run whenever the
attempt meets anything unusual.

Why the result is the same (the commutation argument). The per-warp schedules run one group of
one warp per step: the warp's runnable lanes at its lowest program point (Engine.lowest_in_warp;
the random schedule draws the warp, and in a plain kernel it too runs the warp's lowest point:
Engine.pick). What a warp does next depends only on

  * its own state (points, registers, reconvergence stacks): only its own steps and the
    resolution of its own reconvergence points change it;
  * barrier completions: every schedule completes barriers only when no lane of the wave can run
    (Engine.loop: pick() is None, then sync.resolve), so each warp has run until it is blocked
    (at a barrier, a reconvergence point, or exited) whatever the order of the warps;
  * the memory it reads. In a kernel whose blocks are *plain* (no atomics, volatile accesses,
    fences, clock, printf, __activemask, named barriers or grid syncs: nothing whose result
    depends on the order of warps; plain.py), two accesses of different warps between two
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
(watchdog.quiet_steps_of), or within `max_steps` when the launch gives it (then the watchdog
only counts); the batched run's waves are lockstep's, larger, each wave of the sequential run
in it counted apart (SequentialWaves).

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

from .engine import Engine
from .memory import PointerTable, StructArgument
from .plain import plain_program
from .wave import EXIT, RUN, WARP_SHIFT
from . import watchdog as watchdog_clock
from .watchdog import quiet_steps_of

SWITCH_VARIABLE = "SIMCORE_WARP_BATCHES"     # "0": every launch runs sequentially
BATCHED_SCHEDULES = frozenset({"adversarial", "round_robin", "random"})

CLOCK_EVERY = 64        # vector steps between two looks at the clock


class Fallback(Exception):
    """The batched attempt met something it does not decide: the launch runs sequentially."""


def switched_on():
    return os.environ.get(SWITCH_VARIABLE, "").strip() != "0"


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
        engine = build_engine(prog, launch, values, options, module_vars=module_vars, engine_class=BatchedEngine)
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
class SequentialWaves:
    """The waves of the sequential run inside one wave of the batched run, and the steps each
    has taken: the per-warp schedules simulate fewer blocks at a time than lockstep
    (launch.Options.blocks_per_wave), but a vector step costs about the same over a larger wave,
    so the batched run takes lockstep's waves, each made of whole sequential waves. A block's
    warps take the same steps whatever wave they are in (the module's docstring), so each
    sequential wave's steps are those of its warps; each must stay within what that wave's
    watchdog would only have compared (watchdog.quiet_steps_of), or within max_steps."""

    def __init__(self, w, blocks, schedule, max_steps):
        self.warps_per = blocks * w.spb >> WARP_SHIFT       # warps of one sequential wave
        sizes = [min(blocks, w.nblk - first) for first in range(0, w.nblk, blocks)]
        self.limits = [max_steps or quiet_steps_of(schedule, n * w.spb >> WARP_SHIFT) for n in sizes]
        self.steps = [0] * len(sizes)

    def count(self, L):
        """-> the per-warp schedule's steps that one vector step over the sorted lanes L (a slice
        or an index array) stands for: one per warp; each counted in its sequential wave."""
        per = self.warps_per
        if isinstance(L, slice):
            a, b = L.start >> WARP_SHIFT, (L.stop - 1) >> WARP_SHIFT
            ka, kb = a // per, b // per
            if ka == kb:
                self.add(ka, b - a + 1)
            else:
                self.add(ka, (ka + 1) * per - a)
                for k in range(ka + 1, kb):
                    self.add(k, per)
                self.add(kb, b - kb * per + 1)
            return b - a + 1
        warps = L >> WARP_SHIFT
        first = np.empty(len(warps), bool)
        first[0] = True
        np.not_equal(warps[1:], warps[:-1], out=first[1:])
        warps = warps[first]
        if len(self.steps) == 1:
            self.add(0, len(warps))
        else:
            per_wave = np.bincount(warps // per)
            for k in np.flatnonzero(per_wave).tolist():
                self.add(k, int(per_wave[k]))
        return len(warps)

    def add(self, k, n):
        self.steps[k] += n
        if self.steps[k] > self.limits[k]:
            raise Fallback("past the watchdog's quiet steps")


class BatchedEngine(Engine):
    """The engine with a step loop that runs, per vector step, every runnable lane at the
    wave's lowest program point, counting a step per warp (see the module's docstring). It
    raises Fallback for anything the sequential run must decide."""

    def run(self, block_ranges=None):
        """The launch in lockstep's waves, each holding whole waves of the sequential run
        (SequentialWaves); with max_steps (a limit per wave) in the sequential run's own."""
        self.sequential_blocks = self.blocks_per_wave()
        if block_ranges is None and not self.opt.max_steps:
            nblocks, seq = self.launch.num_blocks, self.sequential_blocks
            per_wave = max(seq, self.blocks_per_wave("lockstep") // seq * seq)
            block_ranges = [(first, min(per_wave, nblocks - first)) for first in range(0, nblocks, per_wave)]
        super().run(block_ranges)

    def loop(self, w):
        blocks = self.prog.blocks
        sync = self.sync
        stalled_hooks = self.plugins.stalled
        self.watchdog.start_wave(w, self.max_steps)
        waves = SequentialWaves(w, self.sequential_blocks, self.schedule, self.max_steps)
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
                w.steps += waves.count(L)
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
