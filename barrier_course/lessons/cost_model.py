"""The cost of a barrier on an H200: a model fitted to the measurements shipped with the
course (course/data/h200-barrier.json), and what it says about tile sizes.

Nothing here runs a kernel. Every figure and widget that shows the model says so: it is a
fit, not a measurement.

``measured_cycles(costs, key)``       {(block, skew): cycles} for one table of the measurements.
``fit_barrier_model(costs)``          least-squares fit of cycles per barrier (``BarrierModel``).
``halo_table(radius, model, ...)``    halo loads vs barrier cost per output, for tiles 32..1024.
``cost_model_figure``, ``exchange_figure``        the model against the measurements; the exchange rate.
``cost_model_explorer``, ``exchange_explorer``    the same with sliders.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np

__all__ = ["TILES", "BarrierModel", "fit_barrier_model", "measured_cycles", "halo_table",
           "cost_model_figure", "exchange_figure", "cost_model_explorer", "exchange_explorer"]

TILES = (32, 64, 128, 256, 512, 1024)


# --------------------------------------------------------------------- cost model

@dataclass
class BarrierModel:
    """cycles per barrier = c0 + c_warp * W + skew * (c_skew + c_late * (W - 1)),
    W = warps per block, skew = cycles by which warp w is late, times w."""

    c0: float
    c_warp: float
    c_skew: float
    c_late: float

    def cycles(self, block, skew):
        """simcore's barrier formula (simcore.perf.hardware.barrier_cycles, the timing model's):
        the last of W warps is skew * (W - 1) cycles late."""
        from simcore.perf.hardware import barrier_cycles

        w = np.ceil(np.asarray(block, dtype=float) / 32)
        skew = np.asarray(skew, dtype=float)
        return barrier_cycles(self.c0, self.c_warp, self.c_late, w, skew * (w - 1), c_skew=self.c_skew, skew=skew)

    @classmethod
    def of_gpu(cls, gpu="H200"):
        """The model the timing model uses for `gpu` (simcore/data/gpus.json; c_skew 0)."""
        from simcore.perf import get_gpu

        b = get_gpu(gpu).barrier
        return cls(b["c0"], b["c_warp"], 0.0, b["c_late"])

    def formula(self):
        return (f"cycles ≈ {self.c0:.0f} + {self.c_warp:.2f}·W + skew·({self.c_skew:.2f} + "
                f"{self.c_late:.2f}·(W−1))")


def fit_barrier_model(costs, key="one_block_per_sm"):
    """Least-squares fit of ``BarrierModel`` to the rows ``costs[key]``."""
    rows = costs[key]
    w = np.array([r["block"] / 32 for r in rows])
    s = np.array([r["skew"] for r in rows], dtype=float)
    y = np.array([r["cycles"] for r in rows])
    a = np.c_[np.ones_like(w), w, s, s * (w - 1)]
    coef, *_ = np.linalg.lstsq(a, y, rcond=None)
    return BarrierModel(*[float(c) for c in coef])


def measured_cycles(costs, key="1024_threads_per_sm"):
    """``{(block, skew): cycles}`` for one table of the measurements."""
    return {(r["block"], r["skew"]): r["cycles"] for r in costs[key]}


def halo_table(radius, model, *, skew=20.0, barriers_per_tile=2, tiles=TILES,
               threads_per_sm=1024):
    """Rows for tiles ``T`` (= threads per block, one output per thread) on an SM that
    holds ``threads_per_sm`` threads as ``threads_per_sm // T`` independent blocks.

    Each row: ``T``, ``loads_per_output`` = (T + 2r) / T, ``barrier_cycles`` (model, one
    barrier of one block), ``barrier_cycles_per_output`` = barriers_per_tile *
    barrier_cycles / threads_per_sm (all blocks of the SM wait at the same time, and
    together they produce threads_per_sm outputs per round).
    """
    rows = []
    for t in tiles:
        cyc = float(model.cycles(t, skew))
        rows.append(dict(T=t, blocks=threads_per_sm // t,
                         loads_per_output=(t + 2 * radius) / t,
                         barrier_cycles=cyc,
                         barrier_cycles_per_output=barriers_per_tile * cyc / threads_per_sm))
    return rows


# --------------------------------------------------------------------- figures

def cost_model_figure(model, costs, *, block=256, skew=20.0, barriers_per_tile=2,
                      figsize=(10, 4.2)):
    """Left: the model's cycles per barrier against block size for the chosen skew, with the
    H200 measurements (skew 0 and 20) as points. Right: barrier cycles per tile for the
    chosen block size, split into the fixed part, the per-warp part and the waiting for late
    warps."""
    import matplotlib.pyplot as plt

    fig, (ax, ax2) = plt.subplots(1, 2, figsize=figsize,
                                  gridspec_kw={"width_ratios": [1.6, 1]})
    xs = np.array(TILES)
    fine = np.geomspace(32, 1024, 60)
    ax.plot(fine, model.cycles(fine, skew), color="black", linestyle="-",
            label=f"MODEL, skew {skew:g} cycles/warp")
    marks = {0: ("o", "#0072B2"), 20: ("s", "#D55E00")}
    for s0 in (0, 20):
        pts = sorted((r["block"], r["cycles"]) for r in costs["one_block_per_sm"]
                     if r["skew"] == s0)
        mk, col = marks[s0]
        ax.plot(*zip(*pts), linestyle="none", marker=mk, color=col, markerfacecolor="none",
                label=f"MEASURED on H200 (sm_90), skew {s0}")
        ax.plot(fine, model.cycles(fine, s0), color=col, linestyle=":", linewidth=1)
    ax.axvline(block, color="grey", linestyle="--", linewidth=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xticks(xs)
    ax.set_xticklabels([str(x) for x in xs])
    ax.set_xlabel("threads per block")
    ax.set_ylabel("cycles per __syncthreads()")
    ax.set_title("cost model vs H200 measurements (one block per SM)", fontsize=10)
    ax.grid(True, linestyle=":", linewidth=0.6)
    ax.legend(fontsize=7, loc="upper left")

    w = int(np.ceil(block / 32))
    parts = [("fixed", model.c0), ("per warp", model.c_warp * w),
             ("waiting for late warps", skew * (model.c_skew + model.c_late * (w - 1)))]
    bottom = 0.0
    hatches = ["", "///", "..."]
    colours = ["#BBBBBB", "#56B4E9", "#E69F00"]
    for (name, val), h, c in zip(parts, hatches, colours):
        ax2.bar([0], [val * barriers_per_tile], bottom=bottom, color=c, hatch=h,
                edgecolor="black", label=f"{name}: {val * barriers_per_tile:.0f}")
        bottom += val * barriers_per_tile
    ax2.set_xticks([0])
    ax2.set_xticklabels([f"{block} threads = {w} warps\n{barriers_per_tile} barrier(s) per tile"])
    ax2.set_ylabel("MODEL cycles of barrier per tile")
    ax2.set_title(f"MODEL: {bottom:.0f} cycles per tile", fontsize=10)
    ax2.legend(fontsize=7, loc="upper right")
    ax2.set_ylim(0, max(bottom * 1.35, 1))
    fig.suptitle("A MODEL fitted to H200 measurements (not a measurement itself)", fontsize=11)
    fig.tight_layout()
    return fig


def exchange_figure(rows, *, radius, skew, figsize=(10, 4)):
    """Left: global loads per output vs tile size. Right: modelled barrier cycles per output."""
    import matplotlib.pyplot as plt

    t = [r["T"] for r in rows]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=figsize)
    ax1.plot(t, [r["loads_per_output"] for r in rows], marker="o", color="#0072B2",
             linestyle="-")
    for r in rows:
        ax1.annotate(f"{r['loads_per_output']:.3f}", (r["T"], r["loads_per_output"]),
                     textcoords="offset points", xytext=(0, 6), ha="center", fontsize=7)
    ax1.set_ylabel("global loads per output, (T + 2r) / T")
    ax1.set_title(f"halo traffic, radius r = {radius} (exact)", fontsize=10)
    ax2.plot(t, [r["barrier_cycles_per_output"] for r in rows], marker="s", color="#D55E00",
             linestyle="--")
    for r in rows:
        ax2.annotate(f"{r['barrier_cycles_per_output']:.2f}",
                     (r["T"], r["barrier_cycles_per_output"]),
                     textcoords="offset points", xytext=(0, 6), ha="center", fontsize=7)
    ax2.set_ylabel("barrier cycles per output (SM of 1024 threads)")
    ax2.set_title(f"MODEL of the barrier cost, skew {skew:g} cycles/warp", fontsize=10)
    for ax in (ax1, ax2):
        ax.set_xscale("log", base=2)
        ax.set_xticks(t)
        ax.set_xticklabels([str(x) for x in t])
        ax.set_xlabel("tile = threads per block, T")
        ax.grid(True, linestyle=":", linewidth=0.6)
        lo, hi = ax.get_ylim()
        ax.set_ylim(lo, hi + 0.12 * (hi - lo))
    fig.suptitle("The exchange rate: small tiles load more halo, large tiles wait longer "
                 "at each barrier", fontsize=11)
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------- widgets

def _text_block(lines):
    return "<pre>" + html.escape("\n".join(lines)) + "</pre>"


def cost_model_explorer(model, costs):
    """Sliders for block size, per-warp skew and barriers per tile; shows the model's
    prediction next to the H200 measurement where there is one. ``.run()`` recomputes and
    returns the text; the box is computed once when built."""
    import ipywidgets as W

    from barrier_course.lessons.widgets import (controls_row, figure_image, one_at_a_time, set_figure,
                                        show_as_text)

    block_w = W.SelectionSlider(options=list(TILES), value=256, description="block size")
    skew_w = W.IntSlider(value=20, min=0, max=60, step=2, description="skew (cycles)")
    bar_w = W.IntSlider(value=2, min=1, max=12, description="barriers/tile")
    text = W.HTML()
    plot = figure_image()
    title = "Barrier cost MODEL (fitted to H200 measurements)"
    box = W.VBox([W.HTML(f"<b>{title}</b>"), controls_row([block_w, skew_w, bar_w]), text,
                  plot], layout=W.Layout(width="100%"))
    shown = {"text": ""}
    show_as_text(box, lambda: f"{title}\n{shown['text']}")
    one = measured_cycles(costs, "one_block_per_sm")

    @one_at_a_time
    def run(*_):
        b, s, n = block_w.value, skew_w.value, bar_w.value
        per = float(model.cycles(b, s))
        lines = [f"MODEL: {model.formula()}",
                 f"block {b} = {b // 32} warp(s), skew {s} cycles per warp, {n} barrier(s) per tile",
                 f"  one barrier:        {per:7.0f} cycles (model)",
                 f"  barriers per tile:  {n * per:7.0f} cycles (model)"]
        if (b, s) in one:
            lines.append(f"  measured on the H200 for one barrier: {one[b, s]:.0f} cycles")
        else:
            lines.append("  (no H200 measurement at this skew: the model extrapolates)")
        text.value = _text_block(lines)
        set_figure(plot, cost_model_figure(model, costs, block=b, skew=s, barriers_per_tile=n))
        shown["text"] = "\n".join(lines)
        return shown["text"]

    for w in (block_w, skew_w, bar_w):
        w.observe(run, names="value")
    box.run = run
    run()
    return box


def exchange_explorer(model):
    """Sliders for stencil radius, per-warp skew and barriers per tile; shows the table of
    halo loads vs modelled barrier cycles per output for tiles 32..1024."""
    import ipywidgets as W

    from barrier_course.lessons.widgets import (controls_row, figure_image, one_at_a_time, set_figure,
                                        show_as_text)

    r_w = W.IntSlider(value=3, min=1, max=64, description="radius r")
    skew_w = W.IntSlider(value=20, min=0, max=60, step=2, description="skew (cycles)")
    bar_w = W.IntSlider(value=2, min=1, max=12, description="barriers/tile")
    text = W.HTML()
    plot = figure_image()
    title = "Halo loads vs barrier cost (barrier cost is a MODEL)"
    box = W.VBox([W.HTML(f"<b>{title}</b>"), controls_row([r_w, skew_w, bar_w]), text, plot],
                 layout=W.Layout(width="100%"))
    shown = {"text": ""}
    show_as_text(box, lambda: f"{title}\n{shown['text']}")

    @one_at_a_time
    def run(*_):
        rows = halo_table(r_w.value, model, skew=skew_w.value, barriers_per_tile=bar_w.value)
        lines = ["    T  blocks/SM  loads/output  barrier cycles  barrier cycles/output",
                 "                  (exact)       (model)         (model)"]
        for r in rows:
            lines.append(f"{r['T']:5d}  {r['blocks']:9d}  {r['loads_per_output']:12.3f}"
                         f"  {r['barrier_cycles']:14.0f}  {r['barrier_cycles_per_output']:21.3f}")
        text.value = _text_block(lines)
        set_figure(plot, exchange_figure(rows, radius=r_w.value, skew=skew_w.value))
        shown["text"] = "\n".join(lines)
        return shown["text"]

    for w in (r_w, skew_w, bar_w):
        w.observe(run, names="value")
    box.run = run
    run()
    return box
