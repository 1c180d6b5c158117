"""A launch recorded for step-by-step replay: what is on screen at step k.

The recorder (recording/replay_recorder.py, built by trace=True) extends the trace with what a
replay needs beyond the warps' program points: every shared-memory access with the thread
that made it, the moments threads pass barriers (a barrier starts a new interval),
named-barrier counts, and the state at the very end (the fault, when there is one).
Everything is kept as numpy arrays; `launch.trace.replay` is the `Recording`.

`Recording.frame(k)` turns step k into a `Frame`: each lane's state (running, ready,
waiting at a barrier, at a warp sync, reconverging, parked, exited) and line, the arrival
count `k / n` of every (block, barrier id) with waiters, and the shared-memory cells
read and written in the current barrier interval with the threads that touched them.
A frame shows step k *being executed*: its running lanes and the accesses they make.

This module is pure Python + numpy; the widget that draws frames is barrier_course.lessons.player.
"""
from dataclasses import dataclass, replace

import numpy as np

from ..runtime.wave import BAR, EXIT, JOIN, PARK, WARP
from .trace import END_STEP as END

# lane states on screen
RUNNING, READY, WAIT_BARRIER, WAIT_WARP, RECONVERGE, PARKED, EXITED, NO_THREAD = range(8)
STATE_NAMES = ("running", "ready", "waiting at a barrier", "waiting at a warp sync", "reconverging", "parked",
               "exited", "no thread")
# memory marks
READ, WRITE, READ_WRITE, RACE = 1, 2, 3, 4
ACCESS_KINDS = ("read", "write", "atomic")


@dataclass
class Touch:
    thread: int      # linear thread id in its block
    block: int
    kind: str        # read | write | atomic
    line: int
    step: int


@dataclass
class SharedView:
    """One shared array in one block at one step."""
    name: str
    block: int
    size: int                    # elements
    marks: np.ndarray            # per element: 0, READ, WRITE, READ_WRITE, RACE
    touches: dict                # element -> [Touch]


@dataclass
class Frame:
    index: int
    event: str                   # 'step' | 'barrier_release' | 'end' | 'fault'
    line: int                    # the line this step runs (0: none)
    lines: list                  # every line of the code the step runs
    first_block: int
    state: np.ndarray            # (blocks, warps, 32) lane state codes (see STATE_NAMES)
    lane_line: np.ndarray        # (blocks, warps, 32) the line each lane is at (0: none)
    barrier: np.ndarray          # (blocks, warps, 32) barrier id a waiting lane waits at, else -1
    arrivals: dict               # (block, barrier id) -> (arrived, expected)
    shared: list                 # [SharedView]
    race: dict = None            # {'array', 'block', 'index', 'threads'} at the fault frame of a race
    note: str = ""               # e.g. steps not recorded before this one

    def warp_lines(self, block, warp):
        """[(line, state name, lane count)] of one warp, the running group first."""
        st = self.state[block - self.first_block, warp]
        ln = self.lane_line[block - self.first_block, warp]
        out = {}
        for s, line in zip(st.tolist(), ln.tolist()):
            if s in (NO_THREAD, EXITED):
                continue
            out[(line, s)] = out.get((line, s), 0) + 1
        return [(line, STATE_NAMES[s], n) for (line, s), n in sorted(out.items(), key=lambda x: (x[0][1], x[0][0]))]

    def lanes_in(self, code):
        """(block, warp, lane) triples in state `code`."""
        b, w, lane = np.nonzero(self.state == code)
        return [(int(x) + self.first_block, int(y), int(z)) for x, y, z in zip(b, w, lane)]

    def count(self, code):
        return int((self.state == code).sum())


