"""The engine: runs lane groups through the basic blocks of a kernel, one wave of blocks at a time.

Every thread of the wave is a *slot* with a program point (`pc`) and a state:

  RUN    runnable               BAR   waiting at a sync point (barrier, warp collective)
  JOIN   waiting at a reconvergence point for warp-mates that diverged from it
  EXIT   exited                 PARK  parked behind the other side of a branch (stack model)

A step picks a program point and a set of runnable lanes there (the *schedule* decides
which), runs that block's compiled function for all of them at once, and moves them on.
When nothing can run, pending syncs are resolved (`sync.py`); if none can complete, the
launch has deadlocked and the report says where every warp is.

Reconvergence (independent thread scheduling, Volta and later): when lanes of one warp take
different sides of a branch, each of them records the branch's immediate post-dominator J.
A lane reaching J waits there until every live warp-mate that recorded J arrives. Meanwhile
any other path, of the same warp too, may run. That single rule reproduces what an H200 does
with the seed examples (see SEMANTICS.md).
"""
import numpy as np

from .context import BAR, EXIT, JOIN, PARK, RUN, WARP
from .errors import make_fault
from .report import Reporter
from . import sync

MAX_DEPTH = 64


class Engine:
    def __init__(self, prog, launch, memory, ctx, options):
        self.prog = prog
        self.launch = launch
        self.memory = memory
        self.ctx = ctx
        ctx.engine = self
        self.opt = options
        self.checks = options.checks
        self.model = options.model
        self.schedule = options.schedule
        self.rng = np.random.default_rng(options.seed)
        self.steps = 0
        self.thread_instructions = 0
        self.trace = options.trace_recorder
        self.warnings = []
        self._warned = set()
        self.report = Reporter(self)
        tpb = launch.threads_per_block
        self.tpb = tpb
        self.wpb = (tpb + WARP - 1) // WARP
        self.spb = self.wpb * WARP      # slots per block (threads padded to whole warps)
        self.block_lines = [sorted(b.lines) for b in prog.blocks]
        self.block_line = [b.first_line or (min(b.lines) if b.lines else 0) for b in prog.blocks]
        self.is_join = np.array([b.is_join for b in prog.blocks] + [False], bool)
        # for reports: the line of the branch (if, loop) whose end a join block is
        self.join_branch_line = {b.id: min((prog.blocks[j].term.line for j in b.join_of), default=0)
                                 for b in prog.blocks if b.is_join}
        self.observers = []
        # per sync site facts as arrays, so sync resolution can look them up per lane
        sites = prog.sync_sites
        self.site_op = np.array([sync.OP_CODES[x.op] for x in sites] + [-1], np.int8)
        self.site_is_coll = np.isin(self.site_op, (sync.OP_SYNCWARP, sync.OP_SHFL, sync.OP_VOTE))
        self.site_block_wide = np.array([x.block_wide for x in sites] + [False], bool)
        self.site_arrive = np.array([x.mode == "arrive" for x in sites] + [False], bool)

    # ================================================================= waves
    def run(self):
        nblocks = self.launch.num_blocks
        per_slot = sum(v.ctype.dtype.itemsize * int(np.prod(v.shape, dtype=np.int64)) * (2 if v.tracked else 1)
                       for v in self.prog.vars.values()) + 64
        per_wave = self.opt.blocks_per_wave(self.spb, per_slot)
        for first in range(0, nblocks, per_wave):
            self.run_wave(first, min(per_wave, nblocks - first))

    def run_wave(self, first_block, nblk):
        prog, ctx = self.prog, self.ctx
        self.first_block, self.nblk = first_block, nblk
        S = nblk * self.spb
        self.S = S
        slots = np.arange(S)
        blk = slots // self.spb
        t = slots % self.spb
        self.slot_block = blk
        self.slot_thread = t
        self.slot_warp = slots // WARP
        self.slot_lane = slots % WARP
        ctx.set_wave(blk, self.slot_lane, self.slot_warp, S)
        bx, by, bz = self.launch.block
        gx, gy, _ = self.launch.grid
        gblk = blk + first_block
        self.gslot_base = first_block * self.spb
        R = {}
        for name, var in prog.vars.items():
            R[name] = np.zeros((S,) + var.shape, var.ctype.dtype)
            if var.tracked:
                R["__u_" + name] = np.zeros((S,) + var.shape, np.uint8)
        specials = {"tid_x": t % bx, "tid_y": (t // bx) % by, "tid_z": t // (bx * by),
                    "bid_x": gblk % gx, "bid_y": (gblk // gx) % gy, "bid_z": gblk // (gx * gy)}
        for key, values in specials.items():
            if "sp_" + key in R:
                R["sp_" + key][:] = values.astype(np.uint32)
        for p, value in zip(prog.params, self.launch.arg_values):
            R[p.var][:] = value
        self.R = R
        self.pc = np.zeros(S, np.int32)
        self.st = np.full(S, RUN, np.int8)
        self.st[t >= self.tpb] = EXIT            # padding lanes of a partial last warp
        self.site = np.full(S, -1, np.int32)
        self.jstack = np.full((S, 0), -1, np.int32)    # grows on the first divergence
        self.jdepth = np.zeros(S, np.int32)
        self.top = np.full(S, -1, np.int32)
        self.bar_epoch = np.zeros(S, np.int32)
        self.warp_epoch = np.zeros(S, np.int32)
        self.exit_line = np.zeros(S, np.int32)    # where each thread exited (reports)
        self.named = sync.NamedBarriers(nblk)
        self.hint = None
        self.took_all = False
        self._live = None
        self.exited_any = bool((t >= self.tpb).any())
        self.pending_fault = None
        self.wave_steps = 0
        nwarps = S // WARP
        self.max_steps = self.opt.max_steps or (
            20_000 if self.schedule == "lockstep" else 20_000 + 500 * nwarps)
        self.memory.new_wave(nblk, self.checks["uninitialized"] or self.checks["undefined_value"],
                             prog.shared_access_size)
        for obs in self.observers:
            obs.on_wave(self)
        self.loop()

    # ================================================================= the step loop
    def loop(self):
        blocks = self.prog.blocks
        R, ctx = self.R, self.ctx
        with np.errstate(all="ignore"):
            while True:
                pick = self.hint if self.hint is not None else self.pick()
                self.hint = None
                if pick is None:
                    if self.pending_fault is not None:
                        raise self.pending_fault
                    if sync.resolve(self):
                        continue
                    if (self.st == EXIT).all():
                        return
                    sync.diagnose_stuck(self)      # raises
                    return
                pc, L = pick
                self.steps += 1
                self.wave_steps += 1
                if self.wave_steps > self.max_steps:
                    self.report.step_limit(pc, L)
                n = ctx.nlanes(L)
                self.thread_instructions += n * max(1, len(blocks[pc].code))
                block = blocks[pc]
                self.cur_pc, self.cur_L = pc, L
                if self.trace is not None and (block.code or block.lines):
                    self.trace.before_step(self, pc, L)
                cond = block.fn(R, L, ctx)
                self.joined = False
                self.advance(block, L, cond)
                self.cur_L = None
                if self.joined:
                    # Reconverge as soon as the last lane arrives, so the warp's lanes run on
                    # together with everyone else already at that point.
                    sync.resolve_joins(self)

    def pick(self):
        """Choose (pc, lanes) to run next, or None when nothing is runnable."""
        runnable = self.st == RUN
        if self.schedule == "lockstep":
            pcs = self.pc[runnable]
            if len(pcs) == 0:
                return None
            p = int(pcs.min())
            lanes = np.flatnonzero(runnable & (self.pc == p))
            self.took_all = len(lanes) == len(pcs)
            return p, self._as_slice(lanes)
        nw = self.S // WARP
        warp_any = runnable.reshape(nw, WARP).any(axis=1)
        warps = np.flatnonzero(warp_any)
        if len(warps) == 0:
            return None
        if self.schedule == "adversarial":
            # one warp at a time, the highest first, until it stops (a sync point or exit)
            cur = getattr(self, "_adv_warp", None)
            w = cur if cur is not None and warp_any[cur] else int(warps[-1])
            self._adv_warp = w
        elif self.schedule == "round_robin":
            last = getattr(self, "_rr_warp", -1)
            later = warps[warps > last]
            w = int(later[0]) if len(later) else int(warps[0])
            self._rr_warp = w
        else:   # random
            w = int(self.rng.choice(warps))
        base = w * WARP
        r = runnable[base:base + WARP]
        pcs = self.pc[base:base + WARP][r]
        if self.schedule == "random":
            p = int(self.rng.choice(np.unique(pcs)))
        else:
            p = int(pcs.min())
        lanes = base + np.flatnonzero(r & (self.pc[base:base + WARP] == p))
        return p, self._as_slice(lanes)

    def _as_slice(self, lanes):
        if len(lanes) and lanes[-1] - lanes[0] + 1 == len(lanes):
            return slice(int(lanes[0]), int(lanes[-1]) + 1)
        return lanes

    def lanes_of(self, L):
        return self.ctx.lane_index(L)

    # ================================================================= after a block
    def advance(self, block, L, cond):
        term = block.term
        kind = term.kind
        if kind == "goto":
            self.move(L, term.target)
        elif kind == "branch":
            n = self.ctx.nlanes(L)
            c = np.broadcast_to(np.asarray(cond, dtype=bool), (n,))
            t_target, f_target = term.if_true, term.if_false
            if c.all():
                self.move(L, t_target)
            elif not c.any():
                self.move(L, f_target)
            else:
                idx = self.lanes_of(L)
                tl, fl = idx[c], idx[~c]
                if block.ipdom >= 0:
                    self.diverge(idx, c, block.ipdom, fl if f_target != block.ipdom else None)
                elif self.model == "stack" and getattr(block, "exit_join", False):
                    # both sides run to the end of the kernel: still one side at a time
                    self.diverge(idx, c, len(self.prog.blocks), fl)
                self.pc[tl] = t_target
                self.pc[fl] = f_target
                self.check_join(tl, t_target)
                self.check_join(fl, f_target)
        elif kind == "sync":
            site = self.prog.sync_sites[term.site]
            self.st[L] = BAR
            self.site[L] = site.id
            self.pc[L] = site.next
            if site.op != "bar" or site.mode == "arrive":
                sync.eager(self, site)
        else:
            self.st[L] = EXIT
            self.exit_line[L] = self.block_line[block.id] if not block.lines else max(block.lines)
            self._live = None
            self.exited_any = True

    def live_count(self):
        """Threads of the wave that have not exited (cached between exits)."""
        if self._live is None:
            self._live = np.bincount(self.slot_block[self.st != EXIT], minlength=self.nblk)
        return int(self._live.sum())

    def live_per_block(self):
        self.live_count()
        return self._live

    def move(self, L, target):
        self.pc[L] = target
        if self.is_join[target]:
            self.check_join(self.lanes_of(L), target)
        if self.took_all and not self.joined:
            # every runnable lane ran this step and all went on to one block: run it next
            self.hint = (target, L)

    def jtop(self, idx):
        """The reconvergence point each lane waits for next (-1: none)."""
        return self.top[idx]

    def set_top(self, idx):
        d = self.jdepth[idx]
        self.top[idx] = np.where(d > 0, self.jstack[idx, np.maximum(d - 1, 0)], -1)

    def check_join(self, idx, target):
        """Lanes arriving at a reconvergence point they registered for wait there."""
        if not self.is_join[target] or len(idx) == 0:
            return
        wait = self.jtop(idx) == target
        if wait.any():
            self.st[idx[wait]] = JOIN
            self.joined = True

    def diverge(self, idx, c, join, f_lanes):
        """Lanes of a warp split at a branch: they will wait for each other at `join`."""
        warps = self.slot_warp[idx]
        nw = self.S // WARP
        t_count = np.bincount(warps[c], minlength=nw)
        f_count = np.bincount(warps[~c], minlength=nw)
        split = (t_count > 0) & (f_count > 0)
        members = idx[split[warps]]
        if len(members) == 0:
            return
        fresh = members[self.jtop(members) != join]
        if len(fresh):
            d = self.jdepth[fresh]
            if d.max() + 1 > self.jstack.shape[1]:
                if self.jstack.shape[1] >= MAX_DEPTH:
                    raise make_fault("step_limit", title="Divergence nested too deeply",
                                     explanation="branches nested more than 64 deep diverged within a warp")
                grow = np.full((self.S, max(4, self.jstack.shape[1])), -1, np.int32)
                self.jstack = np.concatenate([self.jstack, grow], axis=1)
            self.jstack[fresh, d] = join
            self.jdepth[fresh] += 1
            self.top[fresh] = join
        if self.model == "stack" and f_lanes is not None:
            # Pre-Volta: the warp runs one side at a time; the other side is parked until the
            # running side reaches the reconvergence point.
            park = f_lanes[split[self.slot_warp[f_lanes]]]
            self.st[park] = PARK

    # ================================================================= warnings
    def warn(self, key, message):
        if key in self._warned:
            return
        self._warned.add(key)
        self.warnings.append(message)

    # ================================================================= faults (reports)
    def __getattr__(self, name):
        if name.startswith("fault_"):
            return getattr(self.report, name)
        raise AttributeError(name)
