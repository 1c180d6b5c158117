"""The lanes of a warp: lane masks, lane ranges, and what the shuffles compute.

``popcount(mask)``                    how many lanes a 32-bit mask names.
``mask_of(lanes)``                    the mask naming some lanes.
``lane_ranges(mask)``                 "0-15, 20": the lanes of a mask as short ranges.
``shfl_reference(kind, v, arg, width)``  what ``__shfl*_sync`` gives every lane, in numpy.
``shuffle_map_figure(panels)``        which lane each lane reads, for a few shuffles.

Pictures follow the rules of ``barrier_course.lessons.pictures``: a function returns a
``matplotlib.figure.Figure`` (no ``plt.show()``) that survives a black and white printer.
"""

from __future__ import annotations

import numpy as np

from simcore.checks import report

__all__ = ["WARP_SIZE", "FULL_MASK", "popcount", "mask_of", "lane_ranges", "shfl_reference",
           "shuffle_map_figure"]

WARP_SIZE = 32
FULL_MASK = 0xFFFFFFFF


# --------------------------------------------------------------------------- masks

def popcount(mask):
    """How many lanes the 32-bit ``mask`` names (bits above bit 31 are ignored)."""
    return bin(int(mask) & FULL_MASK).count("1")


def mask_of(lanes):
    """The 32-bit mask naming ``lanes`` (an iterable of lane numbers 0..31)."""
    mask = 0
    for lane in lanes:
        lane = int(lane)
        if not 0 <= lane < WARP_SIZE:
            raise ValueError(f"lane {lane} is outside a warp (lanes are 0..{WARP_SIZE - 1})")
        mask |= 1 << lane
    return mask


def lane_ranges(mask):
    """The lanes a 32-bit mask names, as short ranges: ``lane_ranges(0x0000ffff) == '0-15'``,
    ``'none'`` for an empty mask."""
    mask = int(mask) & FULL_MASK
    lanes = [k for k in range(WARP_SIZE) if mask >> k & 1]
    return report.lane_ranges(lanes) if lanes else "none"


# --------------------------------------------------------------------------- shuffles

def shfl_reference(kind, v, arg, width=WARP_SIZE):
    """Return ``(result, source_lane)`` of a full-warp shuffle, per CUDA's definition.

    ``kind`` is ``"idx"`` (``__shfl_sync(m, v, srcLane, width)``; ``arg`` is an int or an
    array of 32 source lanes), ``"up"``, ``"down"`` (``arg`` = delta) or ``"xor"`` (``arg`` =
    lane mask). ``v`` holds the 32 lanes' values. ``source_lane[k]`` is the lane whose value
    lane ``k`` receives (its own lane when the source falls outside its segment).
    """
    v = np.asarray(v)
    lane = np.arange(WARP_SIZE)
    base = lane - lane % width              # first lane of my segment
    if kind == "idx":
        src = base + np.broadcast_to(np.asarray(arg), (WARP_SIZE,)) % width
    elif kind == "up":
        src = np.where(lane % width >= arg, lane - arg, lane)
    elif kind == "down":
        src = np.where(lane % width + arg < width, lane + arg, lane)
    elif kind == "xor":
        src = lane ^ arg                    # a later segment is out of reach: own value
        src = np.where(src <= base + width - 1, src, lane)
    else:
        raise ValueError(f"unknown shuffle kind {kind!r}")
    return v[src], src


def shuffle_map_figure(panels, *, figsize=None):
    """One row per shuffle: 32 lanes, an arrow from the lane read to the lane that reads it.

    ``panels`` is a list of ``(title, source_lane, width)``; ``source_lane`` as returned by
    ``shfl_reference``. Segments of ``width`` lanes are shaded bands; a lane that keeps its
    own value (it reads itself, or its source is outside its segment) gets a circle.
    """
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    n = len(panels)
    fig, axes = plt.subplots(n, 1, figsize=figsize or (10, 1.45 * n + 0.6), squeeze=False)
    for ax, (title, src, width) in zip(axes[:, 0], panels):
        _draw_shuffle(ax, title, np.asarray(src), width)
    axes[-1, 0].set_xlabel("lane")
    fig.legend(handles=[
        Line2D([], [], color="#0072B2", label="lane below reads the lane above"),
        Line2D([], [], linestyle="none", marker="o", markerfacecolor="white",
               markeredgecolor="black", label="keeps its own value (reads itself, or its source is outside the segment)")],
        loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return fig


def _draw_shuffle(ax, title, src, width):
    """One panel of ``shuffle_map_figure``."""
    for s in range(0, WARP_SIZE, width):
        ax.axvspan(s - 0.5, s + width - 0.5, color="#EEEEEE" if (s // width) % 2 == 0
                   else "#FFFFFF", zorder=0)
        if s:
            ax.axvline(s - 0.5, color="black", linewidth=0.8, linestyle=":", zorder=1)
    for k in range(WARP_SIZE):
        if src[k] == k:
            ax.plot(k, 0.0, marker="o", markersize=7, markerfacecolor="white",
                    markeredgecolor="black", zorder=4)
        else:
            ax.annotate("", xy=(k, 0.08), xytext=(src[k], 0.92),
                        arrowprops=dict(arrowstyle="->", color="#0072B2", linewidth=0.8,
                                        shrinkA=0, shrinkB=0), zorder=2)
    ax.scatter(np.arange(WARP_SIZE), np.ones(WARP_SIZE), s=10, color="black", zorder=3)
    ax.scatter(np.arange(WARP_SIZE), np.zeros(WARP_SIZE), s=10, color="black", zorder=3)
    ax.set_xlim(-0.7, WARP_SIZE - 0.3)
    ax.set_ylim(-0.3, 1.3)
    ax.set_yticks([0, 1])
    ax.set_yticklabels(["receives", "sends"], fontsize=7)
    ax.set_xticks(range(0, WARP_SIZE, 4))
    ax.tick_params(axis="x", labelsize=7)
    ax.set_title(title + (f"   (segments of {width} lanes)" if width < WARP_SIZE else ""),
                 fontsize=9, loc="left", family="monospace")
