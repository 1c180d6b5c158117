"""Block-size tuning in the course: simcore's timing model next to real H200 measurements.

``measured_sweeps()``                      the committed H200 sweeps: {sweep name: {block: ms}}
``sweep_case(kernel, size, radius, steps)`` a tuning kernel at a problem size (tuning_kernels.Case)
``model_sweep(case)``                      simcore.tune over the case's block sizes (MODEL)
``comparison(case)``                       rows: block, model ms, bound, measured ms (if committed)
``comparison_table(rows, title, live)``    the rows as text, every column labelled MODEL or MEASURED
``breakdown_text(estimate)``               one MODEL estimate: time, bound, each resource as a bar
``comparison_figure(rows, ...)``           MODEL vs MEASURED per block size, and one breakdown
``measure_on_gpu(case)``                   {block: ms} measured live with CuPy, or None without a GPU
``tuning_explorer()``                      ipywidgets: kernel, problem size, radius/steps, block size ->
                                           the table, the breakdown and the figure (+ a live GPU column)

Model figures are estimates (simcore.perf, parameters in simcore/data/gpus.json); measured
figures come from course/data/h200-block-sweeps.json (tools/measure_block_sizes.py) or from
the GPU in front of you.
"""
from __future__ import annotations

import json
import pathlib
import statistics

import numpy as np

from barrier_course.lessons import tuning_kernels
from barrier_course.lessons.course_data import course_data_file

__all__ = ["measured_sweeps", "sweep_case", "model_sweep", "comparison", "comparison_table",
           "measure_on_gpu", "tuning_explorer", "breakdown_text", "comparison_figure", "KERNELS", "SIZES"]

DATA_FILE = pathlib.Path(__file__).resolve().parent.parent.parent / "course" / "data" / "h200-block-sweeps.json"
# kernels a student can sweep in the explorer (the 2-D ones have fixed shapes)
KERNELS = ("copy", "stencil_1d", "stencil_steps", "tree_sum_atomic", "shuffle_sum_atomic", "block_scan")
SIZES = tuple(1 << k for k in (16, 18, 20, 22, 24))


def measured_sweeps(path=None):
    """{sweep name: {block: median ms}} measured on an H200 (course/data/h200-block-sweeps.json)."""
    path = pathlib.Path(path or course_data_file(DATA_FILE.name))
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: the H200 measurements ship with the course folder "
                                "(run the notebook from a checkout of the course)")
    data = json.loads(path.read_text())
    return {s["name"]: {r["block"]: r["median_ms"] for r in s["runs"]} for s in data["sweeps"]}


def sweep_case(kernel, size, radius=3, steps=8):
    """The tuning kernel `kernel` (see KERNELS) at `size` elements; radius is stencil_1d's,
    steps stencil_steps' (even)."""
    if kernel not in tuning_kernels.SOURCES:
        raise ValueError(f"unknown tuning kernel {kernel!r}; choose one of {', '.join(tuning_kernels.SOURCES)}")
    macros = {}
    label = kernel
    if kernel == "stencil_1d":
        macros, label = {"RADIUS": int(radius)}, f"stencil_1d_r{int(radius)}"
    elif kernel == "stencil_steps":
        if steps % 2:
            raise ValueError(f"stencil_steps needs an even number of steps, not {steps}")
        macros, label = {"STEPS": int(steps)}, f"stencil_steps_{int(steps)}"
    exp = int(size).bit_length() - 1
    tag = f"2^{exp}" if size == 1 << exp else str(size)
    if kernel in ("transpose", "matmul_tiled"):
        tag = f"{size}^2"
    blocks = (64, 256, 1024) if kernel == "matmul_tiled" else tuning_kernels.BLOCK_SIZES
    return tuning_kernels.Case(f"{label}/{tag}", kernel, int(size), macros, blocks)


def _kernel_for(case):
    import simcore

    def make(block):
        return simcore.RawModule(code=case.source, options=case.options(block), backend="sim") \
            .get_function(case.kernel)
    return make


def model_sweep(case, gpu="H200", progress=None):
    """MODEL estimates of `case` at each of its block sizes (a simcore.Sweep)."""
    import simcore
    inputs = case.make_inputs()
    return simcore.tune(_kernel_for(case), lambda b: (*case.shape(b), inputs), blocks=case.blocks,
                        gpu=gpu, progress=progress)


def comparison(case, sweep=None, measured=None):
    """Rows {block, model_ms, bound, breakdown, estimate, measured_ms (None when not measured)}."""
    sweep = sweep or model_sweep(case)
    if measured is None:
        measured = measured_sweeps().get(case.name, {})
    return [{"block": b, "model_ms": e.time_ms, "bound": e.bound, "breakdown": e.breakdown, "estimate": e,
             "measured_ms": measured.get(b)} for b, e in sweep.rows]


