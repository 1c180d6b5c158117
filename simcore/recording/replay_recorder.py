"""The replay recorder (launch option trace=True), a plugin: the trace's snapshots plus what a
step-by-step replay shows (simcore/recording/replay.py): shared-memory accesses with their threads,
barrier passes, named-barrier counts and the state at the end. `launch.trace.replay` is the
resulting `simcore.recording.replay.Recording`."""
import numpy as np

from ..runtime.wave import BAR, EXIT, WARP
from .replay import Recording
from .trace import END_STEP, Trace
from .trace_recorder import TraceRecorder

END = END_STEP      # the program point of the end snapshot (no step runs there)


class ReplayRecorder(TraceRecorder):
    """The trace recorder plus memory accesses, barrier passes and the final state (a plugin:
    launch option trace=True builds it in place of the plain trace recorder)."""

    def __init__(self, launch, program, report, options):
        super().__init__(launch, program, report, options)
        self.extra = []          # per snapshot: (wave, named arrivals copy, counts of waiting lanes, split warps)
        self.access_chunks = []  # (snapshot, wave, region, kind, slots, byte offsets, site)
        self.passes = []         # (wave, after snapshot, slots): these threads passed a barrier
        self.wave_index = -1
        self.regions = {}
        self.fault_in_step = False
        self.end_snapshot = None

    def on_wave_start(self, wave):
        self.wave_index += 1

    def on_barrier(self, sync, lanes):
        # a barrier (or bar.arrive) starts a new interval for these threads; __syncwarp does not
        if self.truncated or sync.op != "bar" or not self.raw:
            return
        slots = np.array(self.wave.lane_index(lanes), np.int32)
        if len(slots):
            self.passes.append((self.wave_index, len(self.raw) - 1, slots))

    def on_memory_access(self, region, offsets, size, kind, lanes, site):
        if self.truncated or region.kind != "shared" or not self.raw:
            return
        slots = self.wave.lane_index(lanes)
        if len(slots) == 0:
            return
        self.regions[region.id] = region
        code = 0 if kind == "read" else 1 if kind == "write" else 2
        self.access_chunks.append((len(self.raw) - 1, self.wave_index, region.id, code,
                                   np.array(slots, np.int32), np.array(offsets, np.int64), int(site)))

    def _extra(self):
        w = self.wave
        st = w.st
        nw = w.S // WARP
        # warps whose live lanes are at more than one program point (diverged)
        pcs = w.pc.reshape(nw, WARP)
        live = (st != EXIT).reshape(nw, WARP)
        hi = np.where(live, pcs, -1).max(axis=1)
        lo = np.where(live, pcs, np.iinfo(np.int32).max).min(axis=1)
        split = int(((hi != lo) & live.any(axis=1)).sum())
        counts = None                # per lane, the count of the named barrier it waits at
        waiting = np.flatnonzero(st == BAR)
        for s in np.unique(w.site[waiting]):
            site = self.program.sync_sites[int(s)]
            if site.op == "bar" and "count" in site.operands:
                if counts is None:
                    counts = np.full(w.S, -1, np.int32)
                sel = waiting[w.site[waiting] == s]
                counts[sel] = w.R[site.operands["count"]][sel]
        arrived = w.named.arrived
        self.extra.append((self.wave_index, arrived.copy() if arrived.any() else None, counts, split))

    def _snapshot(self, pc, lanes):
        """The trace's snapshot, in the smallest integer types that hold it (7 bytes a lane)."""
        w = self.wave
        ran = np.zeros(w.S, bool)
        if lanes is not None:
            ran[lanes] = True
        small = len(self.program.blocks) < 32000 and len(self.program.sync_sites) < 32000
        ids = self.barrier_ids()
        self.raw.append((w.first_block, pc, ran, w.st.copy(),
                         w.pc.astype(np.int16) if small else w.pc.copy(),
                         w.site.astype(np.int16) if small else w.site.copy(), w.shape,
                         ids.astype(np.int8) if (ids < 128).all() and (ids >= -1).all() else ids))
        self._extra()

    def on_step(self, pc, lanes):
        block = self.program.blocks[pc]
        if not (block.code or block.lines) or self.full():
            return      # an empty block (a join point) is no step a reader would see
        self._snapshot(pc, lanes)

    def on_barrier_release(self, sync, lanes):
        if not self.full():
            self._snapshot(-1 - sync.id, None)

    def on_launch_end(self, launch):
        w = self.wave
        if w is not None and hasattr(w, "st"):
            if getattr(w, "running", None) is not None and self.raw and not self.truncated:
                self.fault_in_step = True     # raised while a step ran: that step is the fault
            else:
                # the state at the end: every thread exited, or stuck (a barrier fault, a deadlock)
                self._snapshot(END, None)
                self.end_snapshot = len(self.raw) - 1
        # the trace keeps the end state only where threads are stuck (a deadlock, a barrier
        # fault): its picture then shows them waiting, as the verdict says
        stuck = False
        if self.end_snapshot is not None:
            st, shape = self.raw[self.end_snapshot][3], self.raw[self.end_snapshot][6]
            real = (np.arange(len(st)) % shape.spb) < shape.tpb
            stuck = bool((st[real] != EXIT).any())
        trace = Trace(self.program, [r for r in self.raw if r[1] != END or stuck], self.truncated)
        trace.replay = Recording(self.program, self, w)
        launch.trace = trace
