"""Grade the kernel, not the notebook: the isolated scorer behind every grading path.

A submitted notebook is Python the student controls: run it and the student can rebind
``check_kernel``, patch numpy, install an AST transformer or rewrite the installed package.
The answer of every exercise is CUDA source, so the grader reads *that* and nothing else:

1. :func:`extract_answers` reads the answer cell(s) of the submitted notebook without running
   them: each must be a single assignment of a string literal (``source = r\"\"\"...\"\"\"``),
   read with :func:`ast.literal_eval`. Anything else in the cell is refused with a message
   naming the cell and what to fix (:class:`AnswerError`). No other student cell is ever run.
2. :func:`score_answer` builds a program from the instructor notebook's *trusted* cells only
   (the locked setup cells and every grade cell, hidden tests included), puts the answer
   string where the answer cell was, and runs it in a fresh interpreter (``python -I -B``)
   in a temporary folder that holds only a read-only copy of ``barrier_course`` and
   ``simcore`` (the only course code on its path), with limits on CPU time, memory, file size, wall-clock time,
   output bytes and source size (:class:`Limits`). A hung or hostile answer costs at most its
   limit; the scores of the cells that finished before a limit hit are kept.

The cells are read as typed steps by :mod:`barrier_course.grading.exercise_notebook`. To grade a
class, :class:`barrier_course.grading.pool.GradingPool` gives the same scores with the
interpreter start, the imports and the setup cells paid once per exercise: each answer runs in
a process forked from a warm interpreter, under the same limits; its ``score_answers`` grades
several answers of one exercise that way (the tests' and the audit's batch mode).

The result (:class:`AnswerScore`) has, per grade cell, the points earned and possible, what
the cell printed, and the failure message; and the total. ``nbgrader autograde``
(:mod:`barrier_course.nbgrader.isolation`) and ``tasks.py grade`` both go through here.

Macro expansion: the grading interpreter runs simcore's preprocessor on each answer with
``Limits.macro_expansion_chars`` as its ``max_expansion`` before any cell that uses it; the
preprocessor counts expansion as it makes the text, so a macro bomb stops at the limit (inside
the limited child, never in the grader's own process) and the answer is refused with the
preprocessor's message, which names the macro and the line.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Mapping

__all__ = [
    "Limits",
    "CellScore",
    "AnswerScore",
    "AnswerError",
    "TrustedProgram",
    "SetupStep",
    "AnswerStep",
    "GradeStep",
    "trusted_program",
    "extract_answers",
    "extract_answer",
    "score_answer",
    "score_submission",
    "runner_settings",
    "answer_refusal",
    "refused_score",
    "collect_score",
    "copy_packages",
    "make_writable",
    "grading_environment",
    "interpreter_limits",
    "gpu_possible",
    "NOT_DONE",
]

from .exercise_notebook import (STUB_MARKER, AnswerError, AnswerStep, GradeStep, SetupStep,
                                TrustedProgram, cell_source, load_notebook, nbgrader_meta,
                                string_assignment, trusted_program)

NOT_DONE = "Exercise not done yet"


@dataclass(frozen=True)
class Limits:
    """What one graded submission may cost. Defaults are stated in the README."""

    cpu_s: int = 300             # CPU seconds of the grading interpreter (RLIMIT_CPU)
    wall_s: float = 420.0        # wall-clock seconds before the interpreter is killed
    memory_mb: int = 3072        # address space of the grading interpreter (RLIMIT_AS)
    output_bytes: int = 20_000   # what one cell may print; the rest is cut with a note
    output_lines: int = 400      # lines one cell may print (nbgrader itself keeps 1000)
    source_bytes: int = 65_536   # length of one answer string
    macro_expansion_chars: int = 1 << 20  # characters the answer's macros may expand to
    file_bytes: int = 16 << 20   # largest file the interpreter may write (RLIMIT_FSIZE)


@dataclass
class CellScore:
    """One grade cell: points, what it printed, and why it failed (None when it passed)."""

    grade_id: str
    points: float
    max_points: float
    status: str                  # "passed", "failed", "not done", "timeout", "refused", "error"
    output: str = ""             # what the cell printed (stdout and stderr, cut at the limit)
    error: str | None = None     # the failure message the student reads
    error_name: str | None = None  # the exception's class name, e.g. "AssertionError"
    seconds: float = 0.0


@dataclass
class AnswerScore:
    """The grade of one answer: per grade cell, and the total."""

    cells: list = field(default_factory=list)  # [CellScore] in notebook order
    timed_out: bool = False
    fault: str | None = None   # a problem of the whole run (limit hit, refused answer, setup)
    wall_s: float = 0.0

    @property
    def total(self) -> float:
        return float(sum(c.points for c in self.cells))

    @property
    def possible(self) -> float:
        return float(sum(c.max_points for c in self.cells))

    def by_id(self) -> dict:
        return {c.grade_id: c for c in self.cells}

    @classmethod
    def from_dict(cls, data: Mapping) -> "AnswerScore":
        """The inverse of :meth:`to_dict` (for scores saved as JSON)."""
        names = set(CellScore.__dataclass_fields__)
        cells = [CellScore(**{k: v for k, v in c.items() if k in names}) for c in data["cells"]]
        return cls(cells=cells, timed_out=bool(data.get("timed_out")), fault=data.get("fault"),
                   wall_s=float(data.get("wall_s", 0.0)))

    def to_dict(self) -> dict:
        return {"cells": [asdict(c) for c in self.cells], "timed_out": self.timed_out,
                "fault": self.fault, "wall_s": self.wall_s, "total": self.total,
                "possible": self.possible}


# --------------------------------------------------------------------------------------------
# reading the answer from a submission


def extract_answers(submitted_nb, instructor_nb) -> dict:
    """{variable name: answer string} from the submitted notebook, without running anything.

    The answer cells are found by their nbgrader ``grade_id`` (the one the instructor
    notebook gives them). Raises :class:`AnswerError` naming the cell and what to fix.
    """
    program = trusted_program(instructor_nb)
    sub = load_notebook(submitted_nb)
    by_id = {}
    for cell in sub.get("cells", []):
        gid = nbgrader_meta(cell).get("grade_id")
        if gid in program.answer_cells and cell.get("cell_type") == "code":
            by_id.setdefault(gid, cell)
    answers = {}
    for gid, name in program.answer_cells.items():
        if gid not in by_id:
            raise AnswerError(f"The answer cell '{gid}' is missing from the notebook (deleted, "
                              "or its nbgrader metadata was changed). Copy it back from the "
                              "released exercise and put your kernel in it.")
        got_name, value = string_assignment(cell_source(by_id[gid]), gid)
        if got_name != name:
            raise AnswerError(f"The cell '{gid}' must assign the kernel source to '{name}', "
                              f"not to '{got_name}'.")
        answers[name] = value
    return answers


def extract_answer(submitted_nb, instructor_nb) -> str:
    """The single answer string (see :func:`extract_answers`)."""
    answers = extract_answers(submitted_nb, instructor_nb)
    if len(answers) != 1:
        raise ValueError(f"the exercise has {len(answers)} answer cells; use extract_answers")
    return next(iter(answers.values()))


# --------------------------------------------------------------------------------------------
# running the trusted program in a fresh, limited interpreter


GRADING_PACKAGES = ("barrier_course", "simcore")


def copy_packages(dest: Path) -> str:
    """A read-only copy of the course's packages for the child to import (and nothing else
    of the repository on its path); returns the folder to put on sys.path."""
    import importlib.util  # noqa: PLC0415
    import shutil  # noqa: PLC0415
    import stat  # noqa: PLC0415

    dest.mkdir()
    for name in GRADING_PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.origin:
            continue
        shutil.copytree(Path(spec.origin).resolve().parent, dest / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for path in sorted(dest.rglob("*"), reverse=True):
        mode = path.stat().st_mode
        path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    return str(dest)


def make_writable(folder: Path) -> None:
    """Undo copy_packages' chmod so that the temporary folder can be removed."""
    import stat  # noqa: PLC0415

    for path in [folder, *folder.rglob("*")]:
        if path.is_dir() and not path.is_symlink():
            path.chmod(path.stat().st_mode | stat.S_IWUSR)


