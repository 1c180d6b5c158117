"""The one grading helper behind every autograded test cell of the course.

A test cell calls :func:`check_kernel` with the student's CUDA source, the kernel's name, a
function that builds the launch (``make_args``) and a numpy reference (``reference``).
``check_kernel`` then launches the kernel many times on the simulator, with every check on:

* several block sizes (``block_sizes``);
* several problem sizes per block size (``sizes``; by default a short tail ``n < blockDim``,
  ``n = 2*blockDim`` and ``n = 2*blockDim + 1``);
* seeded random inputs (``seeds``);
* the simulator's default schedule and the adversarial one (``schedules``), which runs one
  warp at a time to its next barrier so that a missing barrier gives wrong *numbers*;
* and, when a GPU and CuPy are present, once more on the GPU (only after every simulator
  run passed: a kernel that deadlocks must not be started on a real GPU).

It raises :class:`KernelCheckFailed` (an ``AssertionError``) with a message a student can act
on, the simulator's fault report first (it already says what, which line and how to fix
it), or the first wrong elements with the expected and actual values, then the launch
configuration. IPython shows that message instead of a traceback (``_render_traceback_``).
A kernel that still contains the exercise's stub raises :class:`ExerciseNotDone` (a
``NotImplementedError``, one line) before anything is compiled. Warnings are printed on
stdout as notes and never fail a test.

:func:`try_kernel` is the friendly twin for "try it" cells: one launch, printed results,
never raises for the student's mistakes. :func:`summary`, in an exercise's last cell, prints
the points per test cell after *Run All Cells*, counting only tests run for the answer as it
is now. In the student's own kernel (neither nbgrader nor the isolated grader runs it:
:func:`student_session`) a failing test still shows its report as the cell's error, but does
not stop *Run All Cells*: every test runs and the summary comes last.

Graded scores do not come from running these calls in the student's notebook: the grader
(:mod:`barrier_course.grading.autograde`) reads the kernel source out of the answer cell and runs the
instructor's test cells in a separate, limited interpreter.
"""

from __future__ import annotations

import contextlib
import glob
import os
import sys
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from .exercise_notebook import STUB_MARKER, assigned_string_names, code_cells

__all__ = [
    "STUB_MARKER",
    "refuse_unfinished",
    "build_case",
    "fresh_args",
    "KernelCheckFailed",
    "ExerciseNotDone",
    "summary",
    "Case",
    "check_kernel",
    "try_kernel",
    "default_sizes",
    "describe_size",
    "gpu_available",
    "gpu_status",
]

DEFAULT_BLOCK_SIZES = (32, 64, 128, 256)
DEFAULT_SCHEDULES = ("lockstep", "adversarial")
MAX_WRONG_SHOWN = 5


def _simcore():
    try:
        import simcore  # noqa: PLC0415 (imported lazily so that this module always imports)
    except Exception as exc:  # pragma: no cover - depends on the installation
        raise RuntimeError(
            "The simulator package 'simcore' could not be imported, so nothing can be "
            f"graded: {type(exc).__name__}: {exc}. Install the course with "
            "'python3 tasks.py course' (or pip install -e '.[course]')."
        ) from exc
    return simcore


def gpu_status() -> tuple:
    """(usable, reason): can the kernel also run on a GPU through CuPy here?

    Follows ``simcore.gpu_available()``, which returns ``(bool, reason)`` (a plain bool is
    accepted too). ``BARRIER_COURSE_NO_GPU=1`` turns the GPU runs off.
    """
    if os.environ.get("BARRIER_COURSE_NO_GPU"):
        return False, "BARRIER_COURSE_NO_GPU is set"
    try:
        simcore = _simcore()
    except RuntimeError as exc:
        return False, str(exc)
    probe = getattr(simcore, "gpu_available", None)
    if not callable(probe):
        return False, "this simcore has no gpu_available()"
    try:
        answer = probe()
    except Exception as exc:
        return False, f"simcore.gpu_available() failed: {type(exc).__name__}: {exc}"
    if isinstance(answer, tuple):
        return bool(answer[0]), str(answer[1]) if len(answer) > 1 else ""
    return bool(answer), ""


