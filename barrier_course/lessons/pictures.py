"""Pictures for the lessons: traces, who-reads-what maps, measured barrier costs.

Every function returns a ``matplotlib.figure.Figure`` and never calls ``plt.show()``, so
the same code serves a notebook (the figure is shown when it is the cell's value) and a
handout (``fig.savefig("trace.pdf")``). The pictures are meant to survive a black and
white printer: states are told apart by hatching and text as well as by colour, and line
styles differ as well as colours.

Functions
---------
trace_figure(trace)            warps x time, coloured by state, barrier arrivals marked.
annotate_lanes(fig, trace)     the number of active lanes on a trace_figure's divergent bars.
read_map_figure(read_from)     which thread reads the element which thread wrote.
barrier_cost_figure(data)      cycles per __syncthreads() measured on an H200.

``trace`` is a ``simcore.Trace`` or anything shaped like one (see ``trace_figure``).
"""

from __future__ import annotations

import json
import os
from collections import OrderedDict

import numpy as np

from barrier_course.lessons.traces import arrival_count, block_key, keep_blocks, warp_timeline
from barrier_course.lessons.warps import WARP_SIZE, popcount

__all__ = [
    "STATE_STYLE",
    "annotate_lanes",
    "trace_figure",
    "read_map_figure",
    "barrier_cost_figure",
    "load_barrier_costs",
    "DATA_DIR",
]

from .course_data import DATA_DIR, course_data_file   # noqa: E402

# state -> (legend label, face colour, hatch). Colours are from the colour-blind safe
# Okabe-Ito palette; the hatches keep the states apart on a grey-scale print.
STATE_STYLE = OrderedDict([
    ("running", ("running", "#009E73", "")),
    ("ready", ("ready, not scheduled in this step", "#FFFFFF", "")),
    ("waiting_barrier", ("waiting at a block barrier", "#E69F00", "///")),
    ("waiting_warp", ("waiting for warp-mates (__syncwarp / shuffle)", "#CC79A7", "xxx")),
    ("waiting_reconverge", ("waiting to reconverge", "#56B4E9", "...")),
    ("parked", ("parked behind its warp's other path", "#0072B2", "\\\\\\")),
    ("split", ("lane groups in different states", "#F0E442", "++")),
    ("exited", ("exited", "#BBBBBB", "")),
])
_UNKNOWN_STYLE = ("other", "#FFFFFF", "oo")


# --------------------------------------------------------------------------- traces

def _runs(values):
    """Run-length encode a list: [(start, length, value), ...]."""
    runs = []
    start = 0
    for i in range(1, len(values) + 1):
        if i == len(values) or values[i] != values[start]:
            runs.append((start, i - start, values[start]))
            start = i
    return runs


