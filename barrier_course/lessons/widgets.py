"""Run a kernel under chosen settings and say what happened; a small widget around that.

Two layers, so that a notebook executed top to bottom (without anyone touching a widget)
still runs the code the widget would run:

``run_case(kern, block, make_args, reference, ...)`` -> ``Outcome``
    one launch on the simulator (through ``faults.run_kernel``); the outcome is "correct",
    "wrong" (with counts and a few examples, compared by ``simcore.compare.array_difference``),
    "fault" (the ``simcore.KernelFault`` kind and first report line) or "error" (a compile
    or launch error).

``launch_explorer(source, kernel_name, make_args, reference, ...)`` -> ipywidgets box
    dropdowns for block size, schedule and checks (and optionally a checkbox that swaps
    between two kernels, e.g. with and without a barrier). Every change calls
    ``run_case`` and shows ``Outcome.summary()``. The box has ``.run()`` for calling it
    directly and ``.last_outcome`` for the latest result.

The argument factory and the reference are plain functions::

    def make_args(block):                 # -> (grid, args)
        x = np.arange(4 * block, dtype=np.float32)
        return (4,), (x, np.zeros_like(x))

    def reference(args, block):           # from the inputs, before the launch
        x = args[0]
        return x.reshape(-1, block)[:, ::-1].ravel()

``output`` says which argument is the result array (its index in ``args``).
"""

from __future__ import annotations

import functools
import html
import threading
import warnings
from dataclasses import dataclass, field

import numpy as np
from simcore.compare import array_difference

from barrier_course.lessons.faults import report_section, run_kernel

__all__ = ["Outcome", "run_case", "launch_explorer", "kernel_editor", "controls_row", "figure_image",
           "show_as_text", "BLOCK_SIZES", "SCHEDULES", "CHECKS"]

BLOCK_SIZES = (32, 64, 128, 256, 512, 1024)
SCHEDULES = ("lockstep", "round_robin", "random", "adversarial")
CHECKS = (("all checks on", True), ("checks off", False))


@dataclass
class Outcome:
    """What one launch did."""

    status: str                    # "correct" | "wrong" | "fault" | "error"
    block: int
    schedule: str
    checks: object
    kernel: str = ""
    wrong: int = 0                 # wrong elements (status "wrong")
    total: int = 0                 # elements compared
    examples: list = field(default_factory=list)   # [(index, got, expected), ...]
    kind: str | None = None        # fault kind, e.g. "race", or the error class name
    line: int | None = None        # source line of the fault, when known
    first_line: str = ""           # the fault report's title / the error message's first line
    fault: BaseException | None = None
    what: str = ""                 # the report's "what happened" paragraph (status "fault")
    fix: str = ""                  # the report's "how to fix it" paragraph (status "fault")
    source_line: str = ""          # the text of ``line`` in the launched source

    @property
    def ok(self):
        return self.status == "correct"

    def summary(self):
        """One short paragraph, plain text."""
        checks = {True: "checks on", False: "checks off"}.get(self.checks, f"checks={self.checks}")
        head = f"{self.kernel or 'kernel'}: block={self.block}, schedule={self.schedule}, {checks}"
        if self.status == "correct":
            return f"{head}\n  correct: all {self.total} elements match the numpy reference"
        if self.status == "wrong":
            pct = 100.0 * self.wrong / max(1, self.total)
            ex = ", ".join(f"out[{i}]={g:g} (expected {e:g})" for i, g, e in self.examples)
            return (f"{head}\n  WRONG: {self.wrong} of {self.total} elements differ "
                    f"({pct:.1f}%)\n  e.g. {ex}")
        if self.status == "fault":
            where = f" at line {self.line}" if self.line else ""
            text = f"{head}\n  FAULT {self.kind}{where}\n  {self.first_line}"
            if self.source_line:
                text += f"\n  line {self.line}: {self.source_line.strip()}"
            if self.what:
                text += f"\n  What happened: {self.what}"
            if self.fix:
                text += f"\n  How to fix it: {self.fix}"
            return text
        return f"{head}\n  {self.kind}: {self.first_line}"

    def _repr_html_(self):
        colour = {"correct": "#1b7837", "wrong": "#b2182b", "fault": "#b35806"}.get(
            self.status, "#555555")
        return (f'<pre style="border-left: 4px solid {colour}; padding-left: 6px; '
                f'white-space: pre-wrap; word-break: normal; overflow-wrap: break-word">'
                f"{html.escape(self.summary())}</pre>")