def grading_environment(home: str) -> dict:
    keep = ("PATH", "LANG", "LC_ALL", "BARRIER_COURSE_NO_GPU", "CUDA_VISIBLE_DEVICES",
            "CUDA_PATH", "CUDA_HOME", "LD_LIBRARY_PATH", "SYSTEMROOT")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env.update({"HOME": home, "TMPDIR": home, "PYTHONDONTWRITEBYTECODE": "1",
                "PYTHONIOENCODING": "utf-8", "MPLBACKEND": "Agg",
                "BARRIER_COURSE_GRADING": "1",
                "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"})
    return env


def gpu_possible() -> bool:
    """Can the grading interpreter reach a GPU (CuPy installed, GPU runs not turned off)?"""
    if os.environ.get("BARRIER_COURSE_NO_GPU"):
        return False
    import importlib.util  # noqa: PLC0415

    return importlib.util.find_spec("cupy") is not None


def interpreter_limits(limits: Limits, gpu_may_run: bool = False):
    """Resource limits, set in the child between fork and exec.

    Memory: RLIMIT_AS (all address space) normally. The CUDA driver reserves far more address
    space than it uses, so where CuPy may run the limit is RLIMIT_DATA instead (private
    writable memory: numpy arrays, Python objects), which leaves the GPU usable.
    """
    def apply():  # runs in the child between fork and exec
        try:
            import resource  # noqa: PLC0415
        except ImportError:  # pragma: no cover - not POSIX
            return
        memory = resource.RLIMIT_DATA if gpu_may_run else resource.RLIMIT_AS
        for res, value in ((resource.RLIMIT_CPU, int(limits.cpu_s)),
                           (memory, int(limits.memory_mb) << 20),
                           (resource.RLIMIT_FSIZE, int(limits.file_bytes)),
                           (resource.RLIMIT_CORE, 0)):
            try:
                resource.setrlimit(res, (value, value))
            except (ValueError, OSError):
                pass
    return apply


