"""Block-size tuning in the course: simcore's timing model next to real H200 measurements.

``measured_sweeps()``                      the committed H200 sweeps: {sweep name: {block: ms}}
``sweep_case(kernel, size, radius, steps)`` a tuning kernel at a problem size (tuning_kernels.Case)
``model_sweep(case)``                      simcore.tune over the case's block sizes (MODEL)
``comparison(case)``                       rows: block, model ms, bound, measured ms (if committed)
``comparison_table(rows, title)``          the rows as text, every column labelled MODEL or MEASURED
``measure_on_gpu(case)``                   {block: ms} measured live with CuPy, or None without a GPU
``tuning_explorer()``                      ipywidgets: kernel, problem size, radius/steps -> the table

Model figures are estimates (simcore.perf, parameters in simcore/data/gpus.json); measured
figures come from course/data/h200-block-sweeps.json (tools/measure_block_sizes.py) or from
the GPU in front of you.
"""
from __future__ import annotations

import json
import pathlib
import statistics

import numpy as np

from barrier_course import tuning_kernels

__all__ = ["measured_sweeps", "sweep_case", "model_sweep", "comparison", "comparison_table",
           "measure_on_gpu", "tuning_explorer", "KERNELS", "SIZES"]

DATA_FILE = pathlib.Path(__file__).resolve().parent.parent / "course" / "data" / "h200-block-sweeps.json"
# kernels a student can sweep in the explorer (the 2-D ones have fixed shapes)
KERNELS = ("copy", "stencil_1d", "stencil_steps", "tree_sum_atomic", "shuffle_sum_atomic", "block_scan")
SIZES = tuple(1 << k for k in (16, 18, 20, 22, 24))


def measured_sweeps(path=None):
    """{sweep name: {block: median ms}} measured on an H200 (course/data/h200-block-sweeps.json)."""
    path = pathlib.Path(path or DATA_FILE)
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
    """Rows {block, model_ms, bound, measured_ms (None when not measured)} for `case`."""
    sweep = sweep or model_sweep(case)
    if measured is None:
        measured = measured_sweeps().get(case.name, {})
    return [{"block": b, "model_ms": e.time_ms, "bound": e.bound, "breakdown": e.breakdown,
             "measured_ms": measured.get(b)} for b, e in sweep.rows]


def comparison_table(rows, title=""):
    """Text table: MODEL estimate and MEASURED time per block size, with the best of each."""
    model_best = min(rows, key=lambda r: r["model_ms"])["block"]
    have = [r for r in rows if r["measured_ms"] is not None]
    measured_best = min(have, key=lambda r: r["measured_ms"])["block"] if have else None
    lines = [title] if title else []
    lines.append(f"{'block':>6} {'MODEL ms':>10} {'model bound':>12} {'MEASURED ms':>12}")
    for r in rows:
        m = f"{r['measured_ms']:12.4f}" if r["measured_ms"] is not None else f"{'-':>12}"
        marks = (" <- model's pick" if r["block"] == model_best else "") + \
                (" <- measured best" if r["block"] == measured_best else "")
        lines.append(f"{r['block']:6d} {r['model_ms']:10.4f} {r['bound']:>12} {m}{marks}")
    if measured_best is None:
        lines.append("(no committed H200 measurement for this kernel and size: MODEL only)")
    return "\n".join(lines)


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


def tuning_explorer(kernel="stencil_1d", size=1 << 24, radius=3, steps=8):
    """Widgets: kernel, problem size, radius (stencil_1d) and steps (stencil_steps) -> the MODEL
    table per block size, with the committed H200 measurements where they exist. The returned
    box has ``.run()`` (the text for the current settings) for notebooks run top to bottom."""
    import ipywidgets as w
    kernel_w = w.Dropdown(options=KERNELS, value=kernel, description="kernel")
    size_w = w.Dropdown(options=[(f"2^{s.bit_length() - 1}", s) for s in SIZES], value=size, description="elements")
    radius_w = w.IntSlider(value=radius, min=1, max=128, description="radius")
    steps_w = w.IntSlider(value=steps, min=2, max=32, step=2, description="steps")
    out = w.Output()

    def text():
        case = sweep_case(kernel_w.value, size_w.value, radius_w.value, steps_w.value)
        return comparison_table(comparison(case), f"{case.name}: MODEL estimate (H200) vs MEASURED (H200)")

    def show(_=None):
        out.clear_output()
        with out:
            print(text())

    for control in (kernel_w, size_w, radius_w, steps_w):
        control.observe(show, names="value")
    box = w.VBox([w.HBox([kernel_w, size_w]), w.HBox([radius_w, steps_w]), out])
    box.run = text
    show()
    return box