def comparison_table(rows, title="", live=None):
    """Text table: MODEL estimate and MEASURED time per block size, with the best of each.
    live: {block: ms} measured now on this machine's GPU (a column of its own), or None."""
    model_best = min(rows, key=lambda r: r["model_ms"])["block"]
    have = [r for r in rows if r["measured_ms"] is not None]
    measured_best = min(have, key=lambda r: r["measured_ms"])["block"] if have else None
    live_best = min(live, key=live.get) if live else None
    lines = [title] if title else []
    head = f"{'block':>6} {'MODEL ms':>10} {'model bound':>12} {'MEASURED H200 ms':>17}"
    if live:
        head += f" {'GPU NOW ms':>11}"
    lines.append(head)
    for r in rows:
        m = f"{r['measured_ms']:17.4f}" if r["measured_ms"] is not None else f"{'-':>17}"
        if live:
            m += f" {live[r['block']]:11.4f}" if r["block"] in live else f" {'-':>11}"
        marks = (" <- model's pick" if r["block"] == model_best else "") + \
                (" <- measured best" if r["block"] == measured_best else "") + \
                (" <- best on this GPU" if r["block"] == live_best else "")
        lines.append(f"{r['block']:6d} {r['model_ms']:10.4f} {r['bound']:>12} {m}{marks}")
    if measured_best is None:
        lines.append("(no committed H200 measurement for this kernel and size: MODEL only)")
    return "\n".join(lines)


def breakdown_text(estimate, width=30):
    """One MODEL estimate as text: its time, what binds, and each resource's time as a bar."""
    bd = estimate.breakdown
    top = max(bd.values()) or 1.0
    occ = estimate.occupancy
    lines = [f"MODEL estimate on the {estimate.gpu}: {estimate.time_ms:.4f} ms = launch {bd['launch']:.4f}"
             f" + {estimate.bound} {bd[estimate.bound]:.4f} (the bound) + overlap {bd['overlap']:.4f}",
             f"  {occ.blocks_per_sm} blocks per SM (limited by {occ.limiter}), {estimate.waves:.2f} waves,"
             f" {estimate.per_block['barriers']:.0f} barriers per block",
             f"  {estimate.accuracy}",
             "  each resource alone (ms, MODEL):"]
    for key, value in bd.items():
        bar = "#" * max(0, round(width * value / top))
        lines.append(f"  {key:>9} {value:8.4f} {bar}{'   <- the bound' if key == estimate.bound else ''}")
    return "\n".join(lines)


def comparison_figure(rows, title="", selected=None, live=None):
    """Left: MODEL and MEASURED time per block size (and the GPU in front of you, if `live`);
    right: the MODEL breakdown per resource of the `selected` block size."""
    import matplotlib.pyplot as plt
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 3.4), gridspec_kw={"width_ratios": [1.15, 1]})
    blocks = [r["block"] for r in rows]
    ax.plot(blocks, [r["model_ms"] for r in rows], "o-", label="MODEL (H200)")
    measured = [(r["block"], r["measured_ms"]) for r in rows if r["measured_ms"] is not None]
    if measured:
        ax.plot(*zip(*measured), "s--", label="MEASURED (H200, committed)")
    if live:
        ax.plot(sorted(live), [live[b] for b in sorted(live)], "^:", label="MEASURED now (this GPU)")
    ax.set_xscale("log", base=2)
    ax.set_xticks(blocks)
    ax.set_xticklabels([str(b) for b in blocks])
    ax.set_xlabel("threads per block")
    ax.set_ylabel("ms")
    ax.set_ylim(bottom=0)
    ax.set_title(title or "time per block size", fontsize=10)
    ax.legend(fontsize=8)
    pick = next((r for r in rows if r["block"] == selected), rows[0])
    keys = [k for k in pick["breakdown"] if k != "launch"] + ["launch"]
    values = [pick["breakdown"][k] for k in keys]
    colours = ["tab:red" if k == pick["bound"] else "tab:blue" for k in keys]
    bx.barh(keys, values, color=colours)
    bx.invert_yaxis()
    bx.set_xlabel("ms (MODEL), each resource alone")
    bx.set_title(f"MODEL breakdown at {pick['block']} threads (red: the bound)", fontsize=10)
    fig.tight_layout()
    return fig


def measure_on_gpu(case, reps=20, warmup=3):
    """{block: median ms} measured now with CuPy events, or None when no GPU is available."""
    try:
        import cupy as cp
        cp.cuda.runtime.getDeviceCount()
    except Exception:
        return None
    out = {}
    host = case.make_inputs()
    for block in case.blocks:
        kern = cp.RawModule(code=case.source, options=case.options(block)).get_function(case.kernel)
        dev = tuple(cp.asarray(a) if isinstance(a, np.ndarray) else a for a in host)
        grid, shape = case.shape(block)
        for _ in range(warmup):
            kern(grid, shape, dev)
        start, end = cp.cuda.Event(), cp.cuda.Event()
        times = []
        for _ in range(reps):
            start.record()
            kern(grid, shape, dev)
            end.record()
            end.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, end))
        out[block] = statistics.median(times)
    return out