def gpu_available() -> bool:
    """True when a CUDA GPU and CuPy are usable (see :func:`gpu_status`)."""
    return gpu_status()[0]


class KernelCheckFailed(AssertionError):
    """A test of the student's kernel failed; the message is the whole explanation.

    IPython shows ``_render_traceback_`` instead of a traceback, so the student reads the
    simulator's report (what, which line of their kernel, how to fix it), not the grader's
    own call stack.
    """

    def _render_traceback_(self):
        return [f"\x1b[0;31mTest failed\x1b[0m: {line}" if k == 0 else line
                for k, line in enumerate(str(self).split("\n"))]


class ExerciseNotDone(NotImplementedError):
    """The answer cell still holds the placeholder: one line, no traceback."""

    def _render_traceback_(self):
        return [f"\x1b[0;33m{self}\x1b[0m"]


_SHOWN_WARNINGS: set = set()


@contextlib.contextmanager
def _warnings_to_stdout():
    """Show each warning once, on stdout, as a note.

    SimWarnings describe legal code. On stderr they would cost the cell its points
    (nbgrader scores a graded cell that wrote to stderr as 0); a warning never costs a point.
    """
    launch_notes = []                 # every warning of this launch, shown before or not
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield launch_notes
    launch_notes.extend(str(w.message) for w in caught)
    for w in caught:
        text = str(w.message)
        if text in _SHOWN_WARNINGS:
            continue
        _SHOWN_WARNINGS.add(text)
        print(f"Note ({w.category.__name__}, costs no points): {text}")


def refuse_unfinished(source: Any, kernel_name: str) -> None:
    """Raise before anything compiles: TypeError for a source that is not a string,
    :class:`ExerciseNotDone` for one that still holds the stub or lacks the kernel."""
    if not isinstance(source, str):
        raise TypeError(
            f"check_kernel expects the kernel's CUDA source as a string, got {type(source).__name__}."
        )
    if STUB_MARKER in source:
        raise ExerciseNotDone(
            f"Exercise not done yet: replace the line {STUB_MARKER}(...); in the answer cell "
            f"of '{kernel_name}' with your code, run that cell, then this one."
        )
    if "__global__" not in source or kernel_name not in source:
        raise ExerciseNotDone(
            f"Exercise not done yet: the source does not define the kernel '{kernel_name}'."
        )


# --------------------------------------------------------------------------------------------
# launch cases


@dataclass
class Case:
    """One launch: everything needed to run it and to explain it."""

    n: int
    block: int
    seed: int
    grid: tuple
    args: tuple
    shared_mem: int = 0
    expected: dict = field(default_factory=dict)
    #: what ``n`` means for this exercise, in words (``make_args`` may return it as "about");
    #: empty: ``n`` is a number of elements split into blocks (:func:`describe_size`)
    about: str = ""

    def describe(self) -> str:
        size = self.about or f"n={self.n} ({describe_size(self.n, self.block)})"
        return (
            f"grid={self.grid}, block=({self.block},), {size}, shared_mem={self.shared_mem} bytes, "
            f"input seed {self.seed}"
        )


