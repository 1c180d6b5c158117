"""The engine: runs lane groups through the basic blocks of a kernel, one wave of blocks at a time.

Every thread of the wave is a *slot* with a program point (`pc`) and a state (wave.py holds
them, with the operations on them):

  RUN    runnable               BAR   waiting at a sync point (barrier, warp collective)
  JOIN   waiting at a reconvergence point for warp-mates that diverged from it
  EXIT   exited                 PARK  parked behind the other side of a branch (stack model)

A step picks a program point and a set of runnable lanes there (the *schedule* decides
which), runs that block's compiled function for all of them at once, and moves them on.
When nothing can run, pending syncs are resolved (`sync/`); if none can complete, the
launch has deadlocked and the report says where every warp is. The engine tells the plugins
(checks, recorders) each step; it does not know what they do.

Reconvergence (independent thread scheduling, Volta and later): when lanes of one warp take
different sides of a branch, each of them records the branch's immediate post-dominator J.
A lane reaching J waits there until every live warp-mate that recorded J arrives. Meanwhile
any other path, of the same warp too, may run. That single rule reproduces what an H200 does
with the seed examples (see docs/semantics.md, section 7).
"""

import numpy as np

from .wave import EXIT, RUN, WARP
from ..errors import LaunchError
from .plain import plain_program
from .solo import solo_loop
from .sync import Sync
from .watchdog import Watchdog, launch_clock
from .wave import Wave


def source_lines(prog):
    """-> (the first source line of each basic block, {join block: the line of the branch or
    loop whose end it is}), for exits and reports."""
    block_line = [b.first_line or (min(b.lines) if b.lines else 0) for b in prog.blocks]
    join_branch_line = {b.id: min((prog.blocks[j].term.line for j in b.join_of), default=0)
                        for b in prog.blocks if b.is_join}
    return block_line, join_branch_line


# CUDA: without a cooperative launch this_grid() is not a valid group, and grid_group::sync()
# calls __trap() (cooperative_groups.h), so the launch fails with cudaErrorLaunchFailure.
GRID_SYNC_NOT_COOPERATIVE = (
    "{name}() on {where} needs a cooperative launch: on a GPU this launch fails with "
    "cudaErrorLaunchFailure ('unspecified launch failure'), because without one cg::this_grid() is not a "
    "valid group (grid_group::is_valid() is false) and its sync() traps. Create the module with "
    "enable_cooperative_groups=True, as in CuPy: RawModule(code=..., enable_cooperative_groups=True); then "
    "every block must fit on the GPU at once.")

GOTO, BRANCH, OTHER = range(3)     # block terminators, for run_solo
SOLO_MIN_STEPS = 8     # run_solo enters the serial loop only this many steps or more before the watchdog's
                       # next call (with fewer it would return at once: probes call it every step)

def scalar_blocks(prog):
    """Per basic block: can its generated code run for a single lane given as an int slot
    (registers then read as numpy scalars, several times cheaper than one-element arrays)? Yes
    when it calls nothing in the context with the lanes (memory, local arrays, checks, helpers)
    and touches no per-thread array register (lower/facts.py: BlockFacts.scalar). A serial
    phase (one thread looping) runs such blocks that way; results are the same values of the
    same dtypes."""
    return [b.facts is not None and b.facts.scalar for b in prog.blocks]


