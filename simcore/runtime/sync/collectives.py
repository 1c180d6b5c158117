"""Warp collectives (__syncwarp, shuffles, votes, reductions, matches): a group of lanes of one
warp completes once every live lane its mask names has arrived, each calling for itself, at one
call (or, for __syncwarp, any calls); its kind (lower/sync_points.py) then computes the results.
A group that cannot complete as called is a fact for the invalid-mask check."""
import numpy as np

from ...lower.sync_points import FULL, grouped
from .sites import distinct


class Collectives:
    def __init__(self, prog, sites, report, plugins):
        self.prog = prog
        self.sites = sites
        self.report = report
        self.plugins = plugins

    def resolve(self, w, force=False, hold_split=False):
        """Complete the warp collectives whose whole mask has arrived. force: complete the others too,
        after telling the plugins (the invalid-mask check raises). hold_split: leave waiting a
        __syncwarp of the second sub-group of a split __activemask() (see split_syncwarp)."""
        facts = self.sites
        if not facts.is_coll.any():
            return False
        lanes = w.waiting_at(facts.is_coll)
        if len(lanes) == 0:
            return False
        masks = self.operand(w, lanes, "mask").astype(np.int64) & FULL
        key = w.slot_warp[lanes].astype(np.int64) << 32 | masks
        if (key[1:] < key[:-1]).any():      # (usually already in order: one mask per warp)
            order = np.argsort(key, kind="stable")
            lanes, masks, key = lanes[order], masks[order], key[order]
        lane_id = w.slot_lane[lanes].astype(np.int64)
        own_ok = ((masks >> lane_id) & 1) == 1
        live_bits = w.live_bits()
        starts, inv = grouped(key)
        ukeys = key[starts]
        sites_l = w.site[lanes].astype(np.int64)
        bits = np.bitwise_or.reduceat(np.int64(1) << lane_id, starts)
        gwarp = (ukeys >> 32).astype(np.int64)
        gmask = ukeys & FULL
        named_live = gmask & live_bits[gwarp]
        site_first = np.maximum.reduceat(sites_l, starts)
        site_min = np.minimum.reduceat(sites_l, starts)
        own_all = np.logical_and.reduceat(own_ok, starts)
        same_site = site_first == site_min
        mixes = facts.mixes_sites[site_first]
        complete = (bits == named_live) & own_all & (same_site | mixes)
        if w.activemask_second:
            split = split_syncwarp(w, gwarp, gmask, mixes)
            for g in np.flatnonzero(split & complete):
                self.report.split_syncwarp(int(site_first[g]), int(gmask[g]),
                                           w.activemask_second[int(gwarp[g])][int(gmask[g])])
            if hold_split:
                complete &= ~split
        if force:
            bad = np.flatnonzero(~complete)
            if len(bad):
                g = bad[0]
                for hook in self.plugins.invalid_mask:
                    hook(lanes[inv == g], int(gmask[g]), int(gwarp[g]), own_ok[inv == g], int(bits[g]),
                         int(named_live[g]), same_site[g] or mixes[g])
            complete[:] = True
        if not complete.any():
            return False
        if not complete.all():
            done = complete[inv]
            lanes, inv, masks = lanes[done], inv[done], masks[done]
        # complete per site (results depend on the operation)
        sites = w.site[lanes]
        at = distinct(sites)
        if len(at) == 1:      # (usually: every lane at one site, no selection to make)
            self.complete(w, self.prog.sync_sites[int(at[0])], lanes, bits[inv])
            return True
        for s in at:
            sel = sites == s
            self.complete(w, self.prog.sync_sites[int(s)], lanes[sel], bits[inv[sel]])
        return True

    def complete(self, w, site, lanes, part_bits):
        """lanes: participants at this site; part_bits: each lane's group participation bitmask."""
        site.point.complete(self, w, site, lanes, w.slot_lane[lanes].astype(np.int64), part_bits)
        w.release(lanes, self.prog.sync_sites)

    def operand(self, w, lanes, key):
        """Per-lane operand values: each lane's own sync site decides which register holds them."""
        prog = self.prog
        sites = w.site[lanes]
        at = distinct(sites)
        if len(at) == 1:      # one site: its register's values, as the general case types them
            reg = prog.sync_sites[int(at[0])].operands.get(key)
            if reg is None:
                return np.full(len(lanes), FULL, np.int64)
            vals = w.R[reg][lanes]
            return vals.astype(np.int64) if vals.dtype.kind in "iub" else vals
        out = None
        for s in at:
            reg = prog.sync_sites[int(s)].operands.get(key)
            sel = sites == s
            vals = w.R[reg][lanes[sel]] if reg is not None else np.full(sel.sum(), FULL, np.int64)
            if out is None:
                out = np.zeros(len(lanes), np.int64 if vals.dtype.kind in "iub" else vals.dtype)
            out[sel] = vals
        return out


def split_syncwarp(w, gwarp, gmask, is_syncwarp):
    """Per group of a collective: a __syncwarp whose mask is the second sub-group that a
    recent split __activemask() of its warp returned (activemask.py). Such a __syncwarp
    orders only its own lanes, so nothing makes them go on together with the first
    sub-group: eager completion leaves it waiting until nothing else can run (then resolve
    completes it), while the first sub-group runs on, as a GPU may do."""
    held = np.zeros(len(gwarp), bool)
    for g in np.flatnonzero(is_syncwarp):
        held[g] = int(gmask[g]) in w.activemask_second.get(int(gwarp[g]), ())
    return held
