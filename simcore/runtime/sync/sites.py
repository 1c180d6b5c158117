"""Per sync site facts as arrays, so that the resolvers can look them up per lane (index: the
lanes' `w.site`; the last entry stands for "at no sync site")."""
import numpy as np


def distinct(values):
    """np.unique, fast when (as usual) every lane is at the same site."""
    if len(values) == 0:
        return values
    lo, hi = values.min(), values.max()
    if lo == hi:
        return values[:1]
    return np.unique(values)


class SiteFacts:
    def __init__(self, prog):
        sites = prog.sync_sites
        self.is_coll = np.array([x.point.collective for x in sites] + [False], bool)
        self.mixes_sites = np.array([x.point.mixes_sites for x in sites] + [False], bool)
        self.is_bar = np.array([x.op == "bar" for x in sites] + [False], bool)
        self.block_wide = np.array([x.block_wide for x in sites] + [False], bool)
        self.arrive = np.array([x.mode == "arrive" for x in sites] + [False], bool)
        self.grid = np.array([x.grid_wide for x in sites] + [False], bool)
        self.bar_sites = np.flatnonzero(self.is_bar)
        self.plain_barriers = not self.grid.any()     # no grid.sync() in the kernel
        # named barriers (bar.sync/bar.arrive with an id) can arrive early or in a phase meant
        # for others: only then are barrier phases followed (barrier_phases.py)
        self.named = bool((self.is_bar & ~self.block_wide).any())
