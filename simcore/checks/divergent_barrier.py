"""The 'divergent_barrier' check: the threads of a block reach barrier 0 at different calls of
__syncthreads() (compute-sanitizer's synccheck). Sync resolution tells it the fact (the lanes of
a block that are all at barrier 0, at more than one call); off, the barrier completes anyway."""
import numpy as np

from ..errors import DivergentBarrier
from .report import lane_ranges
from .base import Plugin


class DivergentBarrierCheck(Plugin):
    checks = ("divergent_barrier",)
    fault = DivergentBarrier

    def on_divergent_barrier(self, block, lanes):
        w = self.wave
        sites = w.site[lanes]
        uniq = [int(s) for s in np.unique(sites)]
        split_warp = self.split_warp(block, lanes, sites)
        scope = f"in warp {split_warp}" if split_warp is not None else "in block"
        self.report.raise_("divergent_barrier", f"Barrier error: divergent thread(s) {scope}",
                           f"the threads of block {w.first_block + block} reached barrier 0 at {len(uniq)} "
                           f"different call sites ({'; '.join(self.program.sync_sites[s].where for s in uniq)}). "
                           "__syncthreads() requires every thread of the block to reach the *same* call: a "
                           "barrier under a condition that is not uniform across the block is undefined behaviour. "
                           + ("A warp straddles the condition, so its two sides ran one after the other. "
                              if split_warp is not None else
                              "Each warp happens to be uniform here, so a GPU may appear to work, but it is still "
                              "undefined and changes with the block size. ")
                           + "(compute-sanitizer --tool synccheck reports this as \"Barrier error detected. "
                           f"Divergent thread(s) {scope}\".)",
                           "move the barrier out of the condition: let every thread reach one unconditional "
                           "__syncthreads(), and put the condition around the work instead.",
                           self.locations(lanes, sites, uniq), None, block=w.first_block + block,
                           split_warp=split_warp)

    def split_warp(self, block, lanes, sites):
        """The first warp (within the block) whose lanes are at different calls, or None."""
        w = self.wave
        warps = w.slot_warp[lanes]
        for warp in np.unique(warps):
            if len(np.unique(sites[warps == warp])) > 1:
                return int(warp) - block * w.wpb
        return None

    def locations(self, lanes, sites, uniq):
        """One location per call: its line and which threads are there."""
        locs = []
        for s in uniq:
            site = self.program.sync_sites[s]
            sel = lanes[sites == s]
            locs.append({"line": site.line, "text": site.text.strip(),
                         "what": f"{len(sel)} thread(s): {lane_ranges(self.wave.slot_thread[sel])}"
                                 + (f"; {site.via}" if site.via else "")})
        return locs