def default_sizes(block: int) -> tuple:
    """The problem sizes tried for one block size: a short tail, an exact fit, one past."""
    return (max(1, block // 2 + 3), 2 * block, 2 * block + 1)


def describe_size(n: int, block: int) -> str:
    """Say in words how ``n`` splits into blocks of ``block`` threads."""
    full, rest = divmod(n, block)
    if n < block:
        return f"n < blockDim: one block, threads {n}..{block - 1} are past the end"
    if rest == 0:
        return f"n = {full}*blockDim: every block is full, no tail"
    return (
        f"n = {full}*blockDim + {rest}: the last block has {rest} element(s) and "
        f"{block - rest} thread(s) past the end"
    )


def _as_tuple(x) -> tuple:
    if isinstance(x, (int, np.integer)):
        return (int(x),)
    return tuple(int(v) for v in x)


def build_case(make_args, reference, n, block, seed) -> Case:
    """The launch for problem size ``n``, ``block`` threads per block and input ``seed``:
    ``make_args``' grid, arguments and shared memory, and ``reference``'s expected outputs
    (computed from a copy of the arguments taken before any launch)."""
    rng = np.random.default_rng([int(seed), int(n), int(block)])
    made = make_args(n, block, rng)
    about = ""
    if isinstance(made, Mapping):
        grid, args, shared_mem = made["grid"], made["args"], made.get("shared_mem", 0)
        about = str(made.get("about", ""))
    else:
        made = tuple(made)
        if len(made) == 2:
            (grid, args), shared_mem = made, 0
        elif len(made) == 3:
            grid, args, shared_mem = made
        else:
            raise ValueError("make_args must return (grid, args) or (grid, args, shared_mem)")
    args = tuple(args)
    before = tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args)
    expected = reference(before, n, block)
    if not isinstance(expected, Mapping):
        raise ValueError("reference must return a dict {argument position or name: expected array}")
    return Case(n=int(n), block=int(block), seed=int(seed), grid=_as_tuple(grid), args=args,
                shared_mem=int(shared_mem), expected=dict(expected), about=about)


def fresh_args(case: Case) -> tuple:
    """A copy of the case's arguments for one launch (a launch writes into its arrays)."""
    return tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in case.args)


# --------------------------------------------------------------------------------------------
# running and comparing


def _param_names(kernel, count: int) -> list:
    names = []
    try:
        params = list(kernel.params)
        names = [getattr(p, "name", None) or f"arg{k}" for k, p in enumerate(params)]
    except Exception:
        pass
    while len(names) < count:
        names.append(f"arg{len(names)}")
    return names


def _resolve(key, names) -> int:
    if isinstance(key, (int, np.integer)):
        return int(key)
    if key in names:
        return names.index(key)
    raise KeyError(f"reference names the argument {key!r}, but the kernel's parameters are {names}")


def _compare(got: np.ndarray, want: np.ndarray, rtol: float, atol: float):
    """Return (number wrong, list of (index, expected, got)), by the project's one comparison
    (``simcore.compare.array_difference``: integers exactly, floats within rtol/atol, a NaN
    agrees only with a NaN)."""
    _simcore()
    from simcore.compare import array_difference  # noqa: PLC0415 (after the friendly import check)

    diff = array_difference(got, want, rtol, atol, max_examples=MAX_WRONG_SHOWN)
    return diff.wrong, list(diff.examples)


def _fmt(v) -> str:
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, np.generic):
        return repr(v.item())
    return repr(v)


def _where(backend: str, schedule: str | None, sim_options: Mapping) -> str:
    if backend != "sim":
        return f"on the GPU (backend {backend!r})"
    bits = [f"schedule {schedule!r}"]
    if sim_options.get("model"):
        bits.append(f"model {sim_options['model']!r}")
    return "on the simulator (" + ", ".join(bits) + ")"


def _sim_options(checks, model) -> dict:
    """The simulator's launch options shared by every launch of one check or try."""
    options: dict = {"checks": checks}
    if model is not None:
        options["model"] = model
    return options


def _launch_options(backend: str, schedule: str | None, sim_options: Mapping) -> dict:
    """The keyword options of one launch: the simulator's and its schedule; none on a GPU."""
    if backend != "sim":
        return {}
    return {**sim_options, "schedule": schedule}