_BOOT = ("import json,sys;job=json.load(open(sys.argv[1],encoding='utf-8'));"
         "sys.path[:0]=job['paths'];"
         "from barrier_course.grading.autograde_runner import main;main(job)")


def runner_settings(limits: Limits) -> dict:
    """What the grading interpreter itself enforces, for its job file (every job shape)."""
    return {"output_bytes": limits.output_bytes, "output_lines": limits.output_lines,
            "macro_expansion_chars": limits.macro_expansion_chars}


def refused_score(program: TrustedProgram, status: str, message: str, name: str) -> AnswerScore:
    """The score of an answer refused before running: 0 in every grade cell, with why."""
    cells = [CellScore(g.grade_id, 0.0, g.points, status, error=message, error_name=name)
             for g in program.grade_cells]
    return AnswerScore(cells=cells, fault=None if status == "not done" else message)


def answer_refusal(answers: Mapping, limits: Limits) -> tuple | None:
    """(status, message, exception name) when the answers are refused before running."""
    for name, value in answers.items():
        if not isinstance(value, str):
            return ("refused", f"The answer '{name}' must be a string of CUDA source, "
                    f"not {type(value).__name__}.", "AnswerError")
        size = len(value.encode("utf-8", "replace"))
        if size > limits.source_bytes:
            return ("refused", f"The kernel source '{name}' is {size} bytes long; the grader "
                    f"accepts at most {limits.source_bytes}. Remove what the kernel does not "
                    "need.", "AnswerError")
    if answers and all(STUB_MARKER in v for v in answers.values()):
        return ("not done", f"{NOT_DONE}: replace the line {STUB_MARKER}(...); in the answer "
                "cell with your code.", "NotImplementedError")
    return None


def score_answer(notebook_path, source, *, limits: Limits | None = None) -> AnswerScore:
    """Grade one answer against the instructor notebook's trusted cells, in isolation.

    ``notebook_path``: the instructor (source) notebook, or its parsed JSON. ``source``: the
    answer string (CUDA source), or ``{variable name: string}`` for an exercise with several
    answer cells. Never raises for anything in the answer; a run that hits a limit scores 0
    in the cells it did not finish.
    """
    limits = limits or Limits()
    program = trusted_program(notebook_path)
    answers = program.answer_dict(source)
    refusal = answer_refusal(answers, limits)
    if refusal:
        return refused_score(program, *refusal)
    done, returncode, timed_out, log_tail, wall = _run_interpreter(program, {"answers": answers}, limits)
    return collect_score(program, done, returncode, timed_out, log_tail, limits, wall)