def trace_figure(trace, *, title="Warps over time", blocks=None, max_rows=48,
                 show_lines=True, end_label=None, figsize=None):
    """Draw a trace as warps (rows) x trace steps (columns).

    Each row is one warp, labelled ``block b / warp w``. Bars are coloured *and* hatched
    by the warp's state; where a bar is wide enough it carries the source line (``line 12``,
    or ``12`` on a short bar; the legend says so).
    A black triangle marks the step where a warp arrives at a block barrier; a dashed
    vertical line marks a step where a barrier released (its arrival count fell back).
    The top panel shows each barrier's arrival count over time. ``end_label`` (e.g. the
    ``kind`` of a ``KernelFault`` that ended the launch) is written at the right edge.

    ``trace`` needs ``.steps``; each step needs ``.warps`` (``WarpState``-like objects with
    ``block``, ``warp``, ``line``, ``state``; one per lane group is fine) and ``.barriers``
    (a dict ``(block, barrier_id) -> arrivals``, a count or a collection of threads).
    """
    import matplotlib.pyplot as plt

    rows, states, lines = warp_timeline(trace, blocks)
    hidden = max(0, len(rows) - max_rows)
    rows, states, lines = rows[:max_rows], states[:max_rows], lines[:max_rows]
    nsteps = len(trace.steps)
    nrows = max(1, len(rows))
    if figsize is None:
        figsize = (10, 1.6 + 0.32 * nrows + 1.2)
    fig, (ax_bar, ax) = plt.subplots(
        2, 1, sharex=True, figsize=figsize,
        gridspec_kw={"height_ratios": [1.2, max(2.0, 0.32 * nrows)]})

    used_states, arrivals = _draw_warp_bars(ax, rows, states, lines, nsteps, show_lines, hidden)
    releases = _draw_barrier_counts(ax_bar, trace, blocks, nsteps)
    for s in sorted(releases):
        ax.axvline(s, color="black", linestyle="--", linewidth=0.8)
        ax_bar.axvline(s, color="black", linestyle="--", linewidth=0.8)
    if end_label:
        ax.axvline(nsteps, color="black", linewidth=2)
        ax.text(nsteps, nrows - 0.3, f" {end_label}", ha="right", va="bottom", fontsize=9,
                fontweight="bold", bbox=dict(boxstyle="round,pad=0.2", fc="white", ec="black"))
    ax_bar.set_title(title)
    _trace_legend(fig, used_states, arrivals, releases, figsize)
    return fig


def _draw_warp_bars(ax, rows, states, lines, nsteps, show_lines, hidden):
    """The lower panel of ``trace_figure``: one row of state bars per warp, a triangle where
    a warp arrives at a block barrier. Returns (states drawn, whether any warp arrived)."""
    from matplotlib.ticker import MaxNLocator

    nrows = max(1, len(rows))
    used_states = []
    bars = {}                                   # state -> its rectangles, drawn as one collection
    arrivals_x, arrivals_y = [], []
    for r, (row_states, row_lines) in enumerate(zip(states, lines)):
        y = nrows - 1 - r                       # first warp at the top
        for start, length, (state, line) in _runs(list(zip(row_states, row_lines))):
            if state is None:
                continue
            if state not in used_states:
                used_states.append(state)
            bars.setdefault(state, []).append(_rectangle(start, length, y))
            if (show_lines and line and state != "exited"
                    and length >= max(2, nsteps / 40)):
                # "line 8" where the bar has room, else the bare number (the legend says
                # that numbers on bars are source lines)
                text = f"line {line}" if length >= max(3, nsteps / 18) else f"{line}"
                ax.text(start + length / 2, y, text, ha="center", va="center",
                        fontsize=7, color="black",
                        bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.8))
        for s in range(len(row_states)):
            prev = row_states[s - 1] if s else None
            if row_states[s] == "waiting_barrier" and prev != "waiting_barrier":
                arrivals_x.append(s)
                arrivals_y.append(y + 0.45)
    _draw_state_bars(ax, bars)
    if arrivals_x:
        ax.plot(arrivals_x, arrivals_y, linestyle="none", marker="v", color="black",
                markersize=6)
    ax.set_yticks(range(nrows))
    ax.set_yticklabels([f"block {b} / warp {w}" for b, w in reversed(rows)] or [""],
                       fontsize=8)
    ax.set_ylim(-0.7, nrows - 0.3)
    ax.set_xlim(0, max(1, nsteps))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("trace step (scheduler decisions, not clock cycles)")
    if hidden:
        ax.set_ylabel(f"{hidden} more warps not shown", fontsize=8)
    return used_states, bool(arrivals_x)


def _rectangle(start, length, y, height=0.8):
    """The corners of one state bar: steps [start, start + length) on the row centred at y."""
    bottom, top = y - height / 2, y + height / 2
    return [(start, bottom), (start + length, bottom), (start + length, top), (start, top)]