def _run_one(kernel, kernel_name, case, backend, schedule, sim_options, rtol, atol):
    simcore = _simcore()
    compile_error = getattr(simcore, "CompileError", ())
    launch_error = getattr(simcore, "LaunchError", ())
    kernel_fault = getattr(simcore, "KernelFault", ())
    args = fresh_args(case)
    options = _launch_options(backend, schedule, sim_options)
    where = _where(backend, schedule, sim_options)
    header = f"Kernel '{kernel_name}' failed {where}.\nLaunch: {case.describe()}."
    try:
        with _warnings_to_stdout() as launch_notes:
            kernel(case.grid, (case.block,), args, shared_mem=case.shared_mem, **options)
    except kernel_fault as exc:
        if getattr(exc, "kind", None) == "time_limit":
            # the grader's own limit, not a fault found in the student's code: say so
            raise KernelCheckFailed(
                f"The grader's time limit was reached: the simulator stopped the launch before the kernel "
                f"finished. This is not a fault found in your code (none was found), but the test cannot "
                f"give points for a result it did not see; make the kernel finish sooner (a loop that "
                f"never ends while its variables keep changing also ends here).\n\n{exc}\n\n{header}") from None
        # the simulator's report first: it names the student's line and the fix
        raise KernelCheckFailed(f"{exc}\n\n{header}") from None
    except launch_error as exc:
        raise KernelCheckFailed(f"The launch was refused: {exc}\n\n{header}") from None
    except compile_error as exc:  # some backends compile lazily
        raise KernelCheckFailed(f"Kernel '{kernel_name}' does not compile:\n{exc}") from None

    names = _param_names(kernel, len(args))
    for key, want in case.expected.items():
        pos = _resolve(key, names)
        wrong, shown = _compare(args[pos], want, rtol, atol)
        if wrong:
            name = names[pos]
            total = np.asarray(want).size
            lines = [
                f"Kernel '{kernel_name}' ran {where} without a fault report, but "
                f"'{name}' is wrong at {wrong} of {total} element(s).",
                f"Launch: {case.describe()}.",
                "First wrong elements:",
            ]
            for idx, exp, got in shown:
                lines.append(f"  {name}[{idx}]: expected {_fmt(exp)}, got {_fmt(got)}")
            for note in launch_notes:
                # a warning of the same launch often names the cause (e.g. a __syncwarp whose
                # mask is only part of the warp): the student reads it next to the wrong numbers
                lines.append(f"The simulator noted during this launch: {note}")
            if backend == "sim" and schedule == "adversarial":
                lines.append(
                    "The adversarial schedule runs one warp at a time up to its next barrier: "
                    "wrong numbers here (and right ones with the default schedule) mean a "
                    "barrier is missing or in the wrong place."
                )
            raise KernelCheckFailed("\n".join(lines))


def _compile(source, kernel_name, options, backend):
    simcore = _simcore()
    compile_error = getattr(simcore, "CompileError", ())
    try:
        module = simcore.RawModule(code=source, options=tuple(options), backend=backend)
        return module.get_function(kernel_name)
    except compile_error as exc:
        raise KernelCheckFailed(f"Kernel '{kernel_name}' does not compile:\n{exc}") from None