def _run_interpreter(program: TrustedProgram, answers_job: dict, limits: Limits) -> tuple:
    """Run the trusted program in a fresh limited interpreter; -> (result dict, exit status,
    timed out, log tail, wall seconds)."""
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="barrier-grade-") as tmp:
        work = Path(tmp)
        job_path = work / "job.json"
        result_path = work / "result.json"
        job = {"paths": [copy_packages(work / "packages")], "steps": program.step_records(),
               **answers_job, "result": str(result_path), **runner_settings(limits)}
        job_path.write_text(json.dumps(job), encoding="utf-8")
        log_path = work / "interpreter.log"
        timed_out = False
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(
                [sys.executable, "-I", "-B", "-c", _BOOT, str(job_path)], cwd=tmp,
                env=grading_environment(tmp), stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                preexec_fn=interpreter_limits(limits, gpu_possible()) if os.name == "posix" else None,
                start_new_session=True)
            try:
                proc.wait(timeout=limits.wall_s)
            except subprocess.TimeoutExpired:
                timed_out = True
                _kill(proc)
        done = {}
        if result_path.exists():
            try:
                done = json.loads(result_path.read_text(encoding="utf-8"))
            except ValueError:
                done = {}
        log_tail = _tail(log_path, 2000)
        make_writable(work / "packages")
        return done, proc.returncode, timed_out, log_tail, time.monotonic() - start


def _kill(proc) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, AttributeError):
        proc.kill()
    proc.wait()


def _tail(path: Path, n: int) -> str:
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    return data[-n:].decode("utf-8", "replace")


def collect_score(program, done, returncode, timed_out, log_tail, limits, wall) -> AnswerScore:
    """The score from what a grading run left: its result file's cells (``done``), its exit
    status, whether the wall-clock limit killed it, and its log's tail (a MemoryError)."""
    if done.get("refused"):    # the grading interpreter refused the answer before using it
        return refused_score(program, "refused", done["refused"], "AnswerError")
    cells_done = {c["grade_id"]: c for c in done.get("cells", [])}
    setup_error = done.get("setup_error")
    fault = None
    if timed_out:
        fault = (f"Grading stopped after {limits.wall_s:g} s (the wall-clock limit): the "
                 "kernel may never finish (a loop that does not end, or a barrier some "
                 "threads never reach).")
    elif returncode not in (0, None) and not setup_error:
        if returncode in (-signal.SIGXCPU, -signal.SIGKILL) or returncode == 152:
            fault = (f"Grading stopped at the CPU-time limit ({limits.cpu_s} s): the kernel "
                     "takes too long to simulate (a loop that does not end?).")
        elif "MemoryError" in log_tail:
            fault = (f"Grading stopped at the memory limit ({limits.memory_mb} MB): the kernel "
                     "needs too much memory to simulate.")
        else:
            fault = f"The grader's interpreter stopped unexpectedly (exit status {returncode})."
    if setup_error:
        fault = "The exercise's setup failed (not your answer's fault): " + setup_error
    cells = []
    for step in program.grade_cells:
        gid, max_points = step.grade_id, step.points
        got = cells_done.get(gid)
        if got is None:
            status = "timeout" if timed_out or (fault and "limit" in fault) else "error"
            cells.append(CellScore(gid, 0.0, max_points, status,
                                   error=fault or "This test did not run.",
                                   error_name="GradingLimit" if status == "timeout" else "GradingError"))
            continue
        points = float(got["points"])
        points = min(max(points, 0.0), max_points)
        cells.append(CellScore(gid, points, max_points, got["status"], got.get("output", ""),
                               got.get("error"), got.get("error_name"), got.get("seconds", 0.0)))
    return AnswerScore(cells=cells, timed_out=timed_out, fault=fault, wall_s=round(wall, 3))


def score_submission(submitted_nb, instructor_nb, *, limits: Limits | None = None) -> AnswerScore:
    """Extract the answer from a submitted notebook and grade it (see :func:`score_answer`).

    An answer cell the grader cannot read scores 0 in every grade cell, with the message
    saying which cell and what to fix.
    """
    program = trusted_program(instructor_nb)
    try:
        answers = extract_answers(submitted_nb, instructor_nb)
    except AnswerError as exc:
        return refused_score(program, "refused", str(exc), "AnswerError")
    return score_answer(instructor_nb, answers, limits=limits)