class Recording:
    """Everything a replay shows, frame by frame. `len(rec)` frames; `rec.frame(k)`."""

    def __init__(self, prog, rec, engine):
        self.prog = prog
        self._raw = rec.raw
        self._extra = rec.extra
        self.truncated = rec.truncated
        self.fault_in_step = rec.fault_in_step
        self.end_frame = rec.end_snapshot
        e = engine
        # the launch record without its trace: the launch holds this recording through its trace,
        # and a reference back would make a cycle that only the cyclic GC frees
        self.launch = replace(e.launch, trace=None) if e is not None else None
        self.tpb = e.tpb if e is not None else 0
        self.wpb = e.wpb if e is not None else 0
        self.spb = e.spb if e is not None else 0
        self.steps_run = e.steps if e is not None else 0
        self.fault = None        # set by whoever caught the launch's KernelFault
        self.source_lines = prog.source_lines
        # lookup tables, so a frame is a few numpy gathers
        self._pc_line = np.array([b.first_line or (min(b.lines) if b.lines else 0) for b in prog.blocks] + [0, 0],
                                 np.int32)
        self._site_line = np.array([s.line for s in prog.sync_sites] + [0], np.int32)
        self._site_bar = np.array([s.op == "bar" for s in prog.sync_sites] + [False], bool)
        # memory accesses as flat arrays
        ch = rec.access_chunks
        if ch:
            lens = [len(c[4]) for c in ch]
            self.a_step = np.repeat([c[0] for c in ch], lens).astype(np.int32)
            self.a_wave = np.repeat([c[1] for c in ch], lens).astype(np.int32)
            self.a_region = np.repeat([c[2] for c in ch], lens).astype(np.int32)
            self.a_kind = np.repeat([c[3] for c in ch], lens).astype(np.int8)
            self.a_line = np.repeat([prog.sites[c[6]].line for c in ch], lens).astype(np.int32)
            self.a_slot = np.concatenate([c[4] for c in ch])
            offs = np.concatenate([c[5] for c in ch])
            size = np.repeat([max(1, rec.regions[c[2]].dtype.itemsize) for c in ch], lens)
            self.a_elem = (offs // size).astype(np.int32)
        else:
            self.a_step = self.a_wave = self.a_region = self.a_slot = self.a_elem = self.a_line = \
                np.zeros(0, np.int32)
            self.a_kind = np.zeros(0, np.int8)
        self.regions = rec.regions
        self.passes = rec.passes
        self.waves = np.array([x[0] for x in self._extra], np.int32)
        self.split_warps = np.array([x[3] for x in self._extra], np.int32)
        self.events = np.array(["barrier_release" if r[1] < 0 and r[1] != END else
                                ("end" if r[1] == END else "step") for r in self._raw])

    def __len__(self):
        return len(self._raw)

    def __repr__(self):
        return f"<simcore Recording of {len(self)} frames{' (cut short)' if self.truncated else ''}>"

    # ---- navigation
    @property
    def fault_frame(self):
        """The frame where the fault shows (None without a fault)."""
        if self.fault is None or not len(self):
            return None
        return len(self) - 1

    def next_barrier(self, k):
        """The next frame where a barrier releases (every arrival in), after frame k."""
        idx = np.flatnonzero(self.events[k + 1:] == "barrier_release")
        return int(k + 1 + idx[0]) if len(idx) else None

    def next_divergence(self, k):
        """The next frame where more warps are split (lanes at different points) than before."""
        s = self.split_warps
        grow = np.flatnonzero(s[k + 1:] > s[k:-1]) if k + 1 < len(s) else []
        return int(k + 1 + grow[0]) if len(grow) else None

    @property
    def cut_note(self):
        if not self.truncated:
            return ""
        return (f"The recording was cut after {len(self) - (1 if self.end_frame is not None else 0)} steps "
                f"(the launch ran {self.steps_run} steps); the last frame shows the end state.")

    # ---- one frame
    def frame(self, k):
        n = len(self)
        if not 0 <= k < n:
            raise IndexError(f"frame {k} is outside the recording (0 to {n - 1})")
        first_block, pc, ran, st, pcs, sites, _wave, bar_ids = self._raw[k]
        S = len(st)
        wave, named_arrived, counts, _ = self._extra[k]
        if named_arrived is None:
            named_arrived = np.zeros((S // self.spb, 16), np.int64)
        if counts is None:
            counts = np.full(S, -1, np.int32)
        nblk = S // self.spb
        prog = self.prog
        end = pc == END
        if end:
            line, lines = 0, []
        elif pc < 0:
            site = prog.sync_sites[-1 - pc]
            line, lines = site.line, [site.line]
        else:
            blk = prog.blocks[pc]
            line = blk.first_line or (min(blk.lines) if blk.lines else 0)
            lines = sorted(blk.lines)
        fault_here = self.fault is not None and k == n - 1
        if fault_here and self.fault_in_step:
            # the faulting access's own line, when the report names one inside this step
            rep = self.fault.report
            at = (rep.get("lines") or [0])[-1] if rep.get("kind") == "race" else rep.get("line")
            if at in lines:
                line = at
        state = np.full(S, READY, np.uint8)
        site_idx = np.where(sites >= 0, sites.astype(np.int32), len(self._site_line) - 1)
        pc_idx = np.clip(pcs.astype(np.int32), 0, len(self._pc_line) - 1)
        lane_line = self._pc_line[pc_idx].copy()
        at_bar = st == BAR
        is_bar = at_bar & self._site_bar[site_idx]
        state[is_bar] = WAIT_BARRIER
        state[at_bar & ~is_bar] = WAIT_WARP
        lane_line[at_bar] = self._site_line[site_idx[at_bar]]
        state[st == JOIN] = RECONVERGE
        state[st == PARK] = PARKED
        state[st == EXIT] = EXITED
        lane_line[st == EXIT] = 0
        state[ran] = RUNNING
        lane_line[ran] = line
        padding = (np.arange(S) % self.spb) >= self.tpb
        state[padding] = NO_THREAD
        lane_line[padding] = 0
        barrier = np.where(is_bar, bar_ids, -1).astype(np.int16)
        # arrivals k / n per (block, barrier id)
        arrivals = {}
        blocks_of = np.arange(S) // self.spb
        live = np.bincount(blocks_of[(st != EXIT) & ~padding], minlength=nblk)
        wb = np.flatnonzero(is_bar)
        if len(wb):
            keys = blocks_of[wb].astype(np.int64) * 1024 + (barrier[wb] & 1023)
            for key, cnt in zip(*np.unique(keys, return_counts=True)):
                b, bid = int(key) // 1024, int(key) % 1024
                c = counts[wb[keys == key]]
                expected = int(c.max()) if (c >= 0).any() else int(live[b])
                arrivals[(first_block + b, bid)] = (int(cnt) + int(named_arrived[b, bid % 16]), expected)
        for b, bid in zip(*np.nonzero(named_arrived)):
            key = (first_block + int(b), int(bid))
            if key not in arrivals:
                arrivals[key] = (int(named_arrived[b, bid]), -1)    # bar.arrive only so far
        shape = (nblk, self.wpb, WARP)
        event = "fault" if fault_here else ("end" if end else str(self.events[k]))
        # after a cut, the accesses between the cut and the end state were not recorded
        shared, race = self._shared(-1 if end and self.truncated else k, wave, first_block, nblk, fault_here)
        note = ""
        if self.truncated and end:
            note = self.cut_note
        return Frame(k, event, line, lines, first_block, state.reshape(shape), lane_line.reshape(shape),
                     barrier.reshape(shape), arrivals, shared, race, note)

    def _last_pass(self, k, wave, S):
        """Per slot: the last frame after which it passed a barrier, before frame k (-1: none)."""
        lp = np.full(S, -1, np.int64)
        for w, after, slots in self.passes:
            if w == wave and after < k:
                lp[slots] = after
        return lp

    def _shared(self, k, wave, first_block, nblk, fault_here):
        stop = np.searchsorted(self.a_step, k, side="right")
        sel = np.flatnonzero(self.a_wave[:stop] == wave)
        S = nblk * self.spb
        if len(sel):
            lp = self._last_pass(k, wave, S)
            slots = self.a_slot[sel]
            sel = sel[self.a_step[sel] > lp[slots]]
        race = None
        if fault_here and self.fault is not None and self.fault.report.get("kind") == "race":
            race = self._race_cell(k, sel)
        views = []
        for arr in self.prog.shared:
            region = self.regions.get(arr.region)
            itemsize = max(1, arr.elem.dtype.itemsize)
            nbytes = region.nbytes if region is not None else arr.nbytes
            size = nbytes // itemsize
            mine = sel[self.a_region[sel] == arr.region]
            blocks = self.a_slot[mine] // self.spb
            for b in range(nblk):
                acc = mine[blocks == b]
                marks = np.zeros(size, np.uint8)
                el = self.a_elem[acc]
                ok = (el >= 0) & (el < size)
                acc, el = acc[ok], el[ok]
                kind = self.a_kind[acc]
                np.bitwise_or.at(marks, el, np.where(kind == 0, READ, WRITE).astype(np.uint8))
                touches = {}
                for i, a in zip(el.tolist(), acc.tolist()):
                    touches.setdefault(i, []).append(
                        Touch(int(self.a_slot[a]) % self.spb, first_block + b, ACCESS_KINDS[self.a_kind[a]],
                              int(self.a_line[a]), int(self.a_step[a])))
                if race is not None and race["array"] == arr.name and race["block"] == first_block + b:
                    if 0 <= race["index"] < size:
                        marks[race["index"]] = RACE
                views.append(SharedView(arr.name, first_block + b, size, marks, touches))
        return views, race

    def _race_cell(self, k, sel):
        """The raced cell: the report names the array and element; the faulting step's access
        to it names the block; every access to it in the interval is one side of the race."""
        rep = self.fault.report
        arr = next((a for a in self.prog.shared if a.name == rep.get("array")), None)
        if arr is None:
            return None          # a race in global memory: the memory pane shows shared arrays only
        index = int(rep.get("index", -1))
        hit = sel[(self.a_region[sel] == arr.region) & (self.a_elem[sel] == index)]
        now = hit[self.a_step[hit] == k]
        block = int(self.a_slot[now[0]] // self.spb) if len(now) else (
            int(self.a_slot[hit[0]] // self.spb) if len(hit) else 0)
        first_block = self._raw[k][0]
        hit = hit[self.a_slot[hit] // self.spb == block]
        threads = sorted({int(s) % self.spb for s in self.a_slot[hit]})
        return {"array": arr.name, "block": first_block + block, "index": index, "threads": threads,
                "slots": sorted({int(s) for s in self.a_slot[hit]})}

    # ---- naming
    def thread_name(self, t):
        """Linear thread id in a block -> 't37' or 't(5,2)' for 2D blocks, with warp and lane."""
        bx, by, _ = self.launch.block
        if by == 1 and self.launch.block[2] == 1:
            name = f"t{t}"
        else:
            name = f"t({t % bx},{(t // bx) % by}" + (f",{t // (bx * by)})" if self.launch.block[2] > 1 else ")")
        return f"{name} (warp {t // WARP}, lane {t % WARP})"