def check_kernel(
    source: str,
    kernel_name: str,
    *,
    make_args: Callable,
    reference: Callable,
    block_sizes: Iterable[int] = DEFAULT_BLOCK_SIZES,
    sizes: Iterable[int] | Callable[[int], Iterable[int]] | None = None,
    seeds: Iterable[int] = (0,),
    schedules: Iterable[str] = DEFAULT_SCHEDULES,
    checks: Any = True,
    model: str | None = None,
    options: Sequence[str] = (),
    rtol: float = 1e-5,
    atol: float = 1e-6,
    on_gpu: bool | None = None,
    quiet: bool = False,
    gpu: bool | None = None,
) -> None:
    """Launch ``kernel_name`` from ``source`` on many configurations; raise on the first failure.

    ``make_args(n, block, rng)`` returns ``(grid, args)`` or ``(grid, args, shared_mem)``, or
    a dict with the keys ``grid``, ``args``, ``shared_mem`` and optionally ``about`` (what ``n``
    means in this launch, in words, for the failure messages when ``n`` is not a number of
    elements); ``args`` is the tuple passed to the kernel (numpy arrays for pointers, numpy
    scalars for scalars). ``reference(args, n, block)`` gets copies of those arguments taken before the
    launch and returns ``{argument position or parameter name: expected array}``.

    ``sizes``: the problem sizes ``n``, a list or a function of the block size (default
    :func:`default_sizes`). ``on_gpu``: None = also on the GPU when one is present, False =
    never, True = required (``gpu=`` is its old spelling, kept with a DeprecationWarning:
    elsewhere ``gpu=`` names the GPU model, as in ``kernel.estimate(..., gpu="H200")``).
    Returns None on purpose: nbgrader reads a number that a test cell returns as partial credit.
    """
    on_gpu = _on_gpu_keyword(on_gpu, gpu)
    refuse_unfinished(source, kernel_name)
    _SHOWN_WARNINGS.clear()
    block_sizes = tuple(int(b) for b in block_sizes)
    schedules = tuple(schedules)
    seeds = tuple(seeds)
    sim_options = _sim_options(checks, model)

    cases = []
    for block in block_sizes:
        ns = default_sizes(block) if sizes is None else (sizes(block) if callable(sizes) else sizes)
        for n in ns:
            for seed in seeds:
                cases.append(build_case(make_args, reference, int(n), block, seed))

    passed = 0
    kernel = _compile(source, kernel_name, options, "sim")
    # schedules outermost: a plain bug shows up first under the default schedule
    for schedule in schedules:
        for case in cases:
            _run_one(kernel, kernel_name, case, "sim", schedule, sim_options, rtol, atol)
            passed += 1

    run_on_gpu = gpu_available() if on_gpu is None else bool(on_gpu)
    if on_gpu and not gpu_available():
        raise KernelCheckFailed(f"This test needs a GPU with CuPy: {gpu_status()[1]}")
    if run_on_gpu:
        gpu_kernel = _compile(source, kernel_name, options, "cupy")
        for case in cases:
            _run_one(gpu_kernel, kernel_name, case, "cupy", None, {}, rtol, atol)
            passed += 1

    if not quiet:
        where = "simulator and GPU" if run_on_gpu else "simulator"
        print(
            f"OK: '{kernel_name}' gave the right results in {passed} launches on the {where} "
            f"(block sizes {list(block_sizes)}, schedules {list(schedules)})."
        )


def _on_gpu_keyword(on_gpu, gpu):
    """check_kernel's run-on-the-GPU choice from ``on_gpu=``, or from its old spelling ``gpu=``
    (a bool there; ``gpu=`` names a GPU model in the timing API), which still works."""
    if gpu is None:
        return on_gpu
    if on_gpu is not None:
        raise TypeError("check_kernel: pass on_gpu= only (gpu= is its old name)")
    warnings.warn("check_kernel(gpu=...) is now check_kernel(on_gpu=...): gpu= names a GPU model "
                  "elsewhere (kernel.estimate(..., gpu='H200'))", DeprecationWarning, stacklevel=3)
    return gpu


