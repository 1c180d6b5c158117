"""The race rule for one lane's access, on plain integers: the checked fast path of a lone
thread's loop (a serial scan, thread 0 finishing a reduction, a one-thread read-modify-write).

The vectorised checks (races.RaceDetector._unordered, _fold_reader) decide a whole wave's
access with a dozen numpy calls, whatever its width; for one lane those calls cost far more than
the rule itself. Here the same rule reads one record as Python integers, in the record layout
of race_shadow.Layout, bit for bit what the vectorised functions compute for that lane (the race
tests and tools/same_behaviour.py hold the two to the same verdicts).

The fast path decides only the common case: it records an access that nothing conflicts with.
An access that may race goes the vectorised way, which reports it; so do kernels whose ordering
needs more than barrier and warp epochs (lane clocks, release/acquire clocks, the fence ticket).
"""
from dataclasses import dataclass

from .race_shadow import MAX_LAG


@dataclass(slots=True)
class LaneStamp:
    """What a record says about the lane making an access (race_shadow.Stamps, one slot of it)."""
    stamp: int          # its record without the site: epochs and thread
    bar: int            # stamp >> BAR_SHIFT: its barrier epoch
    lag: object         # barrier epochs it entered by bar.arrive (None: no thread lags)
    tid: int            # its thread field
    warp: int
    wep: int            # stamp >> WEP_SHIFT (its warp epoch with the barrier epoch above it)
    block: int          # its block (global memory's launch-wide numbering)
    several: int        # the record of several readers of its warp, with its epochs
    several_warps: int  # ... of several warps of its block
    many_blocks: int    # ... of several blocks


def lane_stamp(st, slot):
    """One slot of race_shadow.Stamps `st`, as integers (made once per epoch: Stamps.lanes)."""
    me = st.lanes.get(slot)
    if me is None:
        me = st.lanes[slot] = _lane_stamp(st, slot)
    return me


def _lane_stamp(st, slot):
    lag = None if st.lag is None else int(st.lag[slot])
    return LaneStamp(int(st.stamp[slot]), int(st.bar[slot]), lag, int(st.tid[slot]), int(st.warp[slot]),
                     int(st.wep[slot]), int(st.block[slot]), int(st.several[slot]),
                     int(st.several_warps[slot]), int(st.many_blocks[slot]))


def field(lay, rec):
    """The thread field of a record."""
    return (rec >> lay.TID_SHIFT) & lay.TID_MASK


def warp_of(lay, f):
    """The warp of a thread field; for a several-warps record a number no warp has."""
    return (f & lay.LOW) >> 5


def block_of(lay, f, spb):
    """The block of a global thread field: one thread's, the one block several readers share,
    or lay.BLOCK_MASK for readers of several blocks."""
    if (f & (lay.SEVERAL | lay.WARPS)) == (lay.SEVERAL | lay.WARPS):
        return f & lay.BLOCK_MASK
    return warp_of(lay, f) * 32 // spb


def same_interval(lay, other, me):
    """Whether the record `other` falls in a barrier interval this lane's access shares."""
    if other < 0:
        return False                                    # nobody
    ob = other >> lay.BAR_SHIFT
    if me.lag is None:
        return ob == me.bar
    # a lagging side (bar.arrive) shares every interval from its last waiting barrier on
    olag = (other >> lay.LAG_SHIFT) & MAX_LAG
    d = (me.bar - ob) & lay.EMASK
    return d <= me.lag or ((-d) & lay.EMASK) <= olag


def unordered(lay, other, me, is_global, spb):
    """The rule: whether nothing orders the recorded access `other` before this lane's."""
    if other < 0:
        return False                                    # nobody accessed the granule
    hit = same_interval(lay, other, me)                 # no barrier between them...
    if not (hit or is_global):
        return False
    otid = field(lay, other)
    hit = hit and otid != me.tid                        # ...by another thread (program order)...
    same_warp = warp_of(lay, otid) == me.warp
    if hit and same_warp and (other >> lay.WEP_SHIFT) != me.wep:
        hit = False                                     # ...not ordered by a __syncwarp since
    if is_global:
        # blocks are never ordered by a barrier: another block's access is unordered in any
        # interval (a record of readers of several blocks always holds one of another block)
        same_block = block_of(lay, otid, spb) == me.block
        return (hit and same_block) or not same_block
    return hit


def folded_reader(lay, r, me, is_global, spb):
    """The readers' record after this lane reads, given the record `r`: its own stamp where the
    old readers are over, else the narrowest group holding both (one warp, one block, several
    blocks)."""
    same_bar = same_interval(lay, r, me)
    otid = field(lay, r)
    # in global memory a reader of another block stays unordered whatever the interval
    other_block = is_global and r >= 0 and block_of(lay, otid, spb) != me.block
    if not (same_bar or other_block):
        return me.stamp
    same_warp = warp_of(lay, otid) == me.warp
    over = otid == me.tid or (same_warp and (r >> lay.WEP_SHIFT) != me.wep)    # program order, __syncwarp
    if other_block:
        return me.many_blocks
    if not same_bar or over:
        return me.stamp
    return me.several if same_warp else me.several_warps