def _draw_state_bars(ax, bars):
    """One collection per warp state (its colour and hatch): a trace of thousands of bars
    costs a few artists instead of one per bar, which is what made a trace figure slow."""
    from matplotlib.collections import PolyCollection

    for state, rectangles in bars.items():
        label, colour, hatch = STATE_STYLE.get(state, _UNKNOWN_STYLE)
        ax.add_collection(PolyCollection(rectangles, facecolors=colour, edgecolors="black",
                                         linewidths=0.4, hatch=hatch), autolim=False)


def _draw_barrier_counts(ax_bar, trace, blocks, nsteps):
    """The upper panel of ``trace_figure``: each barrier's arrival count over time. Returns
    the steps at which a count fell back (a barrier released)."""
    series = OrderedDict()
    keep = keep_blocks(blocks)
    for s, step in enumerate(trace.steps):
        for key, arrived in (getattr(step, "barriers", None) or {}).items():
            blk, bid = key
            if keep is not None and block_key(blk) not in keep:
                continue
            series.setdefault((block_key(blk), bid), [0] * nsteps)[s] = arrival_count(arrived)
    series = OrderedDict((k, v) for k, v in series.items() if max(v) > 0)
    styles = ["-", "--", "-.", ":"]
    releases = set()
    for k, ((blk, bid), counts) in enumerate(series.items()):
        ax_bar.step(range(nsteps), counts, where="post", linestyle=styles[k % len(styles)],
                    color="black" if k == 0 else None, label=f"block {blk}, barrier {bid}")
        for s in range(1, nsteps):
            if counts[s] < counts[s - 1]:
                releases.add(s)
    ax_bar.set_ylabel("threads\narrived", fontsize=8)
    if series:
        ax_bar.legend(fontsize=7, loc="upper left", ncol=min(4, len(series)))
    else:
        ax_bar.text(0.5, 0.5, "no barrier arrivals in this trace", transform=ax_bar.transAxes,
                    ha="center", va="center", fontsize=9)
    return releases