def _full_width(control):
    """A control that fills its column, with its whole label readable."""
    import ipywidgets as w
    control.layout = w.Layout(width="100%")
    if not isinstance(control, w.Button):          # a button's label is its face, not a description
        control.style = {"description_width": "initial"}
    return control


def _wrapping_row(controls, column="320px"):
    """Controls side by side while they fit (1600 px: all of them), wrapping on narrow windows
    (800 px: two per row); each one full width in its column."""
    import ipywidgets as w
    cells = [w.Box([_full_width(c)], layout=w.Layout(flex=f"1 1 {column}", min_width="240px", width="auto"))
             for c in controls]
    return w.Box(cells, layout=w.Layout(display="flex", flex_flow="row wrap", width="100%",
                                        align_items="center", grid_gap="2px 16px"))


def _figure_png(fig):
    import io
    import matplotlib.pyplot as plt
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def tuning_explorer(kernel="stencil_1d", size=1 << 20, radius=3, steps=8, block=256):
    """Widgets: kernel, problem size, radius (stencil_1d), steps (stencil_steps) and the block
    size to look at -> the MODEL estimate per block size next to the committed H200
    measurements, and the MODEL breakdown of the chosen block size. With a GPU (CuPy), a button
    measures the kernel now and adds a column. The returned box has ``.run()`` (recompute; the
    text for the current settings) for notebooks run top to bottom; estimates are cached."""
    import html

    import ipywidgets as w
    import simcore

    kernel_w = w.Dropdown(options=KERNELS, value=kernel, description="kernel")
    size_w = w.Dropdown(options=[(f"2^{s.bit_length() - 1} elements", s) for s in SIZES], value=size,
                        description="problem size")
    radius_w = w.IntSlider(value=radius, min=1, max=128, description="radius (stencil_1d)")
    steps_w = w.IntSlider(value=steps, min=2, max=32, step=2, description="steps (stencil_steps)")
    block_w = w.SelectionSlider(options=list(tuning_kernels.BLOCK_SIZES), value=block,
                                description="block size (breakdown)")
    text = w.HTML()
    image = w.Image(format="png", layout=w.Layout(width="100%", max_width="1000px", height="auto"))
    gpu_here = simcore.gpu_available()
    measure_w = w.Button(description="measure on this GPU (CuPy)", disabled=not gpu_here,
                         tooltip="time every block size now with CuPy events (median of 20)"
                         if gpu_here else "no GPU with CuPy here")
    _full_width(measure_w)
    cache, live = {}, {}

    def current():
        case = sweep_case(kernel_w.value, size_w.value, radius_w.value, steps_w.value)
        if case.name not in cache:
            cache[case.name] = comparison(case, model_sweep(case, progress=False))
        return case, cache[case.name]

    def run(*_):
        radius_w.disabled = kernel_w.value != "stencil_1d"
        steps_w.disabled = kernel_w.value != "stencil_steps"
        case, rows = current()
        chosen = block_w.value if any(r["block"] == block_w.value for r in rows) else rows[0]["block"]
        row = next(r for r in rows if r["block"] == chosen)
        title = f"{case.name}: MODEL estimate (H200) vs MEASURED"
        table = comparison_table(rows, title, live.get(case.name))
        out = f"{table}\n\nblock size {chosen}:\n{breakdown_text(row['estimate'])}"
        text.value = ("<pre style='white-space: pre-wrap; overflow-x: auto; font-size: 12px'>"
                      + html.escape(out) + "</pre>")
        image.value = _figure_png(comparison_figure(rows, case.name, chosen, live.get(case.name)))
        return out

    def measure(_):
        case, _rows = current()
        measure_w.description, measure_w.disabled = "measuring ...", True
        try:
            result = measure_on_gpu(case)
            if result:
                live[case.name] = result
        finally:
            measure_w.description, measure_w.disabled = "measure on this GPU (CuPy)", not gpu_here
        run()

    for control in (kernel_w, size_w, radius_w, steps_w, block_w):
        control.observe(run, names="value")
    measure_w.on_click(measure)
    box = w.VBox([w.HTML("<b>Block-size tuning: simcore's timing MODEL of an H200 next to H200 "
                         "MEASUREMENTS</b>"),
                  _wrapping_row([kernel_w, size_w, block_w]), _wrapping_row([radius_w, steps_w, measure_w]),
                  text, image], layout=w.Layout(width="100%"))
    box.run = run
    run()
    return box