def run_case(kern, block, make_args, reference, *, schedule="lockstep", checks=True,
             output=1, seed=0, **sim_options):
    """Launch ``kern`` once with ``block`` threads per block and judge the result.

    ``make_args(block) -> (grid, args)``; ``reference(args, block) -> expected`` is
    computed from fresh copies of the inputs before the launch; ``args[output]`` is
    compared with it. Simulator faults and compile/launch errors are caught and reported
    in the ``Outcome``; nothing is raised for them.
    """
    import simcore

    name = getattr(kern, "name", "")
    grid, args = make_args(block)
    expected = reference(tuple(np.copy(a) if isinstance(a, np.ndarray) else a for a in args),
                         block)
    opts = dict(sim_options)
    opts.update(schedule=schedule, checks=checks)
    if schedule == "random":
        opts["seed"] = seed
    base = dict(block=block, schedule=schedule, checks=checks, kernel=name)
    run = run_kernel(kern, grid, (block,), args, **opts)
    for text in run.warnings:             # shown as a plain launch would show them
        warnings.warn(simcore.SimWarning(text), stacklevel=2)
    if run.status == "error":
        return Outcome("error", kind=type(run.fault).__name__, first_line=_first_line(run.fault),
                       fault=run.fault, **base)
    if run.fault is not None:
        lines = getattr(getattr(kern, "module", None), "code", "").splitlines()
        text = lines[run.line - 1] if run.line and 0 < run.line <= len(lines) else ""
        return Outcome("fault", kind=run.kind, line=run.line,
                       first_line=report_section(run.fault, "title"), fault=run.fault,
                       what=run.fault.report.get("explanation", ""),
                       fix=run.fault.report.get("fix", ""), source_line=text, **base)
    diff = array_difference(np.asarray(args[output]).ravel(), np.asarray(expected).ravel())
    examples = [(i, actual.item(), want.item()) for i, want, actual in diff.examples]
    return Outcome("correct" if diff.ok else "wrong", wrong=diff.wrong, total=diff.total,
                   examples=examples, **base)


def _first_line(error):
    text = str(error).strip().splitlines()
    return text[0] if text else ""


# --------------------------------------------------------------------- callbacks
# JupyterLab 4 may deliver widget messages on a kernel subshell, a second thread: two
# callbacks (or a callback and a cell) can then run at the same time. Matplotlib is not
# thread-safe (two figures drawn at once came out half drawn), so every widget callback of
# the course runs under one lock.
_CALLBACKS = threading.RLock()


def one_at_a_time(callback):
    """``callback`` run under the course's widget lock (see above)."""
    @functools.wraps(callback)
    def locked(*args, **kwargs):
        with _CALLBACKS:
            return callback(*args, **kwargs)
    return locked


# --------------------------------------------------------------------- layout
# Controls sit in a row that wraps: at 800 px (a laptop with the file browser open) they
# stack, each with a full-width track; at 1600 px they share a line. Labels take the width
# they need ("skew (cycles)", never "skew (cyc…").

def readable(control, min_width="240px"):
    """Give a control a full label and a track that grows with the row."""
    import ipywidgets as W

    try:
        control.style.description_width = "initial"
    except AttributeError:                 # a control without a description style
        pass
    control.layout = W.Layout(flex="1 1 300px", min_width=min_width, max_width="560px",
                              width="auto")
    return control


def controls_row(controls):
    """A wrapping row of controls (each made ``readable``)."""
    import ipywidgets as W

    return W.Box([readable(c) for c in controls],
                 layout=W.Layout(display="flex", flex_flow="row wrap", width="100%",
                                 align_items="center", grid_gap="4px 16px"))


def figure_image(fig=None):
    """A box for a matplotlib figure that scales with the window (``set_figure`` fills it).

    The picture is an ``<img>`` with the PNG inline, in an ``ipywidgets.HTML``: nothing
    depends on which output the kernel is writing to when a slider moves (as with an
    ``Output`` capturing ``plt.show()``), and the figure is closed once drawn."""
    import ipywidgets as W

    image = W.HTML(layout=W.Layout(width="100%"))
    image.add_class("barrier-course-figure")
    image.png = b""
    if fig is not None:
        set_figure(image, fig)
    return image


def set_figure(image, fig):
    """Draw ``fig`` into a ``figure_image`` box (or empty it with ``fig=None``)."""
    import base64
    import io

    import matplotlib.pyplot as plt

    if fig is None:
        image.png, image.value = b"", ""
        return
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    image.png = buf.getvalue()
    # the window's width up to the figure's own size: a narrow window (the file browser open)
    # shows the whole picture smaller rather than cutting off its right part
    image.value = ('<div><img alt="figure" style="width:100%; '
                   'max-width:1000px; height:auto" '
                   f'src="data:image/png;base64,{base64.b64encode(image.png).decode()}"/></div>')


