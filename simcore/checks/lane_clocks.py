"""Lane clocks: the order __syncwarp gives the lanes of one warp, for the race checks, where a
kernel's warp syncs may name part of a warp.

While every __syncwarp of a kernel names the whole warp (its mask is the constant 0xffffffff:
__syncwarp(), a 32-thread tile's sync()), two lanes are ordered once the later one's warp epoch
moved past the earlier access (race_shadow's warp epoch field). A partial sync (__syncwarp(mask),
a smaller tile's sync(), a mask from __activemask()) orders only the lanes it names, which one
count per lane cannot say; so a kernel where some __syncwarp's mask is not that constant (decided
from the program: SyncSite.whole_warp) gets *lane clocks*, a vector clock over the lanes of each
warp:

  own[l]      the warp syncs lane l took part in (per slot, int32: no wrap-around);
  know[l][m]  the newest own[m] that lane l has heard of, through a chain of syncs.

At a sync of the lanes G of one mask, each lane of G counts it (own[g] += 1, know[g][g] = own[g])
and then every lane of G takes the element-wise max of their rows of `know`. Lanes that exited
are done: the sync also orders the accesses of the exited lanes its mask names (a tail warp's
__syncwarp() names all 32), and only those: a lane outside the mask may exit before or after the
sync, so ordering it when it happened to exit first would make the verdict depend on the run.
An access by lane m carries own[m] at the time (the shadow's w_clock / r_clock, an int32 beside
each record), and an access by lane l of m's warp is ordered after it iff know[l][m] > that
clock. Readers of one warp folded into one record keep every reader's clock in a row of 32
(Shadow.rows, one per granule that ever had them): a lane is ordered after the record iff it is
ordered after each reader but itself; a later reader ordered after all of them replaces the
record. Between warps, and across barriers, nothing changes; the warp epochs in the records are
then not read (nor swept). Shuffles, votes and __activemask() order no memory, with or without
lane clocks. Kernels without a partial sync keep the records, the size and the speed they had
(no clock arrays, one extra test per access). With lane clocks: 128 bytes per slot of the wave
(know; at most 8 MB), 4 more a record.
"""
import numpy as np

from .race_shadow import FULL


def needs_lane_clocks(program):
    """Whether some __syncwarp of the program may name part of a warp: its mask is not the
    constant 0xffffffff (a variable, __activemask(), a tile under 32)."""
    return any(s.op == "syncwarp" and not getattr(s, "whole_warp", False) for s in program.sync_sites)


class LaneClocks:
    """The lane clocks of one wave (see the module docstring)."""

    def __init__(self, wave):
        self.wave = wave
        self.own = np.zeros(wave.S, np.int32)               # per slot: the warp syncs it took part in
        self.know = np.zeros((wave.S, 32), np.int32)        # per slot: the clocks of its warp it knows

    def join(self, sync, lanes):
        """A __syncwarp (or tile.sync()) completed for `lanes`, in groups of one warp and one mask:
        each lane's own clock moves on, then every lane of a group knows what any of them knew.
        The lanes that exited are done: a group orders the accesses of those its mask names (a
        tail warp's full mask names them all), never of lanes outside it."""
        e = self.wave
        masks = e.R[sync.operands["mask"]][lanes].astype(np.int64) & FULL
        key = e.slot_warp[lanes].astype(np.int64) << 32 | masks
        if not (key[1:] >= key[:-1]).all():            # usually in slot order already
            order = np.argsort(key, kind="stable")
            lanes, key = lanes[order], key[order]
        change = np.ones(len(key), bool)
        change[1:] = key[1:] != key[:-1]
        starts = np.flatnonzero(change)
        group = np.cumsum(change) - 1
        own, know = self.own, self.know
        own[lanes] += 1
        col = e.slot_lane[lanes]
        know[lanes, col] = own[lanes]
        n, size = len(lanes), (len(lanes) // len(starts))
        first = int(lanes[0])
        # as usual (tiles of a whole wave): consecutive slots in groups of one size, a view each
        rows = know[first:first + n] if int(lanes[-1]) - first == n - 1 and (np.diff(lanes) == 1).all() else None
        if rows is not None and size * len(starts) == n and (np.diff(starts) == size).all():
            joined = rows.reshape(-1, size, 32).max(axis=1)
        else:
            rows = None
            joined = np.maximum.reduceat(know[lanes], starts, axis=0)
        gwarp = key[starts] >> 32
        live = e.live_bits()[gwarp]
        # the exited lanes it orders: those its mask names, and only those. (Whether a lane outside
        # the mask has already exited when the sync runs is up to the schedule: ordering it then
        # would make the verdict depend on the run.)
        exited = ~live & key[starts] & FULL
        g = np.flatnonzero(exited)
        if len(g):
            lane = np.arange(32)
            gone = ((exited[g][:, None] >> lane) & 1) == 1
            after = own[gwarp[g][:, None] * 32 + lane] + 1        # after every access they made
            joined[g] = np.where(gone, np.maximum(joined[g], after), joined[g])
        if rows is not None:
            rows.reshape(-1, size, 32)[:] = joined[:, None, :]
        else:
            know[lanes] = joined[group]

    def ordered(self, sh, key, rec, clock, L, readers):
        """Lane clocks: per lane of L, whether the recorded access `rec` (a lane of its own warp;
        its clock `clock`) is ordered before it: its lane knows a clock of that lane newer than
        the access. A record of several readers of one warp (readers=True): every reader's,
        except the lane's own read (program order)."""
        e = self.wave
        lay = sh.lay
        slots = e.lane_index(L)
        field = lay.field(rec)
        ordered = self.know.ravel()[slots * 32 + (field & 31)] > clock
        if readers and sh.row_of is not None:
            one_warp = np.flatnonzero((rec >= 0) & ((field & (lay.SEVERAL | lay.WARPS)) == lay.SEVERAL))
            if len(one_warp):
                rows = sh.rows[sh.row_of[key[one_warp]]]
                ok = (rows < 0) | (self.know[slots[one_warp]] > rows)
                ok[np.arange(len(one_warp)), e.slot_lane[slots[one_warp]]] = True
                ordered[one_warp] = ok.all(axis=1)
        return ordered
