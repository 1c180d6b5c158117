"""The 'out_of_bounds' check: an access outside its array, or outside a local array, is a fault.
Memory tells it the fact (which lanes' offsets fall outside the region); off, the bad lanes'
accesses are skipped (reads give 0), as if the memory were not there."""
import numpy as np

from ..errors import OutOfBounds
from .base import Plugin

SPACES = {"global": "argument", "shared": "__shared__ array", "local": "local variable"}
FIX = ("guard the access with a bounds check (e.g. if (i < n)), or fix the index arithmetic; "
       "for a tile, fill out-of-range elements with a neutral value instead of reading them.")


class OutOfBoundsCheck(Plugin):
    checks = ("out_of_bounds",)
    fault = OutOfBounds

    def on_out_of_bounds(self, region, offsets, size, bad, lanes, site, kind):
        report = self.report
        k = int(np.flatnonzero(bad)[0])
        slot = self.wave.lane_index(lanes)[k]
        off = int(offsets[k])
        elem = off // size if off >= 0 else -((-off) // size)
        size_text, fix = self.size_and_fix(region)
        report.raise_("out_of_bounds", f"Out-of-bounds {kind} of {region.name}[{elem}]",
                      f"the {kind} at line {self.program.sites[site].line} touches {region.name}[{elem}], but the "
                      f"{SPACES[region.kind]} '{region.name}' {size_text}. "
                      f"{int(bad.sum())} thread(s) of this step are out of bounds; the first is "
                      f"{report.who(slot)}.",
                      fix, [report.site_loc(site, kind)], report.who(slot), array=region.name, index=elem)

    def size_and_fix(self, region):
        """How big the array is, and the fix (an extern __shared__ array's size is the launch's)."""
        n = region.nbytes // max(1, region.dtype.itemsize)
        size_text = f"has {n} element(s) (valid indices 0 to {n - 1})" if n else "has no elements at all"
        if not any(a.dynamic and a.region == region.id for a in self.program.shared):
            return size_text, FIX
        return (size_text + f": an extern __shared__ array gets the launch's shared_mem bytes "
                f"({self.launch.shared_mem} here)",
                "pass the size in bytes with the launch, e.g. kernel(grid, block, args, "
                f"shared_mem=blockDim * {region.dtype.itemsize}), or fix the index.")

    def on_local_out_of_bounds(self, index, length, lanes, site):
        index = np.asarray(index)
        k = int(np.flatnonzero((index < 0) | (index >= length))[0])
        self.report.raise_("out_of_bounds", "Out-of-bounds access of a local array",
                           f"index {int(index[k])} of a local array of {length} elements.",
                           "keep the index between 0 and the array length - 1.",
                           [self.report.site_loc(site)], self.report.who(self.wave.lane_index(lanes)[k]))
