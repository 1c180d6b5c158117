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

import html
import warnings
from dataclasses import dataclass, field

import numpy as np
from simcore.compare import array_difference

from barrier_course.faults import report_section, run_kernel

__all__ = ["Outcome", "run_case", "launch_explorer",
           "BLOCK_SIZES", "SCHEDULES", "CHECKS"]

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
            return f"{head}\n  FAULT {self.kind}{where}\n  {self.first_line}"
        return f"{head}\n  {self.kind}: {self.first_line}"

    def _repr_html_(self):
        colour = {"correct": "#1b7837", "wrong": "#b2182b", "fault": "#b35806"}.get(
            self.status, "#555555")
        return (f'<pre style="border-left: 4px solid {colour}; padding-left: 6px">'
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
        return Outcome("fault", kind=run.kind, line=run.line,
                       first_line=report_section(run.fault, "title"), fault=run.fault, **base)
    diff = array_difference(np.asarray(args[output]).ravel(), np.asarray(expected).ravel())
    examples = [(i, actual.item(), want.item()) for i, want, actual in diff.examples]
    return Outcome("correct" if diff.ok else "wrong", wrong=diff.wrong, total=diff.total,
                   examples=examples, **base)


def _first_line(error):
    text = str(error).strip().splitlines()
    return text[0] if text else ""


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
    result = W.HTML()
    header = [W.HTML(f"<b>{html.escape(title)}</b>")] if title else []
    box = W.VBox(header + [W.HBox(controls[:2]), W.HBox(controls[2:]), result])
    box.last_outcome = None

    def current_kernel():
        if toggle_w is None:
            return kernel_name
        return toggle[1] if toggle_w.value else toggle[2]

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
