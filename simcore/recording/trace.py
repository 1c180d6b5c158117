"""A launch's trace, for pictures of warps over time (recorded by recording/trace_recorder.py).

Each recorded step is a compact snapshot (every lane's block, state and program point, and
which lanes ran); `Trace.steps` turns snapshots into per-warp states and barrier arrival counts
on demand, so recording stays cheap.
"""
from dataclasses import dataclass, field

import numpy as np

from ..runtime.wave import BAR, EXIT, JOIN, PARK, RUN, WARP

#: the program point of a launch's end snapshot (no step runs there): the state where the
#: threads stuck (a deadlock, a barrier fault), drawn as the trace's last step, event "end"
END_STEP = -10 ** 9

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
    event: str = "step"       # "step"; "barrier_release": every arrival in, just before release;
                              # "end": where the threads stuck (a deadlock, a barrier fault)


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

    def barrier_releases(self):
        """The trace's barrier-release snapshots only (TraceStep objects, event "barrier_release"),
        built without building every other step: what a count of barrier passes needs."""
        if self._steps is not None:
            return [s for s in self._steps if s.event == "barrier_release"]
        return [self._step(i, r) for i, r in enumerate(self._raw) if END_STEP != r[1] < 0]

    def _step(self, index, raw):
        first_block, pc, ran, st, pcs, sites, wave, bar_ids = raw
        prog = self.prog
        event = "step"
        if pc == END_STEP:
            line, block_lines, event = 0, [], "end"
        elif pc < 0:    # a barrier release snapshot
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
            b = first_block + (w * WARP) // wave.spb
            wib = (w * WARP % wave.spb) // WARP
            lanes_valid = (np.arange(w * WARP, (w + 1) * WARP) % wave.spb) < wave.tpb
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
