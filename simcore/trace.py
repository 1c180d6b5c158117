"""Trace recording, an observer of the engine's steps, for pictures of warps over time.

Each step stores a compact snapshot (every lane's block, state and program point, and which
lanes ran); `Trace.steps` turns snapshots into per-warp states and barrier arrival counts on
demand, so recording stays cheap.
"""
from dataclasses import dataclass, field

import numpy as np

from .context import BAR, EXIT, JOIN, PARK, RUN, WARP

STATES = {RUN: "running", BAR: "waiting", JOIN: "waiting_reconverge", EXIT: "exited", PARK: "parked"}


@dataclass
class WarpState:
    block: int
    warp: int
    line: int                 # source line of the lanes that ran, else of the first live group
    active_mask: int          # lanes that executed in this step
    state: str                # 'running' | 'waiting_barrier' | 'waiting_warp' | 'waiting_reconverge' | 'exited' | 'parked' | 'ready'
    waiting: str = ""         # what it waits for, e.g. '__syncthreads() line 7'
    groups: list = field(default_factory=list)   # [{'lanes': [...], 'state': str, 'line': int}]


@dataclass
class TraceStep:
    index: int
    pc_line: int              # the line the step ran
    lines: list               # every source line of the basic block the step ran
    warps: list               # WarpState for every warp of the wave
    barriers: dict            # (block, barrier id) -> threads waiting there
    wave: int = 0
    event: str = "step"       # "step", or "barrier_release": every arrival in, just before release


class TraceRecorder:
    def __init__(self, max_steps=20000):
        self.max_steps = max_steps
        self.raw = []
        self.truncated = False

    BYTE_BUDGET = 200_000_000   # a trace of a huge launch must not eat the machine's memory

    def full(self, e):
        limit = min(self.max_steps, max(50, self.BYTE_BUDGET // (e.S * 11)))
        if len(self.raw) >= limit:
            self.truncated = True
            return True
        return False

    def before_step(self, e, pc, L):
        if self.full(e):
            return
        ran = np.zeros(e.S, bool)
        ran[L] = True
        self.raw.append((e.first_block, pc, ran, e.st.copy(), e.pc.copy(), e.site.copy(), e,
                         self.barrier_ids(e)))

    @staticmethod
    def barrier_ids(e):
        """Which barrier id each waiting lane waits at (0 for __syncthreads), -1 elsewhere."""
        ids = np.full(e.S, -1, np.int32)
        waiting = np.flatnonzero(e.st == BAR)
        for s in np.unique(e.site[waiting]):
            site = e.prog.sync_sites[int(s)]
            if site.op != "bar":
                continue
            sel = waiting[e.site[waiting] == s]
            ids[sel] = e.R[site.operands["id"]][sel] if "id" in site.operands else 0
        return ids

    def before_release(self, e, site):
        """A barrier is about to release: record the moment every arrival is in."""
        if self.full(e):
            return
        self.raw.append((e.first_block, -1 - site.id, np.zeros(e.S, bool), e.st.copy(), e.pc.copy(),
                         e.site.copy(), e, self.barrier_ids(e)))

    def finish(self, prog):
        return Trace(prog, self.raw, self.truncated)


class Trace:
    """What a launch did, step by step. `steps` lists TraceStep objects."""

    def __init__(self, prog, raw, truncated):
        self.prog = prog
        self._raw = raw
        self.truncated = truncated
        self._steps = None

    def __len__(self):
        return len(self._raw)

    @property
    def steps(self):
        if self._steps is None:
            self._steps = [self._step(i, r) for i, r in enumerate(self._raw)]
        return self._steps

    def _step(self, index, raw):
        first_block, pc, ran, st, pcs, sites, e, bar_ids = raw
        prog = self.prog
        event = "step"
        if pc < 0:      # a barrier release snapshot
            site = prog.sync_sites[-1 - pc]
            line, block_lines, event = site.line, [site.line], "barrier_release"
        else:
            block = prog.blocks[pc]
            line = block.first_line or (min(block.lines) if block.lines else 0)
            block_lines = sorted(block.lines)
        warps = []
        barriers = {}
        nw = len(st) // WARP
        for w in range(nw):
            sl = slice(w * WARP, (w + 1) * WARP)
            b = first_block + (w * WARP) // e.spb
            wib = (w * WARP % e.spb) // WARP
            lanes_valid = (np.arange(w * WARP, (w + 1) * WARP) % e.spb) < e.tpb
            groups = {}
            for lane in np.flatnonzero(lanes_valid):
                slot = w * WARP + lane
                s = int(st[slot])
                if ran[slot]:
                    key = ("running", line, "")
                elif s == BAR:
                    site = prog.sync_sites[int(sites[slot])]
                    kind = "waiting_barrier" if site.op == "bar" else "waiting_warp"
                    if site.op == "bar" and not site.block_wide:
                        bid = int(bar_ids[slot])
                        key = (kind, site.line, f"{site.name} {bid} (line {site.line})")
                    else:
                        bid = 0
                        key = (kind, site.line, f"{site.name}() line {site.line}")
                    if site.op == "bar":
                        barriers[(b, bid)] = barriers.get((b, bid), 0) + 1
                elif s == RUN:
                    p = int(pcs[slot])
                    key = ("ready", prog.blocks[p].first_line if p < len(prog.blocks) else 0, "")
                else:
                    p = int(pcs[slot])
                    key = (STATES[s], prog.blocks[p].first_line if s != EXIT and p < len(prog.blocks) else 0, "")
                groups.setdefault(key, []).append(int(lane))
            mask = 0
            for lane in np.flatnonzero(ran[sl]):
                mask |= 1 << int(lane)
            gl = [{"lanes": v, "state": k[0], "line": k[1], "waiting": k[2]} for k, v in groups.items()]
            if mask:
                state, wline, waiting = "running", line, ""
            else:
                order = ["waiting_barrier", "waiting_warp", "waiting_reconverge", "parked", "ready", "exited"]
                best = min(gl, key=lambda g: order.index(g["state"])) if gl else {"state": "exited", "line": 0,
                                                                                      "waiting": ""}
                state, wline, waiting = best["state"], best["line"], best["waiting"]
            warps.append(WarpState(b, wib, wline, mask, state, waiting, gl))
        return TraceStep(index, line, block_lines, warps, barriers, event=event)

    def __repr__(self):
        return f"<simcore.Trace of {len(self)} steps{' (truncated)' if self.truncated else ''}>"
