"""The trace recorder (launch option trace=True), a plugin: a snapshot of the wave per step and
per barrier release, turned into `launch.trace` (a simcore.Trace) when the launch ends."""
import numpy as np

from ..runtime.wave import BAR
from .trace import Trace
from ..checks.base import Plugin


class TraceRecorder(Plugin):
    MAX_STEPS = 20000
    BYTE_BUDGET = 200_000_000   # a trace of a huge launch must not eat the machine's memory

    @classmethod
    def wanted(cls, options):
        return bool(options.trace)

    def __init__(self, launch, program, report, options):
        super().__init__(launch, program, report, options)
        self.raw = []
        self.truncated = False

    def full(self):
        limit = min(self.MAX_STEPS, max(50, self.BYTE_BUDGET // (self.wave.S * 11)))
        if len(self.raw) >= limit:
            self.truncated = True
            return True
        return False

    def on_step(self, pc, lanes):
        block = self.program.blocks[pc]
        if not (block.code or block.lines) or self.full():
            return      # an empty block (a join point) is no step a reader would see
        w = self.wave
        ran = np.zeros(w.S, bool)
        ran[lanes] = True
        self.raw.append((w.first_block, pc, ran, w.st.copy(), w.pc.copy(), w.site.copy(), w.shape,
                         self.barrier_ids()))

    def barrier_ids(self):
        """Which barrier id each waiting lane waits at (0 for __syncthreads), -1 elsewhere."""
        w = self.wave
        ids = np.full(w.S, -1, np.int32)
        waiting = np.flatnonzero(w.st == BAR)
        for s in np.unique(w.site[waiting]):
            site = self.program.sync_sites[int(s)]
            if site.op != "bar":
                continue
            sel = waiting[w.site[waiting] == s]
            ids[sel] = w.R[site.operands["id"]][sel] if "id" in site.operands else 0
        return ids

    def on_barrier_release(self, sync, lanes):
        """Record the moment every arrival is in, before the waiting threads go on."""
        if self.full():
            return
        w = self.wave
        self.raw.append((w.first_block, -1 - sync.id, np.zeros(w.S, bool), w.st.copy(), w.pc.copy(),
                         w.site.copy(), w.shape, self.barrier_ids()))

    def on_launch_end(self, launch):
        launch.trace = Trace(self.program, self.raw, self.truncated)