def try_kernel(
    source: str,
    kernel_name: str,
    *,
    make_args: Callable,
    reference: Callable | None = None,
    n: int,
    block: int,
    seed: int = 0,
    schedule: str = "lockstep",
    checks: Any = True,
    model: str | None = None,
    options: Sequence[str] = (),
    backend: str = "sim",
    show: int = 8,
):
    """Run one launch and print what happened; never raises for a student's mistake.

    Prints the outputs; returns None (so that a notebook cell shows only the printout).
    """
    try:
        refuse_unfinished(source, kernel_name)
    except (NotImplementedError, TypeError) as exc:
        print(f"Nothing to run yet. {exc}")
        return None
    ref = reference if reference is not None else (lambda args, n, block: {})
    case = build_case(make_args, ref, n, block, seed)
    print(f"Launching '{kernel_name}': {case.describe()}, schedule {schedule!r}.")
    try:
        kernel = _compile(source, kernel_name, options, backend)
    except AssertionError as exc:
        print(exc)
        return None
    args = fresh_args(case)
    simcore = _simcore()
    kernel_fault = getattr(simcore, "KernelFault", ())
    launch_error = getattr(simcore, "LaunchError", ())
    opts = _launch_options(backend, schedule, _sim_options(checks, model))
    try:
        with _warnings_to_stdout():
            kernel(case.grid, (case.block,), args, shared_mem=case.shared_mem, **opts)
    except (kernel_fault, launch_error) as exc:
        print(exc)
        return None
    names = _param_names(kernel, len(args))
    for key, want in case.expected.items():
        pos = _resolve(key, names)
        got = np.asarray(args[pos])
        wrong, shown = _compare(got, want, 1e-5, 1e-6)
        verdict = "all right" if not wrong else f"{wrong} wrong"
        print(f"{names[pos]} = {np.array2string(got.reshape(-1)[:show])}"
              f"{' ...' if got.size > show else ''}  ({verdict})")
        for idx, exp, g in shown:
            print(f"  {names[pos]}[{idx}]: expected {_fmt(exp)}, got {_fmt(g)}")


# --------------------------------------------------------------------------------------------
# the student's own kernel: every test runs, and the summary cell scores the current answer
#
# Three kinds of kernel run an exercise's cells. The isolated grader
# (:mod:`barrier_course.grading.autograde`) sets ``BARRIER_COURSE_GRADING``; nbgrader's own runs
# (``nbgrader validate``, an autograde without the isolation) set ``NBGRADER_EXECUTION``. In
# both a failing test cell must fail: that is how nbgrader scores it. Any other IPython kernel
# is the student's own session: there a failing test still shows its report as the cell's
# error, but the cell's *execution* counts as done, so that Run All Cells goes on to the next
# test and to the summary instead of stopping at the first failure.


#: normalised source of each cell run in this kernel -> its CellRun
_CELL_RESULTS: dict = {}
#: names bound by cells that were one assignment of a string literal (answer cells look so)
_ANSWER_NAMES: set = set()
_RECORDER_INSTALLED = False
#: what a failing test raises; only these let Run All go on in a student's session
_TEST_FAILURES = (KernelCheckFailed, ExerciseNotDone)


@dataclass
class CellRun:
    """One run of a cell: did it pass, the first line of why not, and the answer it ran with
    (``{variable: digest of its string}`` for every answer-like variable bound at that time)."""

    passed: bool
    why: str
    answers: dict


def _normalise(source: str) -> str:
    return "\n".join(line.rstrip() for line in source.strip().splitlines())


def _digest(text: str) -> str:
    import hashlib  # noqa: PLC0415

    return hashlib.sha256(_normalise(text).encode("utf-8", "surrogatepass")).hexdigest()


def student_session() -> bool:
    """True unless a grader runs this kernel (the isolated grader or nbgrader itself)."""
    return not (os.environ.get("BARRIER_COURSE_GRADING") or os.environ.get("NBGRADER_EXECUTION"))


def _user_ns() -> dict:
    try:
        from IPython import get_ipython  # noqa: PLC0415

        shell = get_ipython()
    except Exception:  # pragma: no cover - no IPython
        return {}
    return getattr(shell, "user_ns", None) or {}


def _answer_digests(names) -> dict:
    ns = _user_ns()
    return {name: _digest(ns[name]) if isinstance(ns.get(name), str) else None for name in names}


def _record_cell(result) -> None:
    """IPython post_run_cell hook: remember how each cell ran and with which answer; in a
    student's session, let Run All go on past a failing test (the error stays shown)."""
    info = getattr(result, "info", None)
    source = getattr(info, "raw_cell", None)
    if not source:
        return
    error = getattr(result, "error_in_exec", None) or getattr(result, "error_before_exec", None)
    if error is None:
        _ANSWER_NAMES.update(assigned_string_names(source))
    first = ""
    if error is not None:
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
    _CELL_RESULTS[_normalise(source)] = CellRun(error is None, first,
                                                _answer_digests(sorted(_ANSWER_NAMES)))
    if isinstance(getattr(result, "error_in_exec", None), _TEST_FAILURES) and student_session():
        # ipykernel answers "ok" for a result without error_in_exec, so the front end does not
        # cancel the cells queued after this one; the report was already shown as the error
        result.error_in_exec = None


