"""Small helpers for lessons 04 (warp scope) and 05 (named barriers).

Pictures follow the rules of ``barrier_course.pictures``: every function returns a
``matplotlib.figure.Figure`` (no ``plt.show()``), and the figures survive a black and white
printer (line styles and text, not only colours).

Functions
---------
shfl_reference(kind, v, arg, width)   what __shfl*_sync computes, in numpy (all lanes taking part).
shuffle_map_figure(panels)            which lane each lane reads, for a few shuffles.
lanes_of(mask)                        "0-15, 20" for a 32-bit lane mask.
barriers_per_block(trace, block=0)    how many barrier-0 instances one block passed.
"""

from __future__ import annotations

import numpy as np

__all__ = ["shfl_reference", "shuffle_map_figure", "lanes_of", "barriers_per_block"]

WARP = 32


# --------------------------------------------------------------------------- shuffles

def shfl_reference(kind, v, arg, width=WARP):
    """Return ``(result, source_lane)`` of a full-warp shuffle, per CUDA's definition.

    ``kind`` is ``"idx"`` (``__shfl_sync(m, v, srcLane, width)``; ``arg`` is an int or an
    array of 32 source lanes), ``"up"``, ``"down"`` (``arg`` = delta) or ``"xor"`` (``arg`` =
    lane mask). ``v`` holds the 32 lanes' values. ``source_lane[k]`` is the lane whose value
    lane ``k`` receives (its own lane when the source falls outside its segment).
    """
    v = np.asarray(v)
    lane = np.arange(WARP)
    base = lane - lane % width              # first lane of my segment
    if kind == "idx":
        src = base + np.broadcast_to(np.asarray(arg), (WARP,)) % width
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
        src = np.asarray(src)
        for s in range(0, WARP, width):
            ax.axvspan(s - 0.5, s + width - 0.5, color="#EEEEEE" if (s // width) % 2 == 0
                       else "#FFFFFF", zorder=0)
            if s:
                ax.axvline(s - 0.5, color="black", linewidth=0.8, linestyle=":", zorder=1)
        for k in range(WARP):
            if src[k] == k:
                ax.plot(k, 0.0, marker="o", markersize=7, markerfacecolor="white",
                        markeredgecolor="black", zorder=4)
            else:
                ax.annotate("", xy=(k, 0.08), xytext=(src[k], 0.92),
                            arrowprops=dict(arrowstyle="->", color="#0072B2", linewidth=0.8,
                                            shrinkA=0, shrinkB=0), zorder=2)
        ax.scatter(np.arange(WARP), np.ones(WARP), s=10, color="black", zorder=3)
        ax.scatter(np.arange(WARP), np.zeros(WARP), s=10, color="black", zorder=3)
        ax.set_xlim(-0.7, WARP - 0.3)
        ax.set_ylim(-0.3, 1.3)
        ax.set_yticks([0, 1])
        ax.set_yticklabels(["receives", "sends"], fontsize=7)
        ax.set_xticks(range(0, WARP, 4))
        ax.tick_params(axis="x", labelsize=7)
        ax.set_title(title + (f"   (segments of {width} lanes)" if width < WARP else ""),
                     fontsize=9, loc="left", family="monospace")
    axes[-1, 0].set_xlabel("lane")
    fig.legend(handles=[
        Line2D([], [], color="#0072B2", label="lane below reads the lane above"),
        Line2D([], [], linestyle="none", marker="o", markerfacecolor="white",
               markeredgecolor="black", label="keeps its own value (reads itself, or its source is outside the segment)")],
        loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return fig


def lanes_of(mask):
    """Lanes named by a 32-bit mask, as short ranges: ``lanes_of(0x0000ffff) == '0-15'``."""
    mask = int(mask) & 0xFFFFFFFF
    lanes = [k for k in range(WARP) if mask >> k & 1]
    if not lanes:
        return "none"
    runs, start, prev = [], lanes[0], lanes[0]
    for k in lanes[1:] + [None]:
        if k is not None and k == prev + 1:
            prev = k
            continue
        runs.append(f"{start}" if start == prev else f"{start}-{prev}")
        if k is not None:
            start = prev = k
    return ", ".join(runs)


# --------------------------------------------------------------------------- traces

def barriers_per_block(trace, block=0):
    """How many times ``block`` passed barrier 0 (``__syncthreads()``) in a traced launch."""
    n = 0
    for step in trace.steps:
        if step.event != "barrier_release":
            continue
        for (blk, bid) in (step.barriers or {}):
            if bid == 0 and (blk == block or blk == (block,) or
                             (isinstance(blk, tuple) and blk[0] == block)):
                n += 1
                break
    return n