def show_as_text(box, describe, picture=None):
    """Where no widget can be shown (a handout, nbconvert, a plain console), show the
    widget's *current* state: ``describe()`` -> plain text, and an HTML version with its
    picture: ``picture()`` -> HTML when given (a widget drawn as HTML, e.g. the player),
    else the figures among the widget's children. JupyterLab still shows the live widget."""
    widget_bundle = box._repr_mimebundle_

    def bundle(**kwargs):
        data = dict(widget_bundle(**kwargs) or {})
        text = describe()
        data["text/plain"] = text
        pictures = picture() if picture is not None else \
            "".join(child.value for child in _walk(box) if getattr(child, "png", b""))
        data["text/html"] = (f'<pre class="widget-summary">{html.escape(text)}</pre>'
                             + pictures)
        return data

    box._repr_mimebundle_ = bundle       # IPython looks the method up on the instance
    return box


def _walk(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _walk(child)


def launch_explorer(source, kernel_name, make_args, reference, *, output=1,
                    block_sizes=BLOCK_SIZES, schedules=SCHEDULES, checks=CHECKS,
                    toggle=None, options=(), backend="sim", block=None,
                    schedule="lockstep", title=None):
    """Build (and run once) an explorer for one kernel.

    ``kernel_name`` names the ``__global__`` function in ``source``. ``toggle`` is
    ``(description, kernel_when_checked, kernel_when_unchecked)`` and adds a checkbox
    that switches between two kernels of the same source (checked at start).
    ``checks`` is a sequence of ``(label, value)`` for the checks dropdown.
    Returns an ``ipywidgets.VBox`` with two extra attributes: ``run()`` (rerun with the
    current settings and return the ``Outcome``) and ``last_outcome``.
    """
    import ipywidgets as W
    import simcore

    module = simcore.RawModule(code=source, options=tuple(options), backend=backend)
    kernels = {}

    def get(name):
        if name not in kernels:
            kernels[name] = module.get_function(name)
        return kernels[name]

    block_w = W.Dropdown(options=list(block_sizes), value=block or block_sizes[0],
                         description="block size")
    sched_w = W.Dropdown(options=list(schedules), value=schedule, description="schedule")
    checks_w = W.Dropdown(options=list(checks), value=checks[0][1], description="checks")
    controls = [block_w, sched_w, checks_w]
    toggle_w = None
    if toggle is not None:
        toggle_w = W.Checkbox(value=True, description=toggle[0], indent=False)
        controls.append(toggle_w)
    result = W.HTML(layout=W.Layout(width="100%"))
    header = [W.HTML(f"<b>{html.escape(title)}</b>")] if title else []
    box = W.VBox(header + [controls_row(controls), result], layout=W.Layout(width="100%"))
    box.last_outcome = None
    show_as_text(box, lambda: ((title + "\n") if title else "")
                 + (box.last_outcome.summary() if box.last_outcome else ""))

    def current_kernel():
        if toggle_w is None:
            return kernel_name
        return toggle[1] if toggle_w.value else toggle[2]

    @one_at_a_time
    def run(*_):
        try:
            kern = get(current_kernel())
        except simcore.CompileError as err:
            out = Outcome("error", block=block_w.value, schedule=sched_w.value,
                          checks=checks_w.value, kernel=current_kernel(),
                          kind="CompileError", first_line=str(err).splitlines()[0], fault=err)
        else:
            out = run_case(kern, block_w.value, make_args, reference,
                           schedule=sched_w.value, checks=checks_w.value, output=output)
        box.last_outcome = out
        result.value = out._repr_html_()
        return out

    for w in controls:
        w.observe(run, names="value")
    box.run = run
    run()
    return box


def kernel_editor(source, kernel_name, make_args, reference, *, output=1,
                  block_sizes=BLOCK_SIZES, schedules=SCHEDULES, block=None,
                  schedule="lockstep", title=None, picture=True, rows=None, **sim_options):
    """The kernel's source in an editable box, with a verdict and a picture that follow it.

    The student edits ``source`` (CUDA C, the ``__global__`` function ``kernel_name``),
    presses "run on the simulator" (or changes the block size or schedule), and sees the
    simulator's verdict (``run_case``: correct / wrong / fault / compile error, on the
    simulator with every check on) and, with ``picture``, the launch's trace as a
    ``pictures.trace_figure``. Always the simulator: the verdict and the trace are its own.

    Returns an ``ipywidgets.VBox`` with ``.run()`` (rerun the current text and settings and
    return the ``Outcome``), ``.editor`` (the text box) and ``.last_outcome``.
    """
    import ipywidgets as W
    import simcore

    lines = source.strip("\n").count("\n") + 1
    editor = W.Textarea(value=source.strip("\n") + "\n",
                        layout=W.Layout(flex="1 1 auto", width="auto",
                                        height=f"{EDITOR_LINE_PX * (rows or min(lines + 1, 30)) + 12}px"))
    editor.add_class("barrier-course-kernel-editor")
    # line numbers beside the text, the same numbers as the simulator's reports (the kernel
    # is compiled from exactly this text)
    gutter = W.HTML(_line_numbers(editor.value))
    editor.observe(lambda change: setattr(gutter, "value", _line_numbers(change["new"])), names="value")
    numbered = W.HBox([W.HTML(EDITOR_CSS), gutter, editor],
                      layout=W.Layout(width="100%", align_items="flex-start"))
    block_w = W.Dropdown(options=list(block_sizes), value=block or block_sizes[0],
                         description="block size")
    sched_w = W.Dropdown(options=list(schedules), value=schedule, description="schedule")
    button = W.Button(description="run on the simulator", button_style="primary",
                      icon="play")
    result = W.HTML(layout=W.Layout(width="100%"))
    image = figure_image() if picture else None
    header = [W.HTML(f"<b>{html.escape(title)}</b>")] if title else []
    hint = W.HTML("<i>Edit the kernel, then press the button: the verdict and the picture "
                  "below are the simulator's, for the text as it stands.</i>")
    children = header + [hint, numbered, controls_row([block_w, sched_w, button]), result]
    if image is not None:
        children.append(image)
    box = W.VBox(children, layout=W.Layout(width="100%"))
    box.editor = editor
    box.line_numbers = gutter
    box.last_outcome = None
    show_as_text(box, lambda: ((title + "\n") if title else "")
                 + (box.last_outcome.summary() if box.last_outcome else ""))

    @one_at_a_time
    def run(*_):
        text = editor.value
        try:
            kern = simcore.RawModule(code=text, backend="sim").get_function(kernel_name)
        except simcore.CompileError as err:
            out = Outcome("error", block=block_w.value, schedule=sched_w.value, checks=True,
                          kernel=kernel_name, kind=type(err).__name__,
                          first_line=_first_line(err), fault=err)
            kern = None
        else:
            out = run_case(kern, block_w.value, make_args, reference, schedule=sched_w.value,
                           checks=True, output=output, trace=picture, **sim_options)
        box.last_outcome = out
        # the picture is drawn first and both are shown at once: the verdict never stands
        # next to the picture of an earlier text
        figure = _trace_figure(kern, out) if image is not None else None
        result.value = out._repr_html_()
        if image is not None:
            set_figure(image, figure)
        return out

    for w in (block_w, sched_w):
        w.observe(run, names="value")
    button.on_click(run)
    box.run = run
    run()
    return box


EDITOR_LINE_PX = 18
# one line height for the text box and its line numbers, and no wrapping (a wrapped line
# would shift every number after it)
EDITOR_CSS = (f"<style>.barrier-course-kernel-editor textarea{{font-family:monospace;font-size:13px;"
              f"line-height:{EDITOR_LINE_PX}px;white-space:pre;overflow-wrap:normal;"
              f"overflow-x:auto;padding-top:4px}}"
              f".barrier-course-line-numbers{{font-family:monospace;font-size:13px;"
              f"line-height:{EDITOR_LINE_PX}px;color:#888;text-align:right;margin:0;"
              f"padding:5px 6px 0 0;user-select:none}}</style>")


def _line_numbers(text):
    count = max(1, text.count("\n") + (0 if text.endswith("\n") else 1))
    # inline style: JupyterLab's own rules for <pre> in HTML output would win over a class
    style = (f"font-family:monospace;font-size:13px;line-height:{EDITOR_LINE_PX}px;color:#888;"
             "text-align:right;margin:0;padding:5px 6px 0 0;border:0;background:none;"
             "user-select:none")
    return (f'<pre class="barrier-course-line-numbers" style="{style}">'
            + "\n".join(str(k) for k in range(1, count + 1)) + "</pre>")


def _trace_figure(kern, outcome):
    """The launch's trace as a figure; None when there is none (a compile error)."""
    from barrier_course.lessons import pictures

    trace = getattr(getattr(kern, "last_launch", None), "trace", None)
    if kern is None or trace is None or not getattr(trace, "steps", None):
        return None
    end = outcome.kind if outcome.status == "fault" else None
    return pictures.trace_figure(trace, title=f"{outcome.kernel}: {outcome.status}",
                                 end_label=end, max_rows=16)