class Engine:
    def __init__(self, prog, launch, memory, ctx, options, report, plugins, started=None):
        self.prog = prog
        self.launch = launch
        self.memory = memory
        self.ctx = ctx
        self.opt = options
        self.model = options.model
        self.schedule = options.schedule
        self.report = report
        self.plugins = plugins
        self.rng = np.random.default_rng(options.seed)
        # the random schedule draws a warp, then one of its program points; in a plain kernel the
        # order of a warp's groups cannot change the outcome (plain.py), only how groups merge,
        # so there it runs the warp's lowest point, as the other warp schedules do (and as the
        # batched run of warp_batches.py does: the same steps either way)
        self.draws_points = self.schedule == "random" and not plain_program(prog)
        self.thread_instructions = 0
        self.block_line, _ = source_lines(prog)
        self.is_join = np.array([b.is_join for b in prog.blocks] + [False], bool)
        self.block_cost = [max(1, len(b.code)) for b in prog.blocks]    # thread-instructions per lane
        self.scalar_ok = scalar_blocks(prog)
        self.is_join_list = self.is_join.tolist()
        self.nowhere = len(prog.blocks) + 1      # the program point of a lane that cannot run (pick)
        # per block, what run_solo needs: (code, scalar lane?, terminator kind, targets, cost)
        self.solo_plan = [(b.fn, ok, GOTO if b.term.kind == "goto" else BRANCH if b.term.kind == "branch" else OTHER,
                           b.term.target if b.term.kind == "goto" else b.term.if_true if b.term.kind == "branch" else -1,
                           b.term.if_false if b.term.kind == "branch" else -1, c)
                          for b, ok, c in zip(prog.blocks, self.scalar_ok, self.block_cost)]
        # the serial fast path (solo.py): a generated loop over the lone lane's blocks, entered on
        # a backward edge (a loop); made at the first serial phase (once per program)
        self.solo_fused = self.solo_enter = self.solo_plain = None
        self.sync = Sync(prog, report, plugins, self.model)
        self.wave = None
        self._adv_warp, self._rr_warp = None, -1     # schedule state, kept across waves
        self.yielded = None     # lanes that yield to starved ones (yield_lanes), or None
        # (started: when the launch's time limit began, if not now: a batched attempt's start)
        self.watchdog = Watchdog(self, launch.kernel, launch_clock() if started is None else started,
                                 options.time_limit)

    @property
    def steps(self):
        """Steps run in the launch so far."""
        return self.wave.steps if self.wave is not None else 0

    # ================================================================= waves
    def run(self, block_ranges=None):
        """Run every block of the launch, as many per wave as memory allows; or, given
        [(first block, count)], each of those ranges as one wave."""
        if block_ranges is None and getattr(self.launch, "cooperative", False):
            # a cooperative launch: every block is resident at once (the launch checked that it fits)
            block_ranges = [(0, self.launch.num_blocks)]
        if block_ranges is None:
            nblocks = self.launch.num_blocks
            per_wave = self.blocks_per_wave()
            block_ranges = [(first, min(per_wave, nblocks - first)) for first in range(0, nblocks, per_wave)]
        for first, count in block_ranges:
            self.run_wave(first, count)

    def blocks_per_wave(self, schedule=None):
        """How many blocks of this launch one wave holds (launch.Options.blocks_per_wave), under
        the launch's schedule or `schedule`'s."""
        per_slot = sum(v.ctype.dtype.itemsize * int(np.prod(v.shape, dtype=np.int64)) * (2 if v.tracked else 1)
                       for v in self.prog.vars.values()) + 64
        slots_per_block = (self.launch.threads_per_block + WARP - 1) // WARP * WARP
        return self.opt.blocks_per_wave(slots_per_block, per_slot, schedule)

    def run_wave(self, first_block, nblk):
        w = Wave(self.prog, self.launch, first_block, nblk, self.is_join, self.model, self.steps)
        self.wave = w
        self.ctx.set_wave(w)
        self.report.start_wave(w)
        self.hint = None
        self.took_all = False
        self.yielded = None
        self.max_steps = self.opt.max_steps     # 0: no step limit (the watchdog decides)
        self.memory.new_wave(w, self.plugins.tracks_shared_writes, self.prog.shared_access_size)
        self.plugins.start_wave(w)
        self.loop(w)

    # ================================================================= the step loop
    def loop(self, w):
        blocks = self.prog.blocks
        R, ctx, sync = w.R, self.ctx, self.sync
        step_hooks, stalled_hooks = self.plugins.step, self.plugins.stalled
        watchdog = self.watchdog
        self.next_watch = watchdog.start_wave(w, self.max_steps)
        cost = self.block_cost
        # a group of one lane at the lowest program point (a serial phase): its own fast loop
        solo_ok = self.schedule == "lockstep" and not step_hooks
        with np.errstate(all="ignore"):
            while True:
                pick = self.hint if self.hint is not None else self.pick(w)
                self.hint = None
                if pick is None:
                    for hook in stalled_hooks:
                        hook()
                    if sync.resolve(w):
                        continue
                    if (w.st == EXIT).all():
                        return
                    sync.diagnose_stuck(w)      # raises
                    return
                pc, L = pick
                if isinstance(L, slice):
                    n = L.stop - L.start
                    if n == 1 and solo_ok:
                        self.run_solo(w, pc, L.start)
                        continue
                else:
                    n = len(L)
                w.steps += 1
                if w.steps >= self.next_watch:
                    self.next_watch = watchdog.tick(pc, L)      # raises on an endless loop or a limit
                self.thread_instructions += n * cost[pc]
                block = blocks[pc]
                w.running = L
                for hook in step_hooks:
                    hook(pc, L)
                cond = block.fn(R, L, ctx)
                w.joined = False
                self.advance(w, block, L, cond)
                w.running = None
                if w.joined:
                    # Reconverge as soon as the last lane arrives, so the warp's lanes run on
                    # together with everyone else already at that point.
                    sync.resolve_joins(w)

    def run_solo(self, w, pc, slot):
        """Lockstep picked one lane, `slot`, at `pc` (the lowest program point of any runnable
        lane): it runs block after block without the general step's bookkeeping, as long as its
        next block comes before every other runnable lane's (lockstep would pick it alone again),
        until it reaches a sync point, exits or arrives at the reconvergence point it recorded
        last (those go the general way; at any other one the general move only moves it). Loops
        run in the generated serial loop (solo.py). The same steps, in the same order, as the
        general loop would run: only cheaper (no plugin watches steps here; the other lanes
        stand still meanwhile)."""
        blocks, R, ctx, wpc = self.prog.blocks, w.R, self.ctx, w.pc
        plan, is_join = self.solo_plan, self.is_join_list
        L = slice(slot, slot + 1)
        if self.took_all:
            others_first = len(blocks)
        else:
            others = w.st == RUN
            if self.yielded is not None:
                others &= ~self.yielded
            others[slot] = False
            pcs = wpc[others]
            others_first = int(pcs.min()) if len(pcs) else len(blocks)
        instructions = 0
        steps = w.steps
        next_watch = self.next_watch
        if self.solo_enter is None:
            made = solo_loop(self.prog, self.scalar_ok)
            self.solo_fused, self.solo_enter, self.solo_changing, self.solo_plain = \
                (made[0], made[1], made[3], made[4]) if made else (None, [False] * len(blocks), (), None)
        fused, enter, plain = self.solo_fused, self.solo_enter, self.solo_plain
        # the reconvergence point the lane recorded last: the only one it can wait at (nothing
        # here changes its record); at any other it goes on as the general move would
        waits_at = int(w.top[slot])
        if not (0 <= waits_at < len(blocks) and is_join[waits_at]):
            waits_at = -2
        try:
            while True:
                steps += 1
                if steps >= next_watch:
                    w.steps = steps
                    wpc[slot] = pc
                    fair = self.yielded
                    next_watch = self.next_watch = self.watchdog.tick(pc, L)
                    if self.yielded is not fair or w.st[slot] != RUN:
                        steps -= 1          # lanes yield now (fairness): the pick is made again
                        return
                fn, scalar, kind, t_true, t_false, cost = plan[pc]
                instructions += cost
                if scalar:
                    cond = fn(R, slot, ctx)
                else:
                    # the context, memory and plugins see the wave as the general loop leaves it
                    w.steps = steps
                    wpc[slot] = pc
                    w.running = L
                    cond = fn(R, L, ctx)
                    w.running = None
                if kind == GOTO:
                    target = t_true
                elif kind == BRANCH:
                    target = t_true if cond else t_false
                else:                       # a sync point or the exit
                    w.steps = steps
                    wpc[slot] = pc
                    w.running = L
                    w.joined = False
                    self.advance(w, blocks[pc], L, cond)
                    w.running = None
                    if w.joined:
                        self.sync.resolve_joins(w)
                    return
                if target == waits_at:      # it waits there (if warp-mates are still on their way)
                    self._solo_join(w, L, target, steps)
                    return
                if target >= others_first:
                    wpc[slot] = target
                    return                  # another group runs first (or joins this lane)
                if target <= pc and enter[target]:
                    # a loop: the generated serial loop runs it until an edge that needs the
                    # checks above, a block it does not run, or the watchdog's next step; in a
                    # probe of the watchdog, through the probe's steps up to the next one that
                    # tick() must see (Watchdog.serial_window)
                    last, window = next_watch - 1, None
                    if last - steps < SOLO_MIN_STEPS:
                        window = self.watchdog.serial_window(slot, self.solo_changing, steps)
                        if window is not None:
                            last = window[0]
                    if last - steps >= SOLO_MIN_STEPS:
                        start = steps
                        try:
                            if window is None:
                                target, steps, check = plain(R, slot, ctx, w, self, target, steps, last,
                                                             others_first, waits_at, L)
                            else:
                                target, steps, check = fused(R, slot, ctx, w, self, target, steps, last,
                                                             others_first, waits_at, L, *window[1:])
                        except BaseException:
                            steps = w.steps     # it counted up to the block that raised
                            raise
                        if window is not None and steps > start:
                            self.watchdog.serial_ran(slot, steps)
                    else:
                        check = False
                    if check:
                        if target == waits_at:
                            self._solo_join(w, L, target, steps)
                            return
                        if target >= others_first:
                            wpc[slot] = target
                            return
                pc = target
        finally:
            w.steps = steps
            self.thread_instructions += instructions

    def _solo_join(self, w, L, target, steps):
        """run_solo's lane moves to a reconvergence point: the general move."""
        w.steps = steps
        w.joined = False
        self.move(w, L, target)
        if w.joined:
            self.sync.resolve_joins(w)

    def pick(self, w):
        """Choose (pc, lanes) to run next, or None when nothing is runnable."""
        if self.yielded is not None:
            return self.pick_fair(w)
        if self.schedule == "lockstep":
            # the lowest program point with a runnable lane, and every runnable lane there: one
            # comparison, one min and one count over the wave; the lanes as a slice when they are
            # one contiguous range (a convergent group), without collecting them
            runnable = w.st == RUN
            n_run = int(np.count_nonzero(runnable))
            if n_run == 0:
                return None
            if n_run == w.S:            # every slot runnable: no mask needed
                p = int(w.pc.min())
                here = w.pc == p
            else:
                p = int(np.minimum.reduce(w.pc, where=runnable, initial=self.nowhere))
                here = (w.pc == p) & runnable
            n = int(np.count_nonzero(here))
            self.took_all = n == n_run
            first = int(here.argmax())
            if here[first:first + n].all():
                return p, slice(first, first + n)
            return p, np.flatnonzero(here)
        if self.schedule == "adversarial":
            # one warp at a time, the highest first, until it stops (a sync point or exit)
            cur = self._adv_warp
            # (a warp of an earlier, larger wave may not exist in this one)
            if cur is not None and cur < w.nwarps:
                runnable = w.st[cur * WARP:(cur + 1) * WARP] == RUN
                if runnable.any():
                    return self.lowest_in_warp(w, cur, runnable)
            warps = self.runnable_warps(w)
            if len(warps) == 0:
                return None
            wp = int(warps[-1])
            self._adv_warp = wp
        elif self.schedule == "round_robin":
            # the next warp after the last one with a runnable lane, else the first such warp
            start = (self._rr_warp + 1) * WARP
            later = w.st[start:] == RUN if start < w.S else None
            if later is not None and later.any():
                wp = (start + int(later.argmax())) // WARP
            else:
                warps = self.runnable_warps(w)
                if len(warps) == 0:
                    return None
                wp = int(warps[0])
            self._rr_warp = wp
        else:   # random
            warps = self.runnable_warps(w)
            if len(warps) == 0:
                return None
            wp = int(self.rng.choice(warps))
        base = wp * WARP
        r = w.st[base:base + WARP] == RUN
        if not self.draws_points:
            return self.lowest_in_warp(w, wp, r)
        p = int(self.rng.choice(np.unique(w.pc[base:base + WARP][r])))
        lanes = base + np.flatnonzero(r & (w.pc[base:base + WARP] == p))
        return p, w.as_slice(lanes)

    def lowest_in_warp(self, w, wp, runnable):
        """(pc, lanes): the lowest program point of warp `wp`'s runnable lanes (`runnable`, a bool
        per lane, some true) and its runnable lanes there; the whole warp as a slice when it is
        one convergent group (the common case: no index arrays)."""
        base = wp * WARP
        pcw = w.pc[base:base + WARP]
        if runnable.all():
            p = int(pcw.min())
            if pcw.max() == p:
                return p, slice(base, base + WARP)
            here = pcw == p
        else:
            p = int(np.minimum.reduce(pcw, where=runnable, initial=self.nowhere))
            here = runnable & (pcw == p)
        return p, w.as_slice(base + np.flatnonzero(here))

    # ================================================================= fairness
    def yield_lanes(self, cycled):
        """The watchdog found the wave repeating a cycle while other lanes that can run did not
        run (docs/semantics.md, forward progress): the lanes of the cycle (`cycled`, a bool per
        slot) yield, so that every schedule is fair. Until no other lane can run, the schedule
        picks among the others only (pick_fair); then they all run again as usual."""
        w = self.wave
        yielded = cycled & (w.st == RUN)
        self.yielded = yielded if yielded.any() else None
        self.hint = None
        self.took_all = False

    def pick_fair(self, w):
        """pick() while some lanes yield: the schedule's own choice among the lanes that do not
        (lockstep: the lowest program point; the warp schedules: their warp, then its lowest
        program point; random: a random warp, and a random point unless the kernel is plain); when
        none of them can run, the yielding ends."""
        runnable = (w.st == RUN) & ~self.yielded
        if not runnable.any():
            self.yielded = None
            return self.pick(w)
        if self.schedule == "lockstep":
            p = int(w.pc[runnable].min())
            lanes = np.flatnonzero(runnable & (w.pc == p))
            return p, w.as_slice(lanes)
        warps = np.flatnonzero(runnable.reshape(w.nwarps, WARP).any(axis=1))
        if self.schedule == "adversarial":
            wp = self._adv_warp if self._adv_warp in warps else int(warps[-1])
            self._adv_warp = wp
        elif self.schedule == "round_robin":
            later = warps[warps > self._rr_warp]
            wp = int(later[0]) if len(later) else int(warps[0])
            self._rr_warp = wp
        else:
            wp = int(self.rng.choice(warps))
        base = wp * WARP
        r = runnable[base:base + WARP]
        pcs = w.pc[base:base + WARP][r]
        p = int(self.rng.choice(np.unique(pcs))) if self.draws_points else int(pcs.min())
        lanes = base + np.flatnonzero(r & (w.pc[base:base + WARP] == p))
        return p, w.as_slice(lanes)

    @staticmethod
    def runnable_warps(w):
        """The warps of the wave with a runnable lane, ascending."""
        return np.flatnonzero((w.st == RUN).reshape(w.nwarps, WARP).any(axis=1))

    # ================================================================= after a block
    def advance(self, w, block, L, cond):
        term = block.term
        kind = term.kind
        if kind == "goto":
            self.move(w, L, term.target)
        elif kind == "branch":
            n = w.nlanes(L)
            if isinstance(cond, np.ndarray) and cond.dtype == bool and cond.shape == (n,):
                c = cond
            else:
                c = np.broadcast_to(np.asarray(cond, dtype=bool), (n,))
            t_target, f_target = term.if_true, term.if_false
            if c.all():
                self.move(w, L, t_target)
            elif not c.any():
                self.move(w, L, f_target)
            else:
                idx = w.lane_index(L)
                fl = idx[~c] if self.model == "stack" else None     # the side a warp parks
                if block.ipdom >= 0:
                    w.diverge(idx, c, block.ipdom, fl if f_target != block.ipdom else None)
                elif self.model == "stack" and block.exit_join:
                    # both sides run to the end of the kernel: still one side at a time
                    w.diverge(idx, c, len(self.prog.blocks), fl)
                # both sides at once, as masks over L (no index arrays per side)
                w.pc[L] = np.where(c, t_target, f_target)
                w.check_join_split(L, c, t_target, f_target)
        elif kind == "sync":
            site = self.prog.sync_sites[term.site]
            if site.grid_wide and not getattr(self.launch, "cooperative", False):
                raise LaunchError(GRID_SYNC_NOT_COOPERATIVE.format(name=site.name, where=site.where))
            w.wait_at(L, site)
            for hook in self.plugins.sync_arrive:
                hook(site, L)
            if site.op != "bar" or site.mode == "arrive":
                self.sync.eager(w, site)
        else:
            w.exit(L, self.block_line[block.id] if not block.lines else max(block.lines))

    def move(self, w, L, target):
        w.pc[L] = target
        if w.is_join[target]:
            w.check_join(L, target)
        if self.took_all and not w.joined:
            # every runnable lane ran this step and all went on to one block: run it next
            self.hint = (target, L)