def _trace_legend(fig, used_states, arrivals, releases, figsize):
    """The legend under ``trace_figure``: every state drawn, plus the markers used."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    order = list(STATE_STYLE)
    used_states = sorted(used_states, key=lambda st: order.index(st) if st in order else len(order))
    handles = [Patch(facecolor=STATE_STYLE.get(s, _UNKNOWN_STYLE)[1], edgecolor="black",
                     hatch=STATE_STYLE.get(s, _UNKNOWN_STYLE)[2],
                     label=STATE_STYLE.get(s, (s,))[0]) for s in used_states]
    if arrivals:
        handles.append(Line2D([], [], linestyle="none", marker="v", color="black",
                              label="arrives at barrier"))
    if releases:
        handles.append(Line2D([], [], linestyle="--", color="black", label="barrier released"))
    handles.append(Patch(facecolor="white", edgecolor="none",
                         label="numbers on bars: the kernel's source line"))
    ncol = min(3, max(1, len(handles)))
    fig.legend(handles=handles, fontsize=8, loc="lower center", ncol=ncol, frameon=False)
    legend_rows = -(-len(handles) // ncol)
    fig.tight_layout(rect=(0, min(0.4, (0.25 * legend_rows + 0.1) / figsize[1]), 1, 1))


def annotate_lanes(fig, trace, block=0):
    """Write the number of active lanes on every bar of a ``trace_figure`` where a warp ran
    with fewer than 32 lanes (a divergent pass). Returns ``fig``."""
    rows, _, _ = warp_timeline(trace, blocks=block)
    ax = fig.axes[1]
    nrows = max(1, len(rows))
    for s, step in enumerate(trace.steps):
        if step.event != "step":
            continue
        for w in step.warps:
            key = (block_key(w.block), int(w.warp))
            if w.state != "running" or key not in rows:
                continue
            lanes = popcount(w.active_mask)
            if lanes < WARP_SIZE:
                y = nrows - 1 - rows.index(key)
                ax.text(s + 0.5, y, f"{lanes}\nlanes", ha="center", va="center", fontsize=7,
                        bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="black", lw=0.5))
    return fig


# --------------------------------------------------------------------------- read maps

def read_map_figure(read_from, *, warp_size=32, title=None, max_arrows=64, figsize=(10, 5.5)):
    """Which thread reads the element which thread wrote.

    ``read_from[t]`` is the index of the shared-memory element that thread ``t`` reads,
    written (before the barrier) by thread ``read_from[t]``. For the tile reversal that is
    ``blockDim.x - 1 - t``.

    Top: two rows of threads (writers above, readers below) with an arrow from writer to
    reader; solid arrows stay inside one warp, dashed arrows cross warps. Warps are
    shaded bands labelled ``warp k``. With more than ``max_arrows`` threads only every
    k-th arrow is drawn (the subtitle says so). Bottom: how many reads each warp makes
    from each warp's writes, as a table of numbers on a grey scale.
    """
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    read_from = np.asarray(read_from, dtype=int)
    n = len(read_from)
    nwarps = (n + warp_size - 1) // warp_size
    fig, (ax, ax_m) = plt.subplots(2, 1, figsize=figsize,
                                   gridspec_kw={"height_ratios": [1.3, 1.0]})
    # warp bands
    for w in range(nwarps):
        lo, hi = w * warp_size - 0.5, min(n, (w + 1) * warp_size) - 0.5
        ax.axvspan(lo, hi, color="#EEEEEE" if w % 2 == 0 else "#FFFFFF", zorder=0)
        ax.text((lo + hi) / 2, 1.32, f"warp {w}", ha="center", va="bottom", fontsize=8)
        if w:
            ax.axvline(lo, color="black", linewidth=0.8, zorder=1)
    step = max(1, -(-n // max_arrows))
    shown = range(0, n, step)
    crossing = 0
    for t in range(n):
        if read_from[t] // warp_size != t // warp_size:
            crossing += 1
    for t in shown:
        src = read_from[t]
        same = src // warp_size == t // warp_size
        ax.annotate("", xy=(t, 0.08), xytext=(src, 0.92),
                    arrowprops=dict(arrowstyle="->", color="#0072B2" if same else "#D55E00",
                                    linestyle="-" if same else "--", linewidth=0.9,
                                    shrinkA=0, shrinkB=0), zorder=2)
    ax.scatter(np.arange(n), np.ones(n), s=12 if n <= 256 else 4, color="black", zorder=3)
    ax.scatter(np.arange(n), np.zeros(n), s=12 if n <= 256 else 4, color="black", zorder=3)
    ax.set_yticks([0, 1])
    ax.set_yticklabels(["reader thread t\nreads tile[...]", "writer thread\nwrites tile[t]"],
                       fontsize=8)
    ax.set_ylim(-0.25, 1.55)
    ax.set_xlim(-0.5, n - 0.5)
    ax.set_xlabel("thread index in the block (threadIdx.x)", loc="left")
    sub = f"{n} threads, {nwarps} warp{'s' if nwarps != 1 else ''}; " \
          f"{crossing} of {n} reads cross a warp boundary"
    if step > 1:
        sub += f" (arrows for 1 thread in {step})"
    ax.set_title((title + "\n" if title else "") + sub, fontsize=10)
    ax.legend(handles=[
        Line2D([], [], color="#0072B2", linestyle="-", label="read inside own warp"),
        Line2D([], [], color="#D55E00", linestyle="--", label="read from another warp")],
        # on the x label's line, right of it: above the panel it covered the title
        fontsize=8, loc="upper right", bbox_to_anchor=(1.0, -0.11), ncol=2, frameon=False)

    # warp-to-warp matrix
    m = np.zeros((nwarps, nwarps), dtype=int)
    for t in range(n):
        m[t // warp_size, read_from[t] // warp_size] += 1
    ax_m.imshow(m, cmap="Greys", vmin=0, vmax=max(1, m.max()) * 1.6, aspect="auto")
    if nwarps <= 16:
        for i in range(nwarps):
            for j in range(nwarps):
                if m[i, j]:
                    ax_m.text(j, i, str(m[i, j]), ha="center", va="center", fontsize=8)
    ax_m.set_xlabel("warp that wrote the element")
    ax_m.set_ylabel("warp that reads it")
    ax_m.set_title("reads per (reader warp, writer warp)", fontsize=9)
    ticks = range(nwarps) if nwarps <= 16 else range(0, nwarps, max(1, nwarps // 8))
    ax_m.set_xticks(list(ticks))
    ax_m.set_yticks(list(ticks))
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------- costs

def load_barrier_costs(path=None):
    """The H200 barrier measurements shipped with the course (course/data/h200-barrier.json,
    the one copy of them)."""
    path = path or course_data_file("h200-barrier.json")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path} is missing: the H200 measurements ship with the course folder "
                                "(run the notebook from a checkout of the course)")
    with open(path) as f:
        return json.load(f)


def barrier_cost_figure(data=None, *, figsize=(10, 4.2)):
    """Cycles per ``__syncthreads()`` measured on an NVIDIA H200, two panels.

    Left: one block per SM, cycles vs block size, with all warps arriving together
    (skew 0) and with warp w arriving 20*w cycles late (skew 20). Right: 1024 threads per
    SM split into blocks of 128..1024 threads. ``data`` is the parsed JSON (default: the
    shipped file) or a path.
    """
    import matplotlib.pyplot as plt

    if data is None or isinstance(data, (str, os.PathLike)):
        data = load_barrier_costs(data)
    dev = data.get("device", {})
    device = f"{dev.get('name', 'GPU')} (sm_{dev.get('compute_capability', '?').replace('.', '')})"
    fig, axes = plt.subplots(1, 2, figsize=figsize, sharey=True)
    panels = [("one_block_per_sm", "one block per SM"),
              ("1024_threads_per_sm", "1024 threads per SM, split into blocks")]
    styles = {0: dict(marker="o", linestyle="-", color="#0072B2"),
              20: dict(marker="s", linestyle="--", color="#D55E00")}
    for ax, (key, label) in zip(axes, panels):
        rows = data.get(key, [])
        for skew in sorted({r["skew"] for r in rows}):
            pts = sorted((r["block"], r["cycles"]) for r in rows if r["skew"] == skew)
            xs, ys = zip(*pts)
            name = "all warps arrive together" if skew == 0 else \
                f"warp w arrives {skew}*w cycles late"
            ax.plot(xs, ys, label=name, **styles.get(skew, dict(marker="^")))
            # on-time values below their points, late ones above: the two curves meet at
            # small blocks, and labels on the same side would sit on the other curve's marks
            below = skew == 0
            for x, y in pts:
                ax.annotate(f"{y:.0f}", (x, y), textcoords="offset points",
                            xytext=(0, -9 if below else 7), ha="center",
                            va="top" if below else "bottom", fontsize=7)
        ax.set_xscale("log", base=2)
        xt = sorted({r["block"] for r in rows})
        ax.set_xticks(xt)
        ax.set_xticklabels([str(x) for x in xt])
        ax.set_xlabel("threads per block")
        ax.set_title(label, fontsize=10)
        ax.grid(True, which="major", linestyle=":", linewidth=0.6)
        ax.legend(fontsize=8, loc="upper left")
    lo, hi = axes[0].get_ylim()                 # room for the labels above the top points
    axes[0].set_ylim(min(0, lo), hi + 0.1 * (hi - lo))
    axes[0].set_ylabel("cycles per __syncthreads()")
    fig.suptitle(f"Barrier cost MEASURED on an {device}: median cycles per barrier",
                 fontsize=11)
    fig.tight_layout()
    return fig