def _install_recorder() -> None:
    global _RECORDER_INSTALLED
    if _RECORDER_INSTALLED or "IPython" not in sys.modules:
        return
    try:
        from IPython import get_ipython  # noqa: PLC0415

        shell = get_ipython()
        if shell is not None:
            shell.events.register("post_run_cell", _record_cell)
            _RECORDER_INSTALLED = True
    except Exception:  # pragma: no cover - an IPython without events
        pass


def _notebook_cells(path: str) -> tuple:
    """(test cells as (grade_id, points, source), the answer cells' variable names)."""
    tests, answer_names = [], []
    for _, meta, src in code_cells(path):
        if meta.get("solution"):
            answer_names += assigned_string_names(src)
        elif meta.get("grade"):
            tests.append((meta.get("grade_id", "?"), float(meta.get("points", 0)), src))
    return tests, answer_names


def _property(source: str, grade_id: str) -> str:
    """What a test cell checks: its first comment line, else its name."""
    for line in source.splitlines():
        if line.strip().startswith("#"):
            return line.strip().lstrip("#").strip()
    return grade_id.replace("_", " ")


NOT_THIS_VERSION = "not run for this version of your answer: run this test again (or Run All)"


def _verdict(run: CellRun | None, answer_names, current: dict, points: float) -> tuple:
    """(points earned, what the summary says) for one test cell."""
    if run is None:
        return 0.0, f"- / {points:g}  not run yet"
    names = answer_names or sorted(run.answers)
    if any(run.answers.get(name) != current.get(name) for name in names):
        return 0.0, f"- / {points:g}  {NOT_THIS_VERSION}"
    if run.passed:
        return points, f"{points:g} / {points:g}  passed"
    return 0.0, f"0 / {points:g}  failed: {run.why}"


def summary(notebook: str | None = None) -> None:
    """Print the points per test cell (property) for the answer as it is now in this kernel.

    Put it in the last cell of an exercise: after *Run All Cells* it shows which properties
    pass, which fail (the first line of why), and the total of the visible tests. A test run
    with an earlier version of the answer (the answer cell was run again since) counts
    nothing and says so. It reads the notebook file only for the test cells' names and points
    and the answer cells' variables (default: the notebook in the current folder whose test
    cells were run). Never raises.
    """
    if not student_session():
        return None  # the grader computes the real score itself
    try:
        paths = [notebook] if notebook else sorted(glob.glob("*.ipynb"))
        best, best_hits = None, -1
        for path in paths:
            try:
                tests, answer_names = _notebook_cells(path)
            except (OSError, ValueError):
                continue
            hits = sum(_normalise(src) in _CELL_RESULTS for _, _, src in tests)
            if tests and hits > best_hits:
                best, best_hits = (tests, answer_names), hits
        if best is None or best_hits <= 0:
            print("No test results yet: run all cells (Run > Run All Cells), then this one.")
            return None
        tests, answer_names = best
        current = _answer_digests(answer_names or sorted(_ANSWER_NAMES))
        earned = possible = 0.0
        lines = []
        for gid, points, src in tests:
            possible += points
            got, said = _verdict(_CELL_RESULTS.get(_normalise(src)), answer_names, current, points)
            earned += got
            lines.append((said, _property(src, gid)))
        print("Points per property, for your answer as it is now (the visible tests; more tests "
              "run when your work is graded):")
        for said, label in lines:
            # the property in full on its own line: a label is never cut
            print(f"  {label}\n      {said}")
        print(f"Total: {earned:g} / {possible:g}")
    except Exception as exc:  # a summary must never be the student's problem
        print(f"(no summary: {type(exc).__name__}: {exc})")
    return None


_install_recorder()
